"""One local Ray cluster (2 CPUs) for the cluster tests, driven by a process of its own
(`driver.py`): what a test runs on the cluster runs there, and no pytest worker joins the
cluster or imports Ray (the skip below only looks for it)."""

from __future__ import annotations

import importlib.util
import signal
import sys
from collections.abc import Iterator

import pytest

if importlib.util.find_spec("ray") is None:
    pytest.skip("Ray is the cluster extra: pip install 'mine[cluster]'", allow_module_level=True)

from tests.cluster.driver import Driver  # noqa: E402 (after the skip: Ray is there)

DRIVER = pytest.StashKey[Driver]()


@pytest.fixture(scope="package")
def cluster(request: pytest.FixtureRequest) -> Iterator[Driver]:
    """The cluster's driver, stopped after the last cluster test, and with it everything
    the cluster started (else the test run errs, naming what was left). While it runs,
    SIGTERM interrupts the run as ^C does, so that it is stopped then too."""
    previous = signal.signal(signal.SIGTERM, _interrupt)  # over the default, which exits at once
    driver = request.config.stash[DRIVER] = Driver()
    try:
        driver.start()
        yield driver
    finally:
        left = driver.close()
        signal.signal(signal.SIGTERM, previous)
    assert not left, f"the cluster outlived its driver: {left}"
    assert "ray" not in sys.modules, "a pytest worker imported Ray: it must never be a driver"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_unconfigure(config: pytest.Config) -> None:
    """However the run ended (^C or SIGTERM in a test, an error in a fixture), the cluster
    it started is stopped: no raylet outlives pytest."""
    driver = config.stash.get(DRIVER, None)
    if driver is not None:
        driver.close()
