"""Gin Rummy (course variant): the reference engine.

Rules: `../shared/spec/ginrummy.md`, checked against the course's Haskell engine (2020),
the real server logs and games of that engine between students' players. A `State` is one
game (rounds until a player has ≥ `game_target` points and the totals differ) under the
State API of `state.py`. Who plays first is drawn for every round (the engine shuffles
the players before each hand; `first_player="alternate"` is the handout's dealer). Its
decisions, in order, each round:

- `PICK`: `"stock"` or `"discard"`;
- `PLAY`: `Play(act, card)` — discard `card` (never the card just drawn) and announce
  `"gin"`, `"knock"` or `"drop"`;
- `MELDS`: when the round is over, the caller (the last player to play) declares its melds,
  then the opponent (`legal_actions` offers the least-deadwood declaration; any valid
  declaration is accepted).

A round ends on a call, when the stock is empty after a play (the last player to draw is
then the caller, scored as a knock: the `Drop` rows of the real logs match exactly that),
or after `play_cap` plays (the engine checks "more than 200 plays" before each play: 201,
scored the same way, stock left). A player's `opponent_draw` is the opponent's last draw
in this round (None at the first play of every round). An action the rules refuse raises
`IllegalAction` with the course engine's reason and changes nothing; the referee charges
it as the course does (`FORFEIT`: the game is lost), and a player file plays through
`course_player`, the course's three functions. The melds themselves (the least-deadwood
arrangement, the check of a declaration) are `melds.py`'s.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, NamedTuple

import numpy as np

from mine.inputs import quoted
from mine.parsers.cards import DECK, Card
from mine.parsers.ginrummy import HAND_SIZE, Score, Turn
from mine.strategies.engines import referee
from mine.strategies.engines.melds import (
    CARD_BITS,
    MeldError,
    MeldSizes,
    MeldSolver,
    check_melds,
    hand_mask,
)
from mine.strategies.engines.settings import RuleSettings
from mine.strategies.engines.state import TERMINAL, IllegalAction


@dataclass(frozen=True)
class GinRummyRules(RuleSettings):
    """Every number of the spec is a setting; the defaults are the course's."""

    hand_size: int = 10
    knock_limit: int = 10  # the engine allows deadwood ≤ 10 (the handout says < 10)
    gin_bonus: int = 25
    undercut_bonus: int = 10
    game_target: int = 100
    play_cap: int = 201  # plays per round: the engine stops once more than 200 were made
    call_ban_plays: int = 2  # no Gin/Knock in the first two plays (each player's first turn)
    memory_limit: int = 10_000
    time_limit: float = 1.0  # seconds per player call; ≤ 0 switches the check off
    min_set: int = 3
    max_set: int = 4
    min_straight: int = 3
    max_straight: int = 5
    first_player: str = "random"  # drawn every round (the engine), or "alternate" (handout)
    declare_every_card: bool = True  # the engine's OmitError: deadwood is declared too

    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {
        "hand_size": (1, 25),
        "knock_limit": (0, 100),
        "gin_bonus": (0, 1000),
        "undercut_bonus": (0, 1000),
        "game_target": (1, 10_000),
        "play_cap": (1, 10_000),
        "call_ban_plays": (0, 100),
        "memory_limit": (0, 10**6),
        "time_limit": (0, 60),
        "min_set": (2, 4),
        "max_set": (2, 4),
        "min_straight": (2, 13),
        "max_straight": (2, 13),
    }

    @property
    def meld_sizes(self) -> MeldSizes:
        return MeldSizes(self.min_set, self.max_set, self.min_straight, self.max_straight)

    def __post_init__(self) -> None:
        if self.first_player not in ("alternate", "random"):
            raise ValueError("first_player must be 'alternate' or 'random'")
        if not 1 <= self.hand_size <= 25:
            raise ValueError("hand_size must be between 1 and 25")


