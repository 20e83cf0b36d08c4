"""`make bench`: every benchmark, each in its own process: the shared ones (start-up,
ingest), then each registered game's (`bench/<game>.py`, `bench/<game>_*.py`).

    .venv/bin/python bench/run.py [NAME ...]   # only the benchmarks whose file names start so
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mine import games

HERE = Path(__file__).resolve().parent
SHARED = ("startup.py", "ingest.py", "lake.py", "query.py", "contained.py", "fan_out.py")


def benchmarks() -> list[Path]:
    found = [HERE / name for name in SHARED]
    for game in games.GAMES:
        found += sorted(HERE.glob(f"{game.name}.py")) + sorted(HERE.glob(f"{game.name}_*.py"))
    return found


def main() -> int:
    chosen = [b for b in benchmarks() if not sys.argv[1:] or b.stem.startswith(tuple(sys.argv[1:]))]
    for path in chosen:
        print(f"== {path.name}", flush=True)
        if subprocess.run([sys.executable, str(path)]).returncode:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
