"""mine: ingest game logs into DuckDB, query them, and turn them into players."""

from __future__ import annotations

import _thread
import contextlib
import difflib
import errno
import os
import signal
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

# Ctrl-C, and the request to stop that `kill`, `timeout` or a CI's cancel sends: both
# unwind (SIGTERM's default would end the process where it stands, its temporary folders
# left for good); what run() says of each, and the shell's exit code, 128 + its number.
STOPS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}
_stopped_by = [signal.SIGINT]


def _interrupt(signum: int, frame: types.FrameType | None) -> None:
    """Ctrl-C (or SIGTERM): a KeyboardInterrupt, which each layer unwinds (a transaction
    rolled back, a partial file removed) and run() turns into one line; but a module half
    loaded cannot unwind (a C extension aborts the process), so then the process ends here,
    as quietly (nothing is half-written then: transactions and partial files are never
    taken for finished work)."""
    _stopped_by[0] = signum
    unwinding = sys.exception()
    if isinstance(unwinding, KeyboardInterrupt) or type(unwinding).__name__ == "InterruptException":
        return  # this Ctrl-C is being unwound already (a statement stopped): let it clean up
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            os.write(sys.stderr.fileno(), f"error: {STOPS[signum]}\n".encode())
            os._exit(128 + signum)  # the shell's code for a command a signal stopped
        frame = frame.f_back
    raise KeyboardInterrupt


if Path(sys.argv[0]).name == "mine" and threading.current_thread() is threading.main_thread():
    for _number in STOPS:  # from the start: Ctrl-C while loading too
        signal.signal(_number, _interrupt)

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402
from typer.exceptions import TyperException  # noqa: E402

from mine import __version__, games, inputs, outputs  # noqa: E402
from mine.pipeline import INTERRUPTED, options  # noqa: E402

# Plain help: rich's help panels would import rich on every `--help`, tripling start-up.
HELP = {
    "rich_markup_mode": None,
    "add_completion": False,
    "no_args_is_help": True,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}

VERBS = {
    "simulate": "Play games between bots and write logs in the real format.",
    "stats": "Derive per-situation statistics from the warehouse and store them there.",
    "fit": "Fit lookup tables from the warehouse's logs.",
    "generate": "Generate a single-file player from a fitted table.",
    "validate": "Measure a player file against the baselines in the reference engine.",
    "tournament": "Play player files and bots in a round robin: ratings, intervals, faults.",
    "report": "Write a fitted table's report (a self-contained HTML page).",
}


class Suggesting(TyperGroup):
    """A group that answers a name it does not know with the one it most likely meant
    (`mine stats twentynoe`: did you mean twentyone?), or the names it knows."""

    def resolve_command(self, ctx, args):
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            known = self.list_commands(ctx)
            close = difflib.get_close_matches(args[0].lower(), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}?" if close else f"one of {', '.join(known)}"
            what = "game" if isinstance(self, GameCommands) else "command"
            ctx.fail(f"unknown {what} {args[0]!r} ({hint})")
        return super().resolve_command(ctx, args)


class GameCommands(Suggesting):
    """`mine <verb>`: one command per game, loaded only when it runs (or its help shows),
    so that start-up imports neither the games nor their libraries. Game names are read
    in any case (`mine stats Hog`)."""

    def list_commands(self, ctx) -> list[str]:
        return [game.name for game in games.with_part("commands")]

    def format_commands(self, ctx, formatter) -> None:
        """The games from the registry, without importing them."""
        rows = [(game.name, game.about) for game in games.with_part("commands")]
        with formatter.section("Games"):
            formatter.write_dl(rows)
        formatter.write_paragraph()
        formatter.write_text(f"`{ctx.command_path} GAME --help` lists the options of that game's "
                             "command.")  # fmt: skip

    def get_command(self, ctx, name: str):
        from mine.pipeline.commands import command

        try:
            game = games.get(name.lower())
        except LookupError:
            return None
        function = command(self.name, game)
        if function is None:
            return None
        single = typer.Typer(**HELP)
        single.command(name)(function)
        return typer.main.get_command(single)


