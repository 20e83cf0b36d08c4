"""What a command reads that it did not write, the rules for every layer: a file is read
whole under a size cap, and a FIFO or a device only where the command asks for one (a
FIFO without a writer waits forever, `/dev/zero` never ends); JSON is read no deeper
than any mine writes; and any text of the user's (a path above all) reads in an error
line as one line."""

from __future__ import annotations

import json
import os
import re
import reprlib
import stat
from pathlib import Path
from typing import Any, BinaryIO

JSON_DEPTH = 32
"""Nesting a JSON file of mine's may have: what mine writes goes a few levels deep, and a
deeper one would exhaust Python's stack in whatever walks it."""

_NOT_UTF8 = re.compile(r"[\udc80-\udcff]")  # how Python reads a byte of a name that is not UTF-8
_UNSHOWN = re.compile(r"[\x00-\x1f\x7f\udc80-\udcff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udcff]")


class InputError(ValueError):
    """A file a command will not read, or cannot: `str()` says which and why."""

    def __init__(self, path: str | Path, reason: str):
        super().__init__(f"{shown(str(path))}: {reason}")


def shown(text: str) -> str:
    """`text` as it reads in one line of a message: a control character escaped (a file
    name may hold a newline), a byte of a name that is not UTF-8 as `\\xff`."""
    return _UNSHOWN.sub(_escaped, text)


def printable(text: str) -> str:
    """`text` (a file's name, a log's player id) as a table's cell shows it in a terminal: a
    control character escaped (an ESC, BEL, CR or C1 code would move the cursor, retitle
    the window or paint over the figures), a line break and a tab as they are."""
    return _CONTROL.sub(_escaped, text)


def quoted(value: Any) -> str:
    """A value of the user's (a player's answer, a table's field) as an error line quotes
    it: short, one line, and never an error of its own (an int past Python's 4,300 digits
    has no repr, and a player's own `__repr__` may raise, even SystemExit, or answer a `str`
    of its own class: a fault must still be charged)."""
    if type(value) is int and value.bit_length() > 64:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    try:
        return _line(reprlib.repr(value))
    except BaseException:  # the file's code, whatever it raises; its type still says enough
        return f"a {type_name(value)}"


def type_name(value: Any) -> str:
    """The name of `value`'s class, a builtin `str` in one line: a player's class may name
    itself with a `str` of its own class, or its metaclass answer `__name__` with its own
    code, and neither runs here."""
    return _line(_TYPE_NAME(type(value)))


_TYPE_NAME = type.__dict__["__name__"].__get__  # the name type holds, past any metaclass's


def storable(text: str) -> str:
    """`text` (a path) as UTF-8 holds it, in the warehouse or JSON: a byte of a name that
    is not UTF-8 as `\\xff`, the rest as it is."""
    return _NOT_UTF8.sub(_escaped, text)


def _escaped(match: re.Match) -> str:
    character = match.group()
    if "\udc80" <= character <= "\udcff":  # a byte the file system gave, not UTF-8
        return f"\\x{ord(character) - 0xDC00:02x}"
    return repr(character)[1:-1]


def working_folder() -> Path | None:
    """The folder relative paths start from, or None where it was removed under the
    command (`os.getcwd` fails): a relative path then names nothing."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        return None


def read_bytes(path: str | Path, limit: int, *, streams: bool = False) -> bytes:
    """The bytes of the file at `path`, at most `limit` (InputError past it, after
    reading no more than one byte over). A FIFO, device or socket is refused unless
    `streams` (a SQL file may be `<(…)`); opening never waits (a FIFO without a writer)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise InputError(path, f"cannot read it ({error.strerror})") from None
    try:
        kind = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(kind):
            raise InputError(path, "is a folder, not a file")
        if not stat.S_ISREG(kind) and not streams:
            raise InputError(path, "not a regular file (a FIFO, a device or a socket)")
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            return read_stream(file, limit, path)
    finally:
        os.close(descriptor)


def read_stream(stream: BinaryIO, limit: int, name: str | Path) -> bytes:
    """What `stream` (stdin, an open file named `name`) holds, at most `limit` bytes."""
    try:
        data = stream.read(limit + 1)
    except OSError as error:
        raise InputError(name, f"cannot read it ({error.strerror})") from None
    if len(data) > limit:
        raise InputError(name, f"more than {size(limit)}, more than mine reads of it")
    return data


def read_json(path: str | Path, limit: int) -> Any:
    """The JSON document in the file at `path` (read as `read_bytes` reads), at most
    `JSON_DEPTH` deep; InputError saying why not."""
    data = read_bytes(path, limit)
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else error
        raise InputError(path, f"not JSON ({reason})") from None
    if _depth(document) > JSON_DEPTH:
        raise InputError(path, f"nested more than {JSON_DEPTH} deep; no file of mine's is")
    return document


def _depth(document: Any) -> int:
    """How deep lists and objects nest in `document` (without recursion: it may be deep)."""
    deepest, stack = 0, [(document, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            if level <= JSON_DEPTH:
                items = value.values() if isinstance(value, dict) else value
                stack.extend((item, level + 1) for item in items)
    return deepest


def size(count: float) -> str:
    """A number of bytes as it reads: `4 MB`."""
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000:
            return f"{count:,.0f} {unit}"
        count /= 1000
    return f"{count:,.1f} TB"


# an error's type or message in a line (two, and a function's name, in a fault's line)
LINE_CHARACTERS = 160


def raised(error: BaseException) -> tuple[str, str]:
    """(its type's name, its message's first line) of an exception raised by code mine did
    not write (a player file's), each shown as one line of at most LINE_CHARACTERS
    characters: its own `__str__` may raise, say megabytes or return a `str` of its own
    class, and none of that is to fail or flood the line that charges the fault."""
    kind = type_name(error)
    try:
        text = str(error)
    except BaseException as failure:  # the file's code, whatever it raises (SystemExit too)
        return kind, f"(its message raised {type_name(failure)})"
    return kind, _line(text)


def exit_code(error: SystemExit) -> str:
    """What a file's `sys.exit` was called with, as its repr reads in one line: that of
    its own class may raise or run to megabytes."""
    try:
        return _line(_SHORT.repr(error.code))
    except BaseException:  # the file's code, whatever it raises
        return f"a {type_name(error.code)}"


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = LINE_CHARACTERS


def _line(text: object) -> str:
    """The first line of `text`, a builtin `str` (a subclass's methods never run), shown
    and capped."""
    if not isinstance(text, str):
        return ""
    head = str.__str__(text)[: LINE_CHARACTERS + 1].splitlines() or [""]
    line = shown(head[0])
    return line if len(line) <= LINE_CHARACTERS else line[: LINE_CHARACTERS - 1] + "…"
