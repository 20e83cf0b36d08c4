"""Fixtures of the tests that run player files: hostile ones, and Haskell ones."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from mine.strategies.haskell.programs import CACHE
from tests.conftest import with_stand_ins
from tests.strategies.hostile_files import end_left_behind, left_behind


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
    """A folder anyone may read, and in it `tmp`, one anyone may write (as /tmp): for a
    harness that is not root, or has not root's rights over files, and its workers. What
    a test left running there is ended after it."""
    folder = Path(tempfile.mkdtemp(prefix="mine-test-"))
    folder.chmod(0o755)
    (folder / "tmp").mkdir()
    (folder / "tmp").chmod(0o1777)
    yield folder
    end_left_behind(folder)
    shutil.rmtree(folder)
