"""Structurally valid logs in the real formats, written with the project's own writers.

They obey every format rule the warehouse checks (round order, one up card per round,
empty hands on Bid rows, one score row per round with one entry per opponent, the Gin
Rummy discard chain) without playing real games: the engines do that. Tests use them to
make good files to break, the ingest benchmark to make a large corpus quickly.
"""

from __future__ import annotations

import random
from pathlib import Path

from mine.parsers import ginrummy, twentyone
from mine.parsers.cards import DECK


def twentyone_game(
    rng: random.Random, rounds: int = 10, players: int = 4
) -> tuple[list[twentyone.Turn], list[twentyone.Score]]:
    ids = sorted(rng.sample(range(1, 100), players), key=str)
    ids = [str(i) for i in ids]
    me = rng.choice(ids)
    points = {pid: 10000 for pid in ids}
    turns, scores = [], []
    for r in range(1, rounds + 1):
        shoe = rng.sample(DECK, 52)
        upcard = shoe.pop()
        bids = {pid: rng.randrange(10, 101) for pid in ids}
        turns += [twentyone.Turn(r, (), pid, pid == me, 0, "Bid", bids[pid], upcard) for pid in ids]
        for pid in ids:
            hand = (shoe.pop(), shoe.pop())
            for _ in range(rng.randrange(0, 3)):
                hand = (shoe.pop(), *hand)
                turns.append(twentyone.Turn(r, hand, pid, pid == me, 0, "Hit", bids[pid], upcard))
            turns.append(twentyone.Turn(r, hand, pid, pid == me, 0, "Stand", bids[pid], upcard))
            points[pid] += rng.choice((-1, 0, 1)) * bids[pid]
        dealer = (shoe.pop(), upcard)
        for _ in range(rng.randrange(0, 3)):
            turns.append(twentyone.Turn(r, dealer, "dealer", False, 0, "Hit", 0, upcard))
            dealer = (shoe.pop(), *dealer)
        turns.append(twentyone.Turn(r, dealer, "dealer", False, 0, "Stand", 0, upcard))
        others = tuple(points[pid] for pid in ids if pid != me)
        scores.append(twentyone.Score(r, points[me], others))
    return turns, scores


def ginrummy_game(
    rng: random.Random, rounds: int = 3, turns_per_round: int = 12
) -> tuple[list[ginrummy.Turn], list[ginrummy.Score]]:
    turns, scores = [], []
    for r in range(1, rounds + 1):
        deck = rng.sample(DECK, 52)
        hands = [deck[:10], deck[10:20]]
        top, stock = deck[20], deck[21:]
        mover = rng.randrange(2)
        for _ in range(turns_per_round):
            hand = hands[mover]
            picked = top if rng.random() < 0.3 else stock.pop()
            discarded = rng.choice(hand)
            kept = [card for card in hand if card != discarded]
            hands[mover] = [picked, *kept]
            turns.append(ginrummy.Turn(r, tuple(hands[mover]), mover == 0, top, picked, discarded))
            top = discarded
            mover = 1 - mover
        winner = rng.randrange(2)
        points = rng.randrange(1, 40)
        ending = rng.choice(ginrummy.ENDINGS)
        scores.append(
            ginrummy.Score(
                r, points * (winner == 0), points * (winner == 1), ending, rng.random() < 0.5
            )
        )
    return turns, scores


def write_pair(folder: Path, stem: str, module, turns, scores) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    turn_path, score_path = folder / f"{stem}.csv", folder / f"{stem}-score.csv"
    module.write_turns(turn_path, turns)
    module.write_scores(score_path, scores)
    return turn_path, score_path


def twentyone_bench_game(rng: random.Random, rounds: int) -> tuple[list, list]:
    """A full table of ten: the game the ingest benchmark writes its corpus of."""
    return twentyone_game(rng, rounds=rounds, players=10)
