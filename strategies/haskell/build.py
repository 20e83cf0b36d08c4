"""Compile a Haskell player file as its course does: the file beside the course bundle's
stand-ins and mine's driver for the game, under the course's flags; what the compiler
said is kept (a file the courses take compiles without a warning)."""

from __future__ import annotations

import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from mine.strategies import confinement

BUNDLES = Path(__file__).resolve().parent / "bundles"
# The FIT2102 bundles' package.yaml: the executable (staticgame + submission) is built with
# these options and default extensions; stack builds with -O1.
FIT2102 = (
    "-O1",
    "-XTrustworthy",
    "-XNamedFieldPuns",
    "-Wall",
    "-Wno-trustworthy-safe",
    "-Wno-orphans",
    "-Wno-unused-imports",
)
# The handout's `ghc -O2 --make Proj1test`, with every warning shown.
COMP30020 = ("-O2", "-Wall")
# What a compile may take (GHC runs what a file asks at compile time: Template Haskell, a
# pragma's preprocessor): CPU seconds of each process it runs (a generated file takes a few),
# wall-clock seconds in all (a busy machine's), memory, and bytes of any file it writes or
# of what it says (a program is a few MB).
COMPILE_SECONDS, COMPILE_WALL_SECONDS, COMPILE_MEMORY_MB = 300, 900, 2048
COMPILE_FILE_BYTES, SAID_BYTES = 256 * 2**20, 1 << 20
OUT_OF_MEMORY = 251  # the exit code of a GHC program (GHC's own too) whose heap cannot grow
WARNING = re.compile(r":\d+:\d+: [Ww]arning:")
ERROR = re.compile(r"^(?:.*/)?([^/:]+):(\d+):(\d+)(?:-\d+)?: error:\s*(.*)$")


@dataclass(frozen=True)
class Course:
    """How a course builds a player: the file name it takes, the bundle folders on the
    search path (the game's own, with its driver `Main.hs`, first) and the flags."""

    file: str
    folders: tuple[str, ...]
    flags: tuple[str, ...]


COURSES = {
    "twentyone": Course("Player.hs", ("twentyone", "course", "parser"), FIT2102),
    "ginrummy": Course("Player.hs", ("ginrummy", "course", "parser"), FIT2102),
    "cardguess": Course("Proj1.hs", ("cardguess",), COMP30020),
}


class CompileError(RuntimeError):
    """GHC is missing, or the file does not compile; the message says which and why, and
    `first` is GHC's first error in one line."""

    def __init__(self, message: str, first: str = ""):
        super().__init__(message)
        self.first = first or message.splitlines()[0]


class Built(NamedTuple):
    program: Path
    output: str  # everything the compiler printed
    warnings: tuple[str, ...]  # its warning lines


def ghc() -> str | None:
    """The compiler on PATH, if there is one."""
    return shutil.which("ghc")


def build(game: str, source: str, folder: Path) -> Built:
    """Write `source` into `folder` as the course's file and compile it with the game's
    driver into `folder/player`."""
    compiler = ghc()
    if compiler is None:
        raise CompileError("ghc is not installed (Debian: apt-get install ghc)")
    course = COURSES[game]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / course.file).write_text(source, encoding="utf-8")
    search = ":".join([str(folder), *(str(BUNDLES / f) for f in course.folders)])
    program = folder / "player"
    command = [
        compiler,
        "--make",
        *course.flags,
        f"-i{search}",
        "-outputdir",
        str(folder / "build"),
        "-o",
        str(program),
        str(BUNDLES / course.folders[0] / "Main.hs"),
    ]
    output = _run(command, folder)
    if output.over or output.code != 0:
        raise CompileError(f"{course.file} does not compile:\n{output.said}",
                           output.over or first_error(output.said))  # fmt: skip
    warnings = tuple(line for line in output.said.splitlines() if WARNING.search(line))
    return Built(program, output.said, warnings)


class _Ran(NamedTuple):
    code: int | None  # GHC's exit code
    said: str  # what it printed, its first SAID_BYTES
    over: str  # the limit it ran over, or ""


