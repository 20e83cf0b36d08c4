"""A player module as the source of a generated file.

The file is the module's own code with two things changed: its docstring (the file's
provenance instead of the module's) and the constants a fitted table sets, each written
as a literal where the module assigns its default. The repository's lint pragmas (`# fmt:
skip`, `# noqa`) are left out: they speak to the repository's linter, not to the file.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

PRAGMA = re.compile(r"  # (?:fmt: skip|noqa: [A-Z0-9, ]+)$")


def embed(
    module: ModuleType,
    doc: str,
    constants: Mapping[str, Any],
    wrapped: Collection[str] = (),
    width: int = 96,
) -> str:
    """`module`'s source with `doc` as its docstring and each of `constants` (name →
    value) assigned its `repr` where the module assigns the name at its top level (the
    names in `wrapped` broken over lines of about `width`). ValueError for a constant the
    module does not assign."""
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    tree = ast.parse(source)
    assigned = {
        node.targets[0].id: node
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    }
    unknown = sorted(set(constants) - set(assigned))
    if unknown:
        raise ValueError(f"{module.__name__} assigns no {', '.join(unknown)}")
    replaced = {}
    for name, value in constants.items():
        text = wrap(repr(value), width) if name in wrapped else repr(value)
        node = assigned[name]
        replaced[node.lineno - 1] = (node.end_lineno, f"{name} = {text}\n")
    lines = source.splitlines(keepends=True)
    out = [f'"""{doc}"""\n']
    at = tree.body[0].end_lineno or 0  # the line after the module's docstring
    while at < len(lines):
        if at in replaced:
            at, text = replaced[at]
            out.append(text)
            continue
        out.append(PRAGMA.sub("", lines[at].rstrip("\n")) + "\n")
        at += 1
    return "".join(out)


def wrap(text: str, width: int = 96) -> str:
    """Break a long literal after commas (inside the brackets, so it stays one literal)."""
    out, line = [], ""
    for part in text.split(", "):
        piece = part if not line else ", " + part
        if len(line) + len(piece) > width:
            out.append(line + ",")
            line = "    " + part
        else:
            line += piece
    out.append(line)
    return "\n".join(out)
