"""A command joins its cluster at its first task, not when it starts: what it prepares
before (a Haskell entrant compiled, player files loaded in contained forks) forks while
the process has no Ray threads — a fork beside gRPC's threads can kill the process."""

from __future__ import annotations

import subprocess
import sys

JOINS_LATE = """
import ray
from mine.pipeline.cluster import runner

with runner("local:1") as running:
    assert not ray.is_initialized(), "joined before any task"
    assert list(running.map(abs, [-2, 3])) == [2, 3]
    assert ray.is_initialized()
assert not ray.is_initialized(), "the cluster it started outlived the command"
print("joined late")
"""


def test_a_runner_joins_the_cluster_at_its_first_task():
    # A process of its own: no pytest worker is a Ray driver.
    done = subprocess.run(
        [sys.executable, "-c", JOINS_LATE], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "joined late"