GAME = "ginrummy"
RULES = GinRummyRules
DEFAULT_RULES = GinRummyRules()
UTILITY = "+1 to the game's winner (first to the target, the totals differing), -1 to the loser"
ZERO_SUM = True
SEATS = ("0", "1")  # the players' ids where a game names none
ACTS = ("gin", "knock", "drop")


class Play(NamedTuple):
    act: str  # gin | knock | drop
    card: Card  # the discard


class Phase(Enum):
    PICK = "pick"
    PLAY = "play"
    MELDS = "melds"
    OVER = "over"


class Invalid(NamedTuple):
    seat: int
    reason: str


class Deal(NamedTuple):
    """A round's cards, for replaying known rounds instead of shuffling."""

    first: int  # the seat that plays first
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]  # per seat, in dealt order
    upcard: Card
    stock: tuple[Card, ...]  # in drawing order


class TurnRecord(NamedTuple):
    seat: int
    hand: tuple[Card, ...]  # after the discard, the picked card first
    discard_top: Card
    picked: Card
    draw: str
    act: str
    discarded: Card


class RoundRecord(NamedTuple):
    number: int
    turns: tuple[TurnRecord, ...]
    ending: str  # Gin | Knock | Drop
    caller: int  # the seat of the round's last play
    points: tuple[int, int]  # per seat, this round
    deadwood: tuple[int, int]  # per seat, from the declared melds


_SOLVERS: dict[MeldSizes, MeldSolver] = {}  # a process's solvers: their memos serve its games


def solver_for(rules: GinRummyRules) -> MeldSolver:
    if rules.meld_sizes not in _SOLVERS:
        _SOLVERS[rules.meld_sizes] = MeldSolver(rules.meld_sizes)
    return _SOLVERS[rules.meld_sizes]


