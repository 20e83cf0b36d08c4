"""Gin Rummy baseline bots: each is `bot(state) -> action`, one of the state's legal actions,
and declares the least-deadwood melds (the state's one offer).

- `simple`: the EAAI Gin Rummy challenge's simple player, adapted to the course rules:
  take the discard only if it completes or extends a meld, else the stock; discard one of
  the cards whose removal leaves the least deadwood (ties broken with the seeded generator);
  knock as soon as allowed, gin when possible.
- `random`: uniformly random legal draws and plays.
- `ginhunter`: `simple`, but never knocks — it only calls Gin.
- `explorer:<policy>:<share>`: the policy, with a `share` of its draws and plays replaced
  by random legal ones (to explore situations the policy alone never reaches).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mine.strategies.engines.ginrummy import GinRummyRules, Phase, Play, State
from mine.strategies.engines.melds import BIT_CARDS, CARD_BITS, hand_mask

Bot = Callable[[State], object]


def simple(rng: np.random.Generator, knocks: bool = True) -> Bot:
    def bot(state: State) -> object:
        if state.phase is Phase.MELDS:
            return state.legal_actions()[0]
        hand, solver = hand_mask(state.hands[state.player]), state.solver
        if state.phase is Phase.PICK:
            top = CARD_BITS[state.discard[-1]]
            return "discard" if solver.meldable(hand | top) & top else "stock"
        drawn = CARD_BITS[state.picked]
        deadwood, bits = solver.best_discards(hand | drawn, drawn)
        bit = bits[int(rng.integers(len(bits)))] if len(bits) > 1 else bits[0]
        act = "drop"
        if state.may_call():
            if deadwood == 0:
                act = "gin"
            elif knocks and deadwood <= state.rules.knock_limit:
                act = "knock"
        return Play(act, BIT_CARDS[bit])

    return bot


def random(rng: np.random.Generator) -> Bot:
    def bot(state: State) -> object:
        actions = state.legal_actions()
        return actions[int(rng.integers(len(actions)))] if len(actions) > 1 else actions[0]

    return bot


def ginhunter(rng: np.random.Generator) -> Bot:
    return simple(rng, knocks=False)


def explorer(rng: np.random.Generator, policy: str = "simple", share: float = 0.1) -> Bot:
    chosen, chance = BOTS[policy](rng), random(rng)

    def bot(state: State) -> object:
        action = chosen(state)  # asked every time: a policy's generator draws as it plays
        if state.phase is not Phase.MELDS and rng.random() < share:
            return chance(state)
        return action

    return bot


BOTS: dict[str, Callable[[np.random.Generator], Bot]] = {
    "simple": simple,
    "random": random,
    "ginhunter": ginhunter,
    "explorer": explorer,
}
BASELINES = ("simple", "random", "ginhunter")  # what a generated player is measured against


def make_bot(spec: str, rules: GinRummyRules, rng: np.random.Generator) -> Bot:
    """A bot from its name, or `explorer:<share>` / `explorer:<policy>:<share>`; ValueError
    for a name that is none. The rules are the state's: a bot reads them there."""
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
        return explorer(rng, policy, share)
    if name not in BOTS or options:
        raise ValueError(
            f"unknown bot {spec!r} (known: {', '.join(BOTS)}, explorer:<policy>:<share>)"
        )
    return BOTS[name](rng)
