from __future__ import annotations

import random
from pathlib import Path

import duckdb
import pytest

from mine.parsers import ginrummy, twentyone
from tests.data import synth

REPO = Path(__file__).resolve().parent.parent
REAL_GINRUMMY = REPO / "examples" / "logs" / "ginrummy"
REAL_TWENTYONE = REPO / "examples" / "logs" / "twentyone"


@pytest.fixture
def warehouse(tmp_path):
    """A fresh warehouse file, and a connection to it."""
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    yield path, con
    con.close()


@pytest.fixture
def good_logs(tmp_path):
    """Two valid TwentyOne pairs and two valid Gin Rummy pairs in one folder tree."""
    rng = random.Random(7)
    root = tmp_path / "logs"
    for i in range(2):
        synth.write_pair(root / "twentyone", f"t{i}", twentyone, *synth.twentyone_game(rng))
        synth.write_pair(root / "ginrummy", f"g{i}", ginrummy, *synth.ginrummy_game(rng))
    return root
