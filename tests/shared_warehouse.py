"""Setups that several test files read alike, made once for the whole test session.

`mine ingest examples/logs` and a TwentyOne fit of the real example logs take seconds each,
and several files want just their result. Each is made once for the session, even when
xdist's processes run the files: the first process that asks makes it in the session's
shared temporary folder, under a lock, and every other one finds it there.

What one gets is a fresh copy of its own (`copy_of`): a test that writes into a warehouse
writes into its copy, and no two processes ever open the same DuckDB file (DuckDB lets one
process write a file, or several read it, not both).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from mine.strategies.haskell.build import build, stand_ins
from tests.conftest import REAL_GINRUMMY, REPO, ingested
from tests.mine_cli import here

EXAMPLES = REPO / "examples" / "logs"


def _shared(factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder that every xdist process sees."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder `name`, made by `make(folder)` the first time any process asks."""
    root = _shared(factory) / "shared"
    root.mkdir(exist_ok=True)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                with contextlib.suppress(FileNotFoundError):
                    shutil.rmtree(folder)  # a make that failed before
                folder.mkdir()
                make(folder)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def copy_of(source: Path, to: Path) -> Path:
    """`source` copied to `to`; a table file with its metadata beside it (`t.json`)."""
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, to)
    if source.suffix == ".parquet":
        shutil.copyfile(source.with_suffix(".json"), to.with_suffix(".json"))
    return to


def examples_warehouse(factory: pytest.TempPathFactory) -> Path:
    """A warehouse of every example log (`mine ingest examples/logs`), to copy."""

    def make(folder: Path) -> None:
        ingested(folder / "w.duckdb", EXAMPLES)

    return once(factory, "examples", make) / "w.duckdb"


def twentyone_table(factory: pytest.TempPathFactory) -> Path:
    """`mine fit twentyone` of the real example logs (the table file; `copy_of` copies its
    metadata along)."""
    warehouse = examples_warehouse(factory)

    def make(folder: Path) -> None:
        db = copy_of(warehouse, folder / "w.duckdb")  # a fit may store what it read
        fitted = here("fit", "twentyone", "--db", db, "--out", folder / "t.parquet")
        assert fitted.returncode == 0, fitted.stderr
        db.unlink()

    return once(factory, "twentyone-table", make) / "t.parquet"


def ginrummy_fitted(factory: pytest.TempPathFactory):
    """Gin Rummy's model fitted on the real 2020 server's logs, as `model.fit` returns it:
    the Haskell tests make their player of it, the same file in each (seconds of fit)."""
    from mine.models import ginrummy as model
    from mine.pipeline.stats import ginrummy as stats_of
    from mine.warehouse.connection import connect

    def make(folder: Path) -> None:
        con = connect(ingested(folder / "w.duckdb", REAL_GINRUMMY), read_only=True)
        try:
            fitted = model.fit(stats_of.fit_inputs(con))
        finally:
            con.close()
        (folder / "fitted.pickle").write_bytes(pickle.dumps(fitted))

    return pickle.loads((once(factory, "ginrummy-fitted", make) / "fitted.pickle").read_bytes())


def haskell_program(factory: pytest.TempPathFactory, game: str, source: str, compiled: Path):
    """`source` compiled as `build` compiles it, with the session's stand-ins (`compiled`:
    conftest's `haskell_stand_ins`), once for the session: the generated TwentyOne and Gin
    Rummy players are the same files in the tests of their Haskell and in the entrants'
    (seconds of GHC each)."""
    digest = hashlib.sha256(f"{game}\0{source}".encode()).hexdigest()[:16]

    def make(folder: Path) -> None:
        built = build(game, source, folder, stand_ins(game, compiled))
        (folder / "built.pickle").write_bytes(pickle.dumps(built))

    built = once(factory, f"haskell-{digest}", make) / "built.pickle"
    return pickle.loads(built.read_bytes())
