"""`mine validate twentyone`: the evaluator decides exactly as the file it measures, its
shoes, and the JSON a script reads."""

from __future__ import annotations

import json
import re
from itertools import combinations_with_replacement

import numpy as np
import pytest
from typer.testing import CliRunner

from mine.parsers.cards import DECK, Card
from mine.pipeline.cli import app
from mine.pipeline.commands import twentyone as twentyone_commands
from mine.pipeline.reports import twentyone as twentyone_page
from mine.strategies.bots.twentyone import ChartBot
from mine.strategies.codegen.twentyone import write_module
from mine.strategies.engines.twentyone import (
    CAN_DOUBLE,
    CAN_HIT,
    CAN_INSURE,
    CAN_SPLIT,
    CAN_STAND,
    CODE,
    DOUBLE,
    HIT,
    INSURANCE,
    SPLIT,
    STAND,
    Shoe,
    TwentyOneRules,
    new_game,
)
from mine.strategies.engines.twentyone_chart import INSURED, MAIN, SPLIT_HAND, Chart, Strategy
from mine.strategies.player_file import PlayerFileError
from mine.strategies.solvers.twentyone import chart_value, solve
from mine.strategies.validation.twentyone import (
    chart_module,
    check,
    failure,
    games_played,
    load_player,
)
from mine.strategies.validation.twentyone_evaluator import (
    FLAT_CHUNK,
    HI_LO,
    BotPolicy,
    ContinuousShoe,
    FilePolicy,
    FreshShoes,
    _Dealer,
    baseline_policies,
    continuous_returns,
    flat_returns,
    flat_sums,
    fold,
    play_round,
)
from tests.strategies.test_twentyone_codegen import BIDS, METADATA

RULES = TwentyOneRules()
NAMES = {"Insurance": INSURANCE, "Split": SPLIT, "DoubleDown": DOUBLE, "Hit": HIT, "Stand": STAND}


@pytest.fixture(scope="module")
def best():
    return solve(RULES)


def count_charts(chart: Chart) -> tuple[tuple[int, int, Chart], ...]:
    """Charts that differ from `chart` at low and high counts, so that the file has
    cells that change with the count."""
    low = Chart(chart.hand.copy(), chart.split.copy(), np.zeros_like(chart.insure))
    low.hand[:, 10, 16, 0, :] = STAND
    high = Chart(chart.hand.copy(), chart.split.copy(), np.ones_like(chart.insure))
    high.hand[MAIN, 4, 12, 0, 0] = HIT
    high.split[:, 6, 10] = True
    return ((-10, -3, low), (3, 10, high))


@pytest.fixture(scope="module")
def counted(best, tmp_path_factory):
    path = tmp_path_factory.mktemp("val") / "counted.py"
    write_module(path, Strategy(best.chart, BIDS, count_charts(best.chart), METADATA))
    return load_player(path)


def _hands():
    """Every hand a player decides on, by card values (10: a ten, jack, queen or king),
    with a pair of tens as two tens of one rank and of two ranks."""
    for n in (2, 3, 4):
        for values in combinations_with_replacement(range(1, 11), n):
            ranks = list(values)
            if n == 2 and ranks == [10, 10]:
                yield [11, 11]  # a pair: same rank
                yield [10, 12]  # not a pair
                continue
            total = sum(11 if r == 1 else min(r, 10) for r in ranks)
            aces = ranks.count(1)
            while total > 21 and aces:
                total, aces = total - 10, aces - 1
            if total <= 21:
                yield ranks


