"""A batch's logs replayed in worker processes give what one process gives: the same
error line for every pair and the same rows landed (the tasks are cut by rows, never by
the number of workers)."""

from __future__ import annotations

import duckdb
import pytest

from mine.strategies.runners import SERIAL, KeptProcesses, Runner
from mine.warehouse import replay, schema
from mine.warehouse.ingest import ingest
from tests.warehouse import rule_rows

GAMES = ("ginrummy", "supernim", "hog")
TASK_ROWS = 50  # tasks of a log or a few each


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("replayed")
    corpus = rule_rows.corpus()
    for game in GAMES:
        rule_rows.write(root / game, corpus[game])
    return {game: root / game for game in GAMES}


@pytest.fixture(scope="module")
def workers():
    with KeptProcesses(2) as runner:
        yield runner


def _ingested(folder, game: str, runner: Runner) -> dict:
    con = duckdb.connect()
    summary = ingest(con, [folder], game=game, runner=runner)
    tables = schema.game_schemas()[game].TABLES
    return {
        "errors": {p.stem: str(p.error) if p.error else None for p in summary.pairs},
        "rows": {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables},
    }


@pytest.mark.parametrize("game", GAMES)
def test_workers_give_what_one_process_gives(folders, workers, monkeypatch, game):
    alone = _ingested(folders[game], game, SERIAL)
    monkeypatch.setattr(replay, "TASK_ROWS", TASK_ROWS)
    monkeypatch.setattr(replay, "PARALLEL_ROWS", 0)
    cut = []  # the tasks each batch's logs to replay (its suspects) went in
    tasks = replay._tasks
    monkeypatch.setattr(replay, "_tasks", lambda whole: cut.append(tasks(whole)) or cut[-1])

    shared = _ingested(folders[game], game, workers)

    assert shared == alone
    assert any(alone["errors"].values()) and any(alone["rows"].values())
    assert max(map(len, cut)) > 1  # the workers shared a batch
