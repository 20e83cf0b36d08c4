"""Validation of a card-guessing player file (`mine validate cardguess`).

The file's own `initial_guess` and `next_guess` play every answer for n = 2 and 3 and a
fixed sample for n = 4 (or answers drawn from a skewed answerer), each game refereed
behind the engine's course adapter (the handout's interface and its time limit a game's;
the guess limit ends a game lost); the baselines play the same answers. Figures: mean
guesses (with a 95 % interval), the distribution, the worst case, the slowest call and
game, games lost; against each baseline the paired difference per answer; the file's
`feedback` against the engine's on a sample of pairs. A file that finds no answer of an
n is refused in one line with the first game's reason: there is nothing to measure."""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache, partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mine.inputs import raised
from mine.strategies import contained
from mine.strategies.bots.cardguess import BASELINES, GUESSERS, make_bot
from mine.strategies.engines import cardguess as engine
from mine.strategies.engines import referee
from mine.strategies.engines.cardguess import (
    RULES,
    SIZES,
    CardGuessRules,
    Hand,
    answer_probabilities,
    card_text,
    draw_answer,
    hands,
)
from mine.strategies.intervals import Z95
from mine.strategies.player_file import load_once, prepare
from mine.strategies.runners import SERIAL, Runner, spans
from mine.strategies.validation.shipped import run_on

GAME = "cardguess"
FUNCTIONS = ("feedback", "initial_guess", "next_guess")
SAMPLE = 5_000  # answers of n = 4 (and of a skewed answerer), a fixed sample
SAMPLE_SEED = 2016
FEEDBACK_PAIRS = 2_000
EVERY = {2: True, 3: True, 4: False}  # n whose every answer is played by default
LIMITS = contained.Limits(call_seconds=1.0)  # "well under a second" a call; 10 s a game
TIMED_OUT = (" s after ",)  # the handout's clock: a game's calls over its seconds
MARGIN = "guesses, B − A (positive: A needs fewer)"
ANSWERS_PER_TASK = 500  # a task: a few seconds of the file's (or a baseline's) play

Answerer = str | Sequence[float]  # an answerer's name, or its 52 card weights


def answers_for(n: int, answerer: Answerer,
                count: int | None) -> tuple[list[Hand], np.ndarray | None]:  # fmt: skip
    """The answers a validation plays, and their exact chances when they are every hand
    (n = 2, 3, `count` not given): then the figures are exact expectations under the
    answerer. Otherwise `count` (default SAMPLE) answers drawn with a fixed seed — distinct
    hands for the uniform answerer — and None."""
    rng, universe = np.random.default_rng(SAMPLE_SEED + n), hands(n)
    every = [tuple(int(c) for c in hand) for hand in universe.cards.tolist()]
    if count is None and EVERY.get(n, False):
        return every, answer_probabilities(n, answerer)
    if isinstance(answerer, str) and answerer == "uniform":
        size = min(count or SAMPLE, len(universe))
        chosen = np.sort(rng.choice(len(universe), size=size, replace=False))
        return [every[i] for i in chosen], None
    return [draw_answer(n, answerer, rng) for _ in range(count or SAMPLE)], None


# --- games -----------------------------------------------------------------------------------


def one_game(seat: referee.Bot | referee.Course, answer: Hand, rules: CardGuessRules) -> dict:
    """`answer` found by `seat` (a bot, or a file behind the course adapter), refereed:
    its guesses (None: lost), why it was lost, and a file's call times."""
    state = engine.State(rules, tuple(sorted(answer)))
    times = referee.refereed(engine, rules, state, [seat]).times[0]
    return {"guesses": len(state.guesses) if state.solved() else None, "error": state.lost,
            "seconds": sum(times) if times and state.solved() else None,
            "slowest_call": max(times, default=None), "calls": len(times) or None}  # fmt: skip


def load(path: str) -> ModuleType:
    """The file's module in this worker, loaded once."""
    return load_once(path, GAME, FUNCTIONS)


def seat(module: ModuleType) -> referee.Course:
    """A file at a tournament's table, as the handout plays it."""
    return engine.course_player(module)


def measure_file(path: str | Path, n: int, answers: Sequence[Hand], rules: CardGuessRules):
    """One record per answer (`one_game`), the file behind one course adapter."""
    player = seat(load(str(path)))
    return [one_game(player, answer, rules) for answer in answers]