def _run(command: list[str], folder: Path) -> _Ran:
    """GHC's run in `folder` (its home and temporary folder too), within the compile's
    limits; ended with whatever it started when it runs over them (what it leaves after it
    ends lands with the harness, a subreaper, which ends it)."""
    here = {**os.environ, "HOME": str(folder), "TMPDIR": str(folder)}  # a worker has no home
    before = _children_cpu()
    with tempfile.TemporaryFile() as said:
        ghc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=said,
                               stderr=subprocess.STDOUT, cwd=folder, env=here,
                               preexec_fn=_compile_limits)  # fmt: skip
        try:
            code: int | None = ghc.wait(COMPILE_WALL_SECONDS)
        except subprocess.TimeoutExpired:
            confinement.end_tree(ghc.pid)  # not collected yet: the pid is still GHC's
            ghc.wait()
            code = None
        said.seek(0)
        text = said.read(SAID_BYTES).decode(errors="replace")
    return _Ran(code, text, _over(code, _children_cpu() - before))


def _over(code: int | None, cpu: float) -> str:
    """The compile's limit GHC (or a process it ran) ran over, by how it ended; or ""."""
    if code is None:
        return f"GHC ran over its {COMPILE_WALL_SECONDS} s limit of wall time"
    if code == OUT_OF_MEMORY:
        return f"GHC ran out of memory (its {COMPILE_MEMORY_MB} MB)"
    if code == -signal.SIGXFSZ:
        return f"GHC wrote over its {COMPILE_FILE_BYTES // 2**20} MB limit of a file"
    if code == -signal.SIGXCPU or (code == -signal.SIGKILL and cpu >= COMPILE_SECONDS):
        return f"GHC ran over its {COMPILE_SECONDS} s limit of CPU time"
    return ""


def _compile_limits() -> None:
    """In GHC, before it runs: its CPU seconds (SIGXCPU, then SIGKILL a second later if it
    takes that signal), memory and files bounded; each process it starts inherits them."""
    _lower(resource.RLIMIT_CPU, COMPILE_SECONDS, COMPILE_SECONDS + 1)
    _lower(resource.RLIMIT_AS, COMPILE_MEMORY_MB * 2**20, COMPILE_MEMORY_MB * 2**20)
    _lower(resource.RLIMIT_FSIZE, COMPILE_FILE_BYTES, COMPILE_FILE_BYTES)


def _lower(limit: int, soft: int, hard: int) -> None:
    """The limit at most `soft` and `hard` (a process may only lower its hard limit)."""
    _, now = resource.getrlimit(limit)
    if now != resource.RLIM_INFINITY:
        soft, hard = min(soft, now), min(hard, now)
    resource.setrlimit(limit, (soft, hard))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_error(output: str) -> str:
    """GHC's first error in one line: where (the file's name, line and column) and the
    first line of what it says; else the first line GHC printed."""
    lines = output.splitlines()
    for at, line in enumerate(lines):
        found = ERROR.match(line.strip())
        if found:
            name, row, column, said = found.groups()
            said = said or next((x.strip(" •") for x in lines[at + 1 :] if x.strip(" •|")), "")
            return f"{name}:{row}:{column}: {said}".rstrip(": ")
    return next((line.strip() for line in lines if line.strip()), "GHC failed and said nothing")


def key(game: str, source: bytes) -> str:
    """What makes a build: the game, the file's bytes, the course's stand-ins and driver,
    its flags and the compiler (its path and its file's size and time) — hashed."""
    course = COURSES[game]
    digest = hashlib.sha256(f"{game}\0{course.flags}\0".encode() + source)
    for folder in course.folders:
        for stand_in in sorted((BUNDLES / folder).rglob("*.hs")):
            digest.update(f"\0{stand_in.relative_to(BUNDLES)}\0".encode() + stand_in.read_bytes())
    compiler = ghc()
    if compiler is not None:
        real = os.path.realpath(compiler)
        stat = os.stat(real)
        digest.update(f"\0{real}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()
