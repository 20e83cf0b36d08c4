"""Your own logs beside a tour's simulations (issue 41): statistics and fits say which
folders' logs they read, and `--logs FOLDER` reads one folder's alone."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import REPO
from tests.mine_cli import here


@pytest.fixture(scope="module")
def two_sources(tmp_path_factory):
    """A real warehouse holding card-guessing logs of two folders: real example logs
    copied into `mylogs/` and a simulation in `sims/`."""
    root = tmp_path_factory.mktemp("sources")
    shutil.copytree(REPO / "examples" / "logs" / "cardguess", root / "mylogs")
    simulated = here("simulate", "cardguess", "--n", "2", "--games", "20", "--players", "greedy",
                     "--answerer", "uniform", "--seed", "1", "--out", "sims", cwd=root)  # fmt: skip
    assert simulated.returncode == 0, simulated.stderr
    ingested = here("ingest", "mylogs", "sims", "--db", "w.duckdb", cwd=root)
    assert ingested.returncode == 0, ingested.stderr
    mine_logs = len(list((root / "mylogs").glob("*-score.csv")))
    sim_logs = len(list((root / "sims").rglob("*-score.csv")))
    return root, mine_logs, sim_logs


def test_statistics_name_every_folder_they_read(two_sources):
    root, mine_logs, sim_logs = two_sources
    shown = here("stats", "cardguess", "--db", "w.duckdb", cwd=root)
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())  # a long line wraps
    assert f"{mine_logs} from mylogs/" in said and f"{sim_logs} from sims/" in said
    assert "--logs FOLDER reads one" in said
    read = json.loads(here("stats", "cardguess", "--db", "w.duckdb", "--json", cwd=root).stdout)
    assert read["sources"] == sorted(
        [{"folder": str(root / "mylogs"), "logs": mine_logs},
         {"folder": str(root / "sims"), "logs": sim_logs}],
        key=lambda source: (-source["logs"], source["folder"]),
    )  # fmt: skip


@pytest.mark.parametrize("folder", ["mylogs/", "mylogs"])
def test_a_fit_of_one_folder_reads_its_logs_alone(two_sources, folder):
    root, mine_logs, _ = two_sources
    fit = here("fit", "cardguess", "--n", "2", "--quick", "--db", "w.duckdb", "--logs", folder,
               "--out", f"t{len(folder)}.parquet", "--json", cwd=root)  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    fitted = json.loads(fit.stdout)
    assert fitted["sources"] == [{"folder": str(root / "mylogs"), "logs": mine_logs}]
    text = here("stats", "cardguess", "--db", "w.duckdb", "--logs", folder, cwd=root).stdout
    assert f"{mine_logs} from mylogs/" in text and "sims" not in text
    assert "several folders" not in text
