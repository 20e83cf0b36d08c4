"""Player files whose errors and answers are hostile objects of their own classes (an
exception whose `__str__` raises or says megabytes, a number or text of a subclass with
its own methods), run as a user runs them (mine's entry point, `here`: the harness and its
workers are what these files attack, not the command's process): one line that blames the
file for what it did, and the other entrants' results as they were."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mine.strategies.engines import referee
from tests.mine_cli import here, one_line_error

UNREADABLE = """
class Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message")
"""


def _hog(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(source)
    return path


def test_an_exception_whose_message_raises_is_the_players_fault(tmp_path):
    """(Before: the worker died formatting it, 'ended its process (exit code 70) in the
    harness', and a tournament disqualified the file instead of counting its plays.)"""
    path = _hog(tmp_path, "unreadable.py", UNREADABLE + "def final_strategy(score, opponent_score):\n"
                "    raise Unreadable()\n")  # fmt: skip
    line = one_line_error(here("validate", "hog", path), code=1)
    assert line == (f"error: {path}: raised Unreadable: (its message raised RuntimeError) in "
                    "final_strategy()")  # fmt: skip
    good = _hog(tmp_path, "good.py", "def final_strategy(score, opponent_score):\n    return 4\n")
    result = here("tournament", "hog", good, path, "--bots", "", "--games", "2", "--json")
    assert result.returncode == 0, result.stderr
    (pairing,) = json.loads(result.stdout)["pairings"]
    assert (pairing["a"], pairing["a_score_rate"], pairing["invalid"]) == (str(good), 1.0, [0, 2])
    assert pairing["invalid_reasons"][1] == [
        "final_strategy(0, 0) raised Unreadable: (its message raised RuntimeError)"
    ]


def test_an_exception_of_megabytes_reads_as_one_short_line(tmp_path):
    """(Before: its 20 MB message went into the worker's message, over its cap: 'ended its
    process (exit code 70) in the harness'.)"""
    path = _hog(tmp_path, "loud.py", 'LOUD = ValueError("\\x1b[31m" + "x" * 20_000_000)\n'
                "def final_strategy(score, opponent_score):\n    raise LOUD\n")  # fmt: skip
    line = one_line_error(here("validate", "hog", path), code=1)
    assert line.startswith(f"error: {path}: raised ValueError: \\x1b[31mxxx"), line[:200]
    assert line.endswith("x… in final_strategy()") and len(line) < 400, line[:200]


# --- answers of classes of the player's own, through the referee and the real engines ---------

RAN: list[str] = []  # the methods of the player's own classes that ran, by name


class Sneaky(str):
    """A card or draw text whose comparisons lie (every text is it) and say they ran."""

    def __eq__(self, other):
        RAN.append("__eq__")
        return True

    def __hash__(self):
        RAN.append("__hash__")
        return 0


class Lying(int):
    """A number every comparison finds in range, and every sum leaves as it was."""

    def __lt__(self, other):
        return False

    __gt__ = __lt__

    def __le__(self, other):
        return True

    __ge__ = __le__

    def __rsub__(self, other):
        return other


class Short(str):
    def __len__(self):
        return 0


def _sneaky(value):
    """`value` with every text in it a Sneaky (the same characters)."""
    if isinstance(value, str):
        return Sneaky(value)
    if not isinstance(value, tuple | list):
        return value
    items = [_sneaky(v) for v in value]
    return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)  # a Card


