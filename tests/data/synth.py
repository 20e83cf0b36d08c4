"""Valid logs in the real formats, played by the reference engines and written with the
project's own writers.

Ingest verifies every game's rules, so a good file to break (tests), or a corpus to time
(the ingest benchmark), must be a game that was really played: baseline bots play it,
seeded from the `random.Random` given, so the same generator gives the same logs.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from mine.parsers import ginrummy, hog, twentyone
from mine.strategies.bots import ginrummy as ginrummy_bots
from mine.strategies.bots import hog as hog_bots
from mine.strategies.bots import twentyone as twentyone_bots
from mine.strategies.engines import ginrummy as ginrummy_engine
from mine.strategies.engines import hog as hog_engine
from mine.strategies.engines import referee, simulation
from mine.strategies.engines import twentyone as twentyone_engine
from tests.strategies.twentyone_games import play

TWENTYONE_BOTS = ("textbook", "random", "cautious", "dealer")


def _generator(rng: random.Random) -> np.random.Generator:
    return np.random.default_rng(rng.getrandbits(64))


def twentyone_game(
    rng: random.Random, rounds: int = 10, players: int = 4
) -> tuple[list[twentyone.Turn], list[twentyone.Score]]:
    """`rounds` rounds at a table of `players` bots (ids 1..99, one of them logging)."""
    rules = twentyone_engine.TwentyOneRules(rounds=rounds)
    ids = [str(i) for i in rng.sample(range(1, 100), players)]
    bots = {
        pid: twentyone_bots.make_bot(rng.choice(TWENTYONE_BOTS), rules, _generator(rng))
        for pid in ids
    }
    state = play(rules, bots, _generator(rng), seated=True)  # ids 1..99, as drawn
    return twentyone_engine.log_rows(state, 1, rng.choice(ids))


def ginrummy_game(
    rng: random.Random, rounds: int = 3
) -> tuple[list[ginrummy.Turn], list[ginrummy.Score]]:
    """A game between two bots, to `game_target` points: about 100 × `rounds` / 3 (a round
    scores 30 or so)."""
    rules = ginrummy_engine.GinRummyRules(game_target=max(1, 100 * rounds // 3))
    generator = _generator(rng)
    seats = [
        ginrummy_bots.make_bot(rng.choice(("simple", "random")), rules, generator) for _ in range(2)
    ]
    state = ginrummy_engine.new_game(rules, generator)
    referee.refereed(ginrummy_engine, rules, state, seats)
    return ginrummy_engine.log_rows(state, 1, state.players[rng.randrange(2)])


def hog_game(rng: random.Random, games: int = 4) -> tuple[list[hog.Turn], list[hog.Score]]:
    """A match of `games` games between two of the handout's strategies, first movers
    alternating."""
    specs = ("always_roll:6", "square_strategy", "tail_strategy", f"random:{rng.randrange(99)}")
    names = rng.sample(specs, 2)
    rules, generator = hog_engine.DEFAULT_RULES, _generator(rng)
    bots = [hog_bots.make_bot(name, rules) for name in names]
    ids = simulation.player_ids([name.split(":")[0] for name in names])
    turns, scores = [], []
    for game in range(games):
        state = hog_engine.new_game(rules, generator, ids, swapped=game % 2 == 1)
        referee.refereed(hog_engine, rules, state, bots)
        rows, score = hog_engine.log_rows(state, game + 1)
        turns, scores = turns + rows, scores + score
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
