"""TwentyOne logs written by the engine's `log_rows`: they parse back to the rows, follow the
spec's row rules, and `mine simulate twentyone` writes the same bytes for the same seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mine.parsers.cards import hand_value
from mine.parsers.twentyone import Turn, read_scores, read_turns
from mine.pipeline.cli import app
from mine.strategies.bots.twentyone import make_bot
from mine.strategies.engines.twentyone import CODE as CARD_CODE
from mine.strategies.engines.twentyone import TwentyOneRules, log_rows, new_game
from tests.mine_cli import here, one_line_error
from tests.strategies.twentyone_games import play, write

SEATS = ("textbook", "random", "explorer:dealer:0.3", "cautious", "random")


def game(seed: int, rounds: int = 60, seats=SEATS):
    rules = TwentyOneRules(rounds=rounds, starting_points=600)
    rngs = np.random.default_rng(seed).spawn(len(seats) + 1)
    players = {
        str(i + 1): make_bot(s, rules, r)
        for i, (s, r) in enumerate(zip(seats, rngs[1:], strict=True))
    }
    return play(rules, players, rngs[0])


def total(hand: tuple) -> int:
    return hand_value(hand)[0]


def check_round(turns: list[Turn], me: str) -> None:
    """The spec's row-order rules for one round."""
    upcards = {t.upcard for t in turns}
    assert len(upcards) == 1
    kinds = [
        ("bid" if t.action == "Bid" else "dealer" if t.player == "dealer" else "play")
        for t in turns
    ]
    assert kinds == sorted(kinds, key=["bid", "play", "dealer"].index)
    bids = [t for t in turns if t.action == "Bid"]
    assert all(t.hand == () and 1 <= t.bid <= 100 for t in bids)
    order = [t.player for t in bids]
    players = [t.player for t in turns if t.player != "dealer" and t.action != "Bid"]
    seen = list(dict.fromkeys(players))
    assert seen == [p for p in order if p in seen]  # seat order, each seat's rows together
    last: dict[tuple[str, int], Turn] = {}
    for t in turns:
        assert t.mine == (t.player == me)
        if t.player == "dealer" or t.action == "Bid":
            continue
        key = (t.player, t.hand_id)
        before = last.get(key)
        if before is not None:
            # no row follows a hand that busts or reaches 5 cards
            assert total(before.hand) <= 21 and len(before.hand) < 5
            if before.action == "Split":  # a split hand is [original card, new card]
                assert t.hand[-2] == before.hand[0]
            elif t.action == "Hit":
                assert t.hand[1:] == before.hand  # newest card first
            if t.action == "DoubleDown":
                assert t.bid == 2 * before.bid
        last[key] = t
        hand_ids = [h for (p, h) in last if p == t.player]
        assert hand_ids == sorted(hand_ids)
    dealer = [t for t in turns if t.player == "dealer"]
    assert dealer[-1].action == "Stand" and all(t.action == "Hit" for t in dealer[:-1])
    assert all(t.bid == 0 and t.hand_id == 0 and not t.mine for t in dealer)
    if len(dealer[-1].hand) == 1:  # the dealer did not play: every hand bust
        assert dealer[-1].hand == (dealer[-1].upcard,)
        assert all(total(t.hand) > 21 for t in last.values())
    else:
        assert dealer[-1].hand[-2] == dealer[-1].upcard  # the first two keep deal order
        for a, b in zip(dealer, dealer[1:], strict=False):
            assert b.hand[1:] == a.hand or b.hand == a.hand


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["1", "2", "3"]))
def test_engine_logs_parse_and_follow_the_row_rules(tmp_path_factory, seed: int, me: str):
    folder = tmp_path_factory.mktemp("logs")
    state = game(seed)
    turn_path, score_path = write(state, me, folder, "g")
    turns = list(read_turns(turn_path))
    scores = list(read_scores(score_path))
    rounds: dict[int, list[Turn]] = {}
    for t in turns:
        rounds.setdefault(t.round, []).append(t)
    assert list(rounds) == sorted(rounds)
    for rows in rounds.values():
        check_round(rows, me)
    assert [s.round for s in scores] == list(range(1, len(state.records) + 1))
    others = sorted(i for i in state.ids if i != me)
    final = dict(zip(state.ids, state.points, strict=True))
    assert scores[-1].points == final[me]
    assert scores[-1].others == tuple(final[i] for i in others)


def test_the_rows_written_read_back_from_every_seat(tmp_path: Path) -> None:
    state = game(11, rounds=200)
    for me in state.players:
        turns, scores = log_rows(state, 1, me)
        paths = write(state, me, tmp_path, f"g{me}")
        assert list(read_turns(paths[0])) == turns and list(read_scores(paths[1])) == scores
        assert sum(t.mine for t in turns) == sum(
            row[1] == state.players.index(me) for r in state.records for row in r.rows
        )
    assert paths[0].read_bytes().endswith(b"\r\n")


def test_split_rows_match_the_spec_example(tmp_path: Path) -> None:
    """The spec's example shape: Split row shows the pair, hands are [original, new]."""
    from mine.strategies.engines.twentyone import Bid, DoubleDown, Hit, Split, Stand

    state = new_game(TwentyOneRules(rounds=1), np.random.default_rng(0), ["2"], seated=True)
    codes = [CARD_CODE[c] for c in read_cards("H6 HQ S7 H7 C9 H4 H3 S4")]
    state.shoe.stack(codes)
    for action in (Bid(40), Split(40), Stand(), DoubleDown(40), Hit(), Stand()):
        state.apply_action(action)
    path, _ = write(state, "2", tmp_path, "ex")
    lines = path.read_text().splitlines()
    assert lines[1:] == [
        "1,S7;H7,2,1,0,Split,40,H6",
        "1,S7;C9,2,1,0,Stand,40,H6",
        "1,H7;H4,2,1,1,DoubleDown,80,H6",
        "1,H3;H7;H4,2,1,1,Hit,80,H6",
        "1,H3;H7;H4,2,1,1,Stand,80,H6",
        "1,S4;H6;HQ,dealer,0,0,Hit,0,H6",
        "1,S4;H6;HQ,dealer,0,0,Stand,0,H6",
    ]


def read_cards(text: str):
    from mine.parsers.cards import parse_course

    return [parse_course(c) for c in text.split()]


@pytest.mark.parametrize("extra", [[], ["--rules", "charlie=off", "--rules", "decks=1"]])
def test_simulate_is_deterministic(tmp_path: Path, extra: list[str]) -> None:
    runner = CliRunner()
    outputs = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        out = tmp_path / name
        args = [
            "simulate",
            "twentyone",
            "--games",
            "2",
            "--rules",
            "rounds=30",
            "--seed",
            str(seed),
        ]
        result = runner.invoke(app, [*args, "--out", str(out), "--json", *extra])
        assert result.exit_code == 0, result.output
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) == 4
    assert outputs[0] != outputs[2]


def test_simulate_rejects_bad_input_with_one_line(tmp_path: Path) -> None:
    for args, message in (
        (["--players", "textbook,nobody"], "unknown bot 'nobody'"),
        (["--rules", "decks"], "bad rule 'decks'"),
        (["--rules", "min_bid=500"], "min_bid"),
    ):
        result = here("simulate", "twentyone", "--out", tmp_path, *args)
        assert message in one_line_error(result, code=1)
    result = here("simulate", "twentyone", "--out", tmp_path, "--me", "10")  # ten seats at most
    assert "less than or equal to 9" in one_line_error(result, code=2)
