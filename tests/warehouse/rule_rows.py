"""The problem rows verification gives on a fixed corpus, every game: the golden file
`rule_rows.json` that holds the rules' replay to what the SQL rule checks gave.

The corpus of each game: the repository's real logs (`examples/logs`, byte copies of
`../shared/fixtures`'), the fuzz test's bases and mutants (seeded), the rules test's
broken logs, and for the games the mutator does not know, seeded off-by-one numbers.
For each log it records every problem row the rules give (role, line, reason: of the
logs whose rows are well formed and consistent, as the rules are replayed only over
those) and the one error line `mine ingest` gives.

    .venv/bin/python -m tests.warehouse.rule_rows    # rewrite rule_rows.json
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import duckdb

from mine import games
from mine.parsers.csvlog import pair_paths
from mine.warehouse import ingest as ingesting
from mine.warehouse import schema
from tests.data.mutate import Base, Mutator
from tests.warehouse import test_fuzz, test_rules

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("rule_rows.json")
SEED = 2026
MUTANTS = 520
OFF_BY = 80  # mutants of each game the mutator does not know


def _real(game: str) -> list[Base]:
    found = []
    for turns in sorted((REPO / "examples" / "logs" / game).glob("*.csv")):
        if turns.name.endswith("-score.csv"):
            continue
        scores = pair_paths(turns.parent, turns.stem)[1]
        found.append(
            Base(game, f"real-{turns.stem}", turns.read_text().splitlines(),
                 scores.read_text().splitlines())
        )  # fmt: skip
    return found


def _off_by(rng: random.Random, base: Base, number: int) -> Base:
    """A number field of one row a little off (the format still holds)."""
    turns, scores = list(base.turns), list(base.scores)
    rows = rng.choice((turns, scores))
    index = rng.randrange(len(rows))
    fields = rows[index].split(",")
    numeric = [i for i, f in enumerate(fields) if f.isdigit()]
    column = rng.choice(numeric)
    fields[column] = str(max(0, int(fields[column]) + rng.choice((-2, -1, 1, 2))))
    rows[index] = ",".join(fields)
    return Base(base.game, f"off{number:03d}-{base.stem}", turns, scores)


def _broken(game: str) -> list[Base]:
    """The rules test's cases: one broken rule each."""
    found = []
    for case in test_rules.CASES.get(game, ()):
        if game == "hog":
            turns, scores = test_rules._hog()
        else:
            turns, scores = test_rules._copy(test_rules.SOURCES[game])
        case(turns, scores)
        found.append(Base(game, f"case-{case.__name__}", turns, scores))
    return found


def corpus() -> dict[str, list[Base]]:
    """Every game's logs, the same each time."""
    rng = random.Random(SEED)
    bases = test_fuzz.bases(rng)
    by_game: dict[str, list[Base]] = {}
    for base in bases:
        by_game.setdefault(base.game, []).append(base._replace(stem=f"base-{base.stem}"))
    mutator = Mutator(rng)
    for i in range(MUTANTS):
        base = rng.choice(bases)
        others = [b for b in bases if b.game == base.game]
        other = rng.choice(others)
        mutant = mutator.mutate(base, other if other is not base else None)
        stem = f"m{i:04d}-{mutant.kind}"
        by_game[base.game].append(Base(base.game, stem, mutant.turns, mutant.scores))
    found = {}
    for game in games.with_part("schema"):
        logs = _real(game.name) + by_game.get(game.name, []) + _broken(game.name)
        if game.name not in by_game:
            reals = _real(game.name)
            logs += [_off_by(rng, rng.choice(reals), n) for n in range(OFF_BY)]
        found[game.name] = logs
    return found


def write(folder: Path, logs: list[Base]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for log in logs:
        turns, scores = pair_paths(folder, log.stem)
        turns.write_bytes("".join(row + "\r\n" for row in log.turns).encode())
        scores.write_bytes("".join(row + "\r\n" for row in log.scores).encode())


def staged_problems(folder: Path, game: str) -> dict[str, list[list]]:
    """Every problem row the rules give, by stem, for the logs of `folder` whose rows are
    well formed and consistent (the logs the rules are replayed over)."""
    module = games.get(game).module("schema")
    files, _ = ingesting.find_files([folder])
    pairs, _ = ingesting.pair_files(files)
    aside = Path(tempfile.mkdtemp(prefix="rule-rows-", dir=folder))
    for log_id, pair in enumerate(pairs, 1):
        pair.log_id = log_id
        for log in pair.files:
            log.read(aside)
    pairs = [p for p in pairs if not (p.turns.problem or p.scores.problem)]
    con = duckdb.connect()
    schema.ensure(con)
    checks = getattr(module, "ROW_CHECKS", {})
    broken = set()
    for role in ("turns", "scores"):
        fmt = getattr(module.FORMAT, role.upper())
        ingesting._stage(con, role, fmt, checks.get(role, ()), pairs)
        broken |= {r[0] for r in con.execute(f"SELECT log_id FROM stage_{role} WHERE NOT sound")
                   .fetchall()}  # fmt: skip
        rows = dict(con.execute(f"SELECT log_id, rows FROM stage_{role}_files").fetchall())
        broken |= {p.log_id for p in pairs if rows.get(p.log_id, 0) != getattr(p, role).lines}
    broken |= {r[0] for r in con.execute(f"SELECT log_id FROM ({module.CHECKS})").fetchall()}
    clean = {p.log_id: p.stem for p in pairs if p.log_id not in broken}
    found: dict[str, list[list]] = {stem: [] for stem in clean.values()}
    for log_id, role, line, reason in ingesting.rule_problems(con, module, sorted(clean)):
        found[clean[log_id]].append([role, line, reason])
    return {stem: sorted(rows) for stem, rows in sorted(found.items())}


def ingest_errors(folder: Path, game: str) -> dict[str, str | None]:
    """The error line `mine ingest` gives for each pair (its folder left out)."""
    con = duckdb.connect()
    summary = ingesting.ingest(con, [folder], game=game)
    prefix = f"{folder}/"
    return {
        pair.stem: str(pair.error).replace(prefix, "") if pair.error else None
        for pair in sorted(summary.pairs, key=lambda p: p.stem)
    }


def rows_of(game: str, logs: list[Base], root: Path) -> dict:
    folder = root / game
    write(folder, logs)
    return {"rows": staged_problems(folder, game), "errors": ingest_errors(folder, game)}


def build(root: Path) -> dict:
    return {game: rows_of(game, logs, root) for game, logs in corpus().items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        found = build(Path(root))
    GOLDEN.write_text(json.dumps(found, indent=0, ensure_ascii=False, sort_keys=True) + "\n")
    for game, parts in found.items():
        flagged = sum(1 for rows in parts["rows"].values() if rows)
        print(f"{game}: {len(parts['rows'])} logs replayed, {flagged} with problem rows")


if __name__ == "__main__":
    main()
