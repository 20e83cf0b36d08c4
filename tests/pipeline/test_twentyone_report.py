"""`mine report twentyone`: the chart as CSV (one row per situation) and as an HTML page
that carries re-splits and the play by the count."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from mine.models import twentyone as model
from mine.pipeline.cli import app
from mine.pipeline.reports.twentyone import CSV_COLUMNS, chart_csv
from mine.strategies.engines.twentyone import DOUBLE, HIT, STAND, TwentyOneRules
from mine.strategies.engines.twentyone_chart import INSURED, MAIN, SPLIT_HAND, Chart, Strategy
from mine.strategies.solvers.twentyone import chart_value, solve
from tests.pipeline.twentyone_csv_value import csv_value
from tests.strategies.test_twentyone_codegen import METADATA

UPS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
WORDS = {HIT: "hit", STAND: "stand", DOUBLE: "double"}
CONTEXTS = {"main": MAIN, "insured": INSURED, "split": SPLIT_HAND}
RULES = TwentyOneRules()


@pytest.fixture(scope="module")
def chart():
    return solve(TwentyOneRules()).chart


@pytest.fixture(scope="module")
def table(chart, tmp_path_factory):
    """A table file holding the optimum, a count chart and bids, as `mine fit` writes."""
    low = Chart(chart.hand.copy(), chart.split.copy(), np.zeros_like(chart.insure))
    low.hand[MAIN, 10, 16, 0, 1] = STAND
    bids = ((-10, -1, 10), (0, 10, 100))
    metadata = {**METADATA, "kind": model.KIND, "settings": {}}
    strategy = Strategy(chart, bids, ((-10, -3, low),), metadata)
    return model.write_table(tmp_path_factory.mktemp("rep") / "t.parquet", strategy)


def test_the_csv_has_one_row_per_context_and_situation(chart):
    rows = list(csv.DictReader(io.StringIO(chart_csv(chart))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert {r["context"] for r in rows} == {"main", "insured", "split"}
    keys = [(r["context"], r["kind"], r["total_or_pair_rank"], r["n_cards"], r["upcard"])
            for r in rows]  # fmt: skip
    assert len(keys) == len(set(keys))  # one row per context and cell
    for context in ("main", "insured", "split"):
        mine = [r for r in rows if r["context"] == context]
        situations = {(r["kind"], r["total_or_pair_rank"], r["n_cards"]) for r in mine}
        ups = ["A"] if context == "insured" else UPS  # insured: only against an ace
        for kind, total, n in situations:
            cell = [r["upcard"] for r in mine if (r["kind"], r["total_or_pair_rank"],
                                                 r["n_cards"]) == (kind, total, n)]  # fmt: skip
            assert sorted(cell) == sorted(ups)  # every up card, once
            if kind == "pair":
                assert n == "2" and total in UPS
            else:
                assert 2 <= int(n) <= 5
                assert 4 <= int(total) <= 21 if kind == "hard" else 12 <= int(total) <= 21
        assert {r["total_or_pair_rank"] for r in mine if r["kind"] == "pair"} == set(UPS)
        # two-card rows that are not pairs: no hard 4 (only 2,2) and no soft 12 (only A,A)
        assert ("hard", "4", "2") not in situations and ("soft", "12", "2") not in situations
        assert ("hard", "20", "2") in situations and ("soft", "21", "2") in situations
    for r in rows:
        assert r["best_action"] in {"hit", "stand", "double", "split"}
        offered = r["context"] == "main" and r["n_cards"] == "2" and r["upcard"] == "A"
        assert r["insure"] in ({"0", "1"} if offered else {""})
        if r["best_action"] == "split":
            assert r["kind"] == "pair"
        if r["best_action"] == "double":
            assert r["n_cards"] == "2"


def test_the_csv_says_what_the_chart_says(chart):
    rows = list(csv.DictReader(io.StringIO(chart_csv(chart))))
    for r in rows:
        context = CONTEXTS[r["context"]]
        up = 1 if r["upcard"] == "A" else int(r["upcard"])
        n = int(r["n_cards"])
        if r["kind"] == "pair":
            value = 1 if r["total_or_pair_rank"] == "A" else int(r["total_or_pair_rank"])
            total, soft = (12, 1) if value == 1 else (2 * value, 0)
            split = bool(chart.split[context, up, value])
            assert (r["best_action"] == "split") == split
            pair = 1
        else:
            total, soft, pair = int(r["total_or_pair_rank"]), int(r["kind"] == "soft"), 0
        if r["best_action"] != "split":
            assert r["best_action"] == WORDS[int(chart.hand[context, up, total, soft, n - 2])]
        if r["insure"]:
            assert r["insure"] == str(int(chart.insure[total, soft, pair]))


def test_the_csv_played_as_written_is_worth_what_the_chart_is(chart):
    """An outside tool's reading of the CSV (`csv_value`: the spec's rules for an infinite
    deck, computed here from the rows alone) gives the chart's exact value; the main hand's
    rows alone, played in every context, do not."""
    rows = list(csv.DictReader(io.StringIO(chart_csv(chart))))
    worth = chart_value(RULES, chart)
    assert csv_value(rows) == pytest.approx(worth, abs=1e-9)
    main_only = [{**r, "context": c} for r in rows if r["context"] == "main"
                 for c in ("main", "insured", "split")]  # fmt: skip
    assert csv_value(main_only) < worth - 0.002


def test_report_csv_and_html_through_the_cli(table, chart, tmp_path):
    runner = CliRunner()
    out = tmp_path / "chart.csv"
    result = runner.invoke(
        app, ["report", "twentyone", "--table", str(table), "--format", "csv", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_text() == chart_csv(chart)
    page = tmp_path / "r.html"
    result = runner.invoke(
        app, ["report", "twentyone", "--table", str(table), "--out", str(page),
              "--db", str(tmp_path / "none.duckdb")]
    )  # fmt: skip
    assert result.exit_code == 1 and "no warehouse" in result.output  # a --db that is not there
    result = runner.invoke(app, ["report", "twentyone", "--table", str(table), "--out", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    # the split hand's chart shows re-splits: its pair rows are the chart's SPLIT_HAND cells
    figure = re.search(r"Split hand, two cards.*?</figure>", text, re.S).group(0)
    aces = re.findall(r'fill="(#[0-9a-f]{6})"><title>pair A,A, (\w+): ', figure)
    assert len(aces) == 10
    assert all((c == "#8ab6f0") == bool(chart.split[SPLIT_HAND, 1 if u == "A" else int(u), 1])
               for c, u in aces)  # fmt: skip
    # the count section draws the chart of the lowest count
    assert "Play by the count" in text and "true count -10..-3" in text
    assert "<svg" in text and "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    bad = runner.invoke(app, ["report", "twentyone", "--table", str(table), "--format", "pdf"])
    assert bad.exit_code == 1 and "unknown format" in bad.output
