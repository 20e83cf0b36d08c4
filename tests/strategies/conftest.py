"""Fixtures of the tests that run player files: hostile ones, and Haskell ones."""

from __future__ import annotations

import pytest

from mine.strategies.haskell.programs import CACHE
from tests.conftest import with_stand_ins
from tests.strategies.hostile_files import end_left_behind, left_behind, readable_folder


@pytest.fixture(scope="module")
def cache(tmp_path_factory, haskell_stand_ins):
    """The compiled programs' cache of a test module, for the commands it runs (the
    stand-ins compiled once in the session)."""
    folder = with_stand_ins(tmp_path_factory.mktemp("cache"), haskell_stand_ins)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE, str(folder))
        yield folder / "haskell"


@pytest.fixture
def leftovers(tmp_path):
    """What the test left running in its folder (it asserts there is nothing); ended after."""
    yield lambda: left_behind(tmp_path)
    end_left_behind(tmp_path)


@pytest.fixture
def readable():
    """`readable_folder()`, the test's own."""
    with readable_folder() as folder:
        yield folder
