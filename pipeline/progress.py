"""Progress on the terminal, on stderr: a bar for counted work, with an estimate of the
time left from the rate measured so far; a spinner with the time for the rest; nothing
when the result is JSON or stderr is not a terminal (a script or a log file gets the
result alone)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column
from rich.text import Text

from mine.pipeline.console import errors


def left(task: Task) -> str:
    """The time the rest of a counted task will take, from its own measured rate: what
    was counted between the start of its work (`began`) and its last count (`counted_at`),
    less the time since that count; `estimating…` until a first batch is timed."""
    began, counted_at = task.fields.get("began"), task.fields.get("counted_at")
    if task.total is None or task.finished:
        return ""
    if began is None or counted_at is None or task.completed <= 0 or counted_at <= began:
        return "estimating…"
    rate = task.completed / (counted_at - began)
    rest = (task.total - task.completed) / rate - (task.get_time() - counted_at)
    return f"about {duration(rest)} left"


def duration(seconds: float) -> str:
    """A time as a person says it in advance: `about 40 s`, `about 3 min` (an estimate:
    seconds to the nearest 5 above 10 s, minutes above 90 s)."""
    if seconds >= 90:
        return f"{round(seconds / 60)} min"
    if seconds > 10:
        return f"{5 * round(seconds / 5)} s"
    return f"{max(1, round(seconds))} s"


class Estimate(ProgressColumn):
    def __init__(self) -> None:  # the estimate whole; a narrow line cuts the description
        super().__init__(table_column=Column(no_wrap=True, min_width=len("about 10 min left")))

    def render(self, task: Task) -> Text:
        return Text(left(task), style="dim")


# Within 80 columns: a long name (a path) is shortened, never the count or the estimate.
COUNTED = (
    TextColumn("{task.description}", table_column=Column(max_width=28, no_wrap=True)),
    BarColumn(bar_width=16),
    MofNCompleteColumn(table_column=Column(no_wrap=True)),
    TimeElapsedColumn(),
    Estimate(),
)


def shown(as_json: bool = False) -> bool:
    return not as_json and errors.is_terminal


def bar(*columns, as_json: bool = False) -> Progress:
    return Progress(*columns, console=errors, disable=not shown(as_json), transient=True)


def per_name(as_json: bool = False) -> tuple[Progress, Callable[[str, int, int], None]]:
    """A bar for each named piece of work (a match, an opponent), added when its first
    count arrives: `advance(name, done, total)`. Each count is drawn at once (with the
    estimate it gives), not at the next tick of the display."""
    shown_ = bar(*COUNTED, as_json=as_json)
    tasks: dict[str, TaskID] = {}
    last = [shown_.get_time()]  # the last count of any name (first: the bar's making)

    def advance(name: str, done: int, total: int) -> None:
        now = shown_.get_time()
        if name not in tasks:
            # a first count of 0 starts the work now; a later one ends a batch whose work
            # began at the last count of the work before it (or when the bar was made)
            began = now if done == 0 else last[0]
            tasks[name] = shown_.add_task(name, total=total, began=began)
        shown_.update(tasks[name], completed=done, total=total, counted_at=now, refresh=True)
        last[0] = now

    return shown_, advance


@contextlib.contextmanager
def working(label: str, as_json: bool = False) -> Iterator[None]:
    """A spinner saying what runs and for how long, while the block runs."""
    with bar(SpinnerColumn(), TextColumn(label), TimeElapsedColumn(), as_json=as_json) as shown_:
        shown_.add_task(label, total=None)
        yield
