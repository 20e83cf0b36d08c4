"""The generated Super-Nim player: stdlib only, its evaluator and search the package's."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mine.models import supernim as model
from mine.strategies.bots.supernim import search_player
from mine.strategies.codegen import supernim as codegen
from mine.strategies.engines.supernim import MAX, MIN, State, SuperNimRules
from mine.strategies.player_file import load_source
from mine.strategies.players import supernim as player_module
from mine.strategies.players.source import PRAGMA, player_code
from mine.strategies.solvers.supernim import ExactSolver, value


def logged(boards: int, heaps: int, largest: int, seed: int = 4) -> model.Logged:
    """`boards` random boards (up to `heaps` heaps of 1..`largest`) as logged positions."""
    rng = np.random.default_rng(seed)
    drawn = [tuple(sorted(rng.integers(1, largest + 1, size=rng.integers(1, heaps + 1)).tolist()))
             for _ in range(boards)]  # fmt: skip
    frame = pl.DataFrame(
        {
            "log_id": [1] * boards,
            "game": [k // 50 + 1 for k in range(boards)],
            "move": [k % 50 + 1 for k in range(boards)],
            "canonical_board": [list(b) for b in drawn],
            "margin_before": rng.integers(-4, 5, size=boards).tolist(),
            "final_margin": rng.integers(-6, 7, size=boards).tolist(),
        }
    ).with_columns(*model.feature_columns("canonical_board", "move"))
    frame = frame.with_columns(
        (pl.col("final_margin") - pl.col("margin_before")).alias("future_margin")
    )
    return model.Logged(frame, "ab" * 32, 1, boards // 50)


@pytest.fixture(scope="module")
def fitted():
    return model.fit(logged(400, 6, 10))


@pytest.fixture(scope="module")
def knowing_player():
    """A file whose table has seen enough boards to know the value of the small boards the
    tests start from and of what they lead to (a table knows only the cells it saw)."""
    return load_source(codegen.module_source(model.fit(logged(6000, 7, 10)), None, 5.0, 2),
                       "supernim")  # fmt: skip


@pytest.fixture(scope="module")
def player(fitted):
    """The file's search alone: no exact endgame, no tie-break towards the cut-off."""
    return load_source(codegen.module_source(fitted, None, 0.5, 2, endgame=0), "supernim")


@pytest.fixture(scope="module")
def endgame_player(fitted):
    return load_source(codegen.module_source(fitted, None, 5.0, 2), "supernim")


def test_the_source_imports_only_the_standard_library(fitted):
    tree = ast.parse(codegen.module_source(fitted, None))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {"time", "bisect", "random"}


def test_the_budget_is_never_over_a_second(fitted):
    assert load_source(codegen.module_source(fitted, None, 5.0), "supernim").BUDGET == 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=9), st.integers(1, 100))
def test_the_files_evaluator_is_the_fitted_table(player, fitted, heaps, left):
    board = tuple(sorted(heaps))
    assert player.evaluate(board, left) == fitted.value(board, left)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=1, max_size=5), st.integers(2, 100))
def test_the_file_moves_as_the_packages_search_with_the_same_leaves(player, fitted, heaps, left):
    state = State("max", tuple(heaps), 0, 0, moves=100 - left)
    move = search_player(2, fitted.value)(state)
    state.apply_action(move)
    answer = player.ai_move(("max", tuple(heaps), 0, 0), moves_left=left)
    assert answer == state.handout()


def knows_the_value(player, board: tuple[int, ...], depth: int) -> bool:
    """The file's value with no cut-off is the exact one, V, on `board` and on every board
    within `depth` moves of it: what its exact endgame search starts from."""
    boards = {tuple(sorted(board))}
    for _ in range(depth + 1):
        if any(player.far_value(b) != value(b) for b in boards):
            return False
        boards = {after for b in boards for _, after, _ in player.SEARCH.children(b, True) if after}
    return True


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=1, max_size=4), st.integers(1, 4))
def test_the_file_keeps_the_exact_value_in_the_last_moves(knowing_player, heaps, left):
    """With the cut-off a few moves away the file's move keeps the exact cut-off value
    wherever its table learned the value without a cut-off (from the boards alone): the
    endgame search is exact given that value (a table knows only the cells it saw)."""
    board = tuple(heaps)
    assume(knows_the_value(knowing_player, board, left - 1))
    answer = knowing_player.ai_move(("max", board, 0, 0), moves_left=left)
    solver = ExactSolver()
    after = 0 if left == 1 else solver.value(answer[1], left - 1)
    assert answer[2] - after == solver.value(board, left)


def test_a_file_that_cannot_count_the_moves_keeps_a_cash_for_itself(endgame_player):
    """Splitting a 4 keeps the value with no cut-off, but hands the other side the last
    cash if the cut-off comes in two moves: asked with the four fields a state its count
    cannot place (no game it played leads there, and the scores are not a game's first),
    it steps aside."""
    answer = endgame_player.ai_move(("max", (4, 4, 5, 16), 4, 6))
    assert endgame_player.GAME.played == ()
    assert sorted(answer[1]).count(2) == 0 and answer[2:] == (4, 6)


