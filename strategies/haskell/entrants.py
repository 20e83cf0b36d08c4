"""A built Haskell player as the harness calls a Python player file: a module whose
functions are the Python file's (TwentyOne's `play`; Gin Rummy's `pick`, `play` and
`melds`; card guessing's `feedback`, `initial_guess` and `next_guess`), each a request to
the program on its pipe (`protocol`), its reply read back into the values the Python file
returns.

The program is a child of the process that loads it: in a contained worker it runs as
the worker's user, in its session and under its limits, and is ended with it. A call's
time is its round trip, so the call limit counts the pipe. A program that ends, or
answers what the protocol does not say, ends the job as a Python file's `os._exit` ends
its worker: `ProgramFault` is the harness's `Ended`, not an `Exception`, so no engine
takes it for one invalid play (and the next call would find no program); it reads as a
Python file's end would: the program's exit and what it said, or that it ran out of
memory (GHC's runtime says so, and exits with 251, when the address-space limit stops its
heap; a file's own exit 251 is its exit).
"""

from __future__ import annotations

import fcntl
import os
import resource
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from mine.strategies import confinement, contained
from mine.strategies.haskell import protocol

# A reply longer than this is not one the protocol says: a memory of the most characters
# any game's rules allow (TwentyOne's memory_chars, 10**6), each escaped in 7 bytes, fits,
# so that a memory the rules allow plays and one they do not is the referee's invalid play.
LINE_BYTES = 8 << 20
STDERR_BYTES = 1 << 20  # what a program may write on stderr (a file of the worker's) in a call
TAIL_BYTES = 1 << 16  # of its stderr, read for why it ended (its runtime writes that last)


class ProgramFault(contained.Ended):
    """The program ended, or answered what the protocol does not say."""


class Program:
    """A running program: one request a line on its stdin, one reply a line on stdout."""

    def __init__(self, path: str):
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the program)
        # appended to: cut between calls (`_cut`), the program writes on after what is kept
        flags = fcntl.fcntl(self.stderr, fcntl.F_GETFL)
        fcntl.fcntl(self.stderr, fcntl.F_SETFL, flags | os.O_APPEND)
        self.name = Path(path).name  # GHC's runtime starts what it writes with it
        self.process = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            preexec_fn=_limit_files,
        )  # fmt: skip
        contained.runs_program(self.process)

    def ask(self, request: str, read: Callable[[protocol.Reply], Any]) -> Any:
        """`read` of the program's reply to `request`."""
        self._cut()
        try:
            self.process.stdin.write(request.encode() + b"\n")  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
            line = self.process.stdout.readline(LINE_BYTES)  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError):
            line = b""
        if not line:
            raise ProgramFault(self.ended())
        if len(line) == LINE_BYTES and not line.endswith(b"\n"):
            raise ProgramFault(f"its program's reply to {request.split(' ')[0]} runs over "
                               f"{LINE_BYTES >> 20} MB")  # fmt: skip
        status, *fields = line.decode(errors="replace").rstrip("\n").split(" ")
        try:
            if status != "ok" or not line.endswith(b"\n") or not fields:
                raise ValueError(f"{line[:120].decode(errors='replace')!r}")
            return read(protocol.Reply(fields[:-1], int(fields[-1])))
        except (ValueError, protocol.ProtocolError) as error:
            raise ProgramFault(
                f"its program answered {request.split(' ')[0]} with what the protocol does "
                f"not say ({error})"
            ) from None

    def _cut(self) -> None:
        """Between calls, what the program wrote on stderr cut to its last TAIL_BYTES once
        it is over half its limit: a file's debugging lines (Debug.Trace) over a whole run
        are not a flood, and no Python file's prints are one either."""
        stderr = self.stderr.fileno()
        size = os.fstat(stderr).st_size
        if size > STDERR_BYTES // 2:
            kept = os.pread(stderr, TAIL_BYTES, size - TAIL_BYTES)
            os.ftruncate(stderr, 0)
            os.write(stderr, kept)

    def ended(self) -> str:
        """Why the program is gone: its exit code and why it says it ended."""
        try:
            code = self.process.wait(contained.ENDING_SECONDS)
        except subprocess.TimeoutExpired:  # it closed its stdout but runs on
            self.process.kill()
            code = self.process.wait()
        if code == -signal.SIGXFSZ:
            return f"its program wrote over its {STDERR_BYTES // 2**20} MB limit of stderr"
        said = self._said()
        if "out of memory" in said or "Heap exhausted" in said:  # not its own exit 251
            return "ran out of memory (its program's heap)"
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return f"its program ended ({how}{': ' + said if said else ''})"

    def _said(self) -> str:
        """Why the program says it ended: the last line GHC's runtime wrote of an uncaught
        exception or `error` (`<name>: <reason>`, the file's own lines of `Debug.Trace`
        before it); else the first line it wrote on stderr."""
        self.stderr.seek(0)
        head = self.stderr.read(4096)
        self.stderr.seek(max(0, self.stderr.seek(0, os.SEEK_END) - TAIL_BYTES))
        runtime = f"{self.name}: "
        for line in reversed(self.stderr.read().decode(errors="replace").splitlines()):
            if line.startswith(runtime):
                return line.removeprefix(runtime).strip()
        lines = head.decode(errors="replace").splitlines()
        return next((x.strip() for x in lines if x.strip()), "").removeprefix(runtime)