@dataclass
class State:
    """One game between `players` (ids, by seat), under the State API: `apply_action`
    changes it in place, an illegal action raises `IllegalAction` and changes nothing,
    `clone()` copies. `rng` shuffles every round's deck and draws who plays first; `deals`
    replays known rounds instead (the game ends after them). `rounds` keeps every round
    played, what its logs hold."""

    rules: GinRummyRules
    rng: np.random.Generator
    players: tuple[str, str] = SEATS
    deals: Sequence[Deal] | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0])
    rounds: list[RoundRecord] = field(default_factory=list)
    invalid: Invalid | None = None  # the fault that ended the game, lost by its seat

    def __post_init__(self) -> None:
        self.solver = solver_for(self.rules)  # a cache, shared by the process's games
        self._first = int(self.rng.integers(2))
        self._start_round()

    # --- the round ---

    def _start_round(self) -> None:
        if self.deals is not None:  # a known round, or the game's end after the last one
            if len(self.rounds) >= len(self.deals):
                self.phase = Phase.OVER
                return
            deal = self.deals[len(self.rounds)]
            self._first, self.discard, self.stock = deal.first, [deal.upcard], [*deal.stock][::-1]
            self.hands = [list(deal.hands[0]), list(deal.hands[1])]
        else:
            if self.rounds:
                alternate = self.rules.first_player == "alternate"
                self._first = 1 - self._first if alternate else int(self.rng.integers(2))
            deck = [DECK[index] for index in self.rng.permutation(52)]
            n = self.rules.hand_size
            self.hands = [deck[:n], deck[n : 2 * n]]
            if self._first:  # who plays first is dealt first
                self.hands.reverse()
            self.discard = [deck[2 * n]]
            self.stock = deck[: 2 * n : -1]  # top of the stock is the end of the list
        self.round_scores = (self.totals[0], self.totals[1])
        self.turns: list[TurnRecord] = []
        self.phase, self.player = Phase.PICK, self._first
        self.picked: Card | None = None
        self.draw: str | None = None
        self.caller: int | None = None
        self.declared: dict[int, int] = {}

    def current_player(self) -> int:
        return TERMINAL if self.phase is Phase.OVER else self.player

    def num_players(self) -> int:
        return 2

    def may_call(self) -> bool:
        return len(self.turns) >= self.rules.call_ban_plays

    def opponent_draw(self) -> str | None:
        return self.turns[-1].draw if self.turns else None

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def returns(self) -> tuple[float, float]:
        """+1 to the winner of the game, -1 to the loser (the seat of a fault loses);
        0 each where replayed deals ran out on equal totals."""
        if not self.is_terminal() or (self.invalid is None and self.totals[0] == self.totals[1]):
            return 0.0, 0.0
        behind = int(self.totals[0] > self.totals[1])  # the seat of the lower total
        lost = self.invalid.seat if self.invalid is not None else behind
        return (-1.0, 1.0) if lost == 0 else (1.0, -1.0)

    def forfeit(self, seat: int, reason: str) -> None:
        """The game ends here, lost by `seat` (the course's forfeit of a fault)."""
        self.invalid = Invalid(seat, reason)
        self.phase = Phase.OVER

    def clone(self) -> State:
        """An independent copy (the solver, a cache, is shared)."""
        twin = copy.copy(self)
        twin.rng = copy.deepcopy(self.rng)
        twin.totals, twin.rounds = list(self.totals), list(self.rounds)
        twin.hands = [list(hand) for hand in self.hands]
        twin.discard, twin.stock = list(self.discard), list(self.stock)
        twin.turns, twin.declared = list(self.turns), dict(self.declared)
        return twin

    def legal_actions(self) -> list[Any]:
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.PICK:
            return ["stock", "discard"]
        hand = self.hands[self.player]
        if self.phase is Phase.MELDS:
            return [tuple(self.solver.melds_of(hand))]
        plays = [Play("drop", card) for card in hand]  # the card just drawn is not in `hand`
        if self.may_call():
            full = hand_mask(hand) | CARD_BITS[self.picked]
            for card in hand:
                left = self.solver.deadwood(full ^ CARD_BITS[card])
                if left <= self.rules.knock_limit:
                    plays.append(Play("knock", card))
                if left == 0:
                    plays.append(Play("gin", card))
        return plays

    def apply_action(self, action: Any) -> None:
        if self.phase is Phase.PICK:
            self._pick(action)
        elif self.phase is Phase.PLAY:
            self._play(action)
        elif self.phase is Phase.MELDS:
            self._melds(action)
        else:
            raise IllegalAction("the game is over")

    # Every check comes before the first change: an illegal action leaves the state as it
    # was. The reasons are the course engine's words where it has them.

    def _pick(self, draw: Any) -> None:
        if draw == "stock":
            self.picked = self.stock.pop()
        elif draw == "discard":
            self.picked = self.discard.pop()
        else:
            raise IllegalAction(f"draw must be 'stock' or 'discard', not {quoted(draw)}")
        self.draw = draw
        self.phase = Phase.PLAY

    def _play(self, action: Any) -> None:
        rules, hand, picked = self.rules, self.hands[self.player], self.picked
        assert picked is not None and self.draw is not None
        try:
            act, card = action
        except (TypeError, ValueError):
            raise IllegalAction(f"a play is (act, card), not {quoted(action)}") from None
        if act not in ACTS:
            raise IllegalAction(f"act must be gin, knock or drop, not {quoted(act)}")
        if card == picked:
            raise IllegalAction("Cannot play the last drawn card")
        if card not in hand:
            raise IllegalAction("Card played wasn't in player's hand")
        if act != "drop":
            if not self.may_call():
                raise IllegalAction("Called on first turn")
            left = self.solver.deadwood((hand_mask(hand) | CARD_BITS[picked]) ^ CARD_BITS[card])
            _check_call(rules, act, left)
        top = self.discard[-1] if self.draw == "stock" else picked
        after = hand_after(hand, picked, card)
        self.hands[self.player] = after
        self.discard.append(card)
        self.turns.append(TurnRecord(self.player, tuple(after), top, picked, self.draw, act, card))
        self.picked = self.draw = None
        if act != "drop" or not self.stock or len(self.turns) >= rules.play_cap:
            self.caller = self.player
            self.phase = Phase.MELDS
        else:
            self.player = 1 - self.player
            self.phase = Phase.PICK

    def _melds(self, melds: Any) -> None:
        rules, seat = self.rules, self.player
        try:
            deadwood = check_melds(
                self.hands[seat],
                list(melds),
                complete=rules.declare_every_card,
                sizes=rules.meld_sizes,
            )
        except MeldError as error:
            raise IllegalAction(f"bad melds: {error}") from None
        except TypeError:
            raise IllegalAction(
                f"melds must be a list of card tuples, not {quoted(melds)}"
            ) from None
        if seat == self.caller:
            _check_call(rules, self.turns[-1].act, deadwood)
        self.declared[seat] = deadwood
        if len(self.declared) < 2:
            self.player = 1 - seat
            return None
        self._score()

    def _score(self) -> None:
        caller, act = self.caller, self.turns[-1].act
        assert caller is not None
        points = round_points(self.rules, act, self.declared[caller], self.declared[1 - caller])
        per_seat = (points[0], points[1]) if caller == 0 else (points[1], points[0])
        self.totals = [self.totals[0] + per_seat[0], self.totals[1] + per_seat[1]]
        declared = (self.declared[0], self.declared[1])
        ending = act.title()  # Gin, Knock or Drop, as the logs say
        self.rounds.append(
            RoundRecord(len(self.rounds) + 1, tuple(self.turns), ending, caller, per_seat, declared)
        )
        totals = self.totals
        if max(totals) >= self.rules.game_target and totals[0] != totals[1]:
            self.phase = Phase.OVER
        else:
            self._start_round()