SHORT = 10  # the cut-off of the games below: whole games reach the exact endgame


@pytest.fixture(scope="module")
def short_game_player(fitted):
    settings = {**fitted.metadata.get("settings", {}), "max_moves": SHORT}
    short = model.Fitted(fitted.cells, {**fitted.metadata, "settings": settings})
    return load_source(codegen.module_source(short, None, 5.0, 2), "supernim")


def worth(file, points: int, after: tuple[int, ...], left: int) -> int:
    """A move's worth to the mover against the file's own exact cut-off value."""
    file.SEARCH.deadline = float("inf")
    return points - file.SEARCH.cut_value(tuple(sorted(after)), left - 1, file.SEARCH.exact_table)


starts = st.tuples(st.lists(st.integers(1, 10), min_size=3, max_size=5).map(tuple),
                   st.booleans(), st.integers(1, SHORT))  # fmt: skip


@settings(max_examples=15, deadline=None)
@given(st.lists(starts, min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_a_file_asked_the_four_fields_counts_each_games_moves(short_game_player, games, rng):
    """Games one after another, each left at any point for a new one: asked the handout's
    four fields only, the file counts the moves played, to within the other side's first
    move (it cannot tell a start from a move that scored nothing), exactly once that move
    scored. Counted exactly, it moves as if told the moves left; to within one, where some
    move keeps its exact cut-off value under either count, its move keeps it under the
    true one."""
    file = short_game_player
    # A fresh process's memory: the module-scoped file would otherwise remember the last
    # example's game, and a first state that follows its last answer would go on counting.
    file.GAME = file.Tally()
    last = None
    for board, first, stop in games:
        state = State(MAX if first else MIN, board, rules=SuperNimRules(max_moves=SHORT))
        new = True
        while not state.is_terminal() and state.moves < stop:
            if state.player == MIN:
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            asked = state.handout()
            if new:
                if last is not None:  # a start the file could not tell from a move
                    assume(asked != last and asked not in [s for s, _, _ in file.successors(last)])
                start, opening = state.moves, (0, 1) if asked[2:] == (0, 0) else (1,)
                new = False
            answer = last = file.ai_move(asked)
            counts = file.GAME.played
            left = SHORT - state.moves
            assert counts == tuple(n + state.moves - start for n in opening)
            assert state.moves in counts
            if len(counts) == 1:
                assert answer == file.ai_move(asked, moves_left=left)
            else:
                lefts = [SHORT - n for n in counts]
                kids = file.SEARCH.children(tuple(sorted(asked[1])), True)
                best = {n: max(worth(file, p, a, n) for p, a, _ in kids) for n in lefts}
                both = any(all(worth(file, p, a, n) == best[n] for n in lefts)
                           for p, a, _ in kids)  # fmt: skip
                if both and min(lefts) <= file.ENDGAME:
                    points = answer[2] + answer[3] - asked[2] - asked[3]
                    assert worth(file, points, answer[1], left) == best[left]
            move = next(m for m in state.legal_actions()
                        if player_module.successor(asked, m.after, m.points) == answer)  # fmt: skip
            state.apply_action(move)


def test_a_file_told_the_cut_off_is_far_moves_as_its_search(player, endgame_player):
    """Far from a cut-off it knows of, ties go to the search's first best (here: split a 4,
    for 2s a careless opponent leaves to be cashed), not to the tie-break for a cut-off
    that may come soon."""
    state = ("max", (4, 4, 5, 16), 0, 0)
    far = 50
    answer = endgame_player.ai_move(state, moves_left=far)
    assert answer == player.ai_move(state, moves_left=far)
    assert sorted(answer[1]).count(2) == 2
    assert endgame_player.ai_move(state, moves_left=player_module.NEAR) != answer


def test_the_file_is_the_player_module_with_the_table_in_place(fitted):
    """The player's code is embedded by source: line for line the module's, but for the
    lines that assign the table (rules, search, fitted values) and the repository's lint
    pragmas."""
    table = ("MERGE_CAP", "SPLIT_REWARD", "MAX_MOVES", "DEPTH", "BUDGET", "ENDGAME", "CELLS")
    source = codegen.module_source(fitted, None, 0.5, 2)
    module = PRAGMA.sub("", inspect.getsource(player_module))
    assert "# fmt: skip" not in source

    def code(text: str) -> list[str]:
        body = text[text.index('"""', 3) + 3 :].splitlines()  # past the docstring
        return [line for line in body if not line.startswith(tuple(f"{n} = " for n in table))]

    assert code(source) == code(module)
    assert "\nDEPTH = 2  # plies" in source and "\nBUDGET = 0.5  # seconds" in source


def test_a_table_name_the_module_does_not_assign_is_refused():
    with pytest.raises(ValueError, match="assigns no"):
        player_code("mine.strategies.players.supernim", {"CELLS": {}, "BOARDS": {}})
