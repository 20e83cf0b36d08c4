"""A TwentyOne `Player.hs` as the validator reads a generated Python player: what the file
does is asked of its program, what it states is read from its data section.

The validator tabulates a player's `action_for` over millions of hands and reads the
tables a generated file holds (its static chart's exact value, its count cells, its bid
table flattened for what the bids gain). A Haskell file answers only the course's
`playCard`, so here:
- `play` is the program's (`player_file.load_module`);
- `action_for(context, up, total, soft, n, pair, tc, first)` is a `play` call of a hand
  made to that situation, its memory (the generated players' format,
  `players.twentyone`) saying the true count, the context and whether it is the round's
  first decision: the action's name is the letter;
- the tables (HAND, SPLIT, INSURE, BIDS, BY_COUNT and the numbers beside them) are the
  definitions between the file's data markers, read as `codegen.haskell.twentyone`
  writes them;
- `with_bids(bids)`: the same file with another bid table (`prepare` compiles it with
  the file, once).
"""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from mine.parsers.cards import Card
from mine.strategies import player_file
from mine.strategies.engines.twentyone import PlayerPoints
from mine.strategies.haskell import programs
from mine.strategies.player_file import PlayerFileError, is_haskell, load_module
from mine.strategies.players import twentyone as player

LETTERS = {"Insurance": "I", "Split": "P", "DoubleDown": "D", "Hit": "H", "Stand": "S"}
ME, STAKE = "me", 10  # the seat asked, and the round's bid its memory states
DATA = re.compile(r"^-- BEGIN DATA\n(.*?)^-- END DATA\n", re.S | re.M)
DEFINITION = re.compile(r"^([a-z]\w*) = (.*?)(?=^\S|\Z)", re.S | re.M)
TOKEN = re.compile(
    r'(?P<number>-?\d+(?:\.\d+)?(?:e-?\d+)?)|"(?P<string>(?:[^"\\]|\\\s*\\)*)"'
    r"|(?P<name>[A-Z]\w*)|(?P<mark>[^\s])"
)
NAMES = {  # the Python player's constant: the Haskell definition it is written as
    "DECKS": "decks", "MIN_BID": "minBid", "MAX_BID": "maxBid", "TC_LIMIT": "tcLimit",
    "CAN_INSURE": "canInsure", "DOUBLE_ON_21": "doubleOn21",
    "DOUBLE_AFTER_SPLIT": "doubleAfterSplit",
}  # fmt: skip
CELLS = {"HandCell": "H", "SplitCell": "P", "InsureCell": "I"}


class HaskellPlayer:
    """What the TwentyOne validator reads of a player module, for a Haskell file."""

    def __init__(self, path: str | Path, source: str | None = None):
        self.path = Path(path)
        self.source = self.path.read_text(encoding="utf-8") if source is None else source
        tables = stated(self.source)
        if tables is None:
            raise PlayerFileError(f"{path}: states no tables (not a generated player?)")
        for name, value in tables.items():
            setattr(self, name, value)
        self.play = load_module(path, "twentyone", ("play",)).play

    def action_for(self, context, up, total, soft, n, pair, tc, first):
        """The letter of the program's action in a hand made to this situation."""
        memory = player.Memory(dealt=0, count=tc * self.DECKS, active=1, bid=STAKE,
                               phase="F" if first else "P", insured=int(context == 1),
                               split=int(context == 2))  # fmt: skip
        upcard = Card(up, "S")
        cards = tuple(Card(rank, "SHDC"[k % 4]) for k, rank in enumerate(hand(total, soft, n,
                                                                                pair)))  # fmt: skip
        points = [PlayerPoints(ME, 1000)]  # points for any Split, DoubleDown or Insurance
        action, _ = self.play(upcard, points, [], ME, player.write_memory(memory), cards)
        letter = LETTERS.get(type(action).__name__)
        if letter is None:
            raise ValueError(f"{self.path}: answered a hand with {action!r}")
        return letter

    def with_bids(self, bids: tuple[int, ...]) -> HaskellPlayer:
        """The same file with `bids` for its bid table, started anew (its program the
        cache's when `prepare` built it, else compiled here)."""
        source = with_bids(self.source, bids)
        folder = Path(tempfile.mkdtemp(prefix="mine-bids-"))
        try:
            (folder / self.path.name).write_text(source, encoding="utf-8")
            return HaskellPlayer(folder / self.path.name, source)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # its program runs on without it


