"""What an ingest is doing inside a batch, for a progress bar: DuckDB's own progress of
the statement running, polled from a thread (a batch is a few long statements, so a bar
fed only between batches would sit still for seconds)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import duckdb

Progress = Callable[[float, int, str], None]
"""Called with (files done, counting the landing batch's share; rows read; what runs now,
or "" when a batch has just landed)."""

STEPS = ("reading", "checking", "landing")
"""A batch's steps, each taken as a third of it: their durations vary with the game."""
POLL_SECONDS = 0.2


class BatchWatch:
    """Reports `progress` while batches land: the rows move while DuckDB reads a batch's
    lines, and the batch's files move a third at each step, within it as DuckDB reports."""

    def __init__(self, con: duckdb.DuckDBPyConnection, progress: Progress | None):
        self.con, self.progress = con, progress
        self.files = self.rows = 0  # in batches already landed
        self._batch = (0, 0)  # files, rows of the batch landing now
        self._step, self._label, self._read, self._share = -1, "", 0, 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if progress is not None:
            # tracked, not printed: DuckDB's own bar would write over ours
            con.execute("SET enable_progress_bar = true")
            con.execute("SET enable_progress_bar_print = false")
            self._thread = threading.Thread(target=self._poll, daemon=True)
            self._thread.start()

    def start(self, files: int, rows: int) -> None:
        with self._lock:
            self._batch, self._read, self._share = (files, rows), 0, 0.0

    def doing(self, step: str, label: str | None = None) -> None:
        """One of `STEPS` runs now, shown as `label` (the step's name by default)."""
        with self._lock:
            self._step, self._label = STEPS.index(step), label or step
            if step != "reading":
                self._read = self._batch[1]

    def finish(self) -> None:
        """The batch is in: its files and rows count as done."""
        with self._lock:
            self.files += self._batch[0]
            self.rows += self._batch[1]
            self._batch, self._step, self._read, self._share = (0, 0), -1, 0, 0.0
            done = (self.files, self.rows)
        if self.progress is not None:
            self.progress(*done, "")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            with contextlib.suppress(duckdb.Error):  # a failed transaction refuses even SET
                self.con.execute("SET enable_progress_bar = false")

    def _poll(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self.report(max(self.con.query_progress(), 0.0) / 100)

    def report(self, done: float) -> None:
        """Report the batch with the running statement `done` (0 to 1) of the way."""
        with self._lock:
            if self._step < 0 or self.progress is None:
                return
            if self._step == 0:
                self._read = max(self._read, int(self._batch[1] * done))
            # monotone: a step is several statements, each counting from 0 again
            self._share = max(self._share, (self._step + done) / len(STEPS))
            report = (self.files + self._batch[0] * self._share, self.rows + self._read)
            label = self._label
        self.progress(*report, label)
