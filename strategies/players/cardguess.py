"""The card-guessing player: the code of every generated card-guessing file.

`mine generate cardguess` copies this module below its own docstring into the file and
writes the fitted trees into `TREES` (empty here). The handout's interface, cards as the
spec's strings (`TH`): `feedback(answer, guess)`, `initial_guess(n)`, `next_guess((guess,
state), feedback)`. A file plays exactly the n it has a searched tree for and refuses
others (ValueError): without a tree, no rule a standard-library file can run within the
handout's time matches greedy (greedy in pure Python takes seconds a call for n = 3). Off
the tree (a feedback no answer of the search gives) a fallback guesses the first of the
first FALLBACK_HANDS hands consistent with every feedback so far, else the first hand not
yet guessed, so it never fails; its budget counts hands, not seconds, so the same file
guesses alike on every machine. The engine's feedback is `card_feedback`: one rule."""

import array
import base64
import bisect
import sys
import zlib
from collections.abc import Sequence
from itertools import accumulate, combinations, islice

RANKS = "23456789TJQKA"  # ace high
SUITS = "CDHS"
FALLBACK_HANDS = 25_000  # every hand of n = 2 and 3; the first of n = 4 (0.1 s or so)

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
    return sum(min(list(answer).count(value), list(guess).count(value)) for value in set(guess))


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
        children, codes = array.array("H"), array.array("H")
        children.frombytes(raw[nodes * n : nodes * n + 2 * nodes])
        codes.frombytes(raw[nodes * n + 2 * nodes :])
        if sys.byteorder == "big":  # packed little-endian
            children.byteswap()
            codes.byteswap()
        _DECODED[n] = (raw[: nodes * n], array.array("I", [0, *accumulate(children)]), codes)
    return _DECODED[n]


def _guess_at(n: int, node: int) -> list[str]:
    guesses = _tree(n)[0]
    return [card_text(card) for card in guesses[node * n : (node + 1) * n]]


def feedback_code(numbers: Sequence[int]) -> int:
    """A feedback as one number 0 … 3124, base 5 (each of its numbers is 0 … 4), correct
    cards the most significant digit."""
    code = 0
    for number in numbers:
        code = code * 5 + int(number)
    return code


def initial_guess(n: int) -> Said:
    """The first guess for an answer of n cards, and the state: (n, node, history);
    ValueError for an n without a tree."""
    if n not in TREES:
        plays = ", ".join(str(size) for size in sorted(TREES)) or "none"
        raise ValueError(f"this player has no tree for n = {n} (it plays n = {plays})")
    return _guess_at(n, 0), (n, 0, ())


def next_guess(previous: Said, numbers: Sequence[int]) -> Said:
    """The next guess after `numbers`, the feedback to the previous guess."""
    guess, (n, node, history) = previous
    said = tuple(int(x) for x in numbers)
    history = (*history, (tuple(card_number(c) for c in guess), said))
    if node >= 0:
        _, first, codes = _tree(n)
        code = feedback_code(said)
        low, high = first[node] + 1, first[node + 1] + 1
        at = bisect.bisect_left(codes, code, low, high)
        if at < high and codes[at] == code:
            return _guess_at(n, at), (n, at, history)
    return _fallback(n, history), (n, -1, history)


def _fallback(n: int, history: History) -> list[str]:
    """Off the tree: the first hand, in the cards' order, of the first FALLBACK_HANDS that
    is consistent with every feedback so far and not yet guessed, else the first hand not
    yet guessed."""
    guessed = {frozenset(guess) for guess, _ in history}
    for hand in islice(combinations(range(52), n), FALLBACK_HANDS):
        if frozenset(hand) not in guessed and all(
            card_feedback(hand, guess) == said for guess, said in history
        ):
            return [card_text(card) for card in hand]
    spare = next(h for h in combinations(range(52), n) if frozenset(h) not in guessed)
    return [card_text(card) for card in spare]
