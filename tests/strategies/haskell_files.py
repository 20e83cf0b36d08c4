"""The one place that says when the Haskell players' tests run: with GHC on PATH (`.ci/run`
installs Debian's), else they are skipped with that reason; and the smallest player."""

from __future__ import annotations

import pytest

from mine.strategies.haskell.build import ghc

needs_ghc = pytest.mark.skipif(
    ghc() is None, reason="ghc is not installed (.ci/run installs Debian's ghc before make test)"
)

# The smallest card-guessing player that compiles (it guesses nothing): quick to compile.
SMALLEST_PROJ1 = """module Proj1 (feedback, initialGuess, nextGuess, GameState) where

import Card (Card)

type GameState = ()

feedback :: [Card] -> [Card] -> (Int, Int, Int, Int, Int)
feedback _ _ = (0, 0, 0, 0, 0)

initialGuess :: Int -> ([Card], GameState)
initialGuess _ = ([], ())

nextGuess :: ([Card], GameState) -> (Int, Int, Int, Int, Int) -> ([Card], GameState)
nextGuess previous _ = previous
"""
