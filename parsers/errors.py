"""The one error every parser raises for input that is not in its format."""

from __future__ import annotations

from pathlib import Path

from mine.inputs import shown


class LogFormatError(ValueError):
    """A log that is not in the expected format: where (file, line, column) and why."""

    def __init__(self, path: str | Path, line: int | None, reason: str, column: int | None = None):
        self.path = str(path)
        self.line = line
        self.column = column
        self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return shown(f"{where}: {self.reason}")
