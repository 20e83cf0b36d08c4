"""Code generators of the courses' Haskell files (FIT2102 `Player.hs`, COMP30020 `Proj1.hs`).

A player's logic is real Haskell source in `templates/<game>.hs`, with a data section
between `-- BEGIN DATA` and `-- END DATA` that the generator replaces with definitions,
and a first line `-- PROVENANCE` it replaces with the header comment. The values come
from the Python file `mine generate` writes from the same table (its literals, read
back with `ast` after that generator checked them), so both files play one table; each
value is written by a formatter that accepts only numbers and text of a fixed alphabet,
and the result is checked to be the template with only those two parts replaced.
"""

from __future__ import annotations

import ast
import math
import re
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"
PROVENANCE = "-- PROVENANCE"
BEGIN = "-- BEGIN DATA\n"
END = "-- END DATA\n"
# What a data section may hold: definitions of numbers, lists, tuples and constructors,
# and strings of STRING's characters (no comment, no escape, no quote inside a string;
# string gaps, a backslash, a line break, spaces and a backslash, join lines of one).
STRING = re.compile(r'"(?:[A-Za-z0-9+/-]|\\\n *\\)*"')
CODE = re.compile(r"[A-Za-z0-9_ \n\[\](),.:=+-]*")
WIDTH = 79


def template(game: str) -> str:
    return (TEMPLATES / f"{game}.hs").read_text(encoding="utf-8")


def python_parts(source: str) -> tuple[str, dict[str, Any]]:
    """The docstring and the literal top-level assignments of a generated Python file."""
    tree = ast.parse(source)
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    values[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue  # computed when the module loads, not a table
    return ast.get_docstring(tree, clean=False) or "", values


def header(title: Iterable[str], doc: str) -> str:
    """The header comment: `title`, then the Python file's provenance and validation (its
    docstring from `Provenance:` on, lines of safe text)."""
    lines = [*title, ""]
    at = doc.find("Provenance:")
    if at >= 0:
        lines += doc[at:].rstrip("\n").split("\n")
    out = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        out += textwrap.wrap(line, WIDTH - 3, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False) or [""]  # fmt: skip
    return "".join(f"-- {line}".rstrip() + "\n" for line in out)


def fill(game: str, title: Iterable[str], doc: str, definitions: Iterable[str]) -> str:
    """The template of `game` with its header and data section written."""
    text = template(game)
    before, _, after = _parts(text)
    source = header(title, doc) + before + "\n" + "\n\n".join(definitions) + "\n\n" + after
    check(source, text)
    return source


def check(source: str, text: str) -> None:
    """`source` is the template `text` with only its header (comment lines) and its data
    section (plain definitions: CODE and STRINGs) written."""
    before, _, after = _parts(text)
    head, found, rest = source.partition(before)
    if not found or not rest.endswith(after) or source.count(BEGIN) != 1:
        raise ValueError("generated Haskell is not the template with its data written")
    if not all(line == "--" or line.startswith("-- ") for line in head.splitlines()):
        raise ValueError("generated header is not all comment lines")
    code = STRING.sub("0", rest[: len(rest) - len(after)])
    if not CODE.fullmatch(code) or "--" in code:
        raise ValueError("generated data holds more than numbers and plain text")


def _parts(text: str) -> tuple[str, str, str]:
    """(the template after its provenance line up to its data, the data, the rest)."""
    first, _, rest = text.partition("\n")
    if not first.startswith(PROVENANCE) or rest.count(BEGIN) != 1 or rest.count(END) != 1:
        raise ValueError("a template starts with its provenance line and has one data section")
    before, _, tail = rest.partition(BEGIN)
    data, _, after = tail.partition(END)
    return before + BEGIN, data, END + after


# --- formatters: each accepts only what it names ----------------------------------------


def integer(value: Any) -> str:
    if type(value) is not int:
        raise ValueError(f"{value!r} is not an integer")
    return f"({value})" if value < 0 else str(value)


def double(value: Any) -> str:
    """A Double literal that reads back as exactly `value` (Python's shortest repr)."""
    if type(value) is not float or not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite float")
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


def boolean(value: Any) -> str:
    if type(value) is not bool:
        raise ValueError(f"{value!r} is not a bool")
    return "True" if value else "False"


def string(value: Any, alphabet: str) -> str:
    """A string literal of `value`, which must be made of `alphabet`'s characters only."""
    literal = f'"{value}"'
    if type(value) is not str or not set(value) <= set(alphabet) or not STRING.fullmatch(literal):
        raise ValueError(f"{str(value)[:40]!r} is not text of {alphabet!r}")
    return literal


def listed(items: Iterable[str]) -> str:
    """A Haskell list of formatted items."""
    return "[" + ", ".join(items) + "]"


def table(value: Any, leaf) -> str:
    """A list nested to any depth, its innermost values formatted by `leaf`."""
    if isinstance(value, list | tuple):
        return listed(table(v, leaf) for v in value)
    return leaf(value)


def definition(name: str, kind: str, value: str) -> str:
    """`name :: kind` and `name = value`, the value broken after its commas (never inside
    a literal: none holds ", ") into lines of at most WIDTH, continuations indented."""
    out = f"{name} = "
    for i, piece in enumerate(value.split(", ")):
        last = out.rsplit("\n", 1)[-1]
        if i == 0:
            out += piece
        elif len(last) + 2 + len(piece.split("\n", 1)[0]) > WIDTH:
            out += ",\n    " + piece
        else:
            out += ", " + piece
    return f"{name} :: {kind}\n{out}"
