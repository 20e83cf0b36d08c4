"""Compile a Haskell player file as its course does: the file beside the course bundle's
stand-ins and mine's driver for the game, under the course's flags; what the compiler
said is kept (a file the courses take compiles without a warning)."""

from __future__ import annotations

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
    """GHC is missing, or the file does not compile; the message says which and why."""


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
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=COMPILE_SECONDS, cwd=folder
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise CompileError(f"{course.file} does not compile:\n{output}")
    warnings = tuple(line for line in output.splitlines() if WARNING.search(line))
    return Built(program, output, warnings)