def _measure(task: tuple) -> list[dict[str, Any]]:
    return measure_file(*task)


def feedback_mismatches(module: ModuleType, n: int) -> int:
    """Pairs (of a fixed sample) where the file's `feedback` differs from the engine's."""
    universe, wrong, rng = hands(n), 0, np.random.default_rng(SAMPLE_SEED)
    for a, g in rng.integers(len(universe), size=(FEEDBACK_PAIRS, 2)):
        answer, guess = universe.cards[a].tolist(), universe.cards[g].tolist()
        try:  # as plain values: the comparison runs no method of the file's own classes
            said = referee.plain(module.feedback([card_text(c) for c in answer],
                                                 [card_text(c) for c in guess]))  # fmt: skip
        except Exception:  # a broken feedback counts as wrong (a Fault: not plain values)
            said = None
        right = engine.feedback(answer, guess)
        wrong += not (isinstance(said, tuple | list) and tuple(said) == right)
    return wrong


def _probe(task: tuple[str, Sequence[int]]) -> dict[int, str | int]:
    """The file loaded and asked outside a game, for each n: why it refuses n (its words,
    where `initial_guess(n)` raises ValueError), else its `feedback_mismatches`; any other
    failure is left to the games, which count it."""
    path, sizes = task
    module, said = load(path), {}
    for n in sizes:
        try:
            module.initial_guess(n)
        except ValueError as error:
            kind, text = raised(error)  # its words: one line, whatever its __str__ does
            said[n] = f"{kind}: {text}"
            continue
        except Exception:  # a crash: the games record it
            pass
        said[n] = feedback_mismatches(module, n)
    return said


# --- figures --------------------------------------------------------------------------------


def _mean(values: np.ndarray, chances: np.ndarray | None) -> tuple[float, float]:
    """The mean and its 95 % half-width: exact (0) where `chances` weigh every answer."""
    if chances is not None:
        return float(chances / chances.sum() @ values), 0.0
    spread = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return float(values.mean()), Z95 * spread / math.sqrt(len(values))


def figures(records: list[dict[str, Any]], chances: np.ndarray | None = None) -> dict[str, Any]:
    """Mean guesses (exact when `chances` weigh every answer, else with a 95 % interval),
    the distribution (answers, or their total chance), worst case, games lost, times."""
    found = [i for i, r in enumerate(records) if r["guesses"] is not None]
    if not found:
        return {"games": len(records), "invalid": len(records)}
    counts = np.array([records[i]["guesses"] for i in found], float)
    mean, half = _mean(counts, None if chances is None else chances[found])
    weights = np.ones(len(found), int) if chances is None else chances[found] / chances[found].sum()
    shares: Counter = Counter()
    for c, w in zip(counts.astype(int).tolist(), weights.tolist(), strict=True):
        shares[c] += w
    out = {
        "games": len(records),
        "exact": chances is not None,
        "mean": round(mean, 6),
        "ci95": [round(mean - half, 6), round(mean + half, 6)],
        "distribution": {
            k: round(v, 6) if chances is not None else v for k, v in sorted(shares.items())
        },
        "worst": int(counts.max()),
        "invalid": len(records) - len(found),
    }
    calls = [r["slowest_call"] for r in records if r.get("slowest_call") is not None]
    if calls:
        games = [r["seconds"] for r in records if r["seconds"] is not None]
        out["slowest_call_s"] = round(max(calls), 6)
        out["slowest_game_s"] = round(max(games), 6) if games else None
        out["mean_call_s"] = round(sum(games) / max(1, sum(r["calls"] or 0 for r in records)), 6)
    return out


def paired(
    mine: list[dict[str, Any]], other: list[dict[str, Any]], chances: np.ndarray | None = None
) -> dict[str, Any]:
    """The other's guesses minus the player's, per answer both found: mean and 95 %
    interval (exact with `chances`); positive: the player needs fewer."""
    both = [i for i, (a, b) in enumerate(zip(mine, other, strict=True))
            if a["guesses"] is not None and b["guesses"] is not None]  # fmt: skip
    if not both:
        return {"answers": 0}
    diffs = np.array([other[i]["guesses"] - mine[i]["guesses"] for i in both], float)
    mean, half = _mean(diffs, None if chances is None else chances[both])
    return {
        "answers": len(both),
        "exact": chances is not None,
        "mean_difference": round(mean, 6),
        "ci95": [round(mean - half, 6), round(mean + half, 6)],
        "fewer_with_95_confidence": mean - half > 0,
    }