def test_a_ginrummy_answers_own_class_runs_nowhere_and_never_reaches_the_other_seat():
    """(Before: the engine compared the draw by its `__eq__`, and handed the object to the
    other seat as its `opponent_draw`: one file's code ran in the other's call, blamed on
    it; a declared card's suit compared by its own `__eq__` could make any cards a meld.)
    The same texts as plain str: the same game, no fault."""
    from mine.strategies.codegen import ginrummy as codegen
    from mine.strategies.engines import ginrummy as engine
    from mine.strategies.player_file import load_source
    from tests.strategies.test_ginrummy_codegen import FITTED

    source = codegen.module_source(FITTED, None)
    sneaky, other = load_source(source, "ginrummy"), load_source(source, "ginrummy")
    for name in ("pick", "play", "melds"):
        honest = getattr(sneaky, name)
        setattr(sneaky, name, lambda *args, honest=honest: _sneaky(honest(*args)))
    seen, honest_pick = set(), other.pick

    def pick(discard_top, scores, memory, opponent_draw, hand):
        for given in (discard_top, opponent_draw, *hand):
            seen.update(map(type, given) if isinstance(given, tuple) else [type(given)])
        return honest_pick(discard_top, scores, memory, opponent_draw, hand)

    other.pick = pick
    RAN.clear()
    state = engine.new_game(engine.DEFAULT_RULES, np.random.default_rng(3), ["s", "o"])
    seats = {"s": engine.course_player(sneaky), "o": engine.course_player(other)}
    played = referee.refereed(engine, engine.DEFAULT_RULES, state,
                              [seats[p] for p in state.players])  # fmt: skip
    assert played.faults == [None, None] and state.is_terminal()
    assert RAN == [] and seen == {int, str, type(None)}  # a card's fields, a draw


def test_a_supernim_answer_whose_eq_lies_is_no_successor():
    """(Before: an object equal to everything was taken for the first legal move.)"""
    from mine.strategies.bots.supernim import make_bot
    from mine.strategies.engines import supernim as engine

    class Everything:
        def __eq__(self, other):
            return True

    player = SimpleNamespace(ai_move=lambda state, **_: Everything())
    state = engine.new_game(engine.DEFAULT_RULES, np.random.default_rng(0), board=(3, 4))
    bot = make_bot("random", engine.DEFAULT_RULES, np.random.default_rng(0))
    played = referee.refereed(engine, engine.DEFAULT_RULES, state,
                              [engine.course_player(player), bot])  # fmt: skip
    assert played.faults == [engine.NOT_A_SUCCESSOR, None]


def test_a_cardguess_guess_of_texts_of_its_own_class_is_read_as_plain_texts():
    """(Before: the card's `__hash__` ran in the engine, and raised there: the harness's
    error, not an invalid guess.)"""
    from mine.strategies.engines import cardguess as engine

    guesses = iter(["2C 3D", "4H 5S", "6C 7D", "8H 9S", "TC JD", "QH KS", "AC 2D"] * 100)

    def guess(*_):
        return [Sneaky(card) for card in next(guesses).split()], None

    rules = engine.DEFAULT_RULES
    state = engine.new_game(rules, np.random.default_rng(0))
    player = SimpleNamespace(initial_guess=guess, next_guess=guess)
    RAN.clear()
    played = referee.refereed(engine, rules, state, [engine.course_player(player)])
    assert RAN == [] and played.faults == [None]
    assert state.is_terminal() and len(state.guesses) == 100  # its guesses, all read


def _twentyone(answer):
    """A TwentyOne game of a player answering `answer(upcard, memory)` beside a fine one:
    its fault."""
    from mine.strategies.engines import twentyone as engine

    def fine(upcard, points, infos, player_id, memory, hand):
        return (engine.Bid(10) if upcard is None else engine.Stand()), "m"

    def play(upcard, points, infos, player_id, memory, hand):
        return answer(upcard, memory)

    rules = engine.TwentyOneRules(rounds=2)
    state = engine.new_game(rules, np.random.default_rng(0), ["a", "b"])
    seats = {"a": engine.course_player(play), "b": engine.course_player(fine)}
    played = referee.play(state, [seats[i] for i in state.players], referee.seat_out,
                          referee.Limits(1.0, 20))  # fmt: skip
    return played.faults[state.players.index("a")], state


def test_a_twentyone_bid_of_a_lying_number_is_read_as_its_value():
    """(Before: a bid of a billion with 10,000 points was taken, its comparisons in range,
    and the seat's points went to -999,990,000 to be paid back double.)"""
    from mine.strategies.engines.twentyone import Bid, Stand

    fault, state = _twentyone(lambda up, _: (Bid(Lying(10**9)) if up is None else Stand(), ""))
    assert fault == "Bid 1000000000 outside 10..100 (points 10000)"
    assert all(type(points) is int and points >= 0 for points in state.points)


