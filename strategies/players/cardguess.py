"""The card-guessing player: the code of every generated card-guessing file.

`mine generate cardguess` copies this module below its own docstring into the file and
writes the fitted trees into `TREES` (empty here: every n falls back). The handout's
interface, with cards as the spec's strings (`3C`, `TH`, `AS`): `feedback(answer, guess)`,
`initial_guess(n)` and `next_guess((guess, state), feedback)`.

A tree is walked by the feedback codes of its edges; off the tree (a feedback no answer
gives, or an n without a tree) a fallback guesses a hand consistent with every feedback so
far, or any hand not yet guessed, within FALLBACK_SECONDS, so it never fails. The engine
computes its feedback with this module's `card_feedback`: one rule for both.
"""

import array
import base64
import bisect
import sys
import time
import zlib
from collections.abc import Sequence
from itertools import accumulate, combinations

RANKS = "23456789TJQKA"  # ace high
SUITS = "CDHS"
FALLBACK_SECONDS = 0.5

# n -> (nodes, the tree packed as described in the module docstring of mine's codegen).
TREES = {}

_DECODED = {}  # n -> the tree unpacked (guesses, first child of each node, edge codes)

Numbers = tuple[int, int, int, int, int]
History = tuple[tuple[tuple[int, ...], Numbers], ...]  # (guess, its feedback), in order
State = tuple[int, int, History]  # n, the node of the tree (-1: off it), the history
Said = tuple[list[str], State]  # a guess and the state it leaves


def card_number(text: str) -> int:
    """`TH` → rank * 4 + suit (ranks 2 … A as 0 … 12, suits C D H S as 0 … 3)."""
    return RANKS.index(text[0]) * 4 + SUITS.index(text[1])


def card_text(card: int) -> str:
    return RANKS[card // 4] + SUITS[card % 4]


def overlap(answer: Sequence[int], guess: Sequence[int]) -> int:
    """Multiset overlap: each guess value matches at most one answer value."""
    unmatched = list(guess)
    matched = 0
    for value in answer:
        if value in unmatched:
            unmatched.remove(value)
            matched += 1
    return matched


def card_feedback(answer: Sequence[int], guess: Sequence[int]) -> Numbers:
    """The five numbers for hands of card numbers, read straight off the spec: correct
    cards, answer cards ranked below the guess's lowest rank, correct ranks, answer cards
    ranked above its highest rank, correct suits."""
    answer_ranks = [c // 4 for c in answer]
    guess_ranks = [c // 4 for c in guess]
    low, high = min(guess_ranks), max(guess_ranks)
    return (
        len(set(answer) & set(guess)),
        sum(1 for r in answer_ranks if r < low),
        overlap(answer_ranks, guess_ranks),
        sum(1 for r in answer_ranks if r > high),
        overlap([c % 4 for c in answer], [c % 4 for c in guess]),
    )


def feedback(answer: Sequence[str], guess: Sequence[str]) -> Numbers:
    """(correct cards, lower ranks, correct ranks, higher ranks, correct suits)."""
    return card_feedback([card_number(c) for c in answer], [card_number(c) for c in guess])


def _tree(n: int) -> tuple[bytes, array.array, array.array]:
    if n not in _DECODED:
        nodes, text = TREES[n]
        raw = zlib.decompress(base64.b64decode(text))
        children = array.array("H")
        children.frombytes(raw[nodes * n : nodes * n + 2 * nodes])
        codes = array.array("H")
        codes.frombytes(raw[nodes * n + 2 * nodes :])
        if sys.byteorder == "big":
            children.byteswap()
            codes.byteswap()
        first = array.array("I", [0])
        first.extend(accumulate(children))
        _DECODED[n] = (raw[: nodes * n], first, codes)
    return _DECODED[n]


def _guess_at(n: int, node: int) -> list[str]:
    guesses = _tree(n)[0]
    return [card_text(card) for card in guesses[node * n : (node + 1) * n]]


def _code(numbers: Sequence[int]) -> int:
    """A feedback as one number, base 5 (each of its numbers is 0 … 4)."""
    code = 0
    for number in numbers:
        code = code * 5 + int(number)
    return code


def initial_guess(n: int) -> Said:
    """The first guess for an answer of n cards, and the state: (n, node, history)."""
    if n in TREES:
        return _guess_at(n, 0), (n, 0, ())
    return _fallback(n, ()), (n, -1, ())


def next_guess(previous: Said, numbers: Sequence[int]) -> Said:
    """The next guess after `numbers`, the feedback to the previous guess."""
    guess, (n, node, history) = previous
    said = tuple(int(x) for x in numbers)
    history = (*history, (tuple(card_number(c) for c in guess), said))
    if node >= 0:
        _, first, codes = _tree(n)
        code = _code(said)
        low, high = first[node] + 1, first[node + 1] + 1
        at = bisect.bisect_left(codes, code, low, high)
        if at < high and codes[at] == code:
            return _guess_at(n, at), (n, at, history)
    return _fallback(n, history), (n, -1, history)


def _fallback(n: int, history: History) -> list[str]:
    """Off the tree: the first hand consistent with every feedback so far, else (none
    found in time, or none exists) the first hand not yet guessed."""
    started = time.perf_counter()
    guessed = {frozenset(guess) for guess, _ in history}
    spare = None
    for hand in combinations(range(52), n):
        if frozenset(hand) in guessed:
            continue
        if spare is None:
            spare = hand
        if all(card_feedback(hand, guess) == said for guess, said in history):
            return [card_text(card) for card in hand]
        if time.perf_counter() - started > FALLBACK_SECONDS:
            break
    return [card_text(card) for card in spare]
