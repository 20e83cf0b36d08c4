"""The one place that says when the Haskell players' tests run: with GHC on PATH (`.ci/run`
installs Debian's), else they are skipped with that reason."""

from __future__ import annotations

import pytest

from mine.strategies.haskell.build import ghc

needs_ghc = pytest.mark.skipif(
    ghc() is None, reason="ghc is not installed (.ci/run installs Debian's ghc before make test)"
)