def test_the_evaluator_decides_as_the_file_in_every_situation(counted):
    """For every hand, up card, context, first decision or not, and count bucket: the
    file's own `play` path (`decide` with its memory) and the evaluator's table agree, and
    the action is one the engine allows."""
    module = counted
    policy = FilePolicy(module)
    rows = {"up": [], "total": [], "soft": [], "n": [], "pair": [], "legal": [], "context": [],
            "first": [], "tc": [], "expected": []}  # fmt: skip
    card = {rank: next(c for c in DECK if c.rank == rank) for rank in range(1, 14)}
    for ranks in _hands():
        hand = tuple(card[r] for r in ranks)
        total, soft = module.hand_value(hand)
        n = len(ranks)
        pair = ranks[0] if n == 2 and ranks[0] == ranks[1] else 0
        for up in (*range(1, 11), 13):
            for context, first in (
                (MAIN, True),
                (MAIN, False),
                (INSURED, False),
                (SPLIT_HAND, False),
            ):
                if first and n > 2:
                    continue
                for tc in range(-10, 11):
                    memory = module.Memory(
                        dealt=0, count=3 * tc, active=1, bid=10, phase="F" if first else "P",
                        insured=int(context == INSURED), split=int(context == SPLIT_HAND),
                    )  # fmt: skip
                    action, _ = module.decide(memory, up, 10**6, hand)
                    two = n == 2
                    legal = CAN_STAND | CAN_HIT | (CAN_DOUBLE if two else 0)
                    legal |= (CAN_SPLIT if pair else 0) | (CAN_INSURE if first and up == 1 else 0)
                    for key, value in (("up", min(up, 10)), ("total", total), ("soft", soft),
                                       ("n", n), ("pair", pair), ("legal", legal),
                                       ("context", context), ("first", first), ("tc", tc),
                                       ("expected", NAMES[type(action).__name__])):  # fmt: skip
                        rows[key].append(value)
    a = {k: np.array(v) for k, v in rows.items()}
    got = policy.act(a["up"], a["total"], a["soft"], a["n"], a["pair"], a["legal"],
                     a["context"], a["first"], a["tc"], None)  # fmt: skip
    assert len(got) > 200_000
    assert (got == a["expected"]).all()
    assert ((a["legal"] >> got) & 1 == 1).all()
    # the count tables are used: the same situation plays otherwise at some count
    assert len(module.BY_COUNT) > 10
    varies = (a["tc"] == -10) & (a["up"] == 10) & (a["total"] == 16) & (a["soft"] == 0)
    assert set(got[varies & (a["context"] == MAIN) & (a["n"] == 3)]) == {STAND}


def test_the_evaluator_counts_as_the_file(counted):
    dealt, count = np.meshgrid(np.arange(156), np.arange(-60, 61))
    dealt, count = dealt.ravel(), count.ravel()
    mine = np.clip(np.rint(count * 52.0 / (156 - dealt)), -10, 10)
    theirs = [counted.count_bucket(int(d), int(c)) for d, c in zip(dealt, count, strict=True)]
    assert (mine == np.array(theirs)).all()


def test_the_file_tracks_the_shoe_at_a_one_seat_table(counted):
    """Between rounds the file's memory holds how many cards the engine dealt from its
    current shoe, the Hi-Lo count of those it saw and the ten-valued ones among them (a hole card the dealer never turned
    over is dealt but unseen): what the evaluator's continuous shoe gives it."""
    drawn = []  # (card, shoe number) of every card the engine dealt

    class Logged(Shoe):
        __slots__ = ()

        def draw(self) -> int:
            code = super().draw()
            drawn.append((code, self.shuffles))
            return code

    state = new_game(RULES.replace(rounds=400), np.random.default_rng(5), ["me"])
    state.shoe = Logged(3, np.random.default_rng(6))
    play, memory, checked, hidden, start = counted.play, None, 0, set(), 0
    while not state.is_terminal():
        if state.is_bidding():
            if start and state.records[-1].rows[-1][0] == (state.records[-1].upcard,):
                hidden.add(start + 1)  # the last round's hole card: its second card
            start = len(drawn)
            shoe = state.shoe.shuffles if len(state.shoe) else state.shoe.shuffles + 1
            current = [i for i, (_, s) in enumerate(drawn) if s == shoe]
            seen = sum(int(HI_LO[DECK[drawn[i][0]].rank]) for i in current if i not in hidden)
            tens = sum(DECK[drawn[i][0]].rank >= 10 for i in current if i not in hidden)
        up, points, infos, hand = state.observation(0)
        action, memory = play(up, points, infos, state.ids[0], memory, hand)
        if state.is_bidding():
            known = counted.read_memory(memory)
            checked += (known.dealt, known.count, known.tens) == (len(current) % 156, seen, tens)
        state.apply_action(action)
    assert state.shoe.shuffles >= 10 and hidden and checked == len(state.records)


