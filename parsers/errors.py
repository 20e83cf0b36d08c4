"""The one error every parser raises for input that is not in its format."""

from __future__ import annotations

import re
from pathlib import Path

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


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
        # A file name may hold a newline: the error stays one line, the character shown.
        return _CONTROL.sub(lambda c: repr(c.group())[1:-1], f"{where}: {self.reason}")
