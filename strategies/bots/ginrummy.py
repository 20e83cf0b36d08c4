"""Gin Rummy baseline bots, each exposing the spec's `pick`, `play` and `melds`.

- `simple`: the EAAI Gin Rummy challenge's simple player, adapted to the course rules:
  take the discard only if it completes or extends a meld, else the stock; discard one of
  the cards whose removal leaves the least deadwood (ties broken with the seeded generator);
  knock as soon as allowed, gin when possible.
- `random`: uniformly random legal draws and plays.
- `ginhunter`: `simple`, but never knocks — it only calls Gin.
- `explorer(policy, share)`: the policy, with a `share` of its draws and plays replaced by
  random legal ones (to explore situations the policy alone never reaches).

Bots cannot see the round number, so each keeps in its memory string its hand after its
last play (as a card mask) and how many plays it made this round: a hand that is not the
remembered one means a new deal, which is how it respects the first-turn call ban.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mine.parsers.cards import Card
from mine.strategies.engines.ginrummy import DRAWS, GinRummyRules, Player, legal_plays
from mine.strategies.engines.melds import BIT_CARDS, CARD_BITS, MeldSolver, hand_mask

Melds = list[tuple[Card, ...]]


@dataclass(frozen=True)
class RoundMemory:
    """`<hand mask hex>:<own plays this round>` — enough to know when a call is allowed."""

    hand: int
    plays: int

    @classmethod
    def at_pick(cls, memory: str | None, hand: tuple[Card, ...]) -> RoundMemory:
        mask = hand_mask(hand)
        if memory:
            remembered, _, plays = memory.partition(":")
            if int(remembered, 16) == mask:
                return cls(mask, int(plays))
        return cls(mask, 0)

    @classmethod
    def parse(cls, memory: str) -> RoundMemory:
        remembered, _, plays = memory.partition(":")
        return cls(int(remembered, 16), int(plays))

    def text(self) -> str:
        return f"{self.hand:x}:{self.plays}"

    def after_play(self, hand: tuple[Card, ...], picked: Card, discarded: Card) -> str:
        return f"{(hand_mask(hand) | CARD_BITS[picked]) ^ CARD_BITS[discarded]:x}:{self.plays + 1}"

    def may_call(self, rules: GinRummyRules) -> bool:
        # The ban counts the round's plays; a bot only knows its own, so it assumes it
        # played first (the stricter case).
        return self.plays >= -(-rules.call_ban_plays // 2)


@dataclass(frozen=True)
class RoundBot:
    """A bot that keeps its round memory and declares a least-deadwood hand: it decides its
    draw (`draw`) and its play (`choose`)."""

    rng: np.random.Generator
    rules: GinRummyRules = GinRummyRules()
    solver: MeldSolver = field(default_factory=MeldSolver)

    def pick(
        self,
        discard_top: Card,
        scores: tuple[int, int],
        memory: str | None,
        opponent_draw: str | None,
        hand: tuple[Card, ...],
    ) -> tuple[str, str]:
        state = RoundMemory.at_pick(memory, hand)
        return self.draw(state, discard_top), state.text()

    def play(
        self, picked: Card, scores: tuple[int, int], memory: str, hand: tuple[Card, ...]
    ) -> tuple[tuple[str, Card], str]:
        state = RoundMemory.parse(memory)
        act, card = self.choose(state, picked, hand)
        return (act, card), state.after_play(hand, picked, card)

    def melds(self, scores: tuple[int, int], memory: str, hand: tuple[Card, ...]) -> Melds:
        return self.solver.melds_of(hand)

    def draw(self, state: RoundMemory, discard_top: Card) -> str:
        raise NotImplementedError

    def choose(self, state: RoundMemory, picked: Card, hand: tuple[Card, ...]) -> tuple[str, Card]:
        raise NotImplementedError


@dataclass(frozen=True)
class SimpleBot(RoundBot):
    knocks: bool = True

    def draw(self, state: RoundMemory, discard_top: Card) -> str:
        top = CARD_BITS[discard_top]
        return "discard" if self.solver.meldable(state.hand | top) & top else "stock"

    def choose(self, state: RoundMemory, picked: Card, hand: tuple[Card, ...]) -> tuple[str, Card]:
        drawn = CARD_BITS[picked]
        deadwood, bits = self.solver.best_discards(hand_mask(hand) | drawn, drawn)
        bit = bits[int(self.rng.integers(len(bits)))] if len(bits) > 1 else bits[0]
        act = "drop"
        if state.may_call(self.rules):
            if deadwood == 0:
                act = "gin"
            elif self.knocks and deadwood <= self.rules.knock_limit:
                act = "knock"
        return act, BIT_CARDS[bit]


@dataclass(frozen=True)
class RandomBot(RoundBot):
    def draw(self, state: RoundMemory, discard_top: Card) -> str:
        return DRAWS[int(self.rng.integers(2))]

    def choose(self, state: RoundMemory, picked: Card, hand: tuple[Card, ...]) -> tuple[str, Card]:
        plays = legal_plays(self.rules, self.solver, hand, picked, state.may_call(self.rules))
        act, card = plays[int(self.rng.integers(len(plays)))]
        return act, card


@dataclass(frozen=True)
class Explorer:
    """`policy` with a `share` of random legal deviations. Its memory is its own round
    memory, a newline, then the policy's memory (`-` for the policy's None)."""

    policy: Player
    share: float
    rng: np.random.Generator
    rules: GinRummyRules = GinRummyRules()
    solver: MeldSolver = field(default_factory=MeldSolver)

    @staticmethod
    def _split(memory: str | None) -> tuple[str | None, str | None]:
        if memory is None:
            return None, None
        own, _, inner = memory.partition("\n")
        return own, None if inner == "-" else inner[1:]

    @staticmethod
    def _join(own: str, inner: str | None) -> str:
        return f"{own}\n-" if inner is None else f"{own}\n+{inner}"

    def pick(
        self,
        discard_top: Card,
        scores: tuple[int, int],
        memory: str | None,
        opponent_draw: str | None,
        hand: tuple[Card, ...],
    ) -> tuple[str, str]:
        own, inner = self._split(memory)
        state = RoundMemory.at_pick(own, hand)
        draw, inner = self.policy.pick(discard_top, scores, inner, opponent_draw, hand)
        if self.rng.random() < self.share:
            draw = DRAWS[int(self.rng.integers(2))]
        return draw, self._join(state.text(), inner)

    def play(
        self, picked: Card, scores: tuple[int, int], memory: str, hand: tuple[Card, ...]
    ) -> tuple[tuple[str, Card], str]:
        own, inner = self._split(memory)
        assert own is not None
        state = RoundMemory.parse(own)
        (act, card), inner = self.policy.play(picked, scores, inner, hand)
        if self.rng.random() < self.share:
            plays = legal_plays(self.rules, self.solver, hand, picked, state.may_call(self.rules))
            act, card = plays[int(self.rng.integers(len(plays)))]
        return (act, card), self._join(state.after_play(hand, picked, card), inner)

    def melds(self, scores: tuple[int, int], memory: str, hand: tuple[Card, ...]) -> Melds:
        _, inner = self._split(memory)
        return self.policy.melds(scores, inner, hand)


BotFactory = Callable[[np.random.Generator, GinRummyRules, MeldSolver], Player]


def simple(rng: np.random.Generator, rules: GinRummyRules, solver: MeldSolver) -> Player:
    return SimpleBot(rng, rules, solver)


def random(rng: np.random.Generator, rules: GinRummyRules, solver: MeldSolver) -> Player:
    return RandomBot(rng, rules, solver)


def ginhunter(rng: np.random.Generator, rules: GinRummyRules, solver: MeldSolver) -> Player:
    return SimpleBot(rng, rules, solver, knocks=False)


def explorer(policy: str = "simple", share: float = 0.1) -> BotFactory:
    def make(rng: np.random.Generator, rules: GinRummyRules, solver: MeldSolver) -> Player:
        return Explorer(BOTS[policy](rng, rules, solver), share, rng, rules, solver)

    return make


BOTS: dict[str, BotFactory] = {
    "simple": simple,
    "random": random,
    "ginhunter": ginhunter,
    "explorer": explorer(),
}
BASELINES = ("simple", "random", "ginhunter")  # what a generated player is measured against


def make_bot(
    spec: str,
    rules: GinRummyRules,
    rng: np.random.Generator,
    solver: MeldSolver | None = None,
) -> Player:
    """A bot from its name, or `explorer:<share>` / `explorer:<policy>:<share>`; `solver`
    shares a meld solver's memo."""
    solver = solver if solver is not None else MeldSolver(rules.meld_sizes)
    name, *options = spec.split(":")
    if name == "explorer" and options:
        policy = options[0] if len(options) == 2 else "simple"
        if policy not in BOTS or policy == "explorer":
            raise ValueError(
                f"unknown explorer policy {policy!r} (known: simple, random, ginhunter)"
            )
        try:
            share = float(options[-1])
        except ValueError:
            raise ValueError(f"explorer share must be a number, not {options[-1]!r}") from None
        if not 0 <= share <= 1:
            raise ValueError(f"explorer share must be between 0 and 1, not {share}")
        return explorer(policy, share)(rng, rules, solver)
    if name not in BOTS or options:
        raise ValueError(
            f"unknown bot {spec!r} (known: {', '.join(BOTS)}, explorer:<policy>:<share>)"
        )
    return BOTS[name](rng, rules, solver)
