"""Gin Rummy against the opponents of issue 40: a generated file's win rate, with its 95 %
interval, against `simple`, `student` and `never-knock`, and the hands it loses to an
undercut (2,000 games each by default; the figures are the file's, measured as `mine
validate` measures it).

The table is fitted as a user would: 200 simulated games of simple against explorer, 100
of ginhunter against simple, and the 30 real students' games of
`tests/data/ginrummy-students-2020/`; the file is generated from it without measuring.

Run: .venv/bin/python bench/ginrummy_opponents.py [games]   → bench/results/ginrummy_opponents.json
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MINE = str(ROOT / ".venv" / "bin" / "mine")
OPPONENTS = "simple,student,never-knock"
SEED = 2102


def mine(*args: str) -> str:
    return subprocess.run([MINE, *args], check=True, capture_output=True, text=True).stdout


def generated(out: Path) -> Path:
    """The generated file, fitted as a user would (see above), written in the folder `out`."""
    logs, db = str(out / "logs"), str(out / "w.duckdb")
    mine("simulate", "ginrummy", "--players", "simple,explorer", "--games", "200",
         "--seed", "2024", "--out", logs)  # fmt: skip
    mine("simulate", "ginrummy", "--players", "ginhunter,simple", "--games", "100",
         "--seed", "2025", "--out", logs)  # fmt: skip
    mine("ingest", logs, str(ROOT / "tests/data/ginrummy-students-2020"), "--db", db)
    table, player = str(out / "table.parquet"), out / "player.py"
    mine("fit", "ginrummy", "--db", db, "--out", table)
    mine("generate", "ginrummy", "--table", table, "--out", str(player), "--games", "0")
    return player


def main(games: int = 2000) -> None:
    with tempfile.TemporaryDirectory() as folder:
        player = str(generated(Path(folder)))
        card = json.loads(mine("validate", "ginrummy", player, "--games", str(games),
                               "--baselines", OPPONENTS, "--seed", str(SEED), "--json"))  # fmt: skip
    result = {}
    for name, f in card["against"].items():
        lost = round(f["knock_rate"] * f["undercut_rate"], 4)  # of all hands
        result[name] = {"games": f["games"], "win_rate": f["win_rate"], "win_ci": f["win_ci"],
                        "points_per_round": f["points_per_round"],
                        "hands_lost_to_undercut": lost}  # fmt: skip
        print(f"vs {name}: win {f['win_rate']:.3f} [{f['win_ci'][0]:.3f}, {f['win_ci'][1]:.3f}]"
              f" over {f['games']} games; hands lost to an undercut {lost:.3f}")  # fmt: skip
    path = ROOT / "bench" / "results" / "ginrummy_opponents.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:]))
