"""`mine tournament <game>` and `mine validate <game> --against` through the entry point a
user runs: JSON alone on stdout and the same bytes for the same seed, a faulty entrant
reported in one line with the rest of the results, an escaped standings page, and bad
inputs."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.mine_cli import here, one_line_error
from tests.strategies.tournament_players import faulty, generated


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("cli_players")


def _without_timings(text: str) -> str:
    result = json.loads(text)
    assert set(result["timings"]) >= {"loading"}
    del result["timings"]
    return json.dumps(result)


def test_the_same_seed_gives_the_same_json_and_another_seed_other_games(folder):
    player = generated("cardguess", folder)
    args = ("tournament", "cardguess", player, "--bots", "random-consistent,first-consistent",
            "--games", "6", "--json")  # fmt: skip
    first, second = here(*args, "--seed", "3"), here(*args, "--seed", "3", "--workers", "2")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert _without_timings(first.stdout) == _without_timings(second.stdout)
    result = json.loads(first.stdout)
    assert [row["rank"] for row in result["standings"]] == [1, 2, 3]
    assert {p["a"] + " v " + p["b"] for p in result["pairings"]} == {
        f"{player} v random-consistent",
        f"{player} v first-consistent",
        "random-consistent v first-consistent",
    }
    other = here(*args, "--seed", "4")
    assert _without_timings(other.stdout) != _without_timings(first.stdout)


def test_a_terminal_table_and_an_escaped_standings_page(folder, tmp_path):
    player = tmp_path / "<b>&me.py"
    shutil.copy(generated("hog", folder), player)
    page = tmp_path / "standings.html"
    result = here("tournament", "hog", player, "--bots", "always_roll:6,random",
                  "--rules", "goal=40", "--html", page)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "rank" in result.stdout and "always_roll:6" in result.stdout
    assert "exact win probabilities" in result.stdout
    text = page.read_text()
    assert "<b>&me" not in text and "&lt;b&gt;&amp;me.py" in text
    assert "Standings" in text and "Pairings" in text


def test_a_file_that_loops_is_disqualified_in_one_line_and_the_rest_still_prints(folder, tmp_path):
    good, bad = generated("hog", folder), faulty("hog", folder, "loops")
    page = tmp_path / "standings.html"
    result = here("tournament", "hog", good, bad, "--bots", "always_roll:6", "--rules",
                  "goal=40", "--json", "--html", page)  # fmt: skip
    line = one_line_error(result, code=1)
    assert f"{bad}: disqualified, final_strategy() ran over its 1 s limit" in line
    printed = json.loads(result.stdout)
    standings = printed["standings"]
    assert [row["name"] for row in standings][-1] == str(bad)
    assert standings[0]["rating"] is not None and standings[-1]["rating"] is None
    played = next(p for p in printed["pairings"] if "void" not in p)
    text = page.read_text()  # the page shows the played pairing's figures beside void ones
    assert printed["html"] == str(page) and f"disqualified: {bad}" in text
    rows = text[text.index("<figcaption>Pairings") :].split("<tr>")
    row = next(r for r in rows if "always_roll:6" in r and str(good) in r)
    assert f"<td class=num>{played['a_score_rate']:.4f}</td>" in row  # exact: 4 places


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--bots", "greedy"), 2, "at least two entrants"),
        (("--bots", "greedy,clever"), 2, "unknown guesser 'clever'"),
        (("--bots", "greedy,entropy", "--games", "0"), 2, "--games"),
        (("--bots", "greedy,entropy", "--games", "3"), 2, "even number"),
        (("missing.py", "--bots", "greedy"), 1, "missing.py: no such file"),
        ((".", "--bots", "greedy"), 1, "error: .: not a file"),
    ],
    ids=["one entrant", "unknown bot", "no games", "odd games", "missing file", "a folder"],
)
def test_bad_inputs_are_one_line(args, code, message, tmp_path):
    result = here("tournament", "cardguess", *args, cwd=tmp_path)
    assert message in one_line_error(result, code=code)


AGAINST = {  # game: (options for a quick measure, where the head-to-head figure is)
    "hog": (("--rules", "goal=40"), lambda r, b: r["against"][b]["average"]),
    "supernim": (("--games", "4", "--baselines", "random", "--equal-depth", "0"),
                 lambda r, b: r["against"][b]["draw"]["mean"] + r["against"][b]["win"]["mean"]),
    "ginrummy": (("--games", "2", "--baselines", "random", "--rules", "game_target=30",
                  "--workers", "1"), lambda r, b: r["against"][b]["win_rate"]),
    # charlie_cards=3: hands end at 3 cards, so the exact 3-deck optimum every measure
    # solves is a shallow search (0.8 CPU s, 6.4 at 5 cards); the pair plays as before
    "twentyone": (("--hands", "1000", "--shoe-hands", "0", "--games", "2", "--rules",
                   "rounds=20", "--rules", "charlie_cards=3"),
                  lambda r, b: r["against"]["games"]["a_score_rate"]),
    "cardguess": (("--n", "2", "--answers", "20", "--baselines", "first-consistent"),
                  lambda r, b: r["sizes"]["2"]["compared"]["paired"]["mean_difference"]),
}  # fmt: skip


@pytest.mark.parametrize("game", list(AGAINST))
def test_validate_against_another_file(game, folder, tmp_path):
    player = generated(game, folder)
    other = tmp_path / "other.py"
    shutil.copy(player, other)
    options, figure = AGAINST[game]
    result = here("validate", game, player, "--against", other, *options, "--json")
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    value = figure(card, str(other))
    if game == "hog":  # a copy of itself: exactly even
        assert value == pytest.approx(0.5, abs=1e-12)
    elif game == "cardguess":  # the same guesser on the same answers: no difference
        assert value == 0
    else:
        assert 0 <= value <= 1


def test_validate_against_a_faulty_file_names_that_file(folder):
    result = here("validate", "hog", generated("hog", folder), "--against",
                  faulty("hog", folder, "raises"))  # fmt: skip
    line = one_line_error(result, code=1)
    assert f"{folder / 'hog_raises.py'}: raised ValueError: boom in final_strategy()" in line


@pytest.mark.parametrize(("game", "invalid"), [("supernim", "opponent_invalid_moves"),
                                               ("ginrummy", "opponent_invalid")])  # fmt: skip
def test_validate_against_a_file_that_plays_invalidly_says_whose_plays_they_were(
    game, invalid, folder
):
    """Every game won, each by the other file's invalid play: the card says so, apart from
    the player's own invalid plays."""
    options, _ = AGAINST[game]
    other = str(faulty(game, folder, "raises"))
    result = here("validate", game, generated(game, folder), "--against", other, *options,
                  "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)["against"][other]
    assert figures[invalid] == figures["games"] > 0
    own = "invalid_moves" if game == "supernim" else "invalid"
    assert figures[own] == 0
