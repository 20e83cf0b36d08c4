"""Code generators: fitted tables → single-file, standard-library-only player modules.

What every generator shares lives here: log content reaches a generated file only as a
number or as text from a fixed alphabet (`safe_text`), and a generated source is parsed
back and checked before it is written (`check_source`).

A game's module (the registry's `codegen`) provides `CONTRACT`: `module_source(fitted,
card, **options)`, the whole file for a fitted table (the player's code embedded by source
from `strategies/players/<game>.py`, the table as literals, and `card` — the figures
measured on the file, or None before they are — in its docstring), and `IMPORTS`, the
standard modules the file may import. Writing goes one way for every game
(`write_player`): write the file, measure that file, write it again with the figures.
"""

from __future__ import annotations

import ast
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

CONTRACT = {"module_source": ("fitted", "card"), "IMPORTS": None}

SAFE_TEXT = re.compile(r"[\w.:+\-=/ ()×→,%\[\]]*")


def safe_text(value: object, number: str = "{:.6f}") -> str:
    """A value fit for a docstring: numbers as they are (floats by `number`), text only if
    it is short and made of plainly safe characters."""
    if value is None or isinstance(value, int):  # a bool too
        return str(value)
    if isinstance(value, float):
        return number.format(value) if math.isfinite(value) else "(not finite)"
    text = str(value)
    return text if SAFE_TEXT.fullmatch(text) and len(text) <= 120 else "(not shown)"


def check_source(
    source: str, doc: str, literals: dict[str, Any], imports: frozenset[str] = frozenset()
) -> None:
    """The source parses, and says exactly what was meant: its docstring, and each of
    `literals` (name → value) assigned once; it imports only these standard modules."""
    tree = ast.parse(source)
    if ast.get_docstring(tree, clean=False) != doc:
        raise ValueError("generated docstring does not read back as written")
    for name, literal in literals.items():
        values = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        ]
        if len(values) != 1 or ast.literal_eval(values[0]) != literal:
            raise ValueError(f"generated {name} does not read back as meant")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for name in names:
                root = (name or "").split(".")[0]
                if root not in imports or root not in sys.stdlib_module_names:
                    raise ValueError(f"generated code imports {name!r}")


class Written(NamedTuple):
    source: str  # the file, its figures in its docstring
    card: dict[str, Any]  # the figures, measured on the file itself


def write_player(
    generator: ModuleType,
    fitted: Any,
    measure: Callable[[Path], dict[str, Any]],
    **options: Any,
) -> Written:
    """The one way a player file is made: its source without figures, that file measured
    (`measure(path)`: the game's `validation.check` on it), then the source again with the
    figures in its docstring. The code is the same in both: only the docstring differs,
    so the figures are the written file's own."""
    with tempfile.TemporaryDirectory(prefix="mine-player-") as folder:
        os.chmod(folder, 0o755)  # the contained player's user reads the draft (not root)
        draft = Path(folder) / "player.py"
        draft.write_text(generator.module_source(fitted, None, **options), encoding="utf-8")
        card = measure(draft)
    return Written(generator.module_source(fitted, card, **options), card)
