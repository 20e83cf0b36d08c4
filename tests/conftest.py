from __future__ import annotations

import random
from pathlib import Path

import duckdb
import pytest

from mine.parsers import ginrummy, twentyone
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.data import synth

REPO = Path(__file__).resolve().parent.parent
REAL_GINRUMMY = REPO / "examples" / "logs" / "ginrummy"
REAL_TWENTYONE = REPO / "examples" / "logs" / "twentyone"


@pytest.fixture
def warehouse(tmp_path):
    """A fresh warehouse file, and a connection to it."""
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    yield path, con
    con.close()


@pytest.fixture
def good_logs(tmp_path):
    """Two valid TwentyOne pairs and two valid Gin Rummy pairs in one folder tree."""
    rng = random.Random(7)
    root = tmp_path / "logs"
    for i in range(2):
        synth.write_pair(root / "twentyone", f"t{i}", twentyone, *synth.twentyone_game(rng))
        synth.write_pair(root / "ginrummy", f"g{i}", ginrummy, *synth.ginrummy_game(rng))
    return root


def ingested(path: Path, *sources: Path) -> Path:
    """A warehouse file at `path` holding every log of `sources` (asserted to land)."""
    writer = connect(path)
    try:
        assert ingest(writer, list(sources)).ok
    finally:
        writer.close()
    return path


def read_only_warehouse(*sources: Path):
    """A module-scoped fixture: a read-only connection to a warehouse of `sources`."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory):
        path = ingested(tmp_path_factory.mktemp("warehouse") / "w.duckdb", *sources)
        con = connect(path, read_only=True)
        yield con
        con.close()

    return fixture