def test_policies_see_the_same_cards_and_a_chart_plays_alike(best):
    rng = np.random.default_rng(0)
    cards = FreshShoes(5_000, rng, decks=3)
    policy = FilePolicy(chart_module(best.chart, RULES))
    zero = np.zeros(5_000, np.int64)
    first, _, _ = play_round(policy, _Dealer(cards, 5_000), 5_000, RULES, rng, zero)
    again, _, _ = play_round(policy, _Dealer(cards, 5_000), 5_000, RULES, rng, zero)
    assert (first == again).all()  # a chart is deterministic given the cards
    dealt = cards.cards.reshape(5_000, -1)[:, : cards.filled.max()]
    counts = np.stack([(dealt == r).sum(axis=1) for r in range(1, 14)], axis=1)
    assert counts.max() <= 12  # three decks hold 12 cards of each rank


class Stacked:
    """Each row's cards as given (ranks), for the evaluator; the engine's shoe is stacked
    with the same ones."""

    def __init__(self, ranks: np.ndarray):
        self.ranks = ranks

    def card(self, rows: np.ndarray, k: np.ndarray) -> np.ndarray:
        return self.ranks[rows, k]


def test_the_evaluator_plays_each_round_card_for_card_as_the_engine():
    """On the same cards, a chart that splits every pair (so re-splits abound: their hands
    are played depth first, as the course engine plays them) and doubles where it says
    returns per row exactly what the engine pays."""
    rng = np.random.default_rng(11)
    rows, width = 3_000, 64
    ranks = rng.choice([1, 2, 3, 8, 8, 8, 10, 12, 13], size=(rows, width))
    chart = Chart(solve(RULES).chart.hand, np.ones((3, 11, 11), bool), np.zeros((32, 2, 2), bool))
    bot = ChartBot(chart, RULES)
    net, invalid, _ = play_round(
        BotPolicy(bot), _Dealer(Stacked(ranks), rows), rows, RULES, rng, np.zeros(rows, np.int64)
    )
    assert invalid == 0
    splits = 0
    for row in range(rows):
        state = new_game(RULES.replace(rounds=1), np.random.default_rng(row), ["a"])
        state.shoe.stack([CODE[Card(int(r), "S")] for r in ranks[row]])
        while not state.is_terminal():  # the bot on the engine's one path: its checks too
            state.apply_action(bot(state))
        splits += len(state.records[-1].rows) > 8
        assert state.points[0] - 10_000 == pytest.approx(10 * net[row]), row
    assert splits > 100  # many rounds split and re-split


def test_the_continuous_shoe_knows_its_count():
    rng = np.random.default_rng(3)
    shoe = ContinuousShoe(200, rng, 3)
    # (rank, shown) of every card dealt to each row: a row starts anywhere in its first
    # shoe, the cards before its start seen
    seen = [[(int(r), True) for r in shoe.cards[row, : shoe.head[row]]] for row in range(200)]
    assert len({len(s) for s in seen}) > 100
    for _ in range(60):
        dealt, count = shoe.before()
        for row in range(200):
            assert dealt[row] == len(seen[row]) % 156
            in_shoe = seen[row][len(seen[row]) - dealt[row] :] if dealt[row] else []
            assert count[row] == sum(int(HI_LO[r]) for r, shown in in_shoe if shown)
        used = rng.integers(4, 30, 200)
        unseen = np.flatnonzero(rng.random(200) < 0.3)
        for row in range(200):
            ranks = shoe.card(np.full(used[row], row), np.arange(used[row]))
            seen[row] += [(int(r), not (k == 1 and row in unseen)) for k, r in enumerate(ranks)]
        shoe.hide(unseen, 1)
        shoe.advance(used)


