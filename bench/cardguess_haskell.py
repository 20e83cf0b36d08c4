"""The card-guessing `Proj1.hs` against the Python file of the same trees: every n = 2
answer, 100 n = 3 answers and 4 n = 4 answers spread over all hands (the suite plays
every n = 2 answer, 14 n = 3 and 8 n = 4 answers among the first hands).

Trees: n = 2 searched over every answer, n = 3 over every tenth (answers outside it leave
the tree and meet the fallback), no n = 4 tree (the fallback alone). The Python file's
fallback stops after half a second; here its clock is lifted, so that both decide by the
rule alone, and it takes minutes where the Haskell file takes a second. Figures: guesses,
mismatches (0), warnings (0), the mean guesses of each file for n = 2 (equal), the longest
game inside the Haskell program (the handout allows 10 s), time per call against the
Python file's.

    .venv/bin/python bench/cardguess_haskell.py  →  bench/results/cardguess_haskell.json
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from haskell_figures import figures, report

from mine.strategies.codegen.cardguess import module_source
from mine.strategies.codegen.haskell.cardguess import haskell_source
from mine.strategies.engines.cardguess import hands
from mine.strategies.haskell import protocol
from mine.strategies.haskell.build import build
from mine.strategies.player_file import load_source
from mine.strategies.solvers.cardguess import Plan, Search, Trees, flatten
from mine.strategies.validation import haskell as compare

PLAN = Plan(widths=(1,), members=200, extras=0)
METADATA = {"games": 0, "rows": 0, "fingerprint": "0" * 64, "method": "bench"}
SAMPLES = {3: 100, 4: 4}


def main() -> int:
    three = Search(3, None, PLAN)
    trees = {
        2: flatten(2, Search(2, None, PLAN).run()),
        3: flatten(3, three.solve(np.arange(0, len(three.universe), 10), 0)),
    }
    answers = {2: hands(2).cards.tolist()}
    for n, count in SAMPLES.items():
        every = hands(n).cards.tolist()
        answers[n] = [every[i] for i in np.linspace(0, len(every) - 1, count).astype(int)]
    with tempfile.TemporaryDirectory() as tmp:
        source = module_source(Trees(trees, METADATA), None)
        built = build("cardguess", haskell_source(source), Path(tmp) / "haskell")
        python = load_source(source, "cardguess")
        python.FALLBACK_SECONDS = float("inf")
        calls = [c for n, hs in answers.items() for c in compare.cardguess_calls(python, n, hs)]
        result = compare.compare(built.program, calls, lambda _, r: protocol.cardguess_guess(r))
    games = {n: len(hs) for n, hs in answers.items()}
    guesses = Counter(call.kind for call in calls)
    game_ms = [sum(result.nanoseconds[i] for i in game) / 1e6 for game in _games(calls)]
    return report(
        "cardguess_haskell",
        figures(
            result,
            built,
            answers=games,
            mean_guesses={n: guesses[f"n={n}"] / games[n] for n in games},
            mean_guesses_n2_tree=float(trees[2].cost[0]),
            longest_game_ms=round(max(game_ms), 1),
        ),
    )


def _games(calls: list[compare.Call]) -> list[list[int]]:
    """The calls of each game (a game starts with its `initial` request)."""
    games: list[list[int]] = []
    for i, call in enumerate(calls):
        if call.request.startswith("initial"):
            games.append([])
        games[-1].append(i)
    return games


if __name__ == "__main__":
    sys.exit(main())
