"""What the Haskell players' benchmarks share (`bench/<game>_haskell.py`; not a benchmark
itself): a warehouse of the example logs the tables are fitted from, and the proof's
figures from a `strategies.validation.haskell.Comparison`, printed and written to
bench/results/<name>.json, with the exit code (1 if a decision differs or the file
compiled with a warning)."""

from __future__ import annotations

import json
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from mine.strategies.haskell.build import Built
from mine.strategies.validation.haskell import Comparison
from mine.warehouse.connection import connect
from mine.warehouse.ingest import ingest

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


@contextmanager
def example_logs(game: str, folder: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A warehouse in `folder` holding examples/logs/<game>."""
    logs = HERE.parent / "examples" / "logs" / game
    con = connect(folder / "w.duckdb")
    try:
        if not ingest(con, [logs]).ok:
            raise SystemExit(f"cannot ingest {logs}")
        yield con
    finally:
        con.close()


def figures(result: Comparison, built: Built, **more: Any) -> dict[str, Any]:
    """Counts, the compiler's warnings, and the time per call inside the Haskell program
    (µs) against the Python file's on the same calls (the baseline, same run)."""
    haskell = np.array(result.nanoseconds) / 1e3
    python = np.array(result.python_nanoseconds) / 1e3
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "calls": result.calls,
        "mismatches": result.mismatches,
        "first_mismatches": [list(map(str, m)) for m in result.first],
        "answers_by_kind": dict(sorted(result.kinds.items())),
        "warnings": len(built.warnings),
        "longest_memory_chars": result.longest_memory,
        "haskell_us": _spread(haskell),
        "python_file_us": _spread(python),
        "p99_ratio_haskell_to_python": round(_p(haskell, 99) / max(_p(python, 99), 1e-9), 4),
        **more,
    }


def _p(values: np.ndarray, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else 0.0


def _spread(values: np.ndarray) -> dict[str, float]:
    return {
        "p50": round(_p(values, 50), 1),
        "p99": round(_p(values, 99), 1),
        "max": round(float(values.max(initial=0)), 1),
    }


def report(name: str, result: dict[str, Any]) -> int:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 1 if result["mismatches"] or result["warnings"] else 0