def test_evaluator_agrees_with_the_exact_values(best):
    baselines = baseline_policies(RULES)
    policies = {
        "best": FilePolicy(chart_module(best.chart, RULES)),
        "textbook": baselines["textbook"],
        "random": baselines["random"],
    }
    result = flat_returns(policies, RULES, 100_000, seed=3, decks=None, reference="best")
    low, high = result["best"]["return"]["ci95"]
    assert low <= best.ev <= high
    textbook = chart_value(RULES, _textbook_chart())
    low, high = result["textbook"]["return"]["ci95"]
    assert low <= textbook <= high
    assert result["best"]["best_minus_this"]["mean"] == 0.0  # paired: the same shoes
    assert result["textbook"]["best_minus_this"]["ci95"][0] > 0
    assert result["random"]["return"]["mean"] < -0.3
    assert all(r["invalid_actions"] == 0 for r in result.values())


def test_flat_bets_played_in_any_split_fold_to_the_same_figures(best):
    """The unit of work is a chunk of FLAT_CHUNK hands dealt from its own child of the
    seed: chunks played apart (in tasks of any size, through the harness's JSON) and folded
    in order give the bytes of one run."""
    baselines = baseline_policies(RULES)
    policies = {"best": FilePolicy(chart_module(best.chart, RULES)), "random": baselines["random"]}
    hands = 2 * FLAT_CHUNK + 1_000
    whole = flat_returns(policies, RULES, hands, seed=5, decks=3, reference="best")
    for split in ([range(0, 1), range(1, 3)], [range(0, 2), range(2, 3)]):
        played = [flat_sums(policies, RULES, span, hands, 5, 3, "best") for span in split]
        sent = json.loads(json.dumps([chunk for part in played for chunk in part]))
        assert fold(sent, "best").result() == whole
    assert whole["best"]["return"]["n"] == hands
    assert flat_returns(policies, RULES, hands, seed=6, decks=3, reference="best") != whole


def _textbook_chart():
    from mine.strategies.bots.twentyone import Textbook

    return chart_of_bot(Textbook(RULES), RULES)


def test_continuous_shoes_pair_every_round(best):
    policy = FilePolicy(chart_module(best.chart, RULES))
    twin = FilePolicy(chart_module(best.chart, RULES))
    result = continuous_returns({"a": policy, "b": twin}, RULES, 60_000, 1, "a", rows=3_000)
    assert result["b"]["a_minus_this"]["ci95"] == [0.0, 0.0]  # the same play, the same cards
    low, high = result["a"]["return"]["ci95"]
    assert low < best.ev < high


@pytest.fixture(scope="module")
def player(best, tmp_path_factory):
    path = tmp_path_factory.mktemp("val") / "player.py"
    write_module(path, Strategy(best.chart, BIDS, (), METADATA))
    return path