def new_game(
    rules: GinRummyRules,
    rng: np.random.Generator,
    players: Sequence[str] = SEATS,
    swapped: bool = False,
    *,
    deals: Sequence[Deal] | None = None,
) -> State:
    """A game from its first deal (or replaying `deals`) between `players`; `swapped`: the
    same shuffles with the seats' hands exchanged (the second player holds what the first
    held and plays when it played)."""
    return State(rules, rng, tuple(players[::-1] if swapped else players), deals)


def hand_after(hand: Sequence[Card], picked: Card, discarded: Card) -> list[Card]:
    """A side's hand after its turn: the card it picked first, then the rest of its hand
    but the card it discarded."""
    return [picked, *(held for held in hand if held != discarded)]


def call_allows(rules: GinRummyRules, act: str, deadwood: int) -> bool:
    """Whether a call may leave `deadwood`: a Gin none, a Knock at most the limit (a Drop,
    the stock out or the play cap, any)."""
    if act == "gin":
        return deadwood == 0
    return act != "knock" or deadwood <= rules.knock_limit


def _check_call(rules: GinRummyRules, act: str, deadwood: int) -> None:
    """A call leaves what it allows (at the play and at the melds)."""
    if call_allows(rules, act, deadwood):
        return
    if act == "gin":
        raise IllegalAction("Called gin with remaining deadwood")
    raise IllegalAction(f"Knocked with more than {rules.knock_limit} points in deadwood")


def round_points(rules: GinRummyRules, act: str, caller: int, opponent: int) -> tuple[int, int]:
    """(caller's, opponent's) points for a round, from each side's declared deadwood.

    Gin: 25 + the opponent's deadwood. Knock, and a Drop (stock out or play cap, the last
    player treated as having knocked): the caller scores the difference if strictly lower,
    else the opponent scores 10 + the difference (ties are undercuts).
    """
    if act == "gin":
        return rules.gin_bonus + opponent, 0
    if caller < opponent:
        return opponent - caller, 0
    return 0, rules.undercut_bonus + caller - opponent


def points(state: State) -> tuple[int, int]:
    """Each seat's points over the rounds: a margin counts them, not the game's ±1."""
    return state.totals[0], state.totals[1]


# --- the referee's terms, and the course's player interface ---------------------------------

NUM_PLAYERS = range(2, 3)
FORFEIT = referee.game_lost  # the course: a fault loses the game
# How the course's Gin Rummy server words a player's faults.
WORDS = referee.Words(
    raised="player raised {kind}: {error}",
    slow="Took too long to play",
    not_text="memory must be a string, not {kind}",
    too_long="Memory is too large ({length} > {limit} characters)",
)


