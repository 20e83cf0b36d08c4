"""One local Ray cluster (2 CPUs) for the cluster tests, joined by this process: the
commands they run in-process use it (`--cluster` with its address)."""

from __future__ import annotations

import logging
import signal

import pytest

ray = pytest.importorskip("ray", reason="Ray is the cluster extra: pip install 'mine[cluster]'")

OBJECT_STORE_BYTES = 80 * 1024 * 1024  # tasks here pass small things; Ray's least is 75 MB


@pytest.fixture(scope="package")
def cluster() -> str:
    """The address of a local cluster of 2 CPUs, stopped after the last cluster test (a
    Ray driver's threads would outlive it in the forks other tests make). While it runs,
    SIGTERM interrupts the run as ^C does, so that it is stopped then too."""
    context = ray.init(
        address="local",  # a cluster of our own, whatever else runs here
        num_cpus=2,
        object_store_memory=OBJECT_STORE_BYTES,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    previous = signal.signal(signal.SIGTERM, _interrupt)  # over Ray's, which exits at once
    try:
        yield context.address_info["gcs_address"]
    finally:
        ray.shutdown()
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_unconfigure(config: pytest.Config) -> None:
    """However the run ended (^C or SIGTERM in a test, an error in a fixture), the cluster
    it started is stopped: no raylet outlives pytest."""
    if ray.is_initialized():
        ray.shutdown()
