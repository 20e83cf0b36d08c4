"""Hog: the code of a generated player (`mine generate hog`), as the CS 61A handout calls
it: `final_strategy(score, opponent_score)` returns the number of dice to roll.

A generated file holds this module's code below the marker, after its own data: `GOAL` and
`STRATEGY_TABLE`, the fitted table (`STRATEGY_TABLE[my_score][opponent_score]`, dice), and
`RULES`, the rules it was solved in. The values here are placeholders for tests.
"""

GOAL = 1
STRATEGY_TABLE: tuple[tuple[int, ...], ...] = ((0,),)

# --- the player's code (a generated file holds what follows) ---


def final_strategy(score, opponent_score):
    """The number of dice (0-10) to roll with `score` points against `opponent_score`."""
    mine = min(max(int(score), 0), GOAL - 1)
    theirs = min(max(int(opponent_score), 0), GOAL - 1)
    return STRATEGY_TABLE[mine][theirs]
