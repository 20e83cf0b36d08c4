"""Built Haskell players: each file compiled once, contained, and kept by what made it.

GHC compiling a user's file runs the user's code (Template Haskell, a pragma's
preprocessor), so a build is a contained job like any call of a player file: the worker
compiles in a folder of its own and sends the program back as data (base64 text); the
harness keeps it in the cache under the hash of what made it (`build.key`: the game, the
file's bytes, the course's stand-ins and flags, the compiler), so every worker of a
validation or a tournament, and every later run, starts the same program. The course's
stand-ins, the same for every file, are compiled once by the harness (they are mine's
own files, not the user's) into the cache's `stand-ins/<hash>` (`build.stand_ins`) and
copied by each compile beside its file. Only the harness writes the cache: a worker
(another user when the harness is root) only reads it, so no file can leave a program
under another file's hash. A cache that cannot be written (its path a file, a folder not
writable, a read-only home), or that root's workers cannot read (`_readable_by_workers`),
is replaced, for the process, by a temporary folder of its own, removed when it exits: the
programs are compiled again by the next run.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import functools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from mine.strategies import confinement, contained
from mine.strategies.haskell.build import (
    COMPILE_SECONDS,
    COMPILE_WALL_SECONDS,
    COURSES,
    CompileError,
    build,
    ghc,
    key,
    stand_ins,
)

CACHE = "MINE_CACHE"  # the cache's folder, if not ~/.cache/mine (or $XDG_CACHE_HOME/mine)
MAX_PROGRAM_BYTES = 10 * 2**20  # a player's program is a few MB; its base64 fits a message
# A compile's job, timed as the file's import: GHC's own limits (`build`) end it first.
BUILD = contained.Limits(import_seconds=2 * COMPILE_SECONDS, job_seconds=2 * COMPILE_SECONDS,
                         wall_factor=COMPILE_WALL_SECONDS / COMPILE_SECONDS)  # fmt: skip

T = TypeVar("T")
_INSTEAD: list[Path] = []  # this process's own cache, once the user's could not serve
_CHECKED: set[Path] = set()  # the caches this process has asked whether its workers read


def is_haskell(path: str | Path) -> bool:
    return Path(path).suffix == ".hs"


def cache() -> Path:
    """The folder of the compiled programs (workers fork with the harness's choice)."""
    if _INSTEAD:
        return _INSTEAD[0]
    return _users_cache(*map(os.environ.get, (CACHE, "XDG_CACHE_HOME", "HOME")))


@functools.cache  # a worker forks with the harness's answer for the same variables
def _users_cache(mine_cache: str | None, xdg_cache: str | None, home: str | None) -> Path:
    """The user's cache. Without HOME, Path.home() reads the system's record of the user,
    which a root harness's workers (users of their own) have none of: they take the
    harness's answer, else they could not find its programs."""
    base = mine_cache or Path(xdg_cache or Path.home() / ".cache", "mine")
    return Path(base) / "haskell"


def prepare(paths: Iterable[str | Path], game: str, *, contain: bool = True) -> None:
    """In the harness, before its workers start: every Haskell file among `paths` that
    the cache does not hold compiled, each in a contained worker. PlayerFault naming a
    file that does not compile (GHC's first error) or whose build fails."""
    for path in paths:
        if not is_haskell(path) or game not in COURSES:
            continue  # the loader says what is wrong with it
        try:
            source = Path(path).read_bytes()
        except OSError:
            continue
        prepare_source(path, source, game, contain=contain)


def prepare_source(path: str | Path, source: bytes, game: str, *, contain: bool = True) -> None:
    """`source` (the file at `path`, or a variant of it the validator plays) in the
    cache, compiled in a contained worker unless it is there already."""
    _readable_by_workers()
    if _kept(key(game, source)) is not None:
        return
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as error:
        reason = f"not UTF-8 text (byte {error.start}), as GHC reads it"
        raise contained.PlayerFault(path, reason) from None
    task = (game, text, _stand_ins(game))
    built = contained.run(path, _compile, [task], limits=BUILD, contain=contain)[0]
    if built["error"] is not None:
        raise contained.PlayerFault(path, built["error"])
    program = base64.b64decode(built["program"])
    # whole or not at all, runnable by anyone (workers run as users of their own)
    _in_cache(lambda folder: _write(folder, key(game, source), program))


def executable(path: str | Path, game: str) -> str:
    """The program of the file at `path`, which the harness prepared (CompileError if it
    did not: the harness's fault, not the file's)."""
    kept = _kept(key(game, Path(path).read_bytes()))
    if kept is None:
        raise CompileError(f"its program is not in {cache()} (the harness did not compile it)")
    return str(kept)


def _stand_ins(game: str) -> Path | None:
    """The game's stand-ins compiled in the cache, if GHC compiles them (else the worker
    compiles them beside the file, and GHC's error is the file's line)."""
    try:
        return _in_cache(lambda folder: stand_ins(game, folder / "stand-ins"))
    except (CompileError, OSError):
        return None


def _compile(task: tuple[str, str, Path | None]) -> dict[str, str | None]:
    """Compile in a folder of this process's own, then remove it: the program as base64
    text, or GHC's first error."""
    game, source, compiled = task
    if ghc() is None:
        return {"program": None, "error": "needs GHC, which is not installed (apt-get install ghc)"}
    folder = Path(tempfile.mkdtemp(prefix="mine-ghc-"))
    watch = contained.watch()
    try:
        with watch.importing() if watch else contextlib.nullcontext():  # GHC runs the file
            built = build(game, source, folder, compiled)
        size = built.program.stat().st_size
        if size > MAX_PROGRAM_BYTES:
            return {"program": None, "error": f"its program is {size:,} bytes (over 10 MB)"}
        program = base64.b64encode(built.program.read_bytes()).decode("ascii")
        return {"program": program, "error": None}
    except CompileError as error:
        return {"program": None, "error": f"does not compile ({error.first})"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _in_cache(write: Callable[[Path], T]) -> T:
    """`write` into the cache; into this process's own if the user's cannot be written."""
    try:
        return write(cache())
    except OSError:
        if _INSTEAD:
            raise
        return write(_own_cache())


def _own_cache() -> Path:
    """This process's own cache from now on: a temporary folder the workers can read,
    removed when it exits. The user's temporary folder may be closed to them (a TMPDIR
    under /root): then the next place Python itself would try."""
    users = confinement.player_users()
    for under in dict.fromkeys([tempfile.gettempdir(), "/tmp", "/var/tmp"]):
        with contextlib.suppress(OSError):
            folder = Path(tempfile.mkdtemp(prefix="mine-cache-", dir=under))
            os.chmod(folder, 0o755)  # the workers' users read it
            if not confinement.open_error(folder, users):
                break
            folder.rmdir()
    else:  # none: the first, whose programs the workers are then told they cannot find
        folder = Path(tempfile.mkdtemp(prefix="mine-cache-"))
        os.chmod(folder, 0o755)
    _INSTEAD.append(folder)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _readable_by_workers() -> None:
    """In the harness, once a cache, before it looks in it: its own cache instead of the
    user's when its workers cannot read that one. A root harness's workers are users of
    their own (`confinement`) who read any file only where the system grants them that
    capability; without it, a cache under /root (mode 700) is closed to them, and a
    program the harness compiled there would not be found. The folders are not opened to
    them instead: /root is not mine's to open, and the cache keeps the programs of the
    user's player files, which would stay open to every user of the machine (a run's own
    cache is open while it runs)."""
    folder = cache()
    if _INSTEAD or folder in _CHECKED:
        return
    _CHECKED.add(folder)
    users = confinement.player_users()
    if users == "same":  # the workers are the harness's user, who writes the cache
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)  # to try it as the workers will
    except OSError:
        return  # it cannot be written either: `_in_cache` replaces it when it writes
    if confinement.open_error(folder, users):
        _own_cache()


def _write(folder: Path, made: str, program: bytes) -> None:
    """The program into `folder` under its hash, whole or not at all."""
    folder.mkdir(parents=True, exist_ok=True)
    out = tempfile.NamedTemporaryFile(dir=folder, prefix=f".{made[:12]}-", delete=False)  # noqa: SIM115
    try:
        with out:
            out.write(program)
        os.chmod(out.name, 0o755)
        os.replace(out.name, folder / made)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(out.name)
        raise


def _kept(made: str) -> Path | None:
    """The cache's program of this hash, if it holds one."""
    kept = cache() / made
    with contextlib.suppress(OSError):  # a cache it cannot read holds none
        if kept.is_file():
            return kept
    return None
