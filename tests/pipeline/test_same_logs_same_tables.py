"""The same logs give the same tables, row for row and digit for digit, whatever order they
come in: a log's games reversed (renumbered, so that the log is still in order), or the
files ingested one by one in reverse (so the logs' ids come the other way round). A
table ordered by a key with ties, a join or group_by left in polars' hash order, or a
float summed in the logs' ids' order broke it (cardguess's first guesses: its own test in
test_cardguess_end_to_end.py)."""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mine.pipeline.cli import app
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.conftest import REPO

EXAMPLES = REPO / "examples" / "logs"


def _games_reversed(source: Path, folder: Path) -> list[Path]:
    """Each log of `source` with its games in reverse order, written to `folder`."""
    for path in sorted(source.glob("*.csv")):
        rows = [line.split(",") for line in path.read_text().splitlines()]
        last = max(int(game) for game, *_ in rows)
        rows = [[str(last + 1 - int(game)), *rest] for game, *rest in rows]
        rows.sort(key=lambda row: int(row[0]))  # stable: each game's rows in order
        (folder / path.name).write_text("".join(",".join(row) + "\n" for row in rows))
    return [folder]


def _files_reversed(source: Path) -> list[list[Path]]:
    """Each log pair of `source`, the last first: one ingest each."""
    scores = sorted(source.glob("*-score.csv"), reverse=True)
    return [[path.with_name(path.name.replace("-score", "")), path] for path in scores]


def _tables(game: str, batches: list[list[Path]], database: Path) -> dict[str, object]:
    """Every table `mine stats` and `mine fit` make of the logs, ingested batch by batch:
    the statistics, each player against each opponent, the fitted table file's bytes and,
    where the game has them, each player's habits against that table."""
    stats = importlib.import_module(f"mine.pipeline.stats.{game}")
    model = importlib.import_module(f"mine.models.{game}")
    with connect(str(database)) as con:
        for batch in batches:
            assert ingest(con, batch).ok
        tables = dict(stats.derive(con)._asdict())
        tables["by_opponent"] = stats.by_opponent(con)
        fitted = model.fit(stats.fit_inputs(con, None))
        folder = database.with_suffix(".table")
        folder.mkdir()
        model.write_table(folder / "table", fitted)
        tables["table"] = {path.name: path.read_bytes() for path in folder.iterdir()}
        assert tables["table"]
        if hasattr(stats, "by_player"):
            tables |= {
                f"player {k}": v for k, v in stats.by_player(con, None, fitted)._asdict().items()
            }
    return tables


def _equal(kept: dict[str, object], turned: dict[str, object], *, ids_differ: bool) -> None:
    compared = 0
    for name, table in kept.items():
        if ids_differ and "log_id" in getattr(table, "columns", ()):
            continue  # a row a log, ordered by its id: the ids themselves came the other way
        same = table.equals(turned[name]) if hasattr(table, "equals") else table == turned[name]
        assert same, name
        compared += 1
    assert compared >= 4


@pytest.fixture(scope="module")
def hog_logs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hog")
    args = ["simulate", "hog", "--games", "60", "--seed", "3", "--out", str(out),
            "--players", "always_roll:6,square_strategy,tail_strategy"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def kept_tables(hog_logs, tmp_path_factory):
    """(source, tables) of a game's logs ingested as they are, in one batch: what both tests
    compare with, made once for the module."""

    @functools.cache
    def tables(game: str) -> tuple[Path, dict[str, object]]:
        source = hog_logs if game == "hog" else EXAMPLES / game
        return source, _tables(game, [[source]], tmp_path_factory.mktemp(game) / "kept.duckdb")

    return tables


@pytest.mark.parametrize("game", ["hog", "supernim"])
def test_a_logs_games_reversed_give_the_same_statistics(game, tmp_path, kept_tables):
    """Each player against each opponent came in polars' hash order (Hog's and Super-Nim's
    both changed with the games' order)."""
    source, kept = kept_tables(game)
    folder = tmp_path / "turned"
    folder.mkdir()
    turned = _tables(game, [_games_reversed(source, folder)], tmp_path / "turned.duckdb")
    assert kept["by_opponent"].height > 1
    kept = {name: table for name, table in kept.items() if name != "table"}  # the logs' bytes
    _equal(kept, turned, ids_differ=False)  # differ: so does the table's fingerprint


@pytest.mark.parametrize("game", ["hog", "supernim", "ginrummy", "twentyone"])
def test_the_logs_ingested_in_another_order_give_the_same_tables(game, tmp_path, kept_tables):
    """Gin Rummy held out every fifth discard in the logs' ids' order (another AUC in the
    table's file); TwentyOne's means (the statistics', the payoffs', each opponent's, each
    deviation's) summed their terms in that order, the last digits differing."""
    source, kept = kept_tables(game)
    turned = _tables(game, _files_reversed(source), tmp_path / "turned.duckdb")
    _equal(kept, turned, ids_differ=True)
