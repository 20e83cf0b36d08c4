"""A player module as the source of a generated file: its own code, the values a fitted
table sets written where the module assigns its placeholders.

Here, not in `codegen/`, so that validation may build a player from a table too (to
measure a chart as a file plays it) without importing the code generators.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Any


class Code(str):
    """A value's source text, already written (rows of a large table, one per line)."""


PRAGMA = re.compile(r"  # (?:fmt: skip|noqa: [A-Z0-9, ]+)$", re.MULTILINE)


def player_code(module: str, literals: dict[str, Any]) -> str:
    """The code of the player module `module` (`mine.strategies.players.<game>`) after its
    docstring, each of `literals` (name → value, or its `Code`) assigned in place of the
    module's own top-level value (keeping the line's comment), without the repository's
    lint pragmas (`# fmt: skip`, `# noqa`: they speak to its linter, not to the file). The
    source is read, not imported: a command that writes a player need not load it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"no player module {module}")
    source = Path(spec.origin).read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    written = set()
    for node in reversed(tree.body):
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id in literals:
            value = literals[target.id]
            text = value if isinstance(value, Code) else repr(value)
            after = lines[node.end_lineno - 1][node.end_col_offset :]  # a comment, the newline
            lines[node.lineno - 1 : node.end_lineno] = [f"{target.id} = {text}{after}"]
            written.add(target.id)
    if written != set(literals):
        raise ValueError(f"{module} assigns no {', '.join(sorted(set(literals) - written))}")
    first = tree.body[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    return PRAGMA.sub("", "".join(lines[first.end_lineno :] if docstring else lines))


def wrap(text: str, width: int = 96) -> Code:
    """A long literal broken after commas (inside its brackets, so it stays one literal)."""
    out, line = [], ""
    for part in text.split(", "):
        piece = part if not line else ", " + part
        if len(line) + len(piece) > width:
            out.append(line + ",")
            line = "    " + part
        else:
            line += piece
    out.append(line)
    return Code("\n".join(out))