@contextlib.contextmanager
def prompt_interrupts() -> Iterator[None]:
    """Ctrl-C stops a DuckDB statement at once: a statement runs in C, where no Python
    signal handler runs before it ends (an export, minutes). So SIGINT (and SIGTERM) is
    taken by a thread of ours, which stops every open DuckDB statement and interrupts the
    main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    done = threading.Event()

    def watch() -> None:
        pressed = False
        while not done.is_set():
            if (info := signal.sigtimedwait(STOPS, 0.1)) is not None:
                pressed = True
                _thread.interrupt_main(info.si_signo)
            connection = sys.modules.get("mine.warehouse.connection")
            if pressed and connection is not None:
                # Every statement from now on: the main thread may start one before it
                # sees the interrupt.
                connection.interrupt_all()

    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # for the threads after it too
    watcher = threading.Thread(target=watch, name="ctrl-c", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)


def _data(command: str, *args) -> None:
    """A command of `commands/data.py`, where Ctrl-C stops the warehouse's statement."""
    from mine.pipeline.commands import data

    with prompt_interrupts():
        getattr(data, command)(*args)


app = typer.Typer(cls=Suggesting, help=__doc__, **HELP)
for verb, about in VERBS.items():
    verbs = typer.Typer(
        cls=GameCommands, help=about, subcommand_metavar="GAME [OPTIONS]...", **HELP
    )
    app.add_typer(verbs, name=verb)


def _version(show: bool) -> None:
    if show:
        print(f"mine {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: options.option(
        bool, "--version", callback=_version, is_eager=True, help="Print the version."
    ) = False,
) -> None:
    """mine: ingest game logs into DuckDB, query them, and turn them into players."""
    outputs.forget_reads()  # what an earlier command run in this process read


@app.command()
def ingest(
    paths: options.argument(
        list[str], metavar="PATH", help="Files, folders (recursive) or globs.", show_default=False
    ),
    game: options.option(
        str | None,
        metavar="GAME",
        help=f"Skip detection: every pair is this game ({', '.join(games.names())}).",
    ) = None,
    db: options.Db = None,
    as_json: options.Json = False,
    wait: options.Wait = 60.0,
    verify: options.option(
        bool,
        "--verify/--no-verify",
        help="Replay each game's rules over its logs (--no-verify: format checks only).",
    ) = True,
    rules: options.option(
        list[str] | None,
        "--rules",
        metavar="KEY=VALUE",
        help="The rules the logs were played under (as `mine simulate --rules`), "
        "repeatable; a key applies to every game (or --game) whose rules have it.",
    ) = None,
    lake: options.Lake = None,
    cluster: options.Cluster = None,
    shard_pairs: options.option(
        int, "--shard-pairs", min=1, help="Pairs per task when ingesting into a lake."
    ) = 1000,
    workers: options.option(
        int | None,
        "--workers",
        min=1,
        max=options.MAX_WORKERS,
        help="Processes replaying a large batch's logs (default: one a core).",
        show_default=False,
    ) = None,
) -> None:
    """Ingest turn/score log pairs; each pair lands whole or not at all, once per content.
    With --lake, into a lake (Parquet) in tasks, on --cluster's workers if given."""
    if lake is not None or cluster is not None:
        from mine.pipeline.commands import lake as lakes

        settings = rules or []
        lakes.ingest(paths, game, db, lake, cluster, as_json, wait, verify, settings, shard_pairs)
        return
    _data("ingest", paths, game, db, as_json, wait, verify, rules or [], workers)