def with_bids(source: str, bids: tuple[int, ...]) -> str:
    """The file's source with `bids` for its bid table."""
    data = DATA.search(source)
    assert data is not None  # it stated its tables
    written = re.sub(r"^bidRows = .*?(?=^\S)", f"bidRows = [{', '.join(map(str, bids))}]\n\n",
                     data.group(1), count=1, flags=re.S | re.M)  # fmt: skip
    return source[: data.start(1)] + written + source[data.end(1) :]


def prepare(paths: Sequence[str | Path], *, contain: bool = True) -> None:
    """In the harness (`player_file.prepare`): each Haskell file among `paths` compiled,
    and its twin of flat minimum bids, which the full games play beside it."""
    player_file.prepare(paths, "twentyone", contain=contain)
    for path in paths:
        if is_haskell(path):
            try:
                source = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeError):
                continue  # the loader says what is wrong with it
            tables = stated(source)
            if tables is not None:  # else the loader says so
                flat = with_bids(source, tuple(tables["MIN_BID"] for _ in tables["BIDS"]))
                programs.prepare_source(path, flat.encode(), "twentyone", contain=contain)


def stated(source: str) -> dict[str, Any] | None:
    """The Python player's constants as the file's data section states them, or None."""
    data = DATA.search(source)
    if data is None:
        return None
    values = {name: _value(text) for name, text in DEFINITION.findall(data.group(1))}
    try:
        rows, splits = values["handRows"], values["splitRows"]
        tables = {name: values[haskell] for name, haskell in NAMES.items()}
        tables["HAND"] = tuple(tuple(tuple(tuple(rows[((c * 11 + u) * 2 + s) * 4 + k]
                                                 for k in range(4)) for s in (0, 1))
                                     for u in range(11)) for c in range(3))  # fmt: skip
        tables["SPLIT"] = tuple(tuple(splits[c * 11 + u] for u in range(11)) for c in range(3))
        tables["INSURE"] = tuple(values["insureRows"])
        tables["BIDS"] = tuple(values["bidRows"])
        tables["BY_COUNT"] = {(CELLS[cell[0]], *cell[1:]): row for cell, row in values["byCount"]}
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return tables


def _value(text: str) -> Any:
    """A Haskell literal of the data section (numbers, Bool, strings, lists, tuples and
    constructors applied to literals) as Python values; a constructor is a tuple of its
    name and arguments."""
    tokens = [(found.lastgroup, found.group(found.lastgroup)) for found in TOKEN.finditer(text)]
    at = 0

    def one() -> Any:
        nonlocal at
        kind, token = tokens[at]
        at += 1
        if kind == "number":
            return float(token) if any(c in token for c in ".e") else int(token)
        if kind == "string":
            return re.sub(r"\\\s*\\", "", token)  # a string gap joins its lines
        if kind == "name" and token in ("True", "False"):
            return token == "True"
        if kind == "name":
            arguments = []
            while at < len(tokens) and (tokens[at][0] == "number" or tokens[at] == ("mark", "(")):
                arguments.append(one())
            return (token, *arguments)
        if token in ("[", "("):
            items, close = [], "]" if token == "[" else ")"
            while tokens[at] != ("mark", close):
                items.append(one())
                if tokens[at] == ("mark", ","):
                    at += 1
            at += 1
            return items if close == "]" else (items[0] if len(items) == 1 else tuple(items))
        raise ValueError(f"not a literal at {token!r}")

    value = one()
    if at != len(tokens):
        raise ValueError("more than one literal")
    return value


@cache
def _hands() -> dict[tuple[int, int, int, int], tuple[int, ...]]:
    """A hand (its ranks) of each situation (cards 2, 3, 4 and 5 or more; total; soft;
    pair rank), the first found."""
    found: dict[tuple[int, int, int, int], tuple[int, ...]] = {}
    for n in range(2, 8):
        for ranks in itertools.combinations_with_replacement(range(1, 14 if n == 2 else 11), n):
            total, soft = player.hand_value([(rank, "S") for rank in ranks])
            pair = ranks[0] if n == 2 and ranks[0] == ranks[1] else 0
            found.setdefault((min(n, 5), min(total, 31), soft, min(pair, 10)), ranks)
    return found


def hand(total: int, soft: int, n: int, pair: int) -> tuple[int, ...]:
    """The ranks of a hand in this situation (as the evaluator keys it: totals from 31
    and cards from 5 alike)."""
    key = (min(n, 5), min(total, 31), int(soft), min(pair, 10))
    if key not in _hands():
        raise ValueError(f"no hand of {n} cards totals {total} (soft {soft}, pair {pair})")
    return _hands()[key]
