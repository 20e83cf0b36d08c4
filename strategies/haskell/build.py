"""Compile a Haskell player file as its course does: the file beside the course bundle's
stand-ins and mine's driver for the game, under the course's flags; what the compiler
said is kept (a file the courses take compiles without a warning)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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
COMPILE_SECONDS = 600
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
    home = {**os.environ, "HOME": str(folder)}  # a worker of its own user has no home
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_SECONDS,
                              cwd=folder, env=home)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise CompileError(f"{course.file} does not compile (GHC ran over {COMPILE_SECONDS} s)",
                           "") from None  # fmt: skip
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise CompileError(f"{course.file} does not compile:\n{output}", first_error(output))
    warnings = tuple(line for line in output.splitlines() if WARNING.search(line))
    return Built(program, output, warnings)


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
