"""Every page mine writes, opened in headless Chromium as a reader opens it: each game's
report (from a small table fitted from real or simulated logs) and the standings pages of
an exact and of a sampled tournament. No text over other text, none cut off by its chart
or running out of the page's column, and every report leads with how strong the player
is. The screenshots stay in `test-artifacts/pages/` to look at.
"""

from __future__ import annotations

import html
import re
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mine import games
from mine.pipeline.cli import app
from mine.pipeline.reports import kit
from tests.chromium import Chromium, available
from tests.shared_warehouse import copy_of, examples_warehouse, twentyone_table
from tests.strategies.tournament_players import faulty

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "pages"

# How each game's small table is made: the commands before `mine report`, then the report's
# own options. `{db}` is the game's warehouse, `{out}` its folder, `{table}` the table.
RECIPES = {
    "hog": (
        ("simulate", "hog", "--players", "square_strategy,tail_strategy", "--opponent",
         "always_roll:6", "--games", "100", "--seed", "0", "--out", "{out}/logs"),
        ("ingest", "{out}/logs", "--db", "{db}"),
        ("fit", "hog", "--db", "{db}", "--opponent", "always_roll:6", "--out", "{table}"),
    ),
    # real course-engine logs: the session's warehouse of the example logs (`mine ingest
    # examples/logs`, see EXAMPLES_WAREHOUSE) and its `mine fit twentyone`, made once
    "twentyone": (),
    "ginrummy": (  # real server logs, in the same warehouse of the example logs
        ("fit", "ginrummy", "--db", "{db}", "--out", "{table}"),
    ),
    "supernim": (
        ("simulate", "supernim", "--games", "6", "--seed", "1", "--players",
         "random,greedy,alphabeta:1", "--out", "{out}/logs"),
        ("ingest", "{out}/logs", "--db", "{db}"),
        ("fit", "supernim", "--db", "{db}", "--out", "{table}"),
    ),
    "cardguess": (
        ("simulate", "cardguess", "--games", "60", "--seed", "1", "--out", "{out}/logs"),
        ("ingest", "{out}/logs", "--db", "{db}"),
        ("fit", "cardguess", "--db", "{db}", "--quick", "--n", "2", "--out", "{table}"),
    ),
}  # fmt: skip
# The report's own options: the games its player is measured in, few to keep the test short.
REPORT_OPTIONS = {"ginrummy": ("--games", "2"), "supernim": ("--games", "4"),
                  "twentyone": ("--hands", "20000")}  # fmt: skip
EXAMPLES_WAREHOUSE = {"twentyone", "ginrummy"}  # their recipes start from a copy of it
REPORTS = [game.name for game in games.with_part("report")]
STANDINGS = ["standings-exact", "standings-sampled"]
EXACT_OPTIMUM = {"hog", "twentyone"}  # the games whose pages set the exact optimum beside it
SAMPLES = {"games", "hands", "answers"}  # what a strength table counts its sample in


