"""A user's player file, loaded as a module: one place for what a bad file is told.

A Python file runs as a module; a Haskell file of a game whose course takes Haskell
(`strategies.haskell`) is compiled once and its program runs beside, behind a module of
the Python file's functions."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from mine.inputs import exit_code, raised
from mine.strategies import confinement, contained
from mine.strategies.haskell import entrants, programs
from mine.strategies.haskell.build import COURSES, CompileError


class PlayerFileError(ValueError):
    """A player file that cannot be loaded or lacks what its game calls."""


is_haskell = programs.is_haskell
MAX_BYTES = 64 * 2**20  # a player file, far above any (a generated one is at most a few MB)


def there(path: str | Path) -> Path:
    """The path of a player file that is there (PlayerFileError if it is not a file, or
    holds more than MAX_BYTES): what a command checks before any work, so that a mistyped
    name costs no solve or game, and a file of gigabytes is not read."""
    path = Path(path)
    try:
        if not path.is_file():
            raise PlayerFileError(f"{path}: {'not a file' if path.exists() else 'no such file'}")
    except OSError as error:  # a folder above it this user may not search
        raise PlayerFileError(_unreadable(path, error.errno or 0, "same")) from None
    if (size := path.stat().st_size) > MAX_BYTES:
        raise PlayerFileError(f"{path}: {size:,} bytes, over the {MAX_BYTES // 2**20} MB of a "
                              "player file")  # fmt: skip
    return path


def readable(path: str | Path) -> Path:
    """`there(path)`, and readable by the contained player, whose user may be another than
    the harness's: what a command checks before any work, so that the file is refused
    with who cannot read it, not found unreadable by a worker."""
    path = there(path)
    users = confinement.player_users()
    if error := confinement.open_error(path, users):
        raise PlayerFileError(_unreadable(path, error, users))
    return path


def _unreadable(path: Path, error: int, users: str) -> str:
    """Who cannot read the file, why, and what to do: `users` says whom the reader runs as
    (`confinement.player_users`; "same": the harness's user)."""
    why = os.strerror(error)
    if users == "same":
        return (f"{path}: user '{_user_name()}' cannot read it ({why}): make it readable "
                "by that user (r on the file, x on its folders)")  # fmt: skip
    who = "user 'nobody'" if users == "nobody" else "a user of its own"
    uid = "" if users == "nobody" else f"uid {confinement.UID_BASE} + its pid: "
    return (f"{path}: the contained player runs as {who} ({uid}mine drops root's rights), "
            f"which cannot read it ({why}): make it readable by others (chmod o+r, and o+x "
            "on its folders) or run mine as its owner")  # fmt: skip


def _user_name() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a uid with no name
        return str(os.geteuid())


def load_module(path: str | Path, game: str, functions: tuple[str, ...]) -> ModuleType:
    """Run the file as a fresh module and check it defines each of `functions`."""
    path = there(path)
    if programs.is_haskell(path):
        return _load_haskell(path, game, functions)
    name = f"{game}_player_{abs(hash((str(path.resolve()), time.time_ns())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PlayerFileError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    watch = contained.watch()
    try:
        with watch.importing(path) if watch else contextlib.nullcontext():
            spec.loader.exec_module(module)
    except SystemExit as error:
        code = exit_code(error)
        raise PlayerFileError(f"{path}: cannot load (it called sys.exit({code}))") from None
    except BaseException as error:  # a broken player is the user's input, not our bug
        if watch is None and not isinstance(error, Exception):
            raise  # in the harness's own process a Ctrl-C is the user's (a worker has none)
        kind, text = raised(error)
        raise PlayerFileError(f"{path}: cannot load ({kind}{text and ': '}{text})") from None
    finally:
        sys.modules.pop(name, None)
    missing = [f for f in functions if not callable(getattr(module, f, None))]
    if missing:
        raise PlayerFileError(f"{path}: defines no {', '.join(missing)}")
    return contained.load_wrapped(module, functions, path)


_LOADED: dict[tuple[str, str, tuple[str, ...]], ModuleType] = {}


def load_once(path: str | Path, game: str, functions: tuple[str, ...]) -> ModuleType:
    """`load_module`, once in this worker for each file: a tournament's pairings and
    validation's games ask for the same files again and again."""
    key = (str(path), game, functions)
    if key not in _LOADED:
        _LOADED[key] = load_module(path, game, functions)
    return _LOADED[key]


def _load_haskell(path: Path, game: str, functions: tuple[str, ...]) -> ModuleType:
    if game not in COURSES:
        raise PlayerFileError(f"{path}: a Haskell file plays {', '.join(COURSES)}, not {game}")
    watch = contained.watch()
    try:
        program = programs.executable(path, game)
        with watch.importing(path) if watch else contextlib.nullcontext():
            module = entrants.load(path, game, program)
    except (CompileError, OSError) as error:
        raise PlayerFileError(f"{path}: {error}") from None
    missing = [f for f in functions if not callable(getattr(module, f, None))]
    if missing:
        raise PlayerFileError(f"{path}: a Haskell file answers only its course's calls, "
                              f"not {', '.join(missing)}")  # fmt: skip
    return contained.load_wrapped(module, functions, path)


def prepare(paths: Sequence[str | Path], game: str, *, contain: bool = True) -> None:
    """In the harness, before the workers that load `paths` (each there: PlayerFileError):
    each Haskell file among them compiled once, contained (PlayerFault for one that does
    not compile)."""
    programs.prepare([there(path) for path in paths], game, contain=contain)


def load_source(source: str, game: str) -> ModuleType:
    """Run generated source as a fresh module (a file that was never written)."""
    name = f"{game}_source_{abs(hash((source, time.time_ns())))}"
    module = ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up while the source runs
    try:
        exec(compile(source, f"<{game} player>", "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


# --- a player file sent to a task as data -------------------------------------------------------


@dataclass(frozen=True)
class Shipped:
    """A player file sent to a task as data: its path (what results and faults name) and
    its bytes (a worker on another machine may not see the path). A file that is not there
    is refused here, before any task is sent."""

    path: str
    source: bytes

    @classmethod
    def of(cls, path: str | Path) -> Shipped:
        return cls(str(path), there(path).read_bytes())


@contextlib.contextmanager
def landed(files: Sequence[Shipped]) -> Iterator[list[str]]:
    """Paths in this worker that hold the files: each file itself where this machine sees
    it with the same bytes (this machine, a shared file system), else a copy under its own
    name in a temporary folder; a fault or load error of a copy names the file it copies."""
    with tempfile.TemporaryDirectory(prefix="mine-shipped-") as folder:
        os.chmod(folder, 0o755)  # the contained player's user reads the copies (not root)
        here, copies = [], {}
        for index, file in enumerate(files):
            path = Path(file.path)
            if path.is_file() and path.read_bytes() == file.source:
                here.append(file.path)
                continue
            copy = Path(folder, str(index), path.name)
            copy.parent.mkdir()
            copy.write_bytes(file.source)
            here.append(str(copy))
            copies[str(copy)] = file.path
        try:
            yield here
        except contained.PlayerFault as fault:
            if fault.path not in copies:
                raise
            raise contained.PlayerFault(copies[fault.path], fault.reason) from None
        except PlayerFileError as error:
            message = str(error)
            for copy, original in copies.items():
                message = message.replace(copy, original)
            raise PlayerFileError(message) from None