def limits(rules: GinRummyRules) -> referee.Limits:
    """The rules' time (≤ 0: none) and memory limits of a call."""
    return referee.Limits(rules.time_limit if rules.time_limit > 0 else math.inf,
                          rules.memory_limit)  # fmt: skip


def course_player(player: Any) -> referee.Course:
    """A player with the spec's three functions (`pick`, `play`, `melds`: a player file, or
    any object that has them) as the referee calls it: the one its state's phase asks,
    with what the spec shows it."""

    def call(state: State, seat: int, memory: str | None) -> tuple[Any, tuple, referee.Read]:
        scores = (state.round_scores[seat], state.round_scores[1 - seat])
        hand = tuple(state.hands[seat])
        if state.phase is Phase.PICK:
            arguments = (state.discard[-1], scores, memory, state.opponent_draw(), hand)
            return player.pick, arguments, _action_and_memory
        if state.phase is Phase.PLAY:
            return player.play, (state.picked, scores, memory, hand), _action_and_memory
        return player.melds, (scores, memory, hand), _melds

    return referee.Course(call)


def _melds(result: Any) -> tuple[Any, Any]:
    """The melds (any iterable of iterables, as the engine takes them) read here, where
    what the file's own code raises as they are read is its fault, as plain values with
    each card the engine's own Card: a Card of the file's own class could say it is any
    card of the hand, of any rank. Melds cannot change the memory."""
    try:
        melds = [_listed(meld) for meld in result] if _iterable(result) else result
    except Exception as error:
        raise referee.Fault(referee.raised(error, WORDS)) from None
    melds = referee.plain(melds)
    if isinstance(melds, list):
        melds = [[_card(c) for c in meld] if isinstance(meld, list) else meld for meld in melds]
    return melds, referee.KEEP


def _iterable(value: Any) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, str)


def _listed(meld: Any) -> Any:
    return list(meld) if _iterable(meld) else meld


def _card(value: Any) -> Any:
    """A plain (rank, suit) as the engine's own Card; anything else as it is (the engine
    says why it is no card)."""
    return Card(*value) if isinstance(value, tuple) and len(value) == 2 else value


def _action_and_memory(result: Any) -> tuple[Any, Any]:
    # Read as plain values, a play's card as the engine's own Card (whatever the file's
    # class was): the draw and the card reach the other seat's calls.
    result = referee.plain(result)
    try:
        action, memory = result
    except (TypeError, ValueError) as error:  # not a pair: the player's fault
        raise referee.Fault(referee.raised(error, WORDS)) from None
    if isinstance(action, tuple) and len(action) == 2:
        action = (action[0], _card(action[1]))
    return action, memory


# --- logs -------------------------------------------------------------------------------------

STEM_PREFIX = f"{GAME}-"  # every stem the one simulate writes starts so: its logs read as simulated
ONE_GAME_A_FILE = True  # the server writes a log pair a game
GAMES_PER_TASK = 10  # a task of a simulation: a few seconds of play


def log_rows(state: State, game: int, me: str) -> tuple[list[Turn], list[Score]]:
    """The rounds played, from `me`'s seat; ValueError for hands the format cannot hold."""
    if state.rules.hand_size != HAND_SIZE:
        raise ValueError("the log format holds 10-card hands; hand_size must stay 10 to write logs")
    seat = state.players.index(me)
    turns = [Turn(played.number, turn.hand, turn.seat == seat, turn.discard_top, turn.picked,
                  turn.discarded) for played in state.rounds for turn in played.turns]  # fmt: skip
    scores = [Score(played.number, played.points[seat], played.points[1 - seat], played.ending,
                    played.caller == seat) for played in state.rounds]  # fmt: skip
    return turns, scores


def log_bytes(rules: GinRummyRules, players: int) -> int:
    return 20_000  # both files, generously (about 5 kB measured)