def test_validate_json_has_the_expected_fields(player, capsys):
    result = CliRunner().invoke(
        app,
        ["validate", "twentyone", str(player), "--hands", "20000", "--games", "2",
         "--shoe-hands", "20000", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    flat = report["flat_bet"]
    assert flat["hands"] == 20_000 and flat["decks"] == 3 and flat["invalid_actions"] == 0
    assert set(flat["baselines"]) == {"textbook", "dealer", "cautious", "random", "explorer"}
    for row in flat["baselines"].values():
        assert len(row["return"]["ci95"]) == 2 and len(row["player_minus_this"]["ci95"]) == 2
    assert set(flat["exact_optimum"]) == {"infinite_deck", "3_decks"}
    assert flat["exact_value_of_player_chart_infinite_deck"] == pytest.approx(
        flat["exact_optimum"]["infinite_deck"]
    )
    # the optimal chart itself, on 20,000 hands: the interval of its gap to the optimum spans
    # 0.005 on both sides, so the verdict is undecided, not "no"
    low, high = flat["gap_to_optimum"]["ci95"]
    assert low < 0.0 < 0.005 < high
    assert flat["within_0.005_of_optimum"] == "undecided"
    shoe = report["continuous_shoe"]
    assert shoe["hands"] == 20_000 and shoe["count_cells"] == 0
    assert shoe["gain_over_static_optimum"]["ci95"] == [0.0, 0.0]  # it is that chart
    games = report["games"]
    assert games["games"] == 2 and len(games["seats"]) == 10
    assert sum(games["players"]["player"]["rank_distribution"]) == 2
    assert "bid_gain_vs_flat_minimum" in games
    # the flat twin's rounds at its ten-seat table, and its insurance on each ace up card
    table = games["flat_bet_at_table"]
    assert table["rounds"] == 2 * games["rounds"] and len(table["ci95"]) == 2
    insurance = games["insurance_at_table"]
    aces = insurance["insured"]["ace_rounds"] + insurance["declined"]["ace_rounds"]
    assert 0 < aces < table["rounds"] / 5
    assert report["invalid_actions"] == 0
    assert 0 < report["decision_p99_cpu_seconds"] < 1
    # the card, given to `mine report twentyone --card`, draws the lead over every baseline
    leads = str(twentyone_page.strength(report).figures[-1])
    assert all(f"<title>{name}: " in leads for name in flat["baselines"])
    # and so `mine validate` prints it: undecided, with the interval and what would decide
    twentyone_commands.validated(report)
    printed = " ".join(capsys.readouterr().out.split())
    assert "NOT within" not in printed
    assert (
        f"undecided at this sample whether within 0.005 of it: the 95 % interval [{low:+.4f}, "
        f"{high:+.4f}] spans the bound (more than 20,000 hands would decide)"
    ) in printed


def test_validate_rejects_what_is_not_a_player(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(app, ["validate", "twentyone", str(tmp_path / "none.py")])
    assert missing.exit_code == 1 and "no such file" in missing.output
    other = tmp_path / "other.py"
    other.write_text("x = 1\n")
    assert runner.invoke(app, ["validate", "twentyone", str(other)]).exit_code == 1
    bad_rule = runner.invoke(app, ["validate", "twentyone", str(other), "--rules", "nope=1"])
    assert bad_rule.exit_code == 1


def test_check_measures_the_file_it_is_given(player, best, capsys):
    card = check(player, None, hands=5_000, seed=1)
    assert card["exact value of the static chart, infinite deck"] == pytest.approx(best.ev)
    assert card["exact optimum, infinite deck"] == pytest.approx(best.ev)
    flat = card["flat-bet return, 5000 hands of fresh 3-deck shoes"]
    low, high = card["95% CI low"], card["95% CI high"]
    assert low < flat < high
    assert card["reference rules"] == "engine defaults"
    # `mine generate` prints the sampled return with its interval, and where the optimum lies
    twentyone_commands.generated(player, card)
    printed = " ".join(capsys.readouterr().out.split())
    where = "inside" if low <= best.ev <= high else "above" if best.ev > high else "below"
    assert (
        f"flat-bet return {flat:+.4f} [{low:+.4f}, {high:+.4f}] per unit of bid (95 % "
        f"interval, 5,000 hands of fresh 3-deck shoes); the exact optimum {best.ev:+.4f} "
        f"(infinite deck) lies {where} it"
    ) in printed


def test_failure_is_one_line_naming_the_first_invalid_game():
    assert failure({"player": "p.py", "invalid_actions": 0}) is None
    games = {"disqualified": ["game 3: raised KeyError: 1", "game 7: took 2 s"]}
    line = failure({"player": "p.py", "invalid_actions": 2, "games": games})
    assert line.startswith("p.py: 2 games lost to invalid actions (first, game 3: raised")
    assert "\n" not in line


def chart_of_bot(bot, rules: TwentyOneRules) -> Chart:
    """The chart a deterministic bot plays (its `decide` on every situation), for its
    exact value."""
    chart = Chart.empty()
    for ctx in range(3):
        for up in range(1, 11):
            for soft in (0, 1):
                for total in range(4, 32):
                    for n in range(2, 6):
                        legal = CAN_STAND | CAN_HIT
                        if n == 2:
                            legal |= CAN_DOUBLE
                        chart.hand[ctx, up, total, soft, n - 2] = bot.decide(
                            up, total, bool(soft), n, 0, legal
                        )
            for x in range(1, 11):
                total, soft = (12, True) if x == 1 else (2 * x, False)
                legal = CAN_STAND | CAN_HIT | CAN_DOUBLE | CAN_SPLIT
                chart.split[ctx, up, x] = bot.decide(up, total, soft, 2, x, legal) == SPLIT
    for total in range(4, 22):
        for soft in (0, 1):
            for pair in (0, 1):
                legal = CAN_STAND | CAN_HIT | CAN_DOUBLE | CAN_INSURE | (CAN_SPLIT if pair else 0)
                chart.insure[total, soft, pair] = (
                    bot.decide(1, total, bool(soft), 2, 1 if pair else 0, legal) == INSURANCE
                )
    return chart


def test_a_tables_flat_rounds_add_up_to_the_points_of_the_game(best):
    """The flat twin's rounds at the ten-seat table: one a round it was dealt into, their
    nets (per unit of its minimum bid) adding up to its points at the end, and one ace
    record for each ace up card it saw."""
    rules = RULES.replace(rounds=80)
    played = games_played(chart_module(best.chart, rules), rules, range(1), 4,
                          flat_twin=chart_module(best.chart, rules))  # fmt: skip
    assert played["gains"] == [0]  # the same flat file twice: the same game
    assert len(played["flat"]) == rules.rounds
    net = played["points"]["player"][0] - rules.starting_points
    assert sum(played["flat"]) * rules.min_bid == pytest.approx(net)
    assert 0 < len(played["aces"]) < rules.rounds / 4


RUN = " (a generated player's true counts run -10..10)"


@pytest.mark.parametrize(("line", "says"), [
    ("TC_LIMIT = -5", "TC_LIMIT is -5, not 10" + RUN),  # numpy's 'negative dimensions …'
    ("TC_LIMIT = 10**6", "TC_LIMIT is 1000000, not 10" + RUN),  # a MemoryError 'in the harness'
    ("TC_LIMIT = 'x'", "TC_LIMIT is 'x', not 10" + RUN),
    ("BIDS = 5", "tables do not have the shape of a TwentyOne chart"),  # a TypeError
    ("BY_COUNT = 5", "tables do not have the shape of a TwentyOne chart"),  # AttributeError
    ("BIDS = (10,) * 5", "tables do not have the shape of a TwentyOne chart"),
])  # fmt: skip
def test_a_generated_file_edited_out_of_a_charts_shape_is_refused_in_one_line(
    best, tmp_path, line, says
):
    """Its tables are measured as a chart's (the evaluator's arrays), so a hand-edited
    one ended in numpy's or Python's words, most 'in the harness'."""
    path = tmp_path / "edited.py"
    write_module(path, Strategy(best.chart, BIDS, (), METADATA))
    name = line.split(" = ")[0]
    source = re.sub(rf"(?m)^{name} = .*(\n[ )\]}}].*)*$", line, path.read_text(), count=1)
    assert line in source
    path.write_text(source)
    with pytest.raises(PlayerFileError) as refused:
        load_player(path)
    assert str(refused.value) == f"{path}: {says}"