def test_a_twentyone_memory_whose_len_lies_is_counted_as_it_is():
    """(Before: a memory of any length whose `__len__` said 0 was kept.)"""
    from mine.strategies.engines.twentyone import Bid, Stand

    fault, _ = _twentyone(lambda up, _: (Bid(10) if up is None else Stand(), Short("x" * 21)))
    assert fault == "memory of 21 characters (limit 20)"


CLOSES = """
import os
def final_strategy(score, opponent_score):
    for fd in range(3, 64):
        try:
            os.{}
        except OSError:
            pass
    return 4
"""


@pytest.mark.parametrize("how", ["close(fd)", "dup2(0, fd)"])
def test_a_player_that_closes_or_replaces_the_harness_channel_is_told_so(how, tmp_path):
    """(Before: 'ended its process (exit code 70) in the harness', the words of a worker
    that could not be confined.)"""
    path = _hog(tmp_path, "closes.py", CLOSES.format(how))
    line = one_line_error(here("validate", "hog", path), code=1)
    assert line == (f"error: {path}: closed or replaced the harness's channel (a descriptor "
                    "it did not open)")  # fmt: skip


def test_the_channel_lost_in_a_game_of_two_files_is_blamed_on_the_one_that_closed_it(tmp_path):
    """(Before: the fault went to the owner of the worker's last call, the other file:
    'good.py: disqualified, closed or replaced the harness's channel'.)"""
    closes = _hog(tmp_path, "closes.py", CLOSES.format("close(fd)"))
    good = _hog(tmp_path, "good.py", "def final_strategy(score, opponent_score):\n    return 4\n")
    result = here("tournament", "hog", closes, good, "--bots", "", "--games", "2")
    assert one_line_error(result, code=1) == (
        f"error: {closes}: disqualified, closed or replaced the harness's channel (a "
        f"descriptor it did not open) (playing {closes} v {good})"
    )


HUGE = 10**100_000


@pytest.mark.parametrize(
    ("bid", "then", "fault"),
    [
        (HUGE, "Stand", "Bid an integer of about 100,001 digits outside 10..100 (points 10000)"),
        (10, "DoubleDown", "DoubleDown an integer of about 100,001 digits: it costs exactly 10"),
    ],
    ids=["bid", "double"],  # (no id of the number: Python will not write it)
)
def test_a_twentyone_amount_past_pythons_digits_is_an_invalid_action(bid, then, fault):
    """(Before: its fault's words wrote the number, which Python refuses past 4,300 digits:
    a ValueError out of the referee, 'in the harness'.)"""
    from mine.strategies.engines import twentyone as engine

    play = engine.Stand() if then == "Stand" else engine.DoubleDown(HUGE)
    assert _twentyone(lambda up, _: (engine.Bid(bid) if up is None else play, ""))[0] == fault


def test_ginrummy_melds_whose_own_code_raises_as_they_are_read_are_an_invalid_play(tmp_path):
    """(Before: a generator of melds that raises ran in the engine: 'raised RuntimeError:
    gen in the harness', and the validation ended there.) Its invalid plays, counted."""
    from mine.strategies.codegen import ginrummy as codegen
    from tests.strategies.test_ginrummy_codegen import FITTED

    path = tmp_path / "gen.py"
    path.write_text(codegen.module_source(FITTED, None) + "\n_melds = melds\n"
                    "def melds(*args):\n    yield from _melds(*args)\n"
                    "    raise RuntimeError('gen')\n")  # fmt: skip
    result = here("validate", "ginrummy", path, "--games", "2", "--baselines", "random",
                  "--workers", "1", "--json")  # fmt: skip
    line = one_line_error(result, code=1)
    assert line == f"error: {path}: 2 invalid plays against random: player raised RuntimeError: gen"
    assert json.loads(result.stdout)["against"]["random"]["invalid"] == 2


