"""Players against players: a round robin of player files and baseline bots, and ratings.

One core for every game: a pairing's game is `match.py`'s (each deal played from both
seats, or where the game is solved exactly, Hog, its exact expectation: `EXACT`).

Every pairing of entrants plays `games` games (half the deals from each seat); files run
contained (`strategies.contained`), both files of a pairing in the same workers, and a
fault (a file that does not load, ends its process, or runs over its time limit) names
its file: that entrant is disqualified — its games are void, it is not rated and ranks
last — and the rest of the tournament goes on. What a game's own rules call an invalid
play (a crash inside a call, a move that is not legal) loses that game, as in `validate`.

Ratings: Bradley–Terry on the Elo scale, fitted by maximum likelihood over all games at
once (draws count half a win to each side), so the order of the games does not matter;
one virtual draw per pairing keeps a perfect record finite (BayesElo's prior); the mean
is anchored at 1500 and each ± is 1.96 standard errors from the fit's observed
information. Exact pairings (`EXACT`) have no sampling error: their ratings carry no ±
(None), and `games` only weighs each pairing against the virtual draw.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from mine.strategies import contained
from mine.strategies.intervals import (  # noqa: F401 (the tournament's modules import them here)
    Z95,
    Outcome,
    paired_margin,
    summarise_pairing,
)
from mine.strategies.intervals import rounded_wilson as wilson  # noqa: F401 (the report's)
from mine.strategies.player_file import PlayerFileError, prepare, readable
from mine.strategies.runners import Runner
from mine.strategies.tournament.match import Match
from mine.strategies.validation.shipped import run_on

CONTRACT = {
    "BOTS": None,
    "EXACT": None,
    "LIMITS": None,
    "TIMED_OUT": None,
    "MARGIN": None,
    "check_bot": ("spec",),
    "load": ("path",),
    "play": ("a", "b", "deal", "swapped", "seed", "context"),
}

ELO = math.log(10) / 400  # a rating difference of 400 is odds of 10 to 1
DEALS_PER_TASK = 8  # a task of a pairing on a runner: its deals, each from both seats
PRIOR_DRAWS = 1.0  # virtual draws per pairing: a finite rating for a perfect record
MEAN_RATING = 1500.0


@dataclass(frozen=True)
class Entrant:
    """A player file (`file` its path) or a named baseline bot (`file` None)."""

    name: str
    file: str | None = None

    @property
    def kind(self) -> str:
        return "file" if self.file else "bot"


class TournamentError(ValueError):
    """A tournament that cannot start as asked: too few entrants, one entered twice, an
    unknown bot, a number of games it cannot play (a refused file is PlayerFileError)."""


def entrants_of(files: Sequence[str | Path], bots: Sequence[str], match, context) -> list[Entrant]:
    """The entrants (files first, then bots), checked: at least two, each once, bots the
    game knows (else TournamentError), files the contained player can read (else
    PlayerFileError, as `validate` and `check` refuse them)."""
    entrants = [Entrant(str(f), str(f)) for f in files] + [Entrant(b) for b in bots]
    for entrant in entrants:
        if entrant.file is not None:
            readable(entrant.file)
            continue
        try:
            match.check_bot(entrant.name, context)
        except ValueError as error:
            raise TournamentError(str(error)) from None
    names = [e.name for e in entrants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TournamentError(f"{twice[0]} is entered twice (each entrant plays once)")
    if len(entrants) < 2:
        raise TournamentError(
            f"a tournament needs at least two entrants (files and --bots), not {len(entrants)}"
        )
    return entrants


# --- playing ---------------------------------------------------------------------------------


def _play(game: str, task: tuple) -> Outcome:
    """One game in a worker: the game's match plays it."""
    a, b, deal, swapped, seed, context = task
    return Match(game).play(a, b, deal, swapped, seed, context)


def _load(task: tuple) -> None:
    game, path = task
    Match(game).load(path)