def _found(who: str | Path, n: int, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records, if `who` found an answer: otherwise ValueError, the first game's reason."""
    if all(record["guesses"] is None for record in records):
        raise ValueError(f"{who}: found no answer of n = {n} ({records[0]['error']})")
    return records


def baseline_records(name: str, n: int, answers: Sequence[Hand], rules: CardGuessRules) -> list:
    """The baseline's record of each answer, the caller's own copy."""
    return copy.deepcopy(_baseline_records(name, n, tuple(answers), rules))


@lru_cache(maxsize=256)
def _baseline_records(name: str, n: int, answers: tuple[Hand, ...], rules: CardGuessRules) -> list:
    # A baseline plays the same answers for the check of `generate`, `validate` and the
    # report: seconds for every answer of n = 2, more for larger n, the same games each time.
    bot = make_bot(name, rules, np.random.default_rng(SAMPLE_SEED))
    return [one_game(bot, answer, rules) for answer in answers]


def _tasks(answers: list[Hand], workers: int, *rest: Any) -> list[tuple]:
    """The answers in tasks (spread over `workers`): the records do not depend on them."""
    size = max(1, min(ANSWERS_PER_TASK, len(answers) // (8 * workers)))
    return [(*rest[:2], answers[span.start : span.stop], *rest[2:])
            for span in spans(len(answers), size)]  # fmt: skip


def _file_records(path, n, answers, rules, workers, limits, progress, runner) -> list:
    """The file's records of `answers`, in answer order: in `workers` contained processes
    here, or in `runner`'s tasks (the file shipped to them)."""
    tasks = _tasks(answers, workers, str(path), n, rules)
    shown = (lambda done: progress(min(done * len(tasks[0][2]), len(answers)), len(answers))
             ) if progress else None  # fmt: skip
    parts = run_on(runner, [path], GAME, _measure, tasks, size=1, limits=limits, progress=shown,
                   workers=workers)  # fmt: skip
    return _found(path, n, [record for part in parts for record in part])


def _baseline_part(task: tuple) -> list:
    return baseline_records(*task)


def validate(path: str | Path, rules: Iterable[str] | Mapping[str, str] | None = None, *,
             against: str | Path | None = None,
             progress: Callable[[str, int, int], None] | None = None,
             sizes: Sequence[int] | None = None, answerer: Answerer = "uniform",
             answers: int | None = None, baselines: Sequence[str] | None = None,
             workers: int = 1, limits: contained.Limits = LIMITS,
             runner: Runner | None = None) -> dict[str, Any]:  # fmt: skip
    """The report card of a player file for each n of `sizes` (and, with `against`, of
    another file on the same answers, paired); the files run contained (PlayerFault when
    one fails). `rules`: settings over the defaults (the guess and time limits; n is each
    of `sizes`, default 2, 3, 4; an n the file refuses, raising ValueError from
    `initial_guess(n)`, is reported as refused and not played); `answerer`: a name, or 52
    card weights ("fitted"); `answers`: that many answers drawn per n instead of every
    answer; `baselines` (default: `BASELINES`) play the same answers; `progress(name,
    answers done, answers)` as the file plays each n. The files play in `workers`
    contained processes here, or with `runner` (the baselines too) in its tasks (the
    files shipped to them): the same answers, the same figures."""
    path, sizes = Path(path), SIZES if sizes is None else sizes
    baselines = BASELINES if baselines is None else baselines
    base = RULES.from_settings(rules or ())
    prepare([path] if against is None else [path, against], GAME)  # a Haskell file: built once
    # A bad file fails here, once; an n it refuses is not played.
    probed = contained.run(path, _probe, [(str(path), tuple(sizes))], limits=limits)[0]
    unknown = [b for b in baselines if b not in GUESSERS]
    if unknown:
        raise ValueError(f"unknown baseline {unknown[0]!r} (known: {', '.join(GUESSERS)})")
    named = answerer if isinstance(answerer, str) else "fitted"
    card: dict[str, Any] = {"player": str(path), "answerer": named,
                            "answers_from": _answers_from(named, answers),
                            "limits": {"guess_limit": base.guess_limit, "seconds": base.seconds},
                            "sizes": {}}  # fmt: skip
    for n in sizes:
        if isinstance(probed[n], str):
            card["sizes"][str(n)] = {"refused": probed[n]}
            continue
        game_rules = replace(base, n=n)
        played, chances = answers_for(n, answerer, answers)
        shown = partial(progress, f"n = {n}") if progress else None
        mine = _file_records(path, n, played, game_rules, workers, limits, shown, runner)
        entry: dict[str, Any] = {"player": figures(mine, chances), "feedback_mismatches": probed[n],
                                 "baselines": {}, "vs": {}}  # fmt: skip
        for name in baselines:
            parts = (runner or SERIAL).map(_baseline_part, _tasks(played, 1, name, n, game_rules))
            theirs = _found(name, n, [record for part in parts for record in part])
            entry["baselines"][name] = figures(theirs, chances)
            entry["vs"][name] = paired(mine, theirs, chances)
        if against is not None:
            theirs = _file_records(Path(against), n, played, game_rules, workers, limits,
                                   None, runner)  # fmt: skip
            entry["compared"] = {"file": str(against), **figures(theirs, chances),
                                 "paired": paired(mine, theirs, chances)}  # fmt: skip
        card["sizes"][str(n)] = entry
    return card


def check(path: str | Path, fitted: Any, *, workers: int = 1) -> dict[str, Any]:
    """The figures `mine generate` writes into a file: every n it plays (every answer of
    n = 2 and 3, a sample of n = 4), drawn as its table's answerer draws them, against
    the baselines, and the n it refuses. ValueError when it plays an n worse than the
    greedy guesser: no such file is written. The figures are the file's wherever it is
    written, so the card does not name the path it was measured at."""
    answerer = table_answerer(fitted.metadata.get("answerer", {}))
    card = validate(path, answerer=answerer, workers=workers)
    del card["player"]
    worse = below_greedy(card)
    if worse:
        raise ValueError(worse)
    return card


def table_answerer(answerer: Mapping[str, Any]) -> Answerer:
    """The answerer a table was fitted for: uniform, or its smoothed card weights."""
    if answerer.get("uniform", True):
        return "uniform"
    weights = answerer["card_weights"]
    return [weights[card_text(card)] for card in range(52)]


GREEDY_TOLERANCE = 1e-9  # equal decisions give equal means; only rounding may differ


def below_greedy(card: dict[str, Any]) -> str | None:
    """The n the file plays worse than the greedy guesser on the same answers (paired, so
    a game greedy did not finish does not count), if any: the line that says so."""
    for n, entry in card["sizes"].items():
        versus = entry.get("vs", {}).get("greedy", {})
        if versus.get("answers") and versus["mean_difference"] < -GREEDY_TOLERANCE:
            return (
                f"n = {n}: the file needs {-versus['mean_difference']:.6f} guesses more per "
                f"answer than greedy ({card['answers_from']}), and a player never plays an n "
                "worse than greedy: fit that n's tree with its full search (`mine fit "
                f"cardguess --n {n}`, without --quick), or leave n = {n} out of the table"
            )
    return None


def failure(card: dict[str, Any]) -> str | None:
    """Why the card's figures do not hold, if they do not: games the file lost to an
    invalid guess (or a crash, a limit), or a `feedback` that is not the rules'."""
    for n, entry in card["sizes"].items():
        if "refused" in entry:
            continue
        lost, wrong = entry["player"]["invalid"], entry["feedback_mismatches"]
        if lost:
            return (f"{card['player']}: {lost} of {entry['player']['games']} games of n = {n} "
                    "lost to an invalid guess, a crash or a limit")  # fmt: skip
        if wrong:
            return f"{card['player']}: its feedback is wrong for {wrong} of {FEEDBACK_PAIRS} pairs"
    return None


def _answers_from(answerer: str, count: int | None) -> str:
    if count is None:
        return (f"{answerer}: every answer for n = 2 and 3 weighted by its exact chance, "
                f"{SAMPLE} answers drawn with seed {SAMPLE_SEED} + n for n = 4")  # fmt: skip
    return f"{answerer}: {count} answers drawn with seed {SAMPLE_SEED} + n"
