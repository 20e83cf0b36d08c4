"""What containment costs: the validation `mine validate` runs, of the same well-behaved
player file on the same hands and games, with the file contained (a confined, watched
worker process, its calls stamped, its results sent as plain data; the guard process) and
unguarded (the baseline), each run a fresh process (both start cold: no cache of one run
helps the next), runs alternating; wall seconds, and CPU seconds beside them. TwentyOne
(flat-bet hands and full games through the file's `play`) and Hog (the exact report card
of its strategy).

    .venv/bin/python bench/contained.py  →  bench/results/contained.json
"""

from __future__ import annotations

import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from twentyone_player import METADATA  # noqa: E402

from mine.strategies.codegen.twentyone import write_module  # noqa: E402
from mine.strategies.engines.twentyone import TwentyOneRules  # noqa: E402
from mine.strategies.engines.twentyone_chart import Strategy  # noqa: E402
from mine.strategies.solvers.twentyone import solve  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "contained.json"
RUNS = 5
HOG_PLAYER = "def final_strategy(score, opponent_score):\n    return 4 if score < 90 else 2\n"


def seconds(code: str) -> tuple[float, float]:
    """Wall seconds of a run of `code`, and the CPU seconds of it and the processes it
    waited for (its workers: what a busy machine inflates less than the wall clock)."""
    before, started = _cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started, _cpu() - before


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def both_ways(code: str) -> dict[str, float]:
    """Seconds of `code` contained and unguarded, runs alternating; the ratio is the median
    of each pair's (a pair shares the machine's mood of the moment). `code` reads
    `contain`."""
    contained, unguarded = [], []
    for _ in range(RUNS):
        contained.append(seconds(f"contain = True\n{code}"))
        unguarded.append(seconds(f"contain = False\n{code}"))
    ratios = [on[0] / off[0] for on, off in zip(contained, unguarded, strict=True)]
    cpu_ratios = [on[1] / off[1] for on, off in zip(contained, unguarded, strict=True)]
    return {
        "contained_s": statistics.median(wall for wall, _ in contained),
        "unguarded_s": statistics.median(wall for wall, _ in unguarded),
        "ratio": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "cpu_ratio": statistics.median(cpu_ratios),
        "runs": RUNS,
    }


def main() -> None:
    rules = TwentyOneRules()
    with tempfile.TemporaryDirectory() as tmp:
        t21 = Path(tmp) / "player.py"
        write_module(t21, Strategy(solve(rules).chart, ((-10, 0, 10), (1, 10, 100)), (), METADATA))
        hog_file = Path(tmp) / "hog_player.py"
        hog_file.write_text(HOG_PLAYER)
        result = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "twentyone validate (200,000 hands, 4 full games)": both_ways(
                "from mine.strategies.engines.twentyone import TwentyOneRules\n"
                "from mine.strategies.validation.twentyone import validate\n"
                f"validate({str(t21)!r}, TwentyOneRules(), hands=200_000, games=4, seed=0, exact=False, "
                "contain=contain)"
            ),
            "hog validate (exact report card)": both_ways(
                "from mine.strategies.validation.hog import validate\n"
                f"validate({str(hog_file)!r}, contain=contain)"
            ),
        }
    for name, figures in result.items():
        if isinstance(figures, dict):
            print(
                f"{name}: contained {figures['contained_s']:.2f} s, unguarded "
                f"{figures['unguarded_s']:.2f} s (medians); paired ratio {figures['ratio']:.3f}× "
                f"[{figures['ratio_min']:.3f}, {figures['ratio_max']:.3f}] (target ≤ 1.10×); "
                f"CPU {figures['cpu_ratio']:.3f}×"
            )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
