"""How work is split for a runner: seeds by the task's place in the work, tasks sized by
the work, and player files shipped as data (a copy where the worker does not see the
file, named as the file in what goes wrong)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mine.strategies import contained
from mine.strategies.player_file import PlayerFileError, Shipped, landed, load_module
from mine.strategies.runners import child, spans


@given(st.integers(0, 2**32), st.integers(1, 40))
def test_a_child_is_the_spawned_one(seed, count):
    spawned = np.random.SeedSequence(seed).spawn(count)
    for index in (0, count // 2, count - 1):
        assert child(seed, index).generate_state(4).tolist() == (
            spawned[index].generate_state(4).tolist()
        )


@given(st.integers(0, 500), st.integers(1, 60))
def test_spans_cover_the_work_once_in_order(total, size):
    found = spans(total, size)
    assert [i for span in found for i in span] == list(range(total))
    assert all(len(span) == size for span in found[:-1])


def _load(path: str) -> None:
    load_module(path, "test", ("play",))


def test_a_file_seen_here_runs_in_place_and_a_copy_answers_for_its_file(tmp_path):
    here = tmp_path / "p.py"
    here.write_text("def play():\n    return 1\n")
    with landed([Shipped.of(here)]) as paths:
        assert paths == [str(here)]
    elsewhere = Shipped(str(tmp_path / "gone" / "p.py"), b"import os\nos._exit(4)\n")
    with pytest.raises(contained.PlayerFault) as fault, landed([elsewhere]) as paths:
        assert paths != [elsewhere.path] and paths[0].endswith("/p.py")
        contained.run(paths, _load, paths)
    assert fault.value.path == elsewhere.path and "exit code 4" in fault.value.reason
    broken = Shipped(str(tmp_path / "gone" / "q.py"), b"x = 1\n")
    with pytest.raises(PlayerFileError, match=f"^{broken.path}: "), landed([broken]) as paths:
        _load(paths[0])
    with pytest.raises(PlayerFileError, match=f"^{tmp_path / 'none.py'}: no such file$"):
        Shipped.of(tmp_path / "none.py")  # before any task is sent