EXITS = {  # how a file ends itself, at import or in its call, and the line it gets
    "sys.exit of megabytes at import": (
        'import sys\nsys.exit("x" * 20_000_000)\n',
        "cannot load (it called sys.exit('" + "x" * 77 + "..." + "x" * 78 + "'))",
    ),
    "sys.exit of megabytes in its call": (
        'import sys\ndef final_strategy(score, opponent_score):\n    sys.exit("x" * 20_000_000)\n',
        "called sys.exit('" + "x" * 77 + "..." + "x" * 78 + "') in final_strategy()",
    ),
    "KeyboardInterrupt at import": ("raise KeyboardInterrupt\n", "cannot load (KeyboardInterrupt)"),
}


@pytest.mark.parametrize("how", EXITS, ids=list(EXITS))
def test_a_file_that_ends_itself_is_told_how_in_one_short_line(how, tmp_path):
    """(Before: 'ended its process (exit code 70) in the harness' for a sys.exit whose code
    ran to megabytes, and 'raised KeyboardInterrupt in the harness' at import.)"""
    source, words = EXITS[how]
    path = _hog(tmp_path, "ends.py", source + "def final_strategy(score, opponent_score):\n"
                "    return 4\n" if "import" in how else source)  # fmt: skip
    assert one_line_error(here("validate", "hog", path), code=1) == f"error: {path}: {words}"


def test_a_file_name_of_terminal_control_codes_is_shown_escaped_in_the_tables(tmp_path):
    """(Before: the name went to the terminal as it is: an entrant named so retitled the
    window, painted the table red, or could move the cursor over the standings.)"""
    name = "esc\x1b]0;PWNED\x07\x1b[31m\rred\x9b2J.py"
    path = _hog(tmp_path, name, "def final_strategy(score, opponent_score):\n    return 4\n")
    result = here("tournament", "hog", path, "--bots", "random", "--games", "2")
    assert result.returncode == 0, result.stderr
    shown = "esc\\x1b]0;PWNED\\x07\\x1b[31m\\rred\\x9b2J.py"
    assert shown in result.stdout
    assert not any(c in result.stdout for c in "\x1b\x07\r\x9b")


AMOUNT_RAISES = """
class Bid:
    @property
    def amount(self):
        raise RuntimeError("no amount")
class Stand:
    pass
def play(upcard, points, infos, player_id, memory, hand):
    return (Bid() if upcard is None else Stand()), ""
"""


def test_a_twentyone_amount_whose_property_raises_is_an_invalid_play(tmp_path):
    """(Before: the engine read the amount and what it raised escaped: 'disqualified,
    raised RuntimeError: no amount in the harness'.) Its invalid plays, counted."""
    path = _hog(tmp_path, "amount.py", AMOUNT_RAISES)
    result = here("tournament", "twentyone", path, "--bots", "textbook", "--games", "2", "--json")
    assert result.returncode == 0, result.stderr
    (pairing,) = json.loads(result.stdout)["pairings"]
    assert pairing["invalid"] == [2, 0]
    assert pairing["invalid_reasons"] == [["Bid's amount raised RuntimeError: no amount"], []]


class Named(str):
    """A class's name whose hashing, comparing and formatting raise (and say they ran)."""

    def __hash__(self):
        RAN.append("__hash__")
        raise RuntimeError("hash ran")

    def __eq__(self, other):
        RAN.append("__eq__")
        raise RuntimeError("eq ran")

    def __format__(self, spec):
        RAN.append("__format__")
        raise RuntimeError("format ran")


def _named(name: str, **fields) -> object:
    """An object of a class named `name` by a Named, with `fields`."""
    kind = type("Own", (), fields)
    kind.__name__ = Named(name)
    return kind()


class Exits:
    def __repr__(self):
        raise SystemExit("repr")


def test_a_twentyone_answers_class_name_of_its_own_class_runs_nowhere():
    """(Before: the action's name was looked up by its own `__hash__`, and the memory's
    formatted by its own `__format__`, in the engine: 'raised RuntimeError: hash ran in the
    harness'.) An action so named is the action; a memory so named is not text."""
    from mine.strategies.engines.twentyone import Stand

    RAN.clear()
    fault, state = _twentyone(
        lambda up, _: (_named("Bid", amount=10) if up is None else Stand(), "")
    )
    assert fault is None and state.is_terminal()
    fault, _ = _twentyone(lambda up, _: (Stand(), _named("Memo")))
    assert fault == "memory is Memo, not a string" and RAN == []