def _run(*args: str, **values: Path) -> None:
    words = [word.format(**values) for word in args]
    result = CliRunner().invoke(app, words, env={"MINE_DB": str(values["db"]), "COLUMNS": "200"})
    assert result.exit_code == 0, f"mine {' '.join(words)}\n{result.output}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """Every page: each game's report with its warehouse, and two standings pages."""
    root = tmp_path_factory.mktemp("pages")
    made = {}
    for game in REPORTS:
        out = root / game
        values = {"out": out, "db": out / "w.duckdb", "table": out / "table.parquet"}
        if game in EXAMPLES_WAREHOUSE:
            copy_of(examples_warehouse(tmp_path_factory), values["db"])
        if game == "twentyone":
            copy_of(twentyone_table(tmp_path_factory), values["table"])
        for command in RECIPES[game]:
            _run(*command, **values)
        report = games.get(game).module("report")
        warehouse = ("--db", "{db}") if hasattr(report, "observed") else ()
        made[game] = out / f"{game}.html"
        _run("report", game, "--table", "{table}", *warehouse, *REPORT_OPTIONS.get(game, ()),
             "--out", str(made[game]), **values)  # fmt: skip
    # An exact tournament (Hog's) with a file whose every play is invalid (11 dice), and a
    # sampled one (card guessing) with a file that raises (invalid plays, each a lost game)
    # and one that loops (disqualified).
    players = root / "players"
    players.mkdir()
    eleven = players / "eleven.py"
    eleven.write_text("def final_strategy(score, opponent_score):\n    return 11\n")
    hog, guesser = players / "hog_player.py", players / "cardguess_player.py"
    values = {"db": root / "none.duckdb"}
    _run("generate", "hog", "--table", str(root / "hog" / "table.parquet"), "--out", str(hog),
         **values)  # fmt: skip
    _run("generate", "cardguess", "--table", str(root / "cardguess" / "table.parquet"),
         "--out", str(guesser), **values)  # fmt: skip
    made["standings-exact"] = root / "standings-exact.html"
    _run("tournament", "hog", str(hog), str(eleven), "--bots", "always_roll:6,random",
         "--html", str(made["standings-exact"]), **values)  # fmt: skip
    raises, loops = (faulty("cardguess", players, how) for how in ("raises", "loops"))
    made["standings-sampled"] = root / "standings-sampled.html"
    result = CliRunner().invoke(app, [
        "tournament", "cardguess", str(guesser), str(raises), str(loops), "--bots",
        "greedy,random-consistent", "--games", "6", "--html", str(made["standings-sampled"]),
    ])  # fmt: skip
    assert result.exit_code == 1 and "disqualified" in result.output, result.output
    return made


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for the module, ended after it."""
    if not available():
        pytest.skip("Chromium is not installed (Debian's chromium package; .ci/run installs it)")
    folder = tmp_path_factory.mktemp("chromium")
    chromium = Chromium(folder / "profile", folder / "chromium.log")
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def measured(pages, browser) -> dict[str, dict]:
    """What the browser finds on each page; its screenshot kept as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return {name: browser.measure(path, ARTIFACTS / f"{name}.png") for name, path in pages.items()}


def test_every_game_with_a_report_has_a_recipe():
    assert set(RECIPES) == set(REPORTS)


@pytest.mark.parametrize("name", REPORTS + STANDINGS)
def test_no_text_overlaps_or_runs_out_of_its_box(name, measured):
    problems = measured[name]["problems"]
    assert not problems, f"{name} ({ARTIFACTS / name}.png):\n" + "\n".join(problems)


@pytest.mark.parametrize("game", REPORTS)
def test_every_report_leads_with_how_strong_the_player_is(game, measured):
    page = measured[game]
    assert page["sections"][0] == "strength", page["sections"]
    strength = page["strength"]
    assert strength["rows"] >= 2  # the player against more than one opponent
    headings = set(strength["headings"])
    assert {"against", "95 % interval"} <= headings and headings & SAMPLES
    assert ("exact optimum" in headings) == (game in EXACT_OPTIMUM)


# What each page sets its logs' player against, the figure that decides there, and the
# opponents the recipe's logs show (the weakest first, by the figure).
AGAINST = {
    "hog": ("win rate", "games", 2),  # always_roll:6 against square and tail
    "supernim": ("mean final margin", "games", 2),  # alphabeta_1 (first by name of three)
    "ginrummy": ("win rate", "games", 1),  # real server logs: the opponents are unnamed
    "twentyone": ("lead a round (points)", "rounds", 7),  # id 3 against the others at its tables
    "cardguess": ("mean guesses", "games", 1),  # the one guesser the recipe simulates
}


@pytest.mark.parametrize("game", REPORTS)
def test_every_report_sets_the_logs_player_against_each_opponent_with_intervals(game, measured):
    against = measured[game]["against"]
    assert against and against["height"] > 0, measured[game]["sections"]
    figure, sample, opponents = AGAINST[game]
    assert against["headings"][:4] == ["against", figure, "95 % interval", sample]
    assert len(against["rows"]) == opponents and against["bars"] == opponents
    values = []
    for row in against["rows"]:
        low, high = (float(end.replace(",", "")) for end in row[2].split(" … "))
        values.append(float(row[1].replace(",", "")))
        assert low <= values[-1] <= high and low < high, row
    # the weakest matchup first: fewer guesses is better, elsewhere more is
    assert values == sorted(values, reverse=game == "cardguess")


def test_the_twentyone_page_marks_play_by_the_count_and_labels_the_clamped_counts(pages):
    text = html.unescape(pages["twentyone"].read_text())
    strategy = text[text.index('<section id="strategy">') :]
    strategy = strategy[: strategy.index("</section>")]
    # the fit from real logs plays some cells by the count: they are marked and the key says so
    assert strategy.count('fill="#000000" pointer-events="none"') > 0
    assert "played otherwise at some true count" in strategy
    assert "no decision" not in strategy  # every cell of the chart is a decision
    assert "≤ " in text and "≥ " in text  # the clamped ends of the true count


