"""A cluster of two nodes on this machine, as a user makes one (`ray start --head`, then
`ray start --address=…` with its own CPU), started and stopped here: `mine ingest
--cluster` joins it (through Ray's client, `ray://`, or as a driver of its own), its tasks
run on both nodes, and the lake holds every log."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mine.warehouse import lake as lakes
from tests.conftest import REAL_TWENTYONE
from tests.mine_cli import MINE

RAY = str(Path(sys.executable).parent / "ray")
# Ray clusters authenticate with the token Ray keeps for this machine; every process of
# this cluster (nodes and driver) is told to present it. gRPC's fork handlers stay off:
# with them, the client server's fork of a specific server (while its threads are in gRPC)
# failed one start in five here ("SpecificServer startup failed", the client then refused).
ENV = {**os.environ, "RAY_AUTH_MODE": "token", "COLUMNS": "400", "GRPC_ENABLE_FORK_SUPPORT": "0"}
NODE = ["--block", "--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats",
        "--object-store-memory=80000000"]  # fmt: skip
STOP_SECONDS = 5  # then killed: nothing of a test cluster is worth keeping


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(*args: str) -> subprocess.Popen:
    """A Ray node (`ray start --block …` in its own process group), once it says it runs."""
    node = subprocess.Popen(
        [RAY, "start", *NODE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=ENV,
        start_new_session=True,
    )
    said = []
    for line in node.stdout:
        said.append(line)
        if "Ray runtime started" in line:
            return node
    _stop(node)
    raise AssertionError("ray start failed:\n" + "".join(said[-20:]))


def _stop(node: subprocess.Popen) -> None:
    """The node and every process it started (its process group, Ray's workers too):
    asked to stop, then killed."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(node.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        node.wait(STOP_SECONDS)
    with contextlib.suppress(ProcessLookupError):  # what is left of the group
        os.killpg(node.pid, signal.SIGKILL)
    node.wait()
    node.stdout.close()


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[dict[str, str]]:
    """The cluster's addresses: its head's, and its Ray client server's (`ray://`)."""
    head_port, client_port = _free_port(), _free_port()
    address = f"127.0.0.1:{head_port}"
    head = _start("--head", f"--port={head_port}", f"--ray-client-server-port={client_port}",
                  "--include-dashboard=false")  # fmt: skip
    try:
        second = _start(f"--address={address}")
        try:
            yield {"driver": address, "client": f"ray://127.0.0.1:{client_port}"}
        finally:
            _stop(second)
    finally:
        _stop(head)


@pytest.mark.parametrize("joined", ["driver", "client"])
def test_tasks_run_on_both_nodes(two_nodes, joined, tmp_path):
    lake = tmp_path / "lake"
    pairs = len(list(REAL_TWENTYONE.glob("*-score.csv")))
    done = subprocess.run(
        [MINE, "ingest", REAL_TWENTYONE, "--lake", lake, "--cluster", two_nodes[joined],
         "--shard-pairs", "1"],
        capture_output=True, text=True, env=ENV, timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # One task hashes the files, then one task per pair.
    assert f"cluster: {pairs + 1} tasks on 2 nodes" in done.stderr, done.stderr
    con = lakes.connect(lake)
    try:
        assert con.execute("SELECT count(*) FROM logs").fetchall()[0][0] == pairs
    finally:
        con.close()
