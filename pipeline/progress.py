"""Progress on the terminal, on stderr: a bar for counted work, a spinner with the time
for the rest; nothing when the result is JSON or stderr is not a terminal (a script or a
log file gets the result alone)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from mine.pipeline.console import errors

COUNTED = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())


def shown(as_json: bool = False) -> bool:
    return not as_json and errors.is_terminal


def bar(*columns, as_json: bool = False) -> Progress:
    return Progress(*columns, console=errors, disable=not shown(as_json), transient=True)


def per_name(as_json: bool = False) -> tuple[Progress, Callable[[str, int, int], None]]:
    """A bar for each named piece of work (a match, an opponent), added when its first
    count arrives: `advance(name, done, total)`."""
    shown_ = bar(*COUNTED, as_json=as_json)
    tasks: dict[str, TaskID] = {}

    def advance(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = shown_.add_task(name, total=total)
        shown_.update(tasks[name], completed=done)

    return shown_, advance


@contextlib.contextmanager
def working(label: str, as_json: bool = False) -> Iterator[None]:
    """A spinner saying what runs and for how long, while the block runs."""
    with bar(SpinnerColumn(), TextColumn(label), TimeElapsedColumn(), as_json=as_json) as shown_:
        shown_.add_task(label, total=None)
        yield