def test_the_supernim_page_draws_both_sides_wins_and_states_the_fit(pages):
    text = html.unescape(pages["supernim"].read_text())
    chart = text[text.index("<figcaption>Rates by pairing</figcaption>") :]
    chart = chart[: chart.index("</figure>")]
    assert ">max wins<" in chart and ">min wins<" in chart
    assert re.search(r"its mean error against the exact value is \d+\.\d\d with a 2-heap", text)
    # the sample said, and how sure it is
    assert "4 games against each of random, greedy and alphabeta:2: the intervals are wide" in text


def test_the_cardguess_page_explains_the_feedback_and_compares_with_the_baselines(pages):
    text = html.unescape(pages["cardguess"].read_text())
    assert "correct cards, answer cards ranked below the guess's lowest rank" in text
    strength = _section(text, "strength")
    assert "Fewer guesses is better." in strength and "lower is better" in strength
    # one axis, guesses: the player's mean and each baseline's on the same answers
    rows = _table(strength, "The player's mean guesses")
    assert [row["against"] for row in rows] == ["n = 2: the player", "n = 2: greedy",
                                                "n = 2: entropy"]  # fmt: skip
    means = {row["against"].split(": ")[1]: float(row["mean guesses"]) for row in rows}
    # the differences, drawn apart: the player's mean minus each baseline's
    differences = _figure(strength, "differences")
    found = dict(re.findall(r"<title>n = 2: the player − (\w+): ([-+\d.]+)", differences))
    assert set(found) == {"greedy", "entropy"}
    for name, difference in found.items():
        assert float(difference) == pytest.approx(means["the player"] - means[name], abs=2e-4)
    guesses = _figure(strength, "", "Mean guesses: the player and each baseline")
    assert "−" not in guesses and "difference" not in guesses  # no differences on this axis


def test_the_supernim_page_leads_with_the_exact_value(pages):
    text = html.unescape(pages["supernim"].read_text())
    strength = _section(text, "strength")
    # its first figure: the final margin against the exact value of each start, not win rates
    first = re.search(r"<figcaption>(.*?)</figcaption>", strength).group(1)
    assert first == "The player's final margin minus the exact value"
    rows = _table(strength, first)
    assert [row["against"] for row in rows] == ["random", "greedy", "alphabeta:2"]
    assert all(re.fullmatch(r"[+-]\d+\.\d{3}", row[MARGIN]) for row in rows)
    assert "win rate" not in rows[0] and "dashed" not in first
    assert strength.index("exact value") < strength.index("win rate is no yardstick")


@pytest.mark.parametrize("colour, meaning", [(kit.LOSS, "loss"), (kit.WIN, "win")])
def test_red_is_a_loss_and_green_a_win_on_every_page(colour, meaning, pages):
    shown = 0
    for game in REPORTS:
        text = html.unescape(pages[game].read_text())
        for found in re.finditer(colour, text):
            # the mark's own tooltip, or the legend's name beside its swatch
            named = re.search(r"<(title|text)[^>]*>([^<]*)</\1>", text[found.end() :])
            assert named and meaning in named.group(2), (game, text[found.start() - 200 :][:600])
            shown += 1
    assert shown  # the Super-Nim page draws its player's wins and losses


def test_the_twentyone_page_keeps_exact_sampled_and_leads_apart(pages):
    text = html.unescape(pages["twentyone"].read_text())
    strength = _section(text, "strength")
    rows = _table(strength, "The player's return per hand (unit bid)")
    assert [row["against"] for row in rows] == ["the dealer (exact, infinite deck)",
                                                "the dealer (3 decks, played)"]  # fmt: skip
    exact, played = rows
    assert exact["95 % interval"] == "exact" and exact["exact optimum"] != "–"
    assert played["exact optimum"] == "–" and played["hands"] == "20,000"  # sampled: none
    assert not re.fullmatch(r"[+-]?0\.0+", exact["short of it by"])  # no "short by 0.0000"
    returns = _figure(strength, "", "The player's return per hand (unit bid) against")
    assert "textbook" not in returns  # the returns against the dealer, on their own
    leads = _figure(strength, "leads")
    assert re.search(r"<title>textbook: [-+]\d\.\d{4} \(95 % interval ", leads)
    # the bid table: one row per run of counts with the same bid
    bids = [row["bid"] for row in _table(text, BID_TABLE)]
    assert bids and all(a != b for a, b in pairwise(bids))
    # insurance as a table, one row per kind of two-card hand
    insurance = _table(text, "Insurance by the player's two cards")
    assert [row["hand"] for row in insurance] == ["hard total", "soft total", "pair"]
    # the logs' results by true count, each with its interval
    counts = _figure(text, "count-results")
    points = re.findall(r"<circle[^>]*><title>([^<]*)</title>", counts)
    assert len(points) >= 5 and all("95 % interval" in p for p in points)


