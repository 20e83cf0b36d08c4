"""The staged rows a replay reads come each log's after the other, in line order, however
DuckDB's parallel staging left them (`ingest._by_log_and_line`)."""

import random

import polars as pl
import pytest

from mine.warehouse import ingest


def _staged(logs: int = 6, lines: int = 40) -> pl.DataFrame:
    rows = [
        (log, line, f"{log}:{line}") for log in range(1, logs + 1) for line in range(1, lines + 1)
    ]
    return pl.DataFrame(rows, schema=["log_id", "line", "text"], orient="row")


@pytest.mark.parametrize("seed", range(5))
def test_runs_out_of_place_come_back_in_order(seed):
    ordered = _staged()
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, ordered.height), 12))
    runs = [
        ordered.slice(a, b - a) for a, b in zip([0, *cuts], [*cuts, ordered.height], strict=True)
    ]
    rng.shuffle(runs)
    found = ingest._by_log_and_line(pl.concat(runs))
    assert found.equals(ordered)
    assert found.n_chunks() == 1


def test_rows_in_no_order_come_back_in_order(monkeypatch):
    ordered = _staged()
    shuffled = ordered.sample(fraction=1.0, shuffle=True, seed=3)
    assert ingest._by_log_and_line(shuffled).equals(ordered)
    monkeypatch.setattr(ingest, "RUNS_SLICED", 1)  # the sort, not the slices
    assert ingest._by_log_and_line(shuffled).equals(ordered)


def test_logs_in_one_run_each_stay_as_staged():
    ordered = _staged()
    later_first = pl.concat(
        [ordered.filter(pl.col("log_id") > 3), ordered.filter(pl.col("log_id") <= 3)]
    )
    assert ingest._by_log_and_line(later_first).equals(later_first)