def round_robin(
    match,
    entrants: Sequence[Entrant],
    games: int,
    seed: int,
    context: Any = None,
    workers: int = 1,
    limits: contained.Limits | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    runner: Runner | None = None,
) -> dict[str, Any]:
    """Every pairing of `entrants` plays `games` games in `match`'s game (see the module
    docstring); the standings, each pairing's result with its intervals, and the faults.
    Timings are under the one key `timings` (everything else depends on the seed only).
    With `runner`, each pairing's deals are its tasks, DEALS_PER_TASK at a time (the files
    shipped to them), instead of `workers` local processes: the same games, the same
    results."""
    if games < 1 or (games % 2 and not match.EXACT):
        raise TournamentError(
            f"--games {games}: a pairing plays an even number of games, at least 2 "
            "(each deal from both seats)"
        )
    limits = limits or match.LIMITS
    started = time.perf_counter()
    faults = _loading_faults(match, entrants, limits)
    timings = {"loading": round(time.perf_counter() - started, 3)}
    played: dict[tuple[str, str], dict[str, Any]] = {}
    for i, a in enumerate(entrants):
        for b in entrants[i + 1 :]:
            if a.name in faults or b.name in faults:
                continue
            label = f"{a.name} v {b.name}"
            started = time.perf_counter()
            try:
                outcomes = _pairing(match, a, b, games, seed, context, workers, limits,
                                    progress, runner)  # fmt: skip
            except contained.PlayerFault as fault:
                faulty = next((e for e in (a, b) if e.file and str(Path(e.file)) == fault.path),
                              None)  # fmt: skip
                if faulty is None:  # the harness itself, not a file: not the players' fault
                    raise
                faults[faulty.name] = {"when": f"playing {label}", "reason": fault.reason}
                continue
            timings[label] = round(time.perf_counter() - started, 3)
            weight = games / 2 if match.EXACT else 1.0
            played[a.name, b.name] = summarise_pairing(
                outcomes, weight, match.EXACT, match.TIMED_OUT
            )
    pairings = []
    for i, a in enumerate(entrants):  # a disqualified entrant's pairings are all void
        for b in entrants[i + 1 :]:
            gone = [e.name for e in (a, b) if e.name in faults]
            result = (
                {"void": f"disqualified: {', '.join(gone)}"} if gone else played[a.name, b.name]
            )
            pairings.append({"a": a.name, "b": b.name, **result})
    return {
        "games_per_pairing": games,
        "seed": seed,
        "exact": bool(match.EXACT),
        "entrants": [{"name": e.name, "kind": e.kind} for e in entrants],
        "standings": standings(entrants, pairings, faults, bool(match.EXACT)),
        "pairings": pairings,
        "disqualified": faults,
        "timings": timings,
    }


def _loading_faults(match, entrants: Sequence[Entrant], limits) -> dict[str, dict[str, str]]:
    """Each file loaded once, contained, before any game: the ones that fail, and why. A
    file gone or changed since the entrants were checked (another's Haskell build takes
    seconds) fails here, as one that does not load."""
    faults = {}
    for entrant in entrants:
        if entrant.file is not None:
            try:
                prepare([entrant.file], match.game)  # Haskell: built once
                task = (match.game, entrant.file)
                contained.run(entrant.file, _load, [task], limits=limits)
            except contained.PlayerFault as fault:
                faults[entrant.name] = {"when": "loading", "reason": fault.reason}
            except PlayerFileError as error:
                reason = str(error).removeprefix(f"{entrant.file}: ")
                faults[entrant.name] = {"when": "loading", "reason": reason}
    return faults


