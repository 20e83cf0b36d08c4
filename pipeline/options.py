"""The options every command shares, defined once so that each name means one thing.

`--db` the warehouse, `--lake` a lake instead, `--cluster` where tasks run, `--wait` a lock,
`--logs` a choice of its logs, `--seed` every random choice, `--json` the result as JSON,
`--rules KEY=VALUE` a rule setting, `--out` the file or folder written, `--table` a fitted
table, `--players` the bots that play, `--games` how many games, `--baselines` the bots a
player is measured against. Options whose help depends on the command (`--games`,
`--out`) are made by a function that takes that help.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


def option(kind, *flags: str, **settings):
    """The annotation of a typer function's parameter read as the option `flags`."""
    return Annotated[kind, typer.Option(*flags, **settings)]


def argument(kind, **settings):
    return Annotated[kind, typer.Argument(**settings)]


def own(kind, flag: str, default, help: str, **settings) -> tuple:
    """A game's own option of a loop command (`OPTIONS` in its commands module): the
    annotation typer reads and the default."""
    return option(kind, flag, help=help, **settings), default


Db = option(
    Path | None,
    "--db",
    help="Warehouse file (default: $MINE_DB or ./mine.duckdb; a new one is named *.duckdb "
    "or *.db).",
    show_default=False,
)
Lake = option(
    Path | None,
    "--lake",
    help="A lake folder (Parquet files and lake.json, on a file system every worker "
    "sees) instead of a warehouse file.",
    show_default=False,
)
Cluster = option(
    str | None,
    "--cluster",
    envvar="MINE_CLUSTER",
    metavar="ADDRESS",
    help="Run the tasks on a Ray cluster: auto, HOST:PORT or ray://HOST:PORT (a running "
    "one), local or local:N (start one here with N CPUs); default $MINE_CLUSTER, else "
    "this machine's processes. Needs pip install 'mine[cluster]'.",
    show_default=False,
)
MAX_SECONDS = 604_800
"""A week: what any option counted in seconds takes at most. Every number an option takes
has a range, so that `nan` and `inf` are refused (`--wait nan` would wait forever)."""
Wait = option(
    float, "--wait", min=0, max=MAX_SECONDS, help="Seconds to wait for another process's lock."
)
# At most 128 bits, the entropy numpy's SeedSequence pools: a seed of 200 digits named the
# logs of `simulate` past the 255 bytes a file name may take ('cannot write the logs').
MAX_SEED = 2**128 - 1
Seed = option(
    int,
    "--seed",
    min=0,
    max=MAX_SEED,
    help="Seed of every random choice (same seed, same bytes).",
)
Json = option(bool, "--json", help="Print the result as JSON.")
Rules = option(
    list[str] | None,
    "--rules",
    metavar="KEY=VALUE",
    help="A rule setting, repeatable (the keys: the game's spec, or a bad key's message).",
)
Table = option(Path, "--table", help="A table written by `mine fit`.")
Logs = option(
    str | None,
    "--logs",
    metavar="GLOB",
    help="Only the logs ingested from this folder, or from files matching this glob "
    "(default: every log of the game in the warehouse; the command says which folders "
    "it read).",
)
Me = option(
    int, "--me", min=0, help="The player (index in --players) whose point of view the logs take."
)
Opponent = option(
    str | None,
    "--opponent",
    help="A bot that plays a match against each of --players (and no other match).",
    show_default=False,
)
# A player file's readability is the command's to say (`player_file.readable`: who cannot
# read it, the contained player's user too), not the option parser's.
PlayerFile = argument(Path, help="A player module written by `mine generate`.", readable=False)
MAX_GAMES = 1_000_000
MAX_HANDS = 1_000_000_000
MAX_WORKERS = 64
Workers = option(int, "--workers", min=1, max=MAX_WORKERS, help="Worker processes.")


def games(help: str, minimum: int = 1, maximum: int = MAX_GAMES):
    return option(int, "--games", min=minimum, max=maximum, help=help)


def hands(help: str, minimum: int = 1000, flag: str = "--hands"):
    return option(int, flag, min=minimum, max=MAX_HANDS, help=help)


def room_for(out: Path, size: int) -> None:
    """One line and no file written when `size` bytes will not fit where `out` goes."""
    import shutil

    from mine import inputs
    from mine.pipeline.console import fail

    there = out.absolute()
    while not there.exists():
        there = there.parent
    free = shutil.disk_usage(there).free
    if size > 0.9 * free:
        writes, left = inputs.size(size), inputs.size(free)
        raise fail(
            f"{out}: this writes about {writes} and {there} has {left} free; play fewer --games"
        )


class Language(StrEnum):
    python = "python"
    haskell = "haskell"


Lang = option(
    Language,
    "--lang",
    help="The player's language: python, or haskell for the course's own file (FIT2102 "
    "Player.hs, COMP30020 Proj1.hs; --out defaults to that name).",
)


def out(help: str):
    return option(Path, "--out", "-o", help=help)


def players(help: str):
    return option(str, "--players", help=help)


def baselines(help: str):
    return option(str, "--baselines", help=help)


def again(db: Path | None = None, logs: str | None = None, lake: Path | None = None) -> str:
    """The `--db` (or `--lake`) and `--logs` a command was given, as options of the command
    its `next:` hint names (the warehouse and the logs it worked on are the next step's too)."""
    import shlex

    given = [("--db", db), ("--lake", lake), ("--logs", logs)]
    return "".join(f" {flag} {shlex.quote(str(value))}" for flag, value in given if value)


def default_db_exists() -> bool:
    """Whether there is a warehouse where `--db` would point by default."""
    from mine.warehouse.connection import db_path

    return db_path(None).exists()


def names(text: str) -> list[str]:
    """A comma-separated list of names (bots, baselines), blanks dropped."""
    return [name.strip() for name in text.split(",") if name.strip()]


def game_rules(kind, settings: list[str] | None, base=None):
    """`--rules` read into the game's rules class, or one line saying which setting is bad."""
    from mine.pipeline.console import fail

    try:
        return kind.from_settings(settings or [], base)
    except (ValueError, TypeError) as error:
        raise fail(str(error)) from None


By = option(
    str | None,
    "--by",
    metavar="player",
    help="player: the statistics per logged player id (habits with their opportunities; "
    "with --table, each choice against the fitted table's).",
    show_default=False,
)
ChartTable = option(
    Path | None,
    "--table",
    help="With --by player: a table written by `mine fit`, the choices each player's are "
    "measured against (default: figures that need no fit).",
    show_default=False,
)


def grouping(by: str | None, table: Path | None) -> str | None:
    """`--by` checked (none, or `player`), and `--table` only with it."""
    from mine.pipeline.console import fail

    if by not in (None, "player"):
        raise fail(f"--by {by!r}: the statistics can be grouped by player only")
    if by is None and table is not None:
        raise fail("--table needs --by player (the deviations are measured per player)")
    return by


PlayerFiles = argument(
    list[Path] | None,
    help="Player files (modules written by `mine generate`, or your own).",
    show_default=False,
    readable=False,
)


def bots(names: str):
    help = f"Baseline bots that enter too, comma-separated ({names}; '' for none)."
    return option(str, "--bots", help=help)


Against = option(
    Path | None,
    "--against",
    help="Another player file, measured head to head against this one (as a baseline is).",
    show_default=False,
    readable=False,
)
Card = option(
    Path | None,
    "--card",
    help="A `mine validate <game> --json` result to draw (default: the table's own player, "
    "measured now as `mine generate` measures it).",
    show_default=False,
)
Html = option(
    Path | None, "--html", help="Also write the standings as an HTML page.", show_default=False
)
