"""Fitting: situation statistics → lookup tables, and the table file format.

A game's module (the registry's `fitter`) provides `CONTRACT`: `fit(inputs, **options)`
turns what its statistics module's `fit_inputs` read into a fitted table — a domain object
with its `metadata` (game, kind, data fingerprint, rows, method, settings, what was
learned) — and `write_table(path, fitted)` / `read_table(path)` keep it in the shared file
format (`tables.py`: Parquet rows + JSON metadata), `read_table` returning the same kind of
object `fit` does, checked (schema, types, ranges) so that a hand-edited file is refused in
one `TableError` line.
"""

import math

import numpy as np

CONTRACT = {
    "GAME": None,
    "KIND": None,
    "fit": ("inputs",),
    "write_table": ("path", "fitted"),
    "read_table": ("path",),
}


class FitError(ValueError):
    """Logs a table cannot be fitted from (empty, too few, or contradicting the shape of the
    game)."""


def chi_square_p(counts: np.ndarray) -> float:
    """P-value of the counts under equal chances (Wilson–Hilferty normal approximation)."""
    expected = counts.sum() / counts.size
    statistic = float(((counts - expected) ** 2 / expected).sum())
    df = counts.size - 1
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))
