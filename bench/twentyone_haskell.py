"""The TwentyOne `Player.hs` against the Python file of the same table, over at least
100,000 decisions of whole games (the suite plays a quarter of that).

The table is fitted from the real 2021 engine's games in examples/logs/twentyone (as
`mine fit twentyone` does); three copies of the Python file play full games beside a
textbook and a random bot, every call recorded, and the Haskell program built as the
course builds it answers the same calls: every action, amount and memory must be equal.
Figures: calls by action, mismatches (0), warnings (0), the longest memory, and the time
per call inside the Haskell program against the Python file's on the same calls.

    .venv/bin/python bench/twentyone_haskell.py  →  bench/results/twentyone_haskell.json
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from haskell_figures import example_logs, figures, report

from mine.models import twentyone as model
from mine.pipeline.stats.twentyone import fit_inputs
from mine.strategies.codegen.haskell.twentyone import haskell_source
from mine.strategies.codegen.twentyone import module_source
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.haskell.build import build
from mine.strategies.player_file import load_source
from mine.strategies.validation import haskell as compare

GAMES = 13  # about 8,000 decisions of the Python file's three seats a game
DECISIONS = 100_000


def fitted(folder: Path) -> Strategy:
    """What `mine fit twentyone` learns from the example logs (`read_table` gives back the
    same Strategy)."""
    with example_logs("twentyone", folder) as con:
        return model.fit(fit_inputs(con))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        source = module_source(fitted(Path(tmp)), None)
        built = build("twentyone", haskell_source(source), Path(tmp) / "haskell")
        python = load_source(source, "twentyone")
        result = compare.twentyone(built.program, python, GAMES, seed=0)
    if result.calls < DECISIONS:
        raise SystemExit(f"only {result.calls:,} decisions: play more games")
    return report("twentyone_haskell", figures(result, built, games=GAMES))


if __name__ == "__main__":
    sys.exit(main())
