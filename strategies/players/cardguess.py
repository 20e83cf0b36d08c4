"""The card-guessing player: the code of every generated card-guessing file.

`mine generate cardguess` copies this module below its own docstring into the file and
writes the fitted trees into `TREES` (empty here: every n falls back). The handout's
interface, with cards as the spec's strings (`3C`, `TH`, `AS`): `feedback(answer, guess)`,
`initial_guess(n)` and `next_guess((guess, state), feedback)`.
"""

import array
import base64
import bisect
import sys
import time
import zlib
from itertools import accumulate, combinations

RANKS = "23456789TJQKA"
SUITS = "CDHS"
FALLBACK_SECONDS = 0.5

# n -> (nodes, the tree packed as described in the module docstring of mine's codegen).
TREES = {}

_DECODED = {}


def _card(text):
    return RANKS.index(text[0]) * 4 + SUITS.index(text[1])


def _text(card):
    return RANKS[card // 4] + SUITS[card % 4]


def _overlap(answer, guess):
    unmatched = list(guess)
    matched = 0
    for value in answer:
        if value in unmatched:
            unmatched.remove(value)
            matched += 1
    return matched


def feedback(answer, guess):
    """(correct cards, lower ranks, correct ranks, higher ranks, correct suits)."""
    answer = [_card(c) for c in answer]
    guess = [_card(c) for c in guess]
    answer_ranks = [c // 4 for c in answer]
    guess_ranks = [c // 4 for c in guess]
    low, high = min(guess_ranks), max(guess_ranks)
    return (
        len(set(answer) & set(guess)),
        sum(1 for r in answer_ranks if r < low),
        _overlap(answer_ranks, guess_ranks),
        sum(1 for r in answer_ranks if r > high),
        _overlap([c % 4 for c in answer], [c % 4 for c in guess]),
    )


def _tree(n):
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


def _guess_at(n, node):
    guesses = _tree(n)[0]
    return [_text(card) for card in guesses[node * n : (node + 1) * n]]


def _code(numbers):
    code = 0
    for number in numbers:
        code = code * 5 + int(number)
    return code


def initial_guess(n):
    """The first guess for an answer of n cards, and the state: (n, node, history)."""
    if n in TREES:
        return _guess_at(n, 0), (n, 0, ())
    return _fallback(n, ()), (n, -1, ())


def next_guess(previous, numbers):
    """The next guess after `numbers`, the feedback to the previous guess."""
    guess, (n, node, history) = previous
    history = history + ((tuple(guess), tuple(int(x) for x in numbers)),)
    if node >= 0:
        _, first, codes = _tree(n)
        code = _code(numbers)
        low, high = first[node] + 1, first[node + 1] + 1
        at = bisect.bisect_left(codes, code, low, high)
        if at < high and codes[at] == code:
            return _guess_at(n, at), (n, at, history)
    return _fallback(n, history), (n, -1, history)


def _fallback(n, history):
    """Off the tree: a hand consistent with every feedback so far, else (none found in
    time, or none exists) the first hand not yet guessed."""
    started = time.perf_counter()
    guessed = {frozenset(guess) for guess, _ in history}
    spare = None
    for hand in combinations([_text(card) for card in range(52)], n):
        if frozenset(hand) in guessed:
            continue
        if spare is None:
            spare = list(hand)
        if all(feedback(hand, guess) == numbers for guess, numbers in history):
            return list(hand)
        if time.perf_counter() - started > FALLBACK_SECONDS:
            break
    return spare
