"""Exact solvers: the optimum of each game that allows one, and the value of a given table.

A solver knows the game's rules (it imports its engine) and nothing above: models fit
with it, validation measures against it. Its verbs are the game's own (a chart's value, a
position's value, a search tree), so there is no contract beyond living here.
"""

CONTRACT: dict[str, tuple[str, ...] | None] = {}