def test_an_answer_whose_repr_exits_is_quoted_by_its_class():
    """(Before: quoting the answer in its fault ran its `__repr__`, whose SystemExit
    escaped the referee: 'called sys.exit('repr') in the harness'.)"""
    try:
        fault = _twentyone(lambda up, _: (Exits(), ""))[0]
    except SystemExit:  # would end pytest itself
        pytest.fail("the answer's SystemExit escaped the referee")
    assert fault == "not an action: a Exits"


class Raises(int):
    """A number whose comparison and index raise: its value is what it holds."""

    def __eq__(self, other):
        raise RuntimeError("eq ran")

    __hash__ = int.__hash__

    def __index__(self):
        raise RuntimeError("index ran")


class Unlisted(tuple):
    def __iter__(self):
        raise RuntimeError("iter ran")


@pytest.mark.parametrize(
    ("wrap", "wrong"),
    [
        (lambda said: tuple(map(Raises, said)), 0),
        (Unlisted, 0),
        (lambda said: (Exits(),) * 5, None),
    ],
    ids=["int of its own", "tuple of its own", "not numbers"],
)
def test_a_cardguess_feedback_of_its_own_classes_is_compared_by_its_values(wrap, wrong):
    """(Before: the check of the file's `feedback` ran the answer's own `__eq__` and
    `__iter__`: 'raised RuntimeError: eq ran in the harness', and validate ended there.)"""
    from mine.strategies.engines import cardguess as engine
    from mine.strategies.validation import cardguess as validation

    def feedback(answer, guess):
        cards = [engine.parse_card(c) for c in answer], [engine.parse_card(c) for c in guess]
        return wrap(engine.feedback(*cards))

    module = SimpleNamespace(feedback=feedback)
    wrong = validation.FEEDBACK_PAIRS if wrong is None else wrong  # every pair
    assert validation.feedback_mismatches(module, 2) == wrong


@pytest.mark.parametrize(
    ("depth", "why"),
    [("10**5000", "raised ValueError: Exceeds the limit (4300 digits)"),
     ("Own(1)", "raised RuntimeError: int ran")],
    ids=["past Python's digits", "int of its own"],
)  # fmt: skip
def test_a_supernim_depth_the_harness_cannot_send_is_the_files_fault(depth, why, tmp_path):
    """(Before: the worker died sending the file's stated DEPTH back: 'ended its process
    (exit code 70) in the harness'.)"""
    from mine.strategies.players.source import player_code

    path = tmp_path / "deep.py"
    path.write_text(player_code("mine.strategies.players.supernim", {"MAX_MOVES": 30})
                    + "class Own(int):\n    def __int__(self):\n"
                    f"        raise RuntimeError('int ran')\nDEPTH = {depth}\n")  # fmt: skip
    result = here("validate", "supernim", path, "--games", "2", "--baselines", "random")
    line = one_line_error(result, code=1)
    assert line.startswith(f"error: {path}: its job returned what the harness cannot read "
                           f"({why}"), line  # fmt: skip


@pytest.mark.parametrize(("letter", "said"), [(Named("H"), None), ("Z", "'Z'"), (4, "4")])
def test_a_twentyone_action_letter_is_read_as_plain_text_or_said_to_be_none(letter, said):
    """(Before: validate's evaluator looked the letter of the file's `action_for` up by its
    own `__hash__`, or failed on an unknown one: 'raised KeyError: 'Z' in the harness'.)"""
    from mine.strategies.engines.twentyone import CAN_HIT, CAN_STAND, HIT
    from mine.strategies.validation.twentyone_evaluator import FilePolicy

    module = SimpleNamespace(TC_LIMIT=1, action_for=lambda *_: letter)
    hand = [np.array([value]) for value in (5, 16, 0, 2, 0, CAN_HIT | CAN_STAND, 0, True, 0)]
    RAN.clear()
    if said is None:
        assert FilePolicy(module).act(*hand, None).tolist() == [HIT] and RAN == []
    else:
        with pytest.raises(ValueError, match=f"^action_for answered {said}, not one of I, P,"):
            FilePolicy(module).act(*hand, None)
