"""`mine validate ginrummy`: the figures it reports, their determinism, and its errors."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from mine.pipeline.cli import app
from mine.strategies.codegen import ginrummy as codegen
from mine.strategies.engines.ginrummy import GinRummyRules
from mine.strategies.intervals import wilson
from mine.strategies.validation import ginrummy as validating
from tests.mine_cli import here, one_line_error
from tests.strategies.test_ginrummy_codegen import FITTED, METADATA

FIELDS = {
    "games", "wins", "win_rate", "win_ci", "rounds", "points_per_round", "gin_rate",
    "knock_rate", "undercut_rate", "undercuts_made", "stockout_rate", "invalid",
    "invalid_reasons", "opponent_invalid", "calls", "p99_call_ms", "max_call_ms",
    "p99_call_cpu_ms", "max_call_cpu_ms",
}  # fmt: skip


@pytest.fixture(scope="module")
def player(tmp_path_factory):
    path = tmp_path_factory.mktemp("v") / "player.py"
    path.write_text(codegen.module_source(FITTED, None), encoding="utf-8")
    return path


def test_validation_json_fields(player):
    result = CliRunner().invoke(
        app, ["validate", "ginrummy", str(player), "--games", "4", "--baselines", "simple,random",
              "--workers", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games"] == 4 and set(report["against"]) == {"simple", "random"}
    for figures in report["against"].values():
        assert set(figures) == FIELDS
        assert figures["games"] == 4 and figures["invalid"] == 0
        low, high = figures["win_ci"]
        assert 0 <= low <= figures["win_rate"] <= high <= 1
        assert figures["calls"] > 0 and figures["p99_call_ms"] > 0


def test_validation_table_has_a_column_per_baseline_with_its_figures(player):
    args = ["validate", "ginrummy", str(player), "--games", "3", "--baselines", "simple,random",
            "--workers", "1", "--seed", "2"]  # fmt: skip
    text = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    figures = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)["against"]
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert all(len(line) <= 80 for line in lines)
    header = next(line for line in lines if "vs" in line and "simple" in line)
    assert header.index("simple") < header.index("random")
    won = next(line for line in lines if "games won" in line)
    shown = re.findall(r"\d\.\d{3}", won)
    assert shown == [f"{figures[n]['win_rate']:.3f}" for n in ("simple", "random")]


def test_results_do_not_depend_on_the_number_of_workers(player):
    one = validating.validate(player, opponents=["simple"], games=4, seed=3, workers=1)["against"][
        "simple"
    ]
    two = validating.validate(player, opponents=["simple"], games=4, seed=3, workers=2)["against"][
        "simple"
    ]
    timing = {"p99_call_ms", "max_call_ms", "p99_call_cpu_ms", "max_call_cpu_ms"}
    assert {k: v for k, v in one.items() if k not in timing} == {
        k: v for k, v in two.items() if k not in timing
    }


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(600, 1000)
    assert low == pytest.approx(0.569, abs=1e-3) and high == pytest.approx(0.630, abs=1e-3)


def test_bad_player_files_are_one_line_errors(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def pick(:\n")
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    for path, words in ((tmp_path / "none.py", "no such file"), (broken, "cannot load"),
                        (empty, "defines no pick, play, melds")):  # fmt: skip
        assert words in one_line_error(here("validate", "ginrummy", path, "--games", 1), code=1)


def test_validation_plays_under_the_rules_given(player):
    short = validating.validate(
        player, GinRummyRules(game_target=20), opponents=["simple"], games=3, seed=2, workers=1
    )
    assert short["rules"] == {"game_target": 20}
    short = short["against"]["simple"]
    full = validating.validate(player, opponents=["simple"], games=3, seed=2, workers=1)["against"][
        "simple"
    ]
    assert short["games"] == full["games"] == 3
    assert short["rounds"] < full["rounds"]
    bad = CliRunner().invoke(app, ["validate", "ginrummy", str(player), "--rules", "nope=1"])
    assert bad.exit_code == 1 and "bad rule 'nope'" in bad.output


def test_the_docstring_names_the_rules_its_figures_were_measured_under():
    figures = {"simple": {"win_rate": 0.5, "win_ci": [0.4, 0.6], "games": 10, "invalid": 0,
                          "points_per_round": 1.0}}  # fmt: skip
    default = codegen.docstring(METADATA, {"against": figures})
    assert "full games to 100, seats alternating):" in default
    assert default == codegen.docstring(METADATA, {"against": figures, "rules": {}})
    changed = codegen.docstring(
        METADATA, {"against": figures, "rules": {"game_target": 50, "knock_limit": 5}}
    )
    assert "full games to 50, seats alternating; rules: game_target=50, knock_limit=5):" in changed


def test_check_measures_the_file_against_simple_for_its_docstring(player):
    card = validating.check(player, FITTED, games=2, seed=4, workers=1)
    assert card["rules"] == {} and set(card["against"]) == {"simple"}
    assert card["against"]["simple"]["games"] == 2 and validating.failure(card) is None
    doc = codegen.docstring(METADATA, card)
    assert "vs simple: win" in doc and "2 games, 0 invalid" in doc


def test_failure_names_the_files_invalid_plays(tmp_path):
    cheat = tmp_path / "cheat.py"  # always throws the card it just drew
    cheat.write_text(
        "def pick(top, scores, memory, draw, hand):\n    return 'stock', ''\n"
        "def play(picked, scores, memory, hand):\n    return ('drop', picked), ''\n"
        "def melds(scores, memory, hand):\n    return [(card,) for card in hand]\n"
    )
    card = validating.validate(cheat, opponents=["simple", "random"], games=2, workers=1)
    assert [f["invalid"] for f in card["against"].values()] == [2, 2]
    assert validating.failure({"player": str(cheat), **card}) == (
        f"{cheat}: 4 invalid plays against simple, random: Cannot play the last drawn card"
    )


def test_a_file_that_raises_at_every_first_call_is_one_line_with_its_figures(tmp_path):
    """No call of it is timed (a call that raises is not): its call times are 0, not a
    traceback of numpy's percentile of nothing (as it was)."""
    boom = tmp_path / "boom.py"
    boom.write_text("def pick(*args):\n    raise ValueError('boom')\n"
                    "def play(*args):\n    raise ValueError('boom')\n"
                    "def melds(*args):\n    return []\n")  # fmt: skip
    result = here("validate", "ginrummy", boom, "--games", 2, "--baselines", "random",
                  "--workers", 1, "--json")  # fmt: skip
    line = one_line_error(result, code=1)
    assert line == f"error: {boom}: 2 invalid plays against random: player raised ValueError: boom"
    figures = json.loads(result.stdout)["against"]["random"]
    assert (figures["invalid"], figures["p99_call_cpu_ms"], figures["max_call_cpu_ms"]) == (2, 0, 0)


def test_baselines_as_the_command_line_gives_them_with_progress_per_baseline(player):
    seen = []
    card = validating.validate(player, opponents=" simple, random ", games=2, seed=1,
                               workers=1, progress=lambda *done: seen.append(done))  # fmt: skip
    assert (card["games"], card["seed"], list(card["against"])) == (2, 1, ["simple", "random"])
    assert seen[-1] == ("random", 2, 2) and ("simple", 2, 2) in seen
    # No games, no match: the file is loaded and nothing is measured (`generate --games 0`).
    assert validating.check(player, FITTED, games=0)["against"] == {}
    with pytest.raises(ValueError, match="unknown bot 'nosuch'"):
        validating.validate(player, opponents="simple,nosuch", games=1)
