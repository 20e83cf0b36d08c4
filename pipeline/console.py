"""Where every command writes: results to stdout, messages and errors to stderr; and the
two shapes results are printed in (a table of rows, a list of name/value pairs)."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mine import inputs, outputs


class _Console(Console):
    """Rich's console, with two changes. Its lines of plain text show a control character
    escaped: what they say is often the user's (`wrote q\x1b]0;…\x07.csv`, `next: mine
    ingest …`), and an ESC, BEL or CR printed as it is recolours the terminal, retitles it
    or paints over. And when its reader leaves early (`mine tables | head -1`) what is left
    to print goes nowhere and the command ends its work with its own exit code: rich's own
    answer exits 1, silently, mid-command (and sends stdout, not stderr, to /dev/null when
    it is stderr's reader that left)."""

    def print(self, *objects: Any, **settings: Any) -> None:
        plain = (inputs.printable(o) if isinstance(o, str) else o for o in objects)
        super().print(*plain, **settings)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        drop(self.file.fileno())


# What is printed is often user data (paths, player ids, fields of a log): it is text,
# never rich markup (`[/]`) or an emoji code (`:100:`); styles come from `Text` parts.
console = _Console(markup=False, emoji=False, highlight=False)
errors = _Console(stderr=True, markup=False, emoji=False, highlight=False)


def drop(fd: int) -> None:
    """What is left to print on descriptor `fd`, whose reader left, goes nowhere."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error (no traceback) and return the Exit to raise: whatever
    `message` holds (a path with a newline, a name that is not UTF-8), it is one line."""
    errors.print(Text.assemble(("error:", "red"), f" {inputs.shown(message)}"), soft_wrap=True)
    return typer.Exit(code)


def will_write(out: Path) -> None:
    """Refuse `out` before the work that makes it, where that is known now (a device, a
    folder, an input read so far); writing it checks again."""
    try:
        outputs.target(out)
    except OSError as error:
        raise cannot_write(out, error) from None


def cannot_write(out: Path, error: OSError) -> typer.Exit:
    return fail(f"cannot write {out}: {error.strerror or error}")


def print_json(result: Any) -> None:
    try:
        print(json.dumps(result, indent=2, default=str), flush=True)
    except BrokenPipeError:  # the reader left: the command still ends with its own code
        drop(sys.stdout.fileno())


def show(
    rows: Iterable[Mapping[str, Any]],
    title: str,
    columns: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    caption: str | None = None,
) -> None:
    """Rows (dicts, e.g. `frame.to_dicts()`) as a table: `columns` maps keys to headings
    (default: every key of the first row); numbers right-aligned and grouped; laid out by
    `readable`, so that no heading or value is cut at any width."""
    rows = list(rows)
    columns = columns or {key: key for key in (rows[0] if rows else {})}
    formats = formats or {}
    numeric = {
        key
        for key in columns
        if rows and all(isinstance(r.get(key), int | float) for r in rows if r.get(key) is not None)
    }
    cells = [[_shown(row.get(key), formats.get(key)) for key in columns] for row in rows]
    sides = ["right" if key in numeric else "left" for key in columns]
    for part in readable(title, list(columns.values()), sides, cells, caption):
        console.print(part)


def show_pairs(title: str, pairs: Iterable[tuple[str, Any]]) -> None:
    """Name/value pairs as a two-column table without a header."""
    cells = [[inputs.printable(name), inputs.printable(_shown(value))] for name, value in pairs]
    table = _table(inputs.printable(title), None, ["left", "left"], cells,
                   _widths(cells) or _squeezed(cells))  # fmt: skip
    console.print(table)


# Tables are laid out so that no heading or value is cut (rich squeezes a table too wide
# for the console by cutting cells to `0.…` and headings to `op…`, which leaves a card
# unreadable in an 80-column terminal or a pipe): a column is never narrower than its
# longest word, and a table whose words do not fit is printed in another shape.
BORDERS = 3  # a column's padding on each side and its rule


def readable(
    title: str, headings: list[str], sides: list[str], cells: list[list[str]], caption=None
) -> list[Table]:
    """The rows as a table when its columns fit the width, words whole (wrapped at spaces,
    headings also after `_`, where they must); else turned, a column per row and the
    headings down the side (a card of a few rows), when that fits; else as R prints a wide
    frame: the columns in groups that fit, each group with the first column again. What
    it shows is the user's data as often as not: its control characters are escaped."""
    title, caption = inputs.printable(title), caption and inputs.printable(caption)
    headings = [inputs.printable(heading) for heading in headings]
    cells = [[inputs.printable(cell) for cell in row] for row in cells]
    for shown in (headings, [_breakable(heading) for heading in headings]):
        widths = _widths([shown, *cells])
        if widths is not None:
            return [_table(title, caption, sides, cells, widths, shown)]
    turned = [[heading, *(row[k] for row in cells)] for k, heading in enumerate(headings)]
    widths = _widths(turned)
    if widths is not None and cells:
        body = [[row[0], *(Text(value, justify=side) for value in row[1:])]
                for row, side in zip(turned[1:], sides[1:], strict=True)]  # fmt: skip
        return [_table(title, caption, ["left"] * len(widths), body, widths, turned[0])]
    shown = [_breakable(heading) for heading in headings]
    groups: list[list[int]] = [[]]
    for k in range(1, len(headings)):
        if groups[-1] and _widths(_picked([shown, *cells], [0, *groups[-1], k])) is None:
            groups.append([])
        groups[-1].append(k)
    parts = []
    for number, group in enumerate(groups, 1):
        picked = [0, *group]
        rows = _picked([shown, *cells], picked)
        named = f"{title} ({number} of {len(groups)})"
        end = caption if number == len(groups) else None
        sided = [sides[k] for k in picked]
        parts.append(_table(named, end, sided, rows[1:], _widths(rows) or _squeezed(rows), rows[0]))
    return parts


def _breakable(heading: str) -> str:
    """A heading that may wrap after each `_` (a column's name: `mean_final_margin`)."""
    return heading.replace("_", "_\n")


def _picked(rows: list[list[Any]], columns: list[int]) -> list[list[Any]]:
    return [[row[k] for k in columns] for row in rows]


def _widths(rows: list[list[Any]]) -> list[int] | None:
    """Each column's width when the table fits the console with every word whole: as wide
    as its longest line if all fit, else its longest word and a share of what is left in
    proportion to what it lacks; None when the longest words alone do not fit."""
    columns = list(zip(*rows, strict=True)) if rows else []
    room = console.width - BORDERS * len(columns) - 1
    lines = [max(cell_len(line) for cell in column for line in str(cell).splitlines() or [""])
             for column in columns]  # fmt: skip
    words = [max((cell_len(word) for cell in column for word in str(cell).split()), default=1)
             for column in columns]  # fmt: skip
    if sum(lines) <= room:
        return lines
    if sum(words) > room:
        return None
    spare = room - sum(words)
    lacking = [line - word for line, word in zip(lines, words, strict=True)]
    return [word + spare * lack // sum(lacking) for word, lack in zip(words, lacking, strict=True)]


def _squeezed(rows: list[list[Any]]) -> list[int]:
    """The widths of a table holding a word wider than the console: the first columns as
    wide as their longest words, the last folded onto as many lines as it takes (folded,
    never cut)."""
    columns = list(zip(*rows, strict=True)) if rows else []
    first = [max((cell_len(word) for cell in column for word in str(cell).split()), default=1)
             for column in columns[:-1]]  # fmt: skip
    return [*first, max(1, console.width - BORDERS * len(columns) - 1 - sum(first))]


def _table(title, caption, sides, cells, widths, headings=None) -> Table:
    table = Table(title=title, caption=caption, show_header=headings is not None)
    for k, (side, width) in enumerate(zip(sides, widths, strict=True)):
        heading = "" if headings is None else headings[k]
        table.add_column(heading, justify=side, width=width, overflow="fold")
    for row in cells:
        table.add_row(*row)
    return table


def _shown(value: Any, fmt: Callable[[Any], str] | None = None) -> str:
    if fmt is not None:
        return fmt(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4f}"
    return str(value)


def unless_none(fmt: str | Callable[[Any], str], blank: str = "") -> Callable[[Any], str]:
    """`fmt` (a format string or function) of a value, and `blank` where there is none."""
    shown = fmt.format if isinstance(fmt, str) else fmt
    return lambda value: blank if value is None else shown(value)


def interval(figure: Mapping[str, Any], fmt: str = "{:+.4f}") -> str:
    """`{"mean": m, "ci95": [low, high]}` as `m [low, high]`."""
    low, high = figure["ci95"]
    return f"{fmt.format(figure['mean'])} [{fmt.format(low)}, {fmt.format(high)}]"


def write_report(out: Path, text: str, say: bool = True) -> None:
    """Write a page (or any text a command makes) whole or not at all, and say so (unless
    `say` is False: the command's own result says it)."""
    try:
        outputs.write_text(out, text)
    except OSError as error:
        raise cannot_write(out, error) from None
    if say:
        console.print(f"wrote {out}", soft_wrap=True)  # a path, never cut in two


def day_written() -> dt.date:
    """The day a written file (a generated player, a page) records: today, or the day
    `SOURCE_DATE_EPOCH` names, so that a build can be reproduced byte for byte. A value
    that names no day is one error line, as the reproducible-builds rule asks (fail, do
    not guess)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if not epoch:
        return dt.datetime.now(dt.UTC).date()
    try:
        if not (epoch.isascii() and epoch.isdigit()):
            raise ValueError
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date()
    except (ValueError, OverflowError, OSError):
        raise fail(
            f"SOURCE_DATE_EPOCH is {epoch!r}: not a count of seconds since 1970 that names a "
            "day (unset it, or give one such as 1700000000)"
        ) from None


def next_step(command: str) -> None:
    """What a user would run next, on stderr (results stay alone on stdout)."""
    errors.print(f"next: {command}", style="dim", soft_wrap=True)


def ratio(count: int | None, opportunities: int | None) -> str:
    """A count out of its opportunities, with the rate: `47/82 57%` (`-` without any)."""
    if not opportunities:
        return "-"
    return f"{count or 0:,}/{opportunities:,} {(count or 0) / opportunities:.0%}"


def show_against(rows: list[dict] | None, title: str, game: str, measured: str) -> None:
    """A `--by player` table of choices against a fitted table; without a table (`rows`
    None), the line saying how to measure them."""
    if rows is not None:
        show(rows, title)
        return
    console.print(
        f"no fitted table given: add --table T.parquet (written by `mine fit {game}`) "
        f"to measure {measured}"
    )
