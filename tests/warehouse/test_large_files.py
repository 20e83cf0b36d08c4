"""A file large enough that DuckDB reads it on several threads still lands in line order."""

import random

import duckdb

from mine.parsers import twentyone
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse.ingest import ingest
from tests.data import synth
from tests.mine_cli import here


def test_a_large_match_keeps_every_line_in_place(tmp_path):
    logs = tmp_path / "logs"
    # 21,500 games make a turn file just over the 16 MiB asserted below (17.5 MB): a larger
    # file spans more of the reader's buffers, not different ones. The simulation runs in
    # this process (here: mine's own entry point); the test is about the file it writes.
    simulated = here("simulate", "hog", "--games", 21500, "--players", "always_roll:6,random",
                     "--seed", 3, "--out", logs)  # fmt: skip
    assert simulated.returncode == 0, simulated.stderr
    (turn_file,) = [p for p in logs.glob("*.csv") if not p.stem.endswith("-score")]
    assert turn_file.stat().st_size > 16 * 1024 * 1024  # several of DuckDB's read buffers

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [logs])
    assert summary.ok, summary.errors
    # Each stored row, written back as the game wrote it, must be its line of the file.
    got = con.execute(
        """
        SELECT concat_ws(',', game, turn, player, score, opponent_score, num_rolls,
                         array_to_string(outcomes, ';'), points, new_score)
        FROM hog_turns ORDER BY line
        """
    ).fetchall()
    assert [row[0] for row in got] == turn_file.read_text().splitlines()


def test_twentyone_pairs_of_one_batch_keep_every_line(tmp_path):
    """Several files read together, one spanning several read buffers, each keep their lines."""
    logs = tmp_path / "logs"
    rng = random.Random(5)
    # rounds; "big" spans several buffers: 23,000 rounds are just over the 16 MiB asserted
    # below (17.9 MB), and more would only span more of them
    sizes = {"big": 23000, "small": 30, "middle": 3000}
    paths = {}
    for stem, rounds in sizes.items():
        turns, scores = synth.twentyone_game(rng, rounds=rounds, players=10)
        paths[stem] = synth.write_pair(logs, stem, twentyone, turns, scores)
    assert paths["big"][0].stat().st_size > 16 * 1024 * 1024

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    # More rounds than the default rules' game: the rules say how long a game may be.
    rules = {"twentyone": TwentyOneRules(rounds=max(sizes.values()))}
    summary = ingest(con, [logs], rules=rules)
    assert summary.ok and summary.count("new") == 3, summary.errors
    for stem, (turn_file, score_file) in paths.items():
        # Each stored row, written back as the server wrote it, must be its line of the file.
        got = con.execute(
            """
            SELECT concat_ws(',', round, array_to_string(hand, ';'), player,
                             CASE WHEN mine THEN '1' ELSE '0' END, hand_id,
                             action || coalesce(' ' || amount, ''), bid, upcard)
            FROM twentyone_turns JOIN logs USING (log_id) WHERE stem = ? ORDER BY line
            """,
            [stem],
        ).fetchall()
        assert [row[0] for row in got] == turn_file.read_text().splitlines()
        points = con.execute(
            "SELECT round, points FROM twentyone_round_points JOIN logs USING (log_id) "
            "WHERE stem = ? ORDER BY round",
            [stem],
        ).fetchall()
        assert points == [
            (s.round, [s.points, *s.others]) for s in twentyone.read_scores(score_file)
        ]
