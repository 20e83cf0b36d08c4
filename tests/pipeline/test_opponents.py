"""Each report's "Against each opponent": the figures the stats layer gives (and the page
draws, with their intervals, the weakest matchup first) held to counts taken straight from
the CSV logs with the csv module, for every game: real course-engine TwentyOne logs, real
Gin Rummy server logs beside a small simulation, and small simulations of Hog, Super-Nim
and card guessing, each ingested into a real warehouse."""

from __future__ import annotations

import csv
import re
import statistics
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mine.pipeline.cli import app
from mine.pipeline.reports import cardguess as cardguess_page
from mine.pipeline.reports import ginrummy as ginrummy_page
from mine.pipeline.reports import hog as hog_page
from mine.pipeline.reports import supernim as supernim_page
from mine.pipeline.reports import twentyone as twentyone_page
from mine.pipeline.stats import cardguess, ginrummy, hog, opponents, supernim
from mine.pipeline.stats import twentyone_players as twentyone
from mine.strategies.intervals import normal_mean, wilson
from mine.warehouse.connection import connect
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE, ingested
from tests.pipeline.test_pages_render import _table as page_table

START = 10_000  # every player's points before the first round in the real TwentyOne logs


def _simulate(out: Path, *args: str) -> Path:
    result = CliRunner().invoke(app, ["simulate", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("opponents")


def _warehouse(root: Path, name: str, *sources: Path):
    return connect(ingested(root / f"{name}.duckdb", *sources), read_only=True)


def _rows(frame) -> dict[tuple[str, str], dict]:
    return {(row["player"], row["opponent"]): row for row in frame.to_dicts()}


def _pairs(stem_pattern: str, folder: Path) -> list[tuple[Path, re.Match | None]]:
    return [(path, re.fullmatch(stem_pattern, path.name.removesuffix("-score.csv")))
            for path in sorted(folder.glob("*-score.csv"))]  # fmt: skip


def _table(section) -> list[dict[str, str]]:
    """The rows of the section's table, by heading, as the page shows them."""
    (caption,) = re.findall(r"<figcaption>(.*?)</figcaption>", str(section.figures[0]))
    return page_table(str(section.figures[0]), caption)


def _means_are(frame, values: dict[tuple[str, str], list[int]]) -> None:
    """The stats frame holds one row per pairing counted, with its values' count, mean
    and sample standard deviation."""
    rows = _rows(frame)
    assert set(rows) == set(values)
    for key, row in rows.items():
        assert row["n"] == len(values[key])
        assert row["value"] == pytest.approx(statistics.mean(values[key]))
        assert row["sd"] == pytest.approx(statistics.stdev(values[key]))


def _shown(ci: tuple[float, float], fmt) -> str:
    return f"{fmt(ci[0])} … {fmt(ci[1])}"


# --- Hog: win rates from the score files' winners ------------------------------------------


@pytest.fixture(scope="module")
def hog_logs(root) -> Path:
    return _simulate(root / "hog", "hog", "--players", "square_strategy,tail_strategy",
                     "--opponent", "always_roll:4", "--games", "30", "--seed", "3")  # fmt: skip


def test_hog_win_rates_are_the_score_files_winners(root, hog_logs):
    counted: dict[tuple[str, str], Counter] = defaultdict(Counter)
    logs: Counter = Counter()
    for score, _ in _pairs(r".*", hog_logs):
        turns = score.with_name(score.name.replace("-score.csv", ".csv"))
        players = sorted({row[2] for row in csv.reader(turns.open())})
        for name in players:
            logs[name] += 1
        for row in csv.reader(score.open()):
            for me, them in (players, players[::-1]):
                counted[me, them]["n"] += 1
                counted[me, them]["wins"] += row[4] == me
    con = _warehouse(root, "hog", hog_logs)
    frame = hog.by_opponent(con)
    assert set(_rows(frame)) == set(counted)
    for key, row in _rows(frame).items():
        assert (row["n"], row["wins"], row["draws"]) == (counted[key]["n"], counted[key]["wins"], 0)
        assert row["value"] == pytest.approx(counted[key]["wins"] / counted[key]["n"])
    # the player in the most matches: the one simulate set against the others
    assert logs.most_common(1)[0] == ("always_roll:4", 2)
    section = hog_page.against_each(hog_page.observed(con, None))
    shown = _table(section)
    ours = sorted(((c["wins"] / c["n"], them) for (me, them), c in counted.items()
                   if me == "always_roll:4"))  # fmt: skip
    assert [row["against"] for row in shown] == [them for _, them in ours]  # weakest first
    for row in shown:
        c = counted["always_roll:4", row["against"]]
        assert row["games"] == str(c["n"]) and row["win rate"] == f"{c['wins'] / c['n']:.3f}"
        assert row["95 % interval"] == _shown(wilson(c["wins"], c["n"]), "{:.3f}".format)
    assert "always_roll:4, the player in the most of their matches" in section.text


# --- Super-Nim: margins from the score files ------------------------------------------------


@pytest.fixture(scope="module")
def supernim_logs(root) -> Path:
    return _simulate(root / "supernim", "supernim", "--players", "random,greedy",
                     "--opponent", "alphabeta:1", "--games", "8", "--seed", "2")  # fmt: skip


def test_supernim_margins_are_the_score_files_scores(root, supernim_logs):
    margins: dict[tuple[str, str], list[int]] = defaultdict(list)
    results: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for score, named in _pairs(r"supernim-(.+)-vs-(.+)-s\d+", supernim_logs):
        high, low = named.groups()
        for row in csv.reader(score.open()):
            margin, winner = int(row[3]) - int(row[4]), row[5]
            for me, them, sign, side in ((high, low, 1, "max"), (low, high, -1, "min")):
                margins[me, them].append(sign * margin)
                results[me, them][
                    "draws" if winner == "draw" else "wins" if winner == side else "losses"
                ] += 1
    con = _warehouse(root, "supernim", supernim_logs)
    frame = supernim.by_opponent(con)
    _means_are(frame, margins)
    for key, row in _rows(frame).items():
        assert {k: row[k] for k in ("wins", "draws", "losses")} == {
            k: results[key][k] for k in ("wins", "draws", "losses")
        }
    section = supernim_page.against_each(supernim_page.observed(con, None).opponents)
    shown = _table(section)
    assert len(shown) == 2  # alphabeta_1 (named by the files) against random and greedy
    for row in shown:
        values = margins["alphabeta_1", row["against"]]
        mean = statistics.mean(values)
        assert row["mean final margin"] == f"{mean:+.3f}"
        ci = normal_mean(mean, statistics.stdev(values), len(values))
        assert row["95 % interval"] == _shown(ci, supernim_page.SIGNED)
    means = [float(row["mean final margin"]) for row in shown]
    assert means == sorted(means)  # the weakest matchup first


# --- Gin Rummy: games won by points from the score files -----------------------------------


@pytest.fixture(scope="module")
def ginrummy_logs(root) -> Path:
    return _simulate(root / "ginrummy", "ginrummy", "--players", "simple,random",
                     "--games", "4", "--seed", "1")  # fmt: skip


def test_ginrummy_win_rates_are_the_score_files_points(root, ginrummy_logs):
    counted: dict[str, Counter] = defaultdict(Counter)
    for folder, pattern in ((REAL_GINRUMMY, r"\d+"), (ginrummy_logs, r"ginrummy-(.+)-s\d+-\d+")):
        for score, named in _pairs(pattern, folder):
            rows = list(csv.reader(score.open()))
            mine, theirs = (sum(int(row[k]) for row in rows) for k in (1, 2))
            opponent = named.group(1) if named.groups() else ginrummy.SERVER_OPPONENTS
            counted[opponent]["n"] += 1
            counted[opponent]["rounds"] += len(rows)
            counted[opponent]["wins"] += mine > theirs
            counted[opponent]["draws"] += mine == theirs
    assert counted["simple-vs-random"]["n"] == 4 and counted[ginrummy.SERVER_OPPONENTS]["n"] == 12
    con = _warehouse(root, "ginrummy", REAL_GINRUMMY, ginrummy_logs)
    frame = _rows(ginrummy.by_opponent(con))
    assert set(frame) == {("me", opponent) for opponent in counted}
    for (_, opponent), row in frame.items():
        c = counted[opponent]
        assert (row["n"], row["wins"], row["draws"], row["rounds"]) == (
            c["n"], c["wins"], c["draws"], c["rounds"])  # fmt: skip
    shown = _table(ginrummy_page.against_each(ginrummy_page.observed(con, None)["matchups"]))
    rates = {o: (c["wins"] + c["draws"] / 2) / c["n"] for o, c in counted.items()}
    assert [row["against"] for row in shown] == sorted(rates, key=rates.get)
    for row in shown:
        c = counted[row["against"]]
        ci = wilson(c["wins"] + c["draws"] / 2, c["n"])
        assert row["95 % interval"] == _shown(ci, "{:.3f}".format)


# --- TwentyOne: each round's points from the score files, paired ---------------------------


def test_twentyone_leads_are_the_score_files_rounds_paired(root):
    chosen = root / "twentyone"
    chosen.mkdir()
    leads: dict[tuple[str, str], list[int]] = defaultdict(list)
    writers: Counter = Counter()
    for score in sorted(REAL_TWENTYONE.glob("20211024-*-score.csv")):  # 5 real logs
        turns = score.with_name(score.name.replace("-score.csv", ".csv"))
        for path in (score, turns):
            (chosen / path.name).write_bytes(path.read_bytes())
        rows = list(csv.reader(turns.open()))
        (writer,) = {row[2] for row in rows if row[3] == "1"}
        others = sorted({row[2] for row in rows if row[3] == "0" and row[2] != "dealer"})
        writers[writer] += 1
        before = [START] * (1 + len(others))
        for row in csv.reader(score.open()):
            after = [int(row[1]), *map(int, row[2].split(";"))]
            for k, other in enumerate(others, start=1):
                if before[0] > 0 and before[k] > 0:
                    leads[writer, other].append((after[0] - before[0]) - (after[k] - before[k]))
            before = after
    con = _warehouse(root, "twentyone", chosen)
    _means_are(twentyone.by_opponent(con), leads)
    (player, logs), (_, fewer) = writers.most_common(2)
    assert (player, logs) == ("3", 3) and fewer < logs  # the id that wrote the most logs
    section = twentyone_page.against_each(opponents.of_player(twentyone.by_opponent(con)))
    shown = _table(section)
    mine = {other: values for (writer, other), values in leads.items() if writer == player}
    by_mean = sorted(mine, key=lambda other: statistics.mean(mine[other]))
    assert [row["against"] for row in shown] == [f"id {other}" for other in by_mean]
    for row in shown:
        values = mine[row["against"].removeprefix("id ")]
        mean = statistics.mean(values)
        assert row["rounds"] == str(len(values))
        assert row["lead a round (points)"] == twentyone_page.LEAD(mean)
        ci = normal_mean(mean, statistics.stdev(values), len(values))
        assert row["95 % interval"] == _shown(ci, twentyone_page.LEAD)
    assert "id 3, the id marked as yours in the most logs" in section.text


def test_twentyone_logs_of_one_seat_set_the_player_against_no_one(root):
    """A table of one seat (only the dealer beside it) has no pairing: the page says so,
    and no polars warning of a comparison with None reaches the user's terminal."""
    alone = _simulate(root / "alone", "twentyone", "--players", "textbook", "--games", "1")
    con = _warehouse(root, "alone", alone)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chosen = opponents.of_player(twentyone.by_opponent(con))
    assert chosen.is_empty()
    assert "The logs show no opponent" in twentyone_page.against_each(chosen).text


# --- card guessing: guesses from the score files ---------------------------------------------


@pytest.fixture(scope="module")
def cardguess_logs(root) -> Path:
    return _simulate(root / "cardguess", "cardguess", "--players", "random-consistent",
                     "--games", "25", "--seed", "4")  # fmt: skip


def test_cardguess_means_are_the_score_files_guesses(root, cardguess_logs):
    guesses: dict[tuple[str, str], list[int]] = defaultdict(list)
    examples = REAL_TWENTYONE.parent / "cardguess"
    for folder in (examples, cardguess_logs):
        for score, named in _pairs(r"cardguess-(.+)-s\d+|(.+)", folder):
            guesser = named.group(1) or named.group(2)
            for row in csv.reader(score.open()):
                guesses[guesser, f"answers of {row[1]} cards"].append(int(row[3]))
    assert ("random_consistent", "answers of 2 cards") in guesses and len(guesses) == 4
    con = _warehouse(root, "cardguess", examples, cardguess_logs)
    _means_are(cardguess.by_opponent(con), guesses)
    shown = _table(cardguess_page.against_each(cardguess_page.observed(con, None)))
    worst = sorted(guesses, key=lambda key: -statistics.mean(guesses[key]))
    assert [row["against"] for row in shown] == [f"{g} on {o}" for g, o in worst]  # most first
    for row in shown:
        values = guesses[tuple(row["against"].split(" on "))]
        ci = normal_mean(statistics.mean(values), statistics.stdev(values), len(values))
        assert row["95 % interval"] == _shown(ci, "{:.3f}".format)


def test_a_supernim_file_not_named_max_vs_min_plays_max_against_min(root):
    example = REAL_TWENTYONE.parent / "supernim" / "random-vs-greedy-s17"
    folder = root / "odd-supernim"
    folder.mkdir()
    for suffix in (".csv", "-score.csv"):
        (folder / f"odd{suffix}").write_bytes(example.with_name(example.name + suffix).read_bytes())
    margins = [int(row[3]) - int(row[4]) for row in csv.reader((folder / "odd-score.csv").open())]
    con = _warehouse(root, "odd-supernim", folder)
    _means_are(supernim.by_opponent(con), {("max", "min"): margins,
                                           ("min", "max"): [-m for m in margins]})  # fmt: skip