def _limit_files() -> None:
    """In the program, before it runs: what it writes to a file (its stderr) is bounded."""
    confinement.lower(resource.RLIMIT_FSIZE, STDERR_BYTES, STDERR_BYTES)


# --- TwentyOne ----------------------------------------------------------------------------


# The actions a Python player file returns are its own classes, read by their names and
# amounts; these are the Haskell player's.
ACTIONS = {
    name: NamedTuple(name, [("amount", int)])
    for name in ("Bid", "Hit", "Stand", "DoubleDown", "Split", "Insurance")
}


def twentyone(program: Program) -> dict[str, Callable]:
    def action(reply: protocol.Reply) -> tuple[Any, str]:
        name, amount, memory = protocol.twentyone_answer(reply)
        if name not in ACTIONS:
            raise ValueError(f"no action {name[:20]!r}")
        return ACTIONS[name](amount), memory

    def play(upcard, points, infos, player_id, memory, hand):
        return program.ask(protocol.twentyone_play(upcard, points, infos, player_id, memory,
                                                   hand), action)  # fmt: skip

    return {"play": play}


# --- Gin Rummy ----------------------------------------------------------------------------


def ginrummy(program: Program) -> dict[str, Callable]:
    def pick(discard_top, scores, memory, opponent_draw, hand):
        request = protocol.ginrummy_pick(discard_top, scores, memory, opponent_draw, hand)
        return program.ask(request, protocol.ginrummy_pick_answer)

    def play(picked, scores, memory, hand):
        request = protocol.ginrummy_play(picked, scores, memory, hand)
        return program.ask(request, protocol.ginrummy_play_answer)

    def melds(scores, memory, hand):
        declared = program.ask(protocol.ginrummy_melds(scores, memory, hand),
                               protocol.ginrummy_melds_answer)  # fmt: skip
        return [cards for _, cards in declared]

    return {"pick": pick, "play": play, "melds": melds}


# --- card guessing ------------------------------------------------------------------------


def cardguess(program: Program) -> dict[str, Callable]:
    """The program keeps the game's GameState itself, so it plays one game at a time: the
    state handed back is the game's number, and a guess of another game is refused."""
    games = [0]

    def feedback(answer, guess):
        numbers = program.ask(protocol.cardguess_feedback(answer, guess),
                              lambda reply: tuple(int(x) for x in reply.fields))  # fmt: skip
        if len(numbers) != 5:
            raise ProgramFault(f"its program's feedback is {len(numbers)} numbers, not 5")
        return numbers

    def initial_guess(n):
        games[0] += 1
        return program.ask(protocol.cardguess_initial(n), protocol.cardguess_guess), games[0]

    def next_guess(previous, numbers):
        _, game = previous
        if game != games[0]:
            raise ValueError("a Haskell player plays one game at a time (its GameState is "
                             "the program's)")  # fmt: skip
        return program.ask(protocol.cardguess_next(numbers), protocol.cardguess_guess), game

    return {"feedback": feedback, "initial_guess": initial_guess, "next_guess": next_guess}


FUNCTIONS = {"twentyone": twentyone, "ginrummy": ginrummy, "cardguess": cardguess}


def load(path: str | Path, game: str, program: str) -> ModuleType:
    """The Haskell player file at `path` as a module of the Python file's functions, its
    `program` (`programs.executable`) started."""
    module = ModuleType(f"{game}_haskell_{Path(path).stem}")
    module.__file__ = str(path)
    module.program = Program(program)  # type: ignore[attr-defined]
    for name, function in FUNCTIONS[game](module.program).items():  # type: ignore[attr-defined]
        setattr(module, name, function)
    return module
