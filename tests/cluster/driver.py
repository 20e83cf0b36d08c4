"""The cluster tests' Ray driver: a process of its own (spawned, not forked), the only one
of a test run that joins the cluster. A pytest worker that were a driver would fork
contained players beside Ray's gRPC threads, which can crash it (and hang xdist), so the
worker never imports Ray: it starts the driver, hands it module-level functions to run
(a layer with the cluster's runner, a `mine … --cluster` command) and gets plain data
back. The functions prefixed `_` run in the driver."""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import ModuleType
from typing import Any, NamedTuple

import pytest

from mine.strategies.confinement import LIBC, PR_SET_PDEATHSIG
from tests.process_tree import alive, family

OBJECT_STORE_BYTES = 80 * 1024 * 1024  # tasks here pass small things; Ray's least is 75 MB
CALL_SECONDS = 300  # a call that runs longer hangs: the driver is killed, the test fails
STOP_SECONDS = 30


class Ran(NamedTuple):
    """A `mine` command run in the driver, as typer's runner saw it."""

    exit_code: int
    stdout: str
    output: str


class Driver:
    """The worker's handle on the driver process: the cluster's address, and calls run
    there. A driver that dies or hangs fails the test that called it, never hangs it."""

    def __init__(self) -> None:
        self.pool = ProcessPoolExecutor(
            1, multiprocessing.get_context("spawn"), _detach, (os.getpid(),)
        )
        self.pid: int | None = None
        self.address = ""
        self.nodes: set[tuple[int, int]] = set()  # the cluster's processes: (pid, start)
        self.closed = False

    def start(self) -> None:
        """A local cluster of 2 CPUs, started in the driver."""
        self.pid = self.run(os.getpid)
        self.address = self.run(_start)
        self.nodes = family(self.pid)

    def run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`function(*args, **kwargs)` in the driver (a module-level function)."""
        try:
            return self.pool.submit(function, *args, **kwargs).result(CALL_SECONDS)
        except BrokenProcessPool as error:
            pytest.fail(f"the Ray driver process died: {error}", pytrace=False)
        except TimeoutError:
            self._kill()
            pytest.fail(
                f"the Ray driver process ran {function.__name__} for over {CALL_SECONDS} s: killed",
                pytrace=False,
            )

    def on_cluster(
        self,
        function: Callable[..., Any],
        *args: Any,
        same: Iterable[tuple[ModuleType, str]] = (),
        **kwargs: Any,
    ) -> Any:
        """`function(*args, **kwargs, runner=the cluster's)` in the driver, with the
        constants `same` (module, name) as they are here (where a test patched them)."""
        constants = {(module.__name__, name): getattr(module, name) for module, name in same}
        return self.run(_with_runner, self.address, function, args, kwargs, constants)

    def invoke(self, *args: Any, ok: bool = True) -> Ran:
        """`mine *args` in the driver (typer's runner); `ok` asserts it succeeded."""
        ran = self.run(_invoke, [str(a) for a in args])
        if ok:
            assert ran.exit_code == 0, ran.output
        return ran

    def close(self) -> list[str]:
        """The cluster stopped (`ray.shutdown` in the driver), then the driver: what is
        left of either is killed, and named. Once done, done (a ^C on the way: again)."""
        if self.closed:
            return []
        ours = self.nodes | (family(self.pid) if self.pid else set())  # and Ray's workers
        try:
            self.pool.submit(_stop).result(STOP_SECONDS)
        except (RuntimeError, TimeoutError):  # dead (BrokenProcessPool), stuck, or shut down
            self._kill()  # its nodes share its fate
        self.pool.shutdown()
        self.closed = True
        deadline = time.monotonic() + STOP_SECONDS
        while (left := alive(ours)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return [_named(pid) for pid in left]

    def _kill(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _named(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        words = ""
    return f"{pid} {words[:120]}"


# --- in the driver -------------------------------------------------------------------------


def _detach(parent: int) -> None:
    """The driver's first act: it dies with the worker that started it (and its cluster
    with it: a local cluster's nodes share their driver's fate); ^C is the worker's, which
    then stops the cluster in order."""
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start() -> str:
    import ray

    context = ray.init(
        address="local",  # a cluster of our own, whatever else runs here
        num_cpus=2,
        object_store_memory=OBJECT_STORE_BYTES,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    return context.address_info["gcs_address"]


def _stop() -> None:
    import ray

    ray.shutdown()


def _with_runner(
    address: str,
    function: Callable[..., Any],
    args: tuple,
    kwargs: dict[str, Any],
    constants: dict[tuple[str, str], Any],
) -> Any:
    from mine.pipeline.cluster import runner

    modules = {key: importlib.import_module(key[0]) for key in constants}
    before = {key: getattr(modules[key], key[1]) for key in constants}
    for key, value in constants.items():
        setattr(modules[key], key[1], value)
    try:
        with runner(address) as running:  # joined already: it stays joined
            return function(*args, **kwargs, runner=running)
    finally:
        for key, value in before.items():
            setattr(modules[key], key[1], value)


def _invoke(args: list[str]) -> Ran:
    from tests.mine_cli import invoke

    result = invoke(*args, ok=False)
    return Ran(result.exit_code, result.stdout, result.output)
