from __future__ import annotations

import collections
import fcntl
import functools
import hashlib
import json
import os
import pickle
import random
import resource
from pathlib import Path

import duckdb
import pytest

from mine.parsers import ginrummy, twentyone
from mine.strategies.haskell.programs import CACHE
from mine.strategies.solvers import twentyone as twentyone_solver
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest
from tests.data import synth

REPO = Path(__file__).resolve().parent.parent
REAL_GINRUMMY = REPO / "examples" / "logs" / "ginrummy"
REAL_TWENTYONE = REPO / "examples" / "logs" / "twentyone"
DURATIONS = Path(__file__).with_name("durations.json")  # seconds each file took, last measured
CPU_SECONDS = Path(__file__).with_name("cpu_seconds.json")  # CPU seconds of each test folder


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-durations", action="store_true",
                     help=f"write the seconds each test file took into {DURATIONS.name}")  # fmt: skip
    parser.addoption("--store-cpu", action="store_true",
                     help=f"write the CPU seconds of each test folder into {CPU_SECONDS.name}: "
                          "the test process's and every process it waited for, so a loaded "
                          "machine does not change it")  # fmt: skip


def unit(nodeid: str) -> str:
    """What `make test` hands a process at once: a test file, or the cluster tests together
    (one process starts the one local Ray cluster they share, rather than each process a
    cluster of its own on the same two cores)."""
    path = nodeid.partition("::")[0]
    return "tests/cluster" if path.startswith("tests/cluster/") else path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest units first. `make test` hands each of its two processes a unit at a
    time in this order: a long one handed out last would keep one process working while
    the other waits (about a minute of it, measured). A file not measured yet counts as
    the longest."""
    took = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    unknown = max(took.values(), default=0.0) + 1
    units: collections.Counter[str] = collections.Counter()
    for path in {item.nodeid.partition("::")[0] for item in items}:
        units[unit(path)] += took.get(path, unknown)
    items.sort(key=lambda item: -units[unit(item.nodeid)])


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadfile`, by `unit`."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByUnit(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit(nodeid)

    return ByUnit(config, log)


_took: collections.Counter[str] = collections.Counter()
_cpu: collections.Counter[str] = collections.Counter()


def _cpu_now() -> float:
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in used)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Each phase's CPU seconds ride on its report (a worker's reports reach the controller)."""
    report = yield
    if item.config.getoption("--store-cpu"):
        started = item.stash.get(_STARTED, None)
        now = _cpu_now()
        if started is not None:
            report.user_properties.append(("cpu", now - started))
        item.stash[_STARTED] = now
    return report


_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.config.getoption("--store-cpu"):
        item.stash[_STARTED] = _cpu_now()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _took[report.nodeid.partition("::")[0]] += report.duration
    _cpu[report.nodeid.partition("::")[0]] += sum(
        v for k, v in report.user_properties if k == "cpu"
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if config.getoption("--store-durations") and not hasattr(config, "workerinput"):
        took = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
        took |= {path: round(seconds, 1) for path, seconds in _took.items()}
        kept = {path: took[path] for path in sorted(took) if (REPO / path).exists()}
        DURATIONS.write_text(json.dumps(kept, indent=1) + "\n")
    if config.getoption("--store-cpu") and not hasattr(config, "workerinput"):
        folders: collections.Counter[str] = collections.Counter()
        for path, seconds in _cpu.items():
            folders[str(Path(path).parent)] += seconds
        cpu = {"folders": {f: round(s) for f, s in sorted(folders.items())},
               "files": {p: round(s, 1) for p, s in sorted(_cpu.items())}}  # fmt: skip
        CPU_SECONDS.write_text(json.dumps(cpu, indent=1) + "\n")


def _shared(request, tmp_path_factory) -> Path:
    """The session's folder, one for every test process (the two of `make test`)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(request.config, "workerinput") else base


@pytest.fixture(scope="session", autouse=True)
def haskell_stand_ins(request, tmp_path_factory) -> Path:
    """mine's cache for the session (`MINE_CACHE`), never the user's `~/.cache/mine`,
    shared by the test processes; its folder of compiled course stand-ins is returned,
    for a test's own cache to share (`with_stand_ins`): the stand-ins, the same for every
    file of a course, are compiled once in the session (each compile copies them), and
    the product's own rename keeps two processes that compile them at once apart."""
    cache = _shared(request, tmp_path_factory) / "mine-cache"
    stand_ins = cache / "haskell" / "stand-ins"
    stand_ins.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE, str(cache))
        yield stand_ins


def with_stand_ins(cache: Path, stand_ins: Path) -> Path:
    """`cache` (for `MINE_CACHE`), a folder of its own for the programs it compiles, with
    the session's compiled stand-ins in it."""
    (cache / "haskell").mkdir(parents=True, exist_ok=True)
    (cache / "haskell" / "stand-ins").symlink_to(stand_ins, target_is_directory=True)
    return cache


@pytest.fixture(scope="session", autouse=True)
def finite_deck_optima(request, tmp_path_factory):
    """TwentyOne's optimum for a finite shoe (`solve(rules, decks=3)`, what `mine validate
    twentyone` works out first: about 7 CPU seconds) worked out once in the session and
    kept on disk for every test process (the two of `make test` share the folder), rather
    than once in each process or file that asks. The first asker runs the real solver;
    the rest read its answer (waiting, idle, while it solves). Infinite-deck optima are
    quick and go to the solver's own cache untouched (a test counts its hits)."""
    folder = _shared(request, tmp_path_factory) / "twentyone-optima"
    folder.mkdir(exist_ok=True)
    solved = twentyone_solver._optimum

    @functools.lru_cache(maxsize=8)
    def finite(rules, decks):
        path = folder / (hashlib.sha256(repr((rules, decks)).encode()).hexdigest() + ".pickle")
        with open(path.with_suffix(".lock"), "w") as lock:  # the other process waits, idle
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.exists():
                return pickle.loads(path.read_bytes())
            solution = solved(rules, decks)
            part = path.with_name(f"{path.name}.{os.getpid()}.part")
            part.write_bytes(pickle.dumps(solution))
            os.replace(part, path)  # whole or not at all
            return solution

    def optimum(rules, decks):
        return solved(rules, decks) if decks is None else finite(rules, decks)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(twentyone_solver, "_optimum", optimum)
        yield


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


def hog_table(path: Path) -> Path:
    """A Hog strategy table written at `path`: the optimal play to 30 points (quick to
    solve), with a table's metadata."""
    from mine.models import hog as model
    from mine.strategies.engines.hog import HogRules
    from mine.strategies.solvers.hog import TurnModel, optimal

    strategy = optimal(TurnModel.from_rules(HogRules(goal=30))).table[0]
    metadata = {
        "game": "hog", "kind": "strategy", "fingerprint": "ab" * 32, "rows": 10, "games": 1,
        "logs": 1, "method": "minimax", "settings": {},
        "learned": {"goal": 30, "dice_sides": 6, "max_rolls": 10, "sow_sad": True,
                    "square_swine": True},
    }  # fmt: skip
    return model.write_table(path, model.Fit(strategy, metadata))
