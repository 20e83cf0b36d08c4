"""`--cluster ADDRESS`: the runner a command hands the layers (see `strategies/runners.py`),
and the one module that knows Ray.

    auto, HOST:PORT, ray://HOST:PORT   a running cluster (`ray start --head`, KubeRay)
    local, local:N                     start one on this machine (N CPUs), stopped after

Without `--cluster` the layers get local processes, as before. Ray is the optional extra
`pip install 'mine[cluster]'`; every machine of the cluster needs the same mine installed,
and the files a command names (logs, lakes) at the same paths (a shared file system).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mine.pipeline.console import errors, fail
from mine.pipeline.options import MAX_SECONDS
from mine.strategies.runners import KeptProcesses, Runner

LOCAL = "local"
AUTO = "auto"
TIMEOUT_ENV = "MINE_CLUSTER_TIMEOUT"
ANSWER_SECONDS = 5.0  # unless TIMEOUT_ENV says: for a cluster's address to answer, each try


def _joining(seconds: float) -> dict[str, str]:
    """Ray's settings for joining a cluster, each try bounded by about `seconds` (Ray reads
    them when it loads, in whole seconds)."""

    def whole(limit: float) -> str:
        return str(max(1, math.ceil(limit)))

    return {
        # Ray tries an address that takes connections but does not answer as a cluster for
        # a quarter of an hour (20 attempts of 45 s): one attempt, of about 3 × `seconds`.
        "RAY_gcs_server_port_wait_time_s": "1",
        "RAY_gcs_rpc_server_connect_timeout_s": whole(seconds / 2),
        "RAY_py_gcs_connect_timeout_s": whole(2 * seconds),
        # A ray:// address whose port takes connections but holds no Ray client server:
        # three tries of `seconds` (Ray's own: 5, 10 and 15 s).
        "RAY_CLIENT_INITIAL_CONNECTION_TIMEOUT_S": whole(seconds),
        "RAY_CLIENT_MAX_CONNECTION_TIMEOUT_S": whole(seconds),
    }


def _seconds() -> float:
    """TIMEOUT_ENV's seconds (ANSWER_SECONDS without it): more for a distant cluster, less
    where a wrong address should fail fast."""
    given = os.environ.get(TIMEOUT_ENV)
    if given is None:
        return ANSWER_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_SECONDS:  # nan and inf too: a try that never ends
        raise fail(f"{TIMEOUT_ENV}={given}: seconds above 0, at most {MAX_SECONDS:,}")
    return seconds


class RayRunner:
    """Each task a Ray task (one CPU, spread over the nodes), results in task order; it
    records the nodes its tasks ran on.

    It joins the cluster at `address` when it is first asked for work, not before: what a
    command prepares first (a Haskell entrant compiled, player files loaded in contained
    forks) then forks before Ray's threads exist — a fork beside gRPC's threads can kill
    the process."""

    def __init__(self, ray: Any, address: str, seconds: float) -> None:
        self.ray, self.address, self.seconds = ray, address, seconds
        self.joined = False  # by this runner, which then leaves the cluster after
        self.nodes: set[str] = set()
        self.tasks = 0

    def _on_cluster(self) -> Any:
        if self.address is not None:
            self.joined = _join(self.ray, self.address, self.seconds)
            self.address = None
        return self.ray

    @property
    def workers(self) -> int:
        return max(1, int(self._on_cluster().cluster_resources().get("CPU", 1)))

    def map(self, function: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        ray = self._on_cluster()
        remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(_on_node)
        # Stopped early (an error, ^C), the rest is left to run, not cancelled: Ray (2.60)
        # aborts a driver whose cancelled task's reply is on its way, and the command's
        # ray.shutdown ends the job's tasks anyway.
        pending = [remote.remote(function, task) for task in tasks]
        while pending:
            try:
                result, node = ray.get(pending[0])
            except ray.exceptions.RayTaskError as error:
                # The task's own exception, as a serial run would raise it.
                raise (error.cause or error) from None
            pending.pop(0)
            self.nodes.add(node)
            self.tasks += 1
            yield result


def _on_node(function: Callable[[Any], Any], task: Any) -> tuple[Any, str]:
    import ray

    return function(task), ray.get_runtime_context().get_node_id()


@contextlib.contextmanager
def runner(address: str | None, here: Runner | None = None) -> Iterator[Runner]:
    """The runner for `--cluster address` (None: `here`, else this machine's processes);
    a cluster started here is stopped after, one joined is left as it was."""
    if address is None:
        if here is not None:
            yield here
            return
        # One set of processes for the whole command: a simulation maps each match's
        # tasks in turn, and fresh processes a match cost a second of start-up each.
        with KeptProcesses(os.cpu_count() or 1) as kept:
            yield kept
        return
    seconds = ANSWER_SECONDS if _local(address) else _seconds()
    if not _local(address):
        for key, value in _joining(seconds).items():
            os.environ.setdefault(key, value)
    try:
        import ray
    except ImportError:
        raise fail("--cluster needs Ray: pip install 'mine[cluster]'") from None
    if _local(address):
        _cpus(address)  # refused now, not at the first task
    running = RayRunner(ray, address, seconds)
    try:
        yield running
        if running.tasks:
            nodes = len(running.nodes)
            errors.print(
                f"cluster: {running.tasks} tasks on {nodes} node{'s' * (nodes != 1)}",
                style="dim",
            )
    finally:
        if running.joined:
            ray.shutdown()


def _join(ray: Any, address: str, seconds: float) -> bool:
    """Join the cluster at `address` (or start one); False when this process had already
    joined one (it stays joined)."""
    if ray.is_initialized():  # a driver that already joined one (the tests, a notebook)
        return False
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if _local(address):
        # A cluster of our own, never one that happens to run here already; its workers
        # do this command's work, at its priority (Ray would nice them to 15).
        os.environ.pop("RAY_ADDRESS", None)
        os.environ.setdefault("RAY_worker_niceness", "0")
        try:
            ray.init(address=LOCAL, num_cpus=_cpus(address), **quiet)
        # Ray raises a bare Exception when its node does not register within its fixed
        # 30 s (a machine loaded far past its cores); what it started must not outlive us.
        except Exception as error:
            ray.shutdown()
            raise fail(
                f"--cluster {address}: cannot start Ray here ({_first_line(error)})"
            ) from None
        return True
    try:
        with _without_stderr():  # Ray logs each failed try there before its settings apply
            ray.init(address=_answering(ray, address, seconds), **quiet)
    except (ConnectionError, ValueError, RuntimeError) as error:
        raise fail(
            f"--cluster {address}: cannot join the Ray cluster ({_first_line(error)})"
        ) from None
    return True


@contextlib.contextmanager
def _without_stderr() -> Iterator[None]:
    """Descriptor 2 sent nowhere for the block (what fails there is said after, in one
    line)."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _answering(ray: Any, address: str, seconds: float) -> str:
    """The address to join for `address`, checked to take a connection within `seconds`
    (ConnectionError if not): Ray itself would try one nobody answers at for minutes.
    `auto` is RAY_ADDRESS, else the cluster `ray start` last started on this machine."""
    if address == AUTO:
        found = os.environ.get("RAY_ADDRESS") or ray._private.utils.read_ray_address()
        if not found:
            raise ConnectionError("no cluster started here with `ray start`, nor RAY_ADDRESS")
        address = found
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if port.isdigit():
        try:
            socket.create_connection((host, int(port)), timeout=seconds).close()
        except OSError as error:
            reason = error.strerror or "no answer"
            raise ConnectionError(f"nothing answers at {host}:{port}: {reason}") from None
    return address


def _local(address: str) -> bool:
    return address == LOCAL or address.startswith(f"{LOCAL}:")


def _cpus(address: str) -> int | None:
    """The N of `local:N` (None: every CPU here)."""
    cpus = address.partition(":")[2]
    if cpus and (not cpus.isdigit() or int(cpus) < 1):
        raise fail(f"--cluster {address}: local:N takes a number of CPUs of at least 1")
    return int(cpus) if cpus else None


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
