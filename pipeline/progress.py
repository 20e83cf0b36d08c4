"""Progress on the terminal, on stderr: a bar for counted work, a spinner with the time
for the rest; nothing when the result is JSON or stderr is not a terminal (a script or a
log file gets the result alone)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from mine.pipeline.console import errors


def shown(as_json: bool = False) -> bool:
    return not as_json and errors.is_terminal


def bar(*columns, as_json: bool = False) -> Progress:
    return Progress(*columns, console=errors, disable=not shown(as_json), transient=True)


@contextlib.contextmanager
def working(label: str, as_json: bool = False) -> Iterator[None]:
    """A spinner saying what runs and for how long, while the block runs."""
    with bar(SpinnerColumn(), TextColumn(label), TimeElapsedColumn(), as_json=as_json) as shown_:
        shown_.add_task(label, total=None)
        yield
