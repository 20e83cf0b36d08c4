"""The Gin Rummy `Player.hs` against the Python file of the same tables, over every call of
240 whole games (the suite plays 42).

The tables are fitted from the real 2020 server's games in examples/logs/ginrummy (as
`mine fit ginrummy` does); the Python file plays full games against each baseline in turn,
seats alternating, every draw, discard, call and declaration recorded, and the Haskell
program built as the course builds it answers the same calls: all must be equal, memory
included. Figures: calls by kind, mismatches (0), warnings (0), the longest memory, and
the time per call inside the Haskell program against the Python file's on the same calls.

    .venv/bin/python bench/ginrummy_haskell.py  →  bench/results/ginrummy_haskell.json
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from haskell_figures import example_logs, figures, report

from mine.models import ginrummy as model
from mine.pipeline.stats import ginrummy as stats_of
from mine.strategies.codegen.ginrummy import module_source
from mine.strategies.codegen.haskell.ginrummy import haskell_source
from mine.strategies.haskell.build import build
from mine.strategies.player_file import load_source
from mine.strategies.validation import haskell as compare

GAMES = 240


def fitted(folder: Path) -> model.Fitted:
    """The tables `mine fit ginrummy` writes, as `mine generate` reads them back."""
    with example_logs("ginrummy", folder) as con:
        features, fingerprint = stats_of.fit_data(con, "all")
        logs = con.execute("SELECT count(*) FROM logs").fetchone()[0]
    return model.fit(features, fingerprint, logs)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        source = module_source(fitted(Path(tmp)), None)
        built = build("ginrummy", haskell_source(source), Path(tmp) / "haskell")
        python = load_source(source, "ginrummy")
        result = compare.ginrummy(built.program, python, GAMES, seed=0)
    return report("ginrummy_haskell", figures(result, built, games=GAMES))


if __name__ == "__main__":
    sys.exit(main())
