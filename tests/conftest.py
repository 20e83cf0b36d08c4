from __future__ import annotations

import collections
import json
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
DURATIONS = Path(__file__).with_name("durations.json")  # seconds each file took, last measured


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-durations", action="store_true",
                     help=f"write the seconds each test file took into {DURATIONS.name}")  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first. `make test` hands each of its two processes a file at a
    time in this order: a long file handed out last would keep one process working
    while the other waits (about a minute of it, measured). A file not measured yet
    counts as the longest."""
    took = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    unknown = max(took.values(), default=0.0) + 1
    items.sort(key=lambda item: -took.get(item.nodeid.partition("::")[0], unknown))


_took: collections.Counter[str] = collections.Counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _took[report.nodeid.partition("::")[0]] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if config.getoption("--store-durations") and not hasattr(config, "workerinput"):
        took = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
        took |= {path: round(seconds, 1) for path, seconds in _took.items()}
        kept = {path: took[path] for path in sorted(took) if (REPO / path).exists()}
        DURATIONS.write_text(json.dumps(kept, indent=1) + "\n")


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
