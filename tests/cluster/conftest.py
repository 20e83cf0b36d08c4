"""One local Ray cluster (2 CPUs) for the cluster tests, joined by this process: the
commands they run in-process use it (`--cluster` with its address)."""

from __future__ import annotations

import logging

import pytest

ray = pytest.importorskip("ray", reason="Ray is the cluster extra: pip install 'mine[cluster]'")

OBJECT_STORE_BYTES = 80 * 1024 * 1024  # tasks here pass small things; Ray's least is 75 MB


@pytest.fixture(scope="package")
def cluster() -> str:
    """The address of a local cluster of 2 CPUs, stopped after the last cluster test (a
    Ray driver's threads would outlive it in the forks other tests make)."""
    context = ray.init(
        address="local",  # a cluster of our own, whatever else runs here
        num_cpus=2,
        object_store_memory=OBJECT_STORE_BYTES,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    yield context.address_info["gcs_address"]
    ray.shutdown()
