"""Player files for the tournament tests: one generated player per game (from the code
generators' test tables), and files that misbehave."""

from __future__ import annotations

from pathlib import Path

GENERATED = ("hog", "ginrummy", "supernim", "twentyone", "cardguess")


def generated(game: str, folder: Path) -> Path:
    """A generated player of `game` written into `folder`."""
    path = folder / f"{game}_player.py"
    if path.exists():
        return path
    if game == "hog":
        from mine.models.hog import Fit
        from mine.strategies.codegen.hog import module_source
        from mine.strategies.engines.hog import HogRules
        from mine.strategies.solvers.hog import TurnModel, optimal
        from tests.strategies.test_hog_codegen import METADATA

        rules = HogRules(goal=40)  # a small goal: a quick table, stated in the file
        table = optimal(TurnModel.from_rules(rules)).table[0]
        path.write_text(module_source(Fit(table, METADATA), None))
    elif game == "ginrummy":
        from mine.strategies.codegen import ginrummy
        from tests.strategies.test_ginrummy_codegen import FITTED

        path.write_text(ginrummy.module_source(FITTED, None), encoding="utf-8")
    elif game == "supernim":
        from mine.strategies.codegen import supernim
        from tests.strategies import test_supernim_codegen

        fitted = test_supernim_codegen.fitted.__wrapped__()
        path.write_text(supernim.module_source(fitted, None, 0.2, 2), encoding="utf-8")
    elif game == "twentyone":
        from mine.strategies.codegen.twentyone import write_module
        from mine.strategies.engines.twentyone import TwentyOneRules
        from mine.strategies.engines.twentyone_chart import Strategy
        from mine.strategies.solvers.twentyone import solve
        from tests.strategies.test_twentyone_codegen import BIDS, METADATA

        write_module(path, Strategy(solve(TwentyOneRules()).chart, BIDS, (), METADATA))
    else:
        from mine.strategies.codegen.cardguess import module_source
        from mine.strategies.solvers.cardguess import Trees
        from tests.strategies import test_cardguess_codegen as fixtures

        tree = fixtures.tree.__wrapped__()
        path.write_text(module_source(Trees({2: tree}, fixtures.METADATA), None))
    return path


def faulty(game: str, folder: Path, how: str) -> Path:
    """A player of `game` that `raises` in its calls (an invalid play each game) or
    `loops` in them (a time-out): the generated file with its entry point replaced."""
    entry = {
        "hog": "final_strategy(score, opponent_score)",
        "ginrummy": "pick(*args)",
        "supernim": "ai_move(state, moves_left=None, depth=None)",
        "twentyone": "play(*args)",
        "cardguess": "next_guess(*args)",
    }[game]
    body = "raise ValueError('boom')" if how == "raises" else "while True:\n        pass"
    source = generated(game, folder).read_text()
    path = folder / f"{game}_{how}.py"
    path.write_text(f"{source}\n\ndef {entry}:\n    {body}\n")
    return path