def _pairing(match, a, b, games, seed, context, workers, limits, progress, runner) -> list[Outcome]:
    """A pairing's games, deal by deal, each deal from both seats; both files run in the
    same contained workers (PlayerFault names the one that failed)."""
    deals = 1 if match.EXACT else games // 2
    tasks = [
        (a, b, deal, swapped, seed, context) for deal in range(deals) for swapped in (False, True)
    ]
    label = f"{a.name} v {b.name}"
    files = [e.file for e in (a, b) if e.file is not None]
    shown = (lambda done: progress(label, done, len(tasks))) if progress else None
    return run_on(runner, files, match.game, partial(_play, match.game), tasks,
                  size=2 * DEALS_PER_TASK, limits=limits, progress=shown, workers=workers,
                  chunk=max(1, min(16, len(tasks) // (4 * workers))), name=label)  # fmt: skip


# --- ratings ---------------------------------------------------------------------------------


def fit_ratings(
    count: int, results: Sequence[tuple[int, int, float, float]], prior_draws: float = PRIOR_DRAWS
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley–Terry ratings on the Elo scale of `count` players from (i, j, i's score, games)
    results (draws as half wins), by maximum likelihood with `prior_draws` virtual draws per
    pair (Newton's method); the mean is 1500. Returns the ratings and their 95 % ± (1.96
    standard errors, from the inverse of the observed information under the mean's
    anchor)."""
    scored = np.zeros((count, count))  # scored[i, j]: i's score against j
    played = np.zeros((count, count))
    for i, j, score, games in results:
        scored[i, j] += score
        scored[j, i] += games - score
        played[i, j] += games
        played[j, i] += games
    met = played > 0
    scored += np.where(met, prior_draws / 2, 0.0)
    played += np.where(met, prior_draws, 0.0)
    r = np.zeros(count)
    for _ in range(100):
        p = 1 / (1 + np.exp(-ELO * (r[:, None] - r[None, :])))
        gradient = ELO * (scored - played * p).sum(axis=1)
        w = ELO**2 * played * p * (1 - p)
        information = np.diag(w.sum(axis=1)) - w
        step = np.linalg.pinv(information) @ gradient
        r = r + step
        r -= r.mean()
        if np.abs(step).max() < 1e-9:
            break
    p = 1 / (1 + np.exp(-ELO * (r[:, None] - r[None, :])))
    w = ELO**2 * played * p * (1 - p)
    covariance = np.linalg.pinv(np.diag(w.sum(axis=1)) - w)
    return MEAN_RATING + r, Z95 * np.sqrt(np.maximum(np.diag(covariance), 0.0))


def standings(
    entrants: Sequence[Entrant],
    pairings: Sequence[dict[str, Any]],
    faults: dict[str, Any],
    exact: bool = False,
) -> list[dict[str, Any]]:
    """Rated entrants by rating (best first), with its ± (None where the pairings are
    exact), then the disqualified in entry order (no figures: their games are void)."""
    rated = [e.name for e in entrants if e.name not in faults]
    index = {name: k for k, name in enumerate(rated)}
    results = [
        (index[p["a"]], index[p["b"]], p["a_score"], p["games"])
        for p in pairings
        if "void" not in p
    ]
    ratings, plus = fit_ratings(len(rated), results) if rated else (np.zeros(0), np.zeros(0))
    rows = []
    for name in rated:
        k = index[name]
        mine = [p for p in pairings if "void" not in p and name in (p["a"], p["b"])]
        side = [0 if p["a"] == name else 1 for p in mine]
        games = sum(p["games"] for p in mine)
        score = sum(
            p["a_score"] if s == 0 else p["games"] - p["a_score"]
            for p, s in zip(mine, side, strict=True)
        )
        rows.append({
            "name": name,
            "rating": round(float(ratings[k]), 1),
            "plus_minus": None if exact else round(float(plus[k]), 1),
            "games": games,
            "score": round(score, 6),
            "score_rate": round(score / games, 6) if games else None,
            # whole where played, an exact expectation rounded as each pairing's
            "invalid": round(sum(p["invalid"][s] for p, s in zip(mine, side, strict=True)), 6),
            "timeouts": sum(p["timeouts"][s] for p, s in zip(mine, side, strict=True)),
            "disqualified": None,
        })  # fmt: skip
    rows.sort(key=lambda row: (-row["rating"], row["name"]))
    for entrant in entrants:
        if entrant.name in faults:
            fault = faults[entrant.name]
            rows.append({
                "name": entrant.name, "rating": None, "plus_minus": None, "games": 0,
                "score": 0, "score_rate": None, "invalid": None, "timeouts": None,
                "disqualified": f"{fault['reason']} ({fault['when']})",
            })  # fmt: skip
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows
