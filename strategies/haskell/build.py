"""Compile a Haskell player file as its course does: the file beside the course bundle's
stand-ins and mine's driver for the game, under the course's flags; what the compiler
said is kept (a file the courses take compiles without a warning).

The stand-ins are the same for every file of a course: `stand_ins` compiles them once
into a cache folder, and `build` copies them (sources, interfaces, objects) beside the
file, so GHC compiles only the file and the driver. GHC 9.0 keeps a module's object when
it is newer than its source (each copy keeps its time) and its interface's hash of the
flags matches, a hash that holds the output folder as GHC was given it: both compiles
name it `build`, relative to the folder GHC runs in.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
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
PROGRESS = re.compile(r"\[\s*\d+ of \d+\] Compiling |Linking ")
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


def _installed() -> str:
    compiler = ghc()
    if compiler is None:
        raise CompileError("ghc is not installed (Debian: apt-get install ghc)")
    return compiler


def build(game: str, source: str, folder: Path, stand_ins: Path | None = None) -> Built:
    """Write `source` into `folder` as the course's file and compile it with the game's
    driver into `folder/player`: with the stand-ins compiled in `stand_ins` (`stand_ins()`)
    when it holds them whole, else with the stand-ins compiled beside the file."""
    compiler = _installed()
    course = COURSES[game]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / course.file).write_text(source, encoding="utf-8")
    if stand_ins is not None and _copied(stand_ins, stand_ins_key(game), folder):
        folders = [f"{SOURCES}/{f}" for f in course.folders]
    else:
        folders = [str(BUNDLES / f) for f in course.folders]
    program = folder / "player"
    search = "-i" + ":".join([str(folder), *folders])
    objects = ["-outputdir", OBJECTS]  # as the stand-ins were compiled
    command = [compiler, "--make", *course.flags, search, *objects, "-o", str(program)]
    output = _run([*command, str(_driver(course))], folder)
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
    confinement.lower(resource.RLIMIT_CPU, COMPILE_SECONDS, COMPILE_SECONDS + 1)
    confinement.lower(resource.RLIMIT_AS, COMPILE_MEMORY_MB * 2**20, COMPILE_MEMORY_MB * 2**20)
    confinement.lower(resource.RLIMIT_FSIZE, COMPILE_FILE_BYTES, COMPILE_FILE_BYTES)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_error(output: str) -> str:
    """GHC's first error in one line: where (the file's name, line and column) and the
    first line of what it says; else the first line GHC printed that says an error, or
    the first past its lines of progress."""
    lines = output.splitlines()
    for at, line in enumerate(lines):
        found = ERROR.match(line.strip())
        if found:
            name, row, column, said = found.groups()
            said = said or next((x.strip(" •") for x in lines[at + 1 :] if x.strip(" •|")), "")
            return f"{name}:{row}:{column}: {said}".rstrip(": ")
    # none (the linker's, a pragma's flag): the first line that says an error, past GHC's
    # lines of progress, which name mine's stand-ins and not why it failed
    said = [line.strip() for line in lines if line.strip() and not PROGRESS.match(line.strip())]
    return next((line for line in said if "error:" in line), said[0] if said else
                "GHC failed and said nothing")  # fmt: skip


def key(game: str, source: bytes) -> str:
    """What makes a build: the game, the file's bytes, the course's driver and its
    stand-ins as compiled (`stand_ins_key`: their bytes, the flags, the compiler) — hashed."""
    driver = _driver(COURSES[game]).read_bytes()
    made = f"{game}\0{stand_ins_key(game)}\0{len(driver)}\0".encode()
    return hashlib.sha256(made + driver + source).hexdigest()


def _compiler() -> bytes:
    """The compiler as a key knows it: its path, and its file's size and time."""
    compiler = ghc()
    if compiler is None:
        return b""
    real = os.path.realpath(compiler)
    stat = os.stat(real)
    return f"\0{real}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()


SOURCES, OBJECTS, MANIFEST = "src", "build", "manifest.json"  # a compile's folders, relative


def _stand_in_files(course: Course) -> list[tuple[str, Path]]:
    """The course's stand-ins (every module of its folders but the driver), each with its
    name in a compile's folder."""
    driver = _driver(course)
    return [(f"{SOURCES}/{path.relative_to(BUNDLES)}", path)
            for folder in course.folders for path in sorted((BUNDLES / folder).rglob("*.hs"))
            if path != driver]  # fmt: skip


