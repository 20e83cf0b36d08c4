"""Issue 42, card guessing: a player file whose calls answer garbage, or end its process.
`validate` says so in one line naming the file and why (a file that finds no answer has
nothing to measure); a tournament counts each game such a file loses to an invalid guess,
with its reason, or disqualifies it in one line when its process ends, and prints the
rest. (A `Proj1.hs` that never finds the answer: `test_haskell_cardguess.py`.)"""

from __future__ import annotations

import json

import pytest

from tests.mine_cli import here, one_line_error

GARBAGE = {  # what initial_guess and next_guess answer: the reason each game is lost
    "nothing": ("None", "not a (guess, state) of card texts: None"),
    "a number": ("42", "not a (guess, state) of card texts: 42"),
    "one text": ('("2C3C", None)', "not a (guess, state) of card texts: ('2C3C', None)"),
    "an endless iterator": ('(itertools.repeat("2C"), None)',
                            "not a (guess, state) of card texts: (repeat('2C'), None)"),
    "not cards": ('(["ZZ", "3C"], None)', "a guess of what is not a card: bad card 'ZZ': "
                  "unknown suit 'Z' (expected one of C D H S)"),
    "three cards": ('(["2C", "3C", "4C"], None)', "3 cards guessed, the answer has 2"),
    "a repeated card": ('(["2C", "2C"], None)', "a card repeats in 2C;2C"),
}  # fmt: skip
MEASURE = ("--n", "2", "--answers", "3", "--baselines", "greedy")


def player(folder, name: str, first: str, then: str | None = None):
    """A file of the handout's three functions: `initial_guess` answers `first`,
    `next_guess` runs `then` (default: answers `first` again)."""
    path = folder / f"{name.replace(' ', '_')}.py"
    path.write_text(
        "import itertools\nimport os\n\n\ndef feedback(answer, guess):\n    return (0, 0, 0, 0, 0)"
        f"\n\n\ndef initial_guess(n):\n    return {first}\n\n\ndef next_guess(previous, numbers):"
        f"\n    {then or f'return {first}'}\n"
    )
    return path


@pytest.mark.parametrize("case", GARBAGE)
def test_validate_of_a_file_answering_garbage_is_one_line_naming_it_and_why(case, tmp_path):
    answer, reason = GARBAGE[case]
    path = player(tmp_path, case, answer)
    line = one_line_error(here("validate", "cardguess", path, *MEASURE), code=1)
    assert line == f"error: {path}: found no answer of n = 2 ({reason})"


@pytest.mark.parametrize("case", ["nothing", "an endless iterator", "a repeated card"])
def test_a_tournament_counts_each_game_a_garbage_file_loses_and_why(case, tmp_path):
    answer, reason = GARBAGE[case]
    path = player(tmp_path, case, answer)
    result = here("tournament", "cardguess", path, "--bots", "greedy", "--games", "4", "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    played = json.loads(result.stdout)
    (pairing,) = played["pairings"]
    assert pairing["b_wins"] == pairing["invalid"][0] == 4 and pairing["invalid"][1] == 0
    assert pairing["invalid_reasons"][0] == [reason]
    assert [row["name"] for row in played["standings"]] == ["greedy", str(path)]


def test_a_file_that_ends_its_process_is_one_line_in_validate_and_a_tournament(tmp_path):
    path = player(tmp_path, "exits", '(["2C", "3C"], None)', "os._exit(3)")
    line = one_line_error(here("validate", "cardguess", path, *MEASURE), code=1)
    assert line == f"error: {path}: ended its process (exit code 3) in next_guess()"
    result = here("tournament", "cardguess", path, "--bots", "greedy", "--games", "2", "--json")
    line = one_line_error(result, code=1)
    assert line == (f"error: {path}: disqualified, ended its process (exit code 3) in "
                    f"next_guess() (playing {path} v greedy)")  # fmt: skip
    assert json.loads(result.stdout)["standings"][-1]["name"] == str(path)
