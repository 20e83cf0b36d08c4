"""Card-guessing logs in the warehouse: what lands, and every rule ingest replays (a wrong
feedback, guesses out of order, a score file that disagrees) rejects its file with the
line, while the rest of the batch lands."""

from __future__ import annotations

import shutil

import pytest

from mine.strategies.bots.cardguess import make_bot
from mine.strategies.engines.cardguess import CardGuessRules
from mine.strategies.engines.simulation import simulate
from mine.warehouse.ingest import ingest
from tests.mine_cli import here


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cardguess")
    for n, games in ((2, 40), (3, 10)):  # seed n: cardguess-greedy-s2 and -s3
        simulate("cardguess", CardGuessRules(n=n), ["greedy"], games, n, folder, make_bot=make_bot)
    return folder


def test_good_logs_land_with_their_views(logs, warehouse):
    _, con = warehouse
    summary = ingest(con, [logs])
    assert summary.ok and summary.count("new") == 2
    games = con.execute("SELECT count(*), sum(n), sum(guesses) FROM cardguess_games").fetchone()
    guesses = con.execute("SELECT count(*), count(*) FILTER (WHERE solved) FROM cardguess_turns")
    assert games[0] == 50
    assert guesses.fetchone() == (games[2], 50)
    cards = con.execute("SELECT count(*), min(rank), max(rank) FROM cardguess_answer_cards")
    total, low, high = cards.fetchone()
    assert total == games[1] and low >= 2 and high <= 14
    assert ingest(con, [logs]).count("unchanged") == 2


def _broken(logs, tmp_path, edit):
    """A copy of the n = 2 pair with `edit(lines)` applied to its turn (or score) lines."""
    folder = tmp_path / "batch"
    shutil.copytree(logs, folder)
    edit(folder)
    return folder


def _edit_line(path, number, change):
    lines = path.read_bytes().split(b"\r\n")
    lines[number - 1] = change(lines[number - 1].decode()).encode()
    path.write_bytes(b"\r\n".join(lines))


def _wrong_feedback(folder):
    def change(line):
        fields = line.split(",")
        fields[9] = str((int(fields[9]) + 1) % 3)  # suits, still a valid number for n = 2
        return ",".join(fields)

    _edit_line(folder / "cardguess-greedy-s2.csv", 2, change)


def _next_guess_after_the_answer(folder):
    """Game 1 guesses once more after finding the answer (on line 4 of the fixture)."""
    path = folder / "cardguess-greedy-s2.csv"
    lines = path.read_bytes().split(b"\r\n")
    found = [line.decode().split(",") for line in lines if line.startswith(b"1,")][-1]
    assert len([line for line in lines if line.startswith(b"1,")]) == 4
    found[3] = str(int(found[3]) + 1)
    path.write_bytes(b"\r\n".join([*lines[:4], ",".join(found).encode(), *lines[4:]]))


def _score_disagrees(folder):
    _edit_line(
        folder / "cardguess-greedy-s2-score.csv", 3, lambda line: line.rsplit(",", 1)[0] + ",9"
    )


@pytest.mark.parametrize(
    ("edit", "line", "reason"),
    [
        (_wrong_feedback, 2, "is wrong for answer"),
        (_next_guess_after_the_answer, 4, "is the answer but the game goes on"),
        (_score_disagrees, 3, "guesses in the turn file, not 9"),
    ],
)
def test_a_broken_rule_rejects_its_file_and_the_rest_lands(
    logs, tmp_path, warehouse, edit, line, reason
):
    _, con = warehouse
    folder = _broken(logs, tmp_path, edit)
    summary = ingest(con, [folder])
    assert summary.count("rejected") == 1 and summary.count("new") == 1
    (error,) = summary.errors
    assert f"cardguess-greedy-s2{'-score' if edit is _score_disagrees else ''}.csv:{line}:" in str(
        error
    )
    assert reason in str(error)
    landed = con.execute("SELECT DISTINCT n FROM cardguess_games").fetchall()
    assert landed == [(3,)]  # the good n = 3 file only


def test_the_cli_says_file_line_reason_and_fails(logs, tmp_path):
    folder = _broken(logs, tmp_path, _wrong_feedback)
    result = here("ingest", folder, "--db", tmp_path / "w.duckdb")
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    said = [line for line in result.stderr.splitlines() if not line.startswith("next: ")]
    assert len(said) == 1 and said[0].startswith("rejected ")  # the other logs landed
    assert "cardguess-greedy-s2.csv:2: feedback" in said[0]