def _driver(course: Course) -> Path:
    """The course's `Main.hs`, which calls the player: compiled with each file."""
    return BUNDLES / course.folders[0] / "Main.hs"


def stand_ins_key(game: str) -> str:
    """What makes the course's compiled stand-ins: the compiler, the flags, the folders
    and every stand-in's name and bytes — hashed."""
    course = COURSES[game]
    digest = hashlib.sha256(f"stand-ins\0{course.flags}\0{course.folders}".encode())
    for name, path in _stand_in_files(course):
        digest.update(f"\0{name}\0".encode() + path.read_bytes())
    digest.update(_compiler())
    return digest.hexdigest()


def stand_ins(game: str, under: Path) -> Path:
    """The course's stand-ins compiled in `under/<stand_ins_key>`: their sources in `src`,
    GHC's interfaces and objects in `build`, and a manifest of every file's hash, for
    `build` to copy. Compiled when `under` does not hold them whole, in a folder of this
    process's own renamed into place, so a process beside this one finds them whole or
    not at all; when two compile them at once, the first rename stands and both use it.
    CompileError if GHC cannot compile them; OSError if `under` cannot be written."""
    made = stand_ins_key(game)
    kept = under / made
    if _whole(kept, made):
        return kept
    under.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{made[:12]}-", dir=under))
    try:
        _compile_stand_ins(COURSES[game], made, folder)
        for _ in range(3):
            try:
                os.rename(folder, kept)
                return kept
            except OSError as error:  # a folder in the way: another process's, or not whole
                if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            if _whole(kept, made):
                return kept
            aside = Path(tempfile.mkdtemp(prefix=f".{made[:12]}-", dir=under))
            with contextlib.suppress(FileNotFoundError):  # another process set it aside
                os.rename(kept, aside / "not-whole")
            shutil.rmtree(aside, ignore_errors=True)
        raise OSError(f"{kept} was replaced while this process compiled it, three times")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _compile_stand_ins(course: Course, made: str, folder: Path) -> None:
    """The stand-ins' sources copied into `folder/src` and compiled into `folder/build`
    (GHC running in `folder`), then the manifest, last, and the folder readable by all."""
    names = []
    for name, path in _stand_in_files(course):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / name)  # older than the objects GHC writes next
        names.append(name)
    search = ":".join(f"{SOURCES}/{f}" for f in course.folders)
    command = [_installed(), "--make", "-no-link", *course.flags, f"-i{search}",
               "-outputdir", OBJECTS, *names]  # fmt: skip
    output = _run(command, folder)
    if output.over or output.code != 0:
        raise CompileError(f"the stand-ins do not compile:\n{output.said}",
                           output.over or first_error(output.said))  # fmt: skip
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        files[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)  # the workers' users read it
    manifest = folder / MANIFEST
    said = {"key": made, "files": files, "ghc": output.said}  # what GHC said, to read
    manifest.write_text(json.dumps(said), encoding="utf-8")
    os.chmod(manifest, 0o644)


def _whole(kept: Path, made: str) -> bool:
    """Whether `kept` holds the stand-ins of `made` whole: a manifest for `made` that names
    every file it holds, each with its bytes' hash."""
    try:
        said = json.loads((kept / MANIFEST).read_bytes())
        files = said["files"] if said["key"] == made else None
        held = {str(p.relative_to(kept)) for p in kept.rglob("*") if p.is_file()} - {MANIFEST}
        return (isinstance(files, dict) and set(files) == held and all(
            hashlib.sha256((kept / name).read_bytes()).hexdigest() == digest
            for name, digest in files.items()))  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _copied(stand_ins: Path, made: str, folder: Path) -> bool:
    """The compiled stand-ins of `stand_ins` copied into `folder` (`src` and `build`),
    each file's time kept (GHC keeps an object newer than its source); each checked
    against the manifest as it is copied. False, and none of them kept, if they are not
    whole."""
    try:
        said = json.loads((stand_ins / MANIFEST).read_bytes())
        if said["key"] != made:
            return False
        for name, digest in said["files"].items():
            if Path(name).is_absolute() or ".." in Path(name).parts:
                raise ValueError(f"{name} is not in the folder")
            data = (stand_ins / name).read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:
                raise ValueError(f"{name} is not as the manifest says")
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            made_at = os.stat(stand_ins / name)
            os.utime(target, ns=(made_at.st_atime_ns, made_at.st_mtime_ns))
        return True
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        for part in (SOURCES, OBJECTS):
            shutil.rmtree(folder / part, ignore_errors=True)
        return False
