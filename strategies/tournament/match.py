"""One game of a pairing, played through the game's State by the referee, for every game.

Deal d is dealt from the generator (seed, d) and played twice: the second time
`swapped` (the engine's `new_game(…, swapped=True)`: the same deal from the other side),
as in duplicate bridge, so luck of the deal cancels within each pair. A file sits behind
its engine's adapter for the course's interface (`validator.seat(module)`), a bot is
`make_bot(name, rules, generator (seed, d, k))` (k: A 0, B 1, the same in both games);
the context's bots sit at the table beside the pair (TwentyOne). In a game of one seat
(card guessing) each side plays its own game of the same answer, and the two games of a
deal have answers of their own (there is no seat to swap). A's score is 1, ½ or 0 as its
return is above, equal to or below B's; its margin is A's `points` minus B's (the game's
own count: the engine's `points(state)`, else its returns), none where a fault decided
the game; each side's fault is its invalid play. Where the validator offers `exact(sides,
swapped, rules)` (Hog), a game is that exact expectation (`EXACT`): none is sampled.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from mine.strategies.engines import referee
from mine.strategies.engines.simulation import player_ids
from mine.strategies.intervals import Outcome


@dataclass(frozen=True)
class Context:
    """The rules of every game, the bots seated beside the pair, and the game's setup."""

    rules: Any
    bots: tuple[str, ...] = ()
    setup: dict[str, Any] = field(default_factory=dict)


class Match:
    """A game's part in a tournament, from its engine, bots and validator."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.engine = _part("engines", game)
        self.bots = _part("bots", game)
        self.validator = _part("validation", game)
        self.BOTS = self.bots.BASELINES
        self.EXACT = hasattr(self.validator, "exact")
        self.LIMITS = self.validator.LIMITS
        self.TIMED_OUT = self.validator.TIMED_OUT
        self.MARGIN = self.validator.MARGIN

    def context(self, context: Context | None) -> Context:
        return context or Context(self.engine.DEFAULT_RULES)

    def check_bot(self, spec: str, context: Context | None = None) -> None:
        self.bots.make_bot(spec, self.context(context).rules, np.random.default_rng(0))

    def load(self, path: str) -> ModuleType:
        return self.validator.load(path)

    def play(self, a, b, deal: int, swapped: bool, seed: int, context: Context | None) -> Outcome:
        context = self.context(context)
        sides = [self._player(e, context.rules, np.random.default_rng([seed, deal, k]))
                 for k, e in enumerate((a, b))]  # fmt: skip
        if self.EXACT:
            return self.validator.exact(sides, swapped, context.rules)
        if self.engine.NUM_PLAYERS.stop == 2:  # one seat: each side its own game of the deal
            answer = [seed, 2 * deal + swapped]  # no seats to swap: each game its own deal
            ended = [self._game(context, (e.name,), {e.name: p}, answer, False)
                     for e, p in zip((a, b), sides, strict=True)]  # fmt: skip
            returns = [float(s.returns()[0]) for s, _ in ended]
            points = [float(_points(self.engine, s)[0]) for s, _ in ended]
            faults = [seen.faults[0] for _, seen in ended]
        else:
            ids = player_ids([a.name, b.name, *context.bots])
            seated = [self.bots.make_bot(name, context.rules, np.random.default_rng(
                      [seed, deal, 2 + k])) for k, name in enumerate(context.bots)]  # fmt: skip
            table = dict(zip(ids, [*sides, *seated], strict=True))
            state, seen = self._game(context, tuple(ids), table, [seed, deal], swapped)
            where = [state.players.index(i) for i in ids[:2]]
            returns = [float(state.returns()[w]) for w in where]
            points = [float(_points(self.engine, state)[w]) for w in where]
            faults = [seen.faults[w] for w in where]
        score = 1.0 if returns[0] > returns[1] else 0.0 if returns[0] < returns[1] else 0.5
        margin = None if any(faults) else points[0] - points[1]
        return Outcome(score, not swapped, margin, (faults[0], faults[1]))

    def _player(self, entrant, rules, rng) -> Any:
        if entrant.file:
            return self.validator.seat(self.load(entrant.file))
        return self.bots.make_bot(entrant.name, rules, rng)

    def _game(self, context: Context, ids, players, deal, swapped) -> tuple[Any, Any]:
        chance = np.random.default_rng(deal)
        state = self.engine.new_game(context.rules, chance, ids, swapped=swapped, **context.setup)
        seats = [players[i] for i in state.players]
        return state, referee.refereed(self.engine, context.rules, state, seats)


def _part(layer: str, game: str) -> ModuleType:
    return importlib.import_module(f"mine.strategies.{layer}.{game}")


def _points(engine: ModuleType, state: Any) -> tuple[float, ...]:
    return engine.points(state) if hasattr(engine, "points") else state.returns()