@app.command()
def query(
    sql: options.argument(
        str | None, metavar="SQL", help="The SQL to run.", show_default=False
    ) = None,
    file: options.option(Path | None, "--file", "-f", help="Read the SQL from a file.") = None,
    fmt: options.option(
        str | None,
        "--format",
        metavar="FORMAT",
        help="table, csv, json or parquet (default: --out's extension, else table).",
        show_default=False,
    ) = None,
    out: options.option(Path | None, "--out", "-o", help="Write to this file.") = None,
    limit: options.option(
        int,
        "--limit",
        min=0,
        max=2**63 - 1,  # SQL's LIMIT takes a BIGINT: past it, DuckDB's conversion error
        metavar="N",
        help="Rows the table shows (0: all).",
    ) = 40,
    db: options.Db = None,
    wait: options.Wait = 60.0,
    lake: options.Lake = None,
    timeout: options.option(
        float | None,
        "--timeout",
        min=0.001,
        max=options.MAX_SECONDS,
        metavar="SECONDS",
        help="Stop the query after this many seconds (one error line).",
        show_default=False,
    ) = None,
) -> None:
    """Run one read-only SELECT (from the argument, --file, or stdin); show its first rows,
    or write all of it as csv, json or parquet to --out or stdout."""
    _data("query", sql, file, fmt, out, limit, db, wait, lake, timeout)


@app.command()
def tables(
    db: options.Db = None,
    as_json: options.Json = False,
    wait: options.Wait = 60.0,
    lake: options.Lake = None,
) -> None:
    """List the warehouse's tables and views with row counts and descriptions."""
    _data("tables", db, wait, as_json, lake)


@app.command()
def export(
    folder: options.argument(Path, help="A new folder for the Parquet files."),
    db: options.Db = None,
    as_json: options.Json = False,
    wait: options.Wait = 60.0,
) -> None:
    """Write the whole warehouse as Parquet, hive-partitioned by game and log, with a
    manifest (DuckDB, polars or any Parquet reader reads it back)."""
    _data("export", folder, db, as_json, wait)


@app.command()
def check(
    player: options.argument(
        Path, metavar="FILE", help="A player file (.py or .hs).", readable=False
    ),
    game: options.option(
        str | None,
        metavar="GAME",
        help="Skip detection (default: a Haskell file's course imports, a Python file's "
        "functions).",
        show_default=False,
    ) = None,
    as_json: options.Json = False,
) -> None:
    """Check a player file as the harness loads it, contained: a Haskell file compiled
    with its course's flags beside the course's stand-in modules, a Python file imported.
    One line: ok, or the error."""
    from mine.pipeline.commands.check import check as checking

    checking(player, game, as_json)


@app.command()
def demo(
    db: options.option(
        Path | None,
        "--db",
        help="Warehouse file (default: demo-out/mine.duckdb).",
        show_default=False,
    ) = None,
) -> None:
    """Run the main job end to end on an embedded warehouse of its own (demo-out/)."""
    from mine.pipeline import demo as running

    raise typer.Exit(running.main(db, app))


def run() -> None:
    """The `mine` command: a bad option or argument is one line (and exit code 2), like
    every other error, instead of click's usage block; so is Ctrl-C (exit code 130) or
    SIGTERM (143), after each layer has undone its unfinished work (a transaction, a
    partial file)."""
    _stopped_by[0] = signal.SIGINT  # what a KeyboardInterrupt not of a signal says
    for number in STOPS:
        signal.signal(number, _interrupt)
    try:
        if _standard_streams():
            code = _closed_stdout()
        elif refused := _refused_environment():
            _say(refused)
            code = 1
        else:
            code = _main()
        try:
            sys.stdout.flush()
        except BrokenPipeError:  # the reader left: the command's own code stands
            _drop_stdout()
    except BrokenPipeError:  # `mine query … | head`: the reader has all it wanted
        _drop_stdout()
        code = 0
    except KeyboardInterrupt:
        code = INTERRUPTED
    except Exception as error:
        # DuckDB's words for a statement that Ctrl-C stopped
        if type(error).__name__ == "InterruptException" or str(error) == "Query interrupted":
            code = INTERRUPTED
        else:
            failure = _environment_failure(error)
            if failure is None:
                raise
            _say(failure)
            if isinstance(error, OSError) and error.filename == outputs.STDOUT:
                _drop_stdout()  # what is left to print would fail again at exit
            code = 1
    if code == INTERRUPTED:  # typer's exit code for a KeyboardInterrupt too
        _say(STOPS[_stopped_by[0]])
        code = 128 + _stopped_by[0]
    sys.exit(code)


def _say(message: str) -> None:
    print(f"error: {inputs.shown(message)}", file=sys.stderr)


