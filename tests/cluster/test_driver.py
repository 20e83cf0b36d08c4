"""No pytest worker is a Ray driver: the cluster is driven by a process of its own, and
Ray is never imported here (the cluster's teardown checks that again, after the last
cluster test); a driver that dies fails the test that called it instead of hanging it."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from tests.cluster.driver import Driver


def _joined() -> bool:
    import ray

    return ray.is_initialized()


def test_the_cluster_is_driven_by_a_process_of_its_own(cluster):
    assert cluster.run(os.getpid) != os.getpid()
    assert cluster.run(_joined)
    assert "ray" not in sys.modules


def test_a_driver_that_dies_fails_the_test_that_called_it():
    driver = Driver()
    try:
        os.kill(driver.run(os.getpid), signal.SIGKILL)
        with pytest.raises(pytest.fail.Exception, match="the Ray driver process died"):
            driver.run(os.getpid)
    finally:
        assert driver.close() == []
