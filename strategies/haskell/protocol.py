"""The line protocol of mine's Haskell drivers (`bundles/*/Main.hs`): requests made of
what our engines hand a player, replies read back as the values a Python player returns.

One request a line on the program's stdin, one reply a line on its stdout: `ok <answer>
<ns>` (the nanoseconds the request took inside the program) or `error <reason>`. Fields
are separated by one space; cards are the game's notation (course: suit then rank, `SA`,
`H10`; card guessing: rank then suit, `TH`), several joined by `+` (`.` for none); a text
is `=` and the text with each character outside [A-Za-z0-9_.:;,-] written `%` and six hex
digits of its code point, `-` for none.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from mine.parsers.cards import Card, format_course, parse_course

PLAIN = re.compile(r"[A-Za-z0-9_.:;,-]")
ESCAPE = re.compile(r"%([0-9a-f]{6})")


class ProtocolError(RuntimeError):
    """The program answered with an error, or not as the protocol says."""


class Reply(NamedTuple):
    fields: list[str]  # the answer's fields
    nanoseconds: int


def text(value: str | None) -> str:
    if value is None:
        return "-"
    return "=" + "".join(c if PLAIN.fullmatch(c) else f"%{ord(c):06x}" for c in value)


def read_text(field: str) -> str:
    if not field.startswith("="):
        raise ProtocolError(f"not a text: {field[:40]!r}")
    return ESCAPE.sub(lambda found: chr(int(found.group(1), 16)), field[1:])


def cards(hand: Sequence[Card]) -> str:
    return "+".join(format_course(card) for card in hand) if hand else "."


def read_cards(field: str) -> tuple[Card, ...]:
    return () if field == "." else tuple(parse_course(part) for part in field.split("+"))


def ask(program: Path, requests: Iterable[str], timeout: float = 600) -> list[Reply]:
    """Every request's reply, from one run of `program`."""
    lines = list(requests)
    done = subprocess.run(
        [str(program)], input="".join(f"{line}\n" for line in lines), capture_output=True,
        text=True, timeout=timeout,
    )  # fmt: skip
    replies = done.stdout.splitlines()
    if done.returncode != 0 or len(replies) != len(lines):
        raise ProtocolError(
            f"{program} answered {len(replies)} of {len(lines)} requests "
            f"(exit {done.returncode}): {done.stderr.strip()[:400]}"
        )
    out = []
    for number, (line, reply) in enumerate(zip(lines, replies, strict=True), 1):
        status, *fields = reply.split(" ")
        if status != "ok" or not fields:
            raise ProtocolError(f"request {number} ({line[:80]!r}): {reply[:200]}")
        out.append(Reply(fields[:-1], int(fields[-1])))
    return out


# --- TwentyOne: play UP POINTS INFOS ID MEMORY HAND -> ACTION AMOUNT MEMORY ---------------


def twentyone_play(upcard, points, infos, player_id, memory, hand) -> str:
    """The request for the spec's `play(upcard, points, infos, player_id, memory, hand)`."""
    up = "-" if upcard is None else format_course(upcard)
    scores = "/".join(f"{text(str(i))}={int(p)}" for i, p in points) or "."
    seen = "/".join(f"{text(str(i))}={cards(c)}" for i, c in infos) or "."
    return f"play {up} {scores} {seen} {text(str(player_id))} {text(memory)} {cards(hand)}"


def twentyone_answer(reply: Reply) -> tuple[str, int, str]:
    """(action name, amount, memory); Hit and Stand have the amount 0."""
    name, amount, memory = reply.fields
    return name, int(amount), read_text(memory)


# --- Gin Rummy: pick / play / melds ------------------------------------------------------


def ginrummy_pick(discard_top, scores, memory, opponent_draw, hand) -> str:
    draw = "-" if opponent_draw is None else opponent_draw
    return (
        f"pick {format_course(discard_top)} {int(scores[0])} {int(scores[1])} "
        f"{text(memory)} {draw} {cards(hand)}"
    )


def ginrummy_play(picked, scores, memory, hand) -> str:
    return (
        f"play {format_course(picked)} {int(scores[0])} {int(scores[1])} "
        f"{text(memory)} {cards(hand)}"
    )


def ginrummy_melds(scores, memory, hand) -> str:
    return f"melds {int(scores[0])} {int(scores[1])} {text(memory)} {cards(hand)}"


def ginrummy_pick_answer(reply: Reply) -> tuple[str, str]:
    """("stock" | "discard", memory), as the Python player's `pick` returns."""
    draw, memory = reply.fields
    return draw.lower(), read_text(memory)


def ginrummy_play_answer(reply: Reply) -> tuple[tuple[str, Card], str]:
    """(("gin" | "knock" | "drop", card), memory), as the Python player's `play` returns."""
    act, card, memory = reply.fields
    return (act.lower(), parse_course(card)), read_text(memory)


def ginrummy_melds_answer(reply: Reply) -> list[tuple[str, tuple[Card, ...]]]:
    """(the course's Meld constructor, its cards) per meld, in the declared order."""
    (melds,) = reply.fields
    if melds == ".":
        return []
    return [(kind, read_cards(group)) for kind, group in (m.split(":") for m in melds.split("/"))]


# --- card guessing: initial N | next C L R H S | feedback ANSWER GUESS --------------------


def cardguess_initial(n: int) -> str:
    return f"initial {int(n)}"


def cardguess_next(numbers: Sequence[int]) -> str:
    return "next " + " ".join(str(int(x)) for x in numbers)


def cardguess_feedback(answer: Sequence[str], guess: Sequence[str]) -> str:
    return f"feedback {'+'.join(answer)} {'+'.join(guess)}"


def cardguess_guess(reply: Reply) -> list[str]:
    """The guess as the spec's strings (`TH`)."""
    (guess,) = reply.fields
    return [] if guess == "." else guess.split("+")
