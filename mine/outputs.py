"""Where a command's files go, the one rule for every `--out`/`--html`: a file appears
whole or not at all (written beside its place, then renamed onto it), through a symlink
to the link's target (the link stays), never onto a device, FIFO or socket (replacing
`/dev/stdout` would replace the node itself), and never onto a file the same command
reads (`reading`: `generate --out` onto its `--table`, `--out` onto the warehouse).
Results go to stdout, whose failures (a full disk, `/dev/full`) name it."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

PARTIAL = ".partial"
STDOUT = "stdout"  # how an error line names the command's standard output

_read: set[Path] = set()  # what the running command reads, resolved


class OutputError(OSError):
    """A place a command will not write to: `strerror` says why, `str()` where and why."""

    def __init__(self, out: str | Path, reason: str):
        super().__init__(f"{out}: {reason}")
        self.strerror = reason


class _Stdout(io.FileIO):
    """Descriptor 1, whose write errors name it."""

    def write(self, data) -> int | None:
        try:
            return super().write(data)
        except OSError as error:
            raise stdout_error(error) from None


def stdout_error(error: OSError) -> OSError:
    """`error`, of a write to stdout, naming it; EPIPE (the reader left) a bare
    BrokenPipeError, which the CLI's entry ends quietly (with its errno, click would
    exit 1 on its own)."""
    if isinstance(error, BrokenPipeError):
        return BrokenPipeError()
    return OSError(error.errno, error.strerror, STDOUT)


def named_stdout(stream: io.TextIOWrapper) -> io.TextIOWrapper:
    """Descriptor 1 as `stream` writes it, but whose errors name stdout, and which shows
    a character its encoding lacks escaped (`PYTHONIOENCODING=ascii`) instead of failing."""
    raw = _Stdout(1, "w", closefd=False)
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=stream.encoding,
        errors="backslashreplace",
        line_buffering=stream.line_buffering,
    )


def reading(*paths: str | Path) -> None:
    """Note files the running command reads: none of its outputs may replace them."""
    _read.update(Path(os.path.realpath(path)) for path in paths)


def forget_reads() -> None:
    _read.clear()


def target(out: str | Path) -> Path:
    """The regular file that writing `out` replaces (an existing symlink's target), or
    OutputError saying why not there."""
    real = Path(os.path.realpath(out))
    try:
        info = real.stat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise OutputError(out, f"cannot write there ({error.strerror})") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OutputError(out, "is a folder")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OutputError(out, "not a regular file (a device, FIFO or socket); write a file")
    for source in _read:
        if real == source or (info is not None and _same_file(real, source)):
            raise OutputError(out, "this command reads that file; write elsewhere")
    return real


@contextlib.contextmanager
def replacing(*outs: str | Path) -> Iterator[list[Path]]:
    """Partial files to write for `outs`; when the block ends without an error each is
    renamed onto its place, in order (the last one last), else removed. A partial of an
    earlier run that was killed is removed first."""
    targets = [target(out) for out in outs]
    partials = [partial_name(place) for place in targets]
    try:
        for place in targets:
            place.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_partials(place)
        yield partials
        for partial, place in zip(partials, targets, strict=True):
            with contextlib.suppress(OSError):  # the mode of the file it replaces
                shutil.copymode(place, partial)
            os.replace(partial, place)
    finally:
        for partial in partials:
            with contextlib.suppress(OSError):
                partial.unlink()


def write_text(out: str | Path, text: str) -> Path:
    """`text` as the file `out`, whole or not at all; the file written."""
    with replacing(out) as (partial,):
        partial.write_text(text, encoding="utf-8")
    return Path(out)


def remove_stale_partials(place: Path, names: str | None = None) -> None:
    """Remove the partial files of `place` (or of every name in its folder matching the
    glob `names`) left by runs that were killed: their process is gone."""
    pattern = _glob_literal(place.name) if names is None else names
    for partial in place.parent.glob(f".{pattern}.*{PARTIAL}"):
        pid = partial.name[: -len(PARTIAL)].rsplit(".", 1)[-1]
        if pid.isdigit() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                if partial.is_dir() and not partial.is_symlink():
                    shutil.rmtree(partial)
                else:
                    partial.unlink()


def partial_name(place: Path) -> Path:
    """Where this process writes `place` before it is whole."""
    return place.with_name(f".{place.name}.{os.getpid()}{PARTIAL}")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _glob_literal(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)  # hard links too
    except OSError:
        return False
