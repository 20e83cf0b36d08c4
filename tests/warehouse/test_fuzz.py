"""Mutated copies of real and simulated logs, ingested among good ones: each is rejected
naming its file and the right line with nothing of it landed, or lands exactly as a valid
log does. `make fuzz` runs more (MINE_FUZZ_PAIRS, MINE_FUZZ_SEED)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import duckdb

from mine import games
from mine.parsers import ginrummy, hog, twentyone
from mine.parsers.csvlog import pair_paths
from mine.warehouse.ingest import ingest
from tests.conftest import REAL_GINRUMMY, REAL_TWENTYONE
from tests.data import synth
from tests.data.mutate import Base, Mutant, Mutator, unit

PAIRS = int(os.environ.get("MINE_FUZZ_PAIRS", "520"))
SEED = int(os.environ.get("MINE_FUZZ_SEED", "2026"))
FORMATS = {"twentyone": twentyone, "ginrummy": ginrummy, "hog": hog}


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def _first_rounds(game: str, stem: str, turns: Path, scores: Path, rounds: int) -> Base:
    """A real log cut after `rounds` rounds: still a valid log."""
    kept = [row for row in _lines(turns) if unit(row) <= rounds]
    return Base(game, stem, kept, _lines(scores)[:rounds])


def _simulated(game: str, stem: str, log) -> Base:
    turns, scores = log
    module = FORMATS[game]
    return Base(
        game,
        stem,
        [",".join(map(str, module.turn_fields(t))) for t in turns],
        [",".join(map(str, module.score_fields(s))) for s in scores],
    )


def bases(rng: random.Random) -> list[Base]:
    found = []
    # The real fixtures as the repository carries them (byte copies of ../shared/fixtures').
    for game, folder in (("twentyone", REAL_TWENTYONE), ("ginrummy", REAL_GINRUMMY)):
        turn_files = sorted(folder.glob("*.csv"))
        assert turn_files, f"no real logs in {folder}"
        for turns in turn_files:
            if not turns.name.endswith("-score.csv"):
                scores = pair_paths(turns.parent, turns.stem)[1]
                found.append(_first_rounds(game, turns.stem, turns, scores, rng.randint(2, 5)))
    for i in range(4):
        found.append(_simulated("twentyone", f"sim{i}", synth.twentyone_game(rng, 4, 4)))
        found.append(_simulated("ginrummy", f"sim{i}", synth.ginrummy_game(rng, 1)))
        found.append(_simulated("hog", f"sim{i}", synth.hog_game(rng, 3)))
    return found


def _write(folder: Path, stem: str, turns: bytes, scores: bytes) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    turn_path, score_path = pair_paths(folder, stem)
    turn_path.write_bytes(turns)
    score_path.write_bytes(scores)
    return turn_path, score_path


def _as_bytes(rows: list[str]) -> bytes:
    return "".join(row + "\r\n" for row in rows).encode()


def test_mutated_logs_are_rejected_at_their_line_or_land_whole(tmp_path):
    rng = random.Random(SEED)
    good = bases(rng)
    by_game: dict[str, list[Base]] = {}
    for base in good:
        by_game.setdefault(base.game, []).append(base)
        _write(tmp_path / "good" / base.game, base.stem, *map(_as_bytes, base[2:]))
    mutator = Mutator(rng)
    mutants: dict[str, tuple[Mutant, Path, Path]] = {}
    for i in range(PAIRS):
        base = rng.choice(good)
        other = rng.choice(by_game[base.game])
        mutant = mutator.mutate(base, other if other is not base else None)
        stem = f"m{i:05d}-{mutant.kind}{mutant.name}"
        paths = _write(tmp_path / "mutants", stem, mutant.data("turns"), mutant.data("scores"))
        mutants[stem] = (mutant, *paths)

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    summary = ingest(con, [tmp_path])

    outcomes = {pair.stem: pair for pair in summary.pairs}
    assert all(outcomes[base.stem].outcome == "new" for base in good if base.stem in outcomes)
    assert sum(1 for p in summary.pairs if "good" in str(p.turns.path)) == len(good)
    assert all(
        p.outcome in ("new", "unchanged") for p in summary.pairs if "good" in str(p.turns.path)
    )

    problems = []
    rejected = 0
    for stem, (mutant, turn_path, score_path) in mutants.items():
        pair = outcomes[stem]
        if pair.outcome == "rejected":
            rejected += 1
            error = pair.error
            role = {turn_path: "turns", score_path: "scores"}.get(Path(error.path))
            placed = role is not None and (
                mutant.allowed is None or (role, error.line) in mutant.allowed
            )
            if not placed or "\n" in str(error):
                problems.append(f"{mutant.kind}: wrong place {error} (allowed {mutant.allowed})")
        elif mutant.must_reject:
            problems.append(f"{mutant.kind}: {stem} breaks the rules but landed")
        else:
            problems += _landed_whole(con, mutant, pair)
    problems += _nothing_of_rejected(con, summary)
    assert not problems, f"{len(problems)} of {len(mutants)}:\n" + "\n".join(problems[:20])
    assert rejected > len(mutants) // 2  # most mutants break something


def _landed_whole(con, mutant: Mutant, pair) -> list[str]:
    """The log's rows in the warehouse are its files' lines, one for one."""
    module = games.get(mutant.game).module("schema")
    turn_table, score_table = module.TABLES[0], module.TABLES[-1]
    got = con.execute(
        f"""
        SELECT (SELECT count(*) FROM {turn_table} WHERE log_id = $id),
               (SELECT count(*) FROM {score_table} WHERE log_id = $id),
               (SELECT turn_rows FROM logs WHERE log_id = $id),
               (SELECT score_rows FROM logs WHERE log_id = $id)
        """,
        {"id": pair.log_id},
    ).fetchone()
    expected = (len(mutant.turns), len(mutant.scores)) * 2
    return [] if got == expected else [f"{mutant.kind}: landed {got}, files hold {expected}"]


def _nothing_of_rejected(con, summary) -> list[str]:
    """Every row of every game table belongs to a landed log."""
    stray = []
    for game in games.with_part("schema"):
        for table in game.module("schema").TABLES:
            count = con.execute(
                f"SELECT count(*) FROM {table} WHERE log_id NOT IN (SELECT log_id FROM logs)"
            ).fetchone()[0]
            if count:
                stray.append(f"{table}: {count} rows of no landed log")
    landed = {p.log_id for p in summary.pairs if p.outcome in ("new", "unchanged")}
    in_logs = {row[0] for row in con.execute("SELECT log_id FROM logs").fetchall()}
    if landed != in_logs:
        stray.append(
            f"logs table {sorted(in_logs - landed)[:5]} vs landed {sorted(landed - in_logs)[:5]}"
        )
    return stray