def test_the_ginrummy_page_summarises_knocks_with_intervals(pages):
    text = html.unescape(pages["ginrummy"].read_text())
    knocks = _section(text, "knocks-by-deadwood")
    rows = _table(knocks, "Knocks by source")
    assert 1 <= len(rows) <= 3 and all(re.fullmatch(r"0\.\d{3} … [01]\.\d{3}",
                                                    row["95 % interval"]) for row in rows)  # fmt: skip
    assert "<figcaption>Knocks</figcaption>" not in knocks  # no raw dump of every row
    counts = _figure(knocks, "knock-counts")
    total = sum(int(n) for n in re.findall(r"<title>[^<]*: (\d+)</title>", counts))
    assert total == sum(int(row["knocks"].replace(",", "")) for row in rows)
    undercuts = _figure(knocks, "undercuts")
    assert undercuts.count('stroke="#333"') >= 1  # whiskers: the 95 % intervals
    assert "95 % interval" in undercuts


def test_the_exact_standings_say_exact_and_count_the_invalid_games(pages, measured):
    text = pages["standings-exact"].read_text()
    assert measured["standings-exact"]["sections"][:2] == ["standings", "pairings"]
    standings, pairings = _table(text, "Standings"), _table(text, "Pairings")
    assert all(re.fullmatch(r"\d+", row["rating"]) for row in standings)  # no ± on exact
    eleven = next(row for row in standings if row["player"].endswith("eleven.py"))
    assert eleven["rating"] != "disqualified" and eleven["invalid"] == "300"  # 3 pairings lost
    assert all(set(row) == {"A", "B", "A score (exact)", "invalid A/B"} for row in pairings)


def test_the_sampled_standings_draw_each_rating_with_its_interval(pages, measured):
    text = pages["standings-sampled"].read_text()
    start = text.index('id="ratings"')
    ratings = text[start : text.index("</figure>", start)]
    standings = _table(text, "Standings")
    rated = [row for row in standings if row["rating"] != "disqualified"]
    assert len(rated) == 4 and ratings.count("<path") == len(rated)  # one error bar each
    assert all(re.fullmatch(r"\d+ ± \d+", row["rating"]) for row in rated)
    raises = next(row for row in standings if row["player"].endswith("cardguess_raises.py"))
    assert raises["invalid"] == raises["games"] != "0"  # every game lost by an invalid play
    (out,) = [row for row in standings if row["rating"] == "disqualified"]
    assert out["player"].endswith("cardguess_loops.py") and out["invalid"] == "–"
    assert "ran over" in out["disqualified"]


MARGIN = "final margin minus the exact value"
BID_TABLE = "Bid table (neighbouring counts with the same bid in one row)"


def _section(text: str, ident: str) -> str:
    start = text.index(f'<section id="{ident}">')
    return text[start : text.index("</section>", start)]


def _figure(text: str, ident: str, caption: str = "") -> str:
    """The figure whose id is `ident` (or whose caption starts with `caption`)."""
    start = text.index(f'id="{ident}"') if ident else text.index(f"<figcaption>{caption}")
    return text[start : text.index("</figure>", start)]


def _table(text: str, caption: str) -> list[dict[str, str]]:
    """The rows of the page's table `caption`, by heading."""
    table = text[text.index(f"<figcaption>{caption}</figcaption>") :]
    table = table[: table.index("</table>")]
    headings = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", table)]
    return [
        dict(zip(headings, (html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)),
                 strict=True))
        for row in table[table.index("<tbody>") :].split("<tr>")[1:]
    ]  # fmt: skip