def _standard_streams() -> bool:
    """Stdin, stdout and stderr as every command may use them; whether stdout was closed.
    A closed one (`>&-`) is opened on /dev/null, so that no file the command opens (the
    warehouse) takes its number and receives what is printed; a closed stdin reads as
    empty. Stdout's errors name it, and a character its encoding lacks is escaped."""
    closed = [fd for fd in (0, 1, 2) if not _is_open(fd)]
    for fd in closed:
        null = os.open(os.devnull, os.O_RDWR)  # the lowest number free: `fd`
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    # The process's own streams, never closed.
    if 0 in closed:
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
    if 1 in closed:
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    if 2 in closed:
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)  # noqa: SIM115
    if _on_descriptor(sys.stdout, 1):
        sys.stdout = outputs.named_stdout(sys.stdout)
    return 1 in closed


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _on_descriptor(stream, fd: int) -> bool:
    """Whether `stream` writes descriptor `fd` (not a test runner's buffer)."""
    try:
        return stream.fileno() == fd
    except (AttributeError, ValueError, OSError):
        return False


def _refused_environment() -> str | None:
    """Why a variable a library of mine's reads makes it crash, or None: polars takes
    POLARS_MAX_THREADS=0 (` 0`, `+0`) for its pool, but its async runtime panics on it, in
    the middle of a command."""
    threads = os.environ.get("POLARS_MAX_THREADS", "").strip().removeprefix("+")
    if threads.isascii() and threads.isdigit() and int(threads) == 0:
        return "POLARS_MAX_THREADS is 0: polars needs 1 thread or more (unset it, or give a count)"
    return None


def _closed_stdout() -> int:
    _say("stdout is closed: mine prints its result there (send it to /dev/null to drop it)")
    return 1


def _drop_stdout() -> None:
    """What is left to print goes nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# What the machine, not the input, made fail in any command (each command says its own
# input's faults): a full disk, a file mine keeps for itself it may not write (a read-only
# HOME, a cache path that is a file), a warehouse file that is damaged, memory that ran out.
FULL_DISK = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG)
# A name past 255 bytes too: Python 3.11's Path.is_dir() and .exists() raise it (not False).
NO_ACCESS = (errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EEXIST, errno.EISDIR, errno.ELOOP,
             errno.ENAMETOOLONG)  # fmt: skip
DUCKDB_FAILURES = ("IOException", "TransactionException", "OutOfMemoryException", "FatalException")


def _environment_failure(error: Exception) -> str | None:
    """One line for a failure of the machine's, or None for anything else (a bug, whose
    traceback is wanted)."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if type(error).__module__.startswith(("duckdb", "_duckdb")):
        if type(error).__name__ in DUCKDB_FAILURES:
            return f"the warehouse failed: {first}"
        return None
    if isinstance(error, OSError) and (
        error.errno in FULL_DISK
        or (error.filename is not None and error.errno in NO_ACCESS)
        or error.filename == outputs.STDOUT
    ):
        return f"{error.filename or 'a file'}: {error.strerror}"
    if type(error).__module__.startswith("polars") and "No space left" in str(error):
        return f"cannot write: {first}"
    if (  # a limit on memory or tasks (`ulimit -v`, `ulimit -u`): a library not mapped…
        isinstance(error, MemoryError)
        or (isinstance(error, ImportError) and "failed to map segment" in first)
        or (isinstance(error, RuntimeError) and first == "can't start new thread")
    ):
        return f"memory or processes ran out (a limit: ulimit -v, ulimit -u): {first}"
    return None


def _main() -> int:
    try:
        code = app(standalone_mode=False)
    except TyperException as error:  # click's, as typer vendors it: bad options, mostly
        if type(error).__name__ == "NoArgsIsHelpError":  # a bare `mine` or `mine simulate`
            print(error.format_message())
            return 0
        ctx = getattr(error, "ctx", None)
        where = f" (see {ctx.command_path} --help)" if ctx else ""
        _say(f"{error.format_message()}{where}")
        return error.exit_code
    except typer.Abort:
        return INTERRUPTED
    return code if isinstance(code, int) else 0
