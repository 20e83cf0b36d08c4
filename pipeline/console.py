"""Where every command writes: results to stdout, messages and errors to stderr; and the
two shapes results are printed in (a table of rows, a list of name/value pairs)."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mine import inputs, outputs

# What is printed is often user data (paths, player ids, fields of a log): it is text,
# never rich markup (`[/]`) or an emoji code (`:100:`); styles come from `Text` parts.
console = Console(markup=False, emoji=False, highlight=False)
errors = Console(stderr=True, markup=False, emoji=False, highlight=False)


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
    print(json.dumps(result, indent=2, default=str))


def show(
    rows: Iterable[Mapping[str, Any]],
    title: str,
    columns: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    caption: str | None = None,
) -> None:
    """Rows (dicts, e.g. `frame.to_dicts()`) as a table: `columns` maps keys to headings
    (default: every key of the first row); numbers right-aligned and grouped."""
    rows = list(rows)
    columns = columns or {key: key for key in (rows[0] if rows else {})}
    formats = formats or {}
    numeric = {
        key
        for key in columns
        if rows and all(isinstance(r.get(key), int | float) for r in rows if r.get(key) is not None)
    }
    table = Table(title=title, caption=caption)
    for key, heading in columns.items():
        table.add_column(heading, justify="right" if key in numeric else "left")
    for row in rows:
        table.add_row(*(_shown(row.get(key), formats.get(key)) for key in columns))
    console.print(table)


def show_pairs(title: str, pairs: Iterable[tuple[str, Any]]) -> None:
    """Name/value pairs as a two-column table without a header."""
    table = Table(title=title, show_header=False)
    for name, value in pairs:
        table.add_row(name, _shown(value))
    console.print(table)


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


def interval(figure: Mapping[str, Any], fmt: str = "{:+.4f}") -> str:
    """`{"mean": m, "ci95": [low, high]}` as `m [low, high]`."""
    low, high = figure["ci95"]
    return f"{fmt.format(figure['mean'])} [{fmt.format(low)}, {fmt.format(high)}]"


def write_report(out: Path, text: str, as_json: bool = False, say: bool = True) -> None:
    """Write a page (or any text a command makes) whole or not at all, and say so (unless
    `say` is False: the command's own result says it)."""
    try:
        outputs.write_text(out, text)
    except OSError as error:
        raise cannot_write(out, error) from None
    if not say:
        return
    if as_json:
        print_json({"wrote": str(out), "bytes": len(text.encode())})
    else:
        console.print(f"wrote {out}")


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


def next_step(command: str, as_json: bool = False) -> None:
    """What a user would run next, on stderr (results stay alone on stdout)."""
    if not as_json:
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
