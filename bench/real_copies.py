"""A corpus of real TwentyOne logs: copies of `../shared/fixtures`' course-engine and
student logs, each copy a log of its own.

Copy k of a pair renames every player id `p` to `k-p` (the dealer keeps its name), in the
turn file only: the score file lists the other players by id as text, and one prefix for
all keeps their order, so each copy is still a valid log, with content no other copy has
(ingest keeps a content once). Lines keep the server's CRLF.

    .venv/bin/python bench/real_copies.py OUT [--rows 10000000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures"
SOURCES = ("twentyone-engine-2021", "twentyone-students-2021")


def pairs() -> list[tuple[str, bytes, bytes]]:
    """(stem, turns, scores) of every real TwentyOne log."""
    found = []
    for source in SOURCES:
        for turns in sorted((FIXTURES / source).glob("*.csv")):
            if turns.name.endswith("-score.csv"):
                continue
            scores = turns.with_name(turns.stem + "-score.csv")
            found.append((turns.stem, turns.read_bytes(), scores.read_bytes()))
    return found


def renamed(turns: bytes, copy: int) -> bytes:
    """The turn file with player ids prefixed by `copy` (column 3; `dealer` stays)."""
    prefix = f"{copy}-".encode()
    out = []
    for line in turns.splitlines(keepends=True):
        fields = line.split(b",", 3)
        if fields[2] != b"dealer":
            fields[2] = prefix + fields[2]
        out.append(b",".join(fields))
    return b"".join(out)


def build(folder: Path, rows: int) -> tuple[int, int, int]:
    """Copies until the corpus holds `rows` lines; (pairs, rows, bytes) written."""
    folder.mkdir(parents=True, exist_ok=True)
    logs = pairs()
    written = size = count = 0
    copy = 0
    while written < rows:
        for stem, turns, scores in logs:
            if written >= rows:
                break
            data = renamed(turns, copy)
            (folder / f"c{copy:04d}-{stem}.csv").write_bytes(data)
            (folder / f"c{copy:04d}-{stem}-score.csv").write_bytes(scores)
            written += data.count(b"\n") + scores.count(b"\n")
            size += len(data) + len(scores)
            count += 1
        copy += 1
    return count, written, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, default=10_000_000)
    options = parser.parse_args()
    if options.out.exists() and any(options.out.iterdir()):
        print(f"{options.out}: not empty", file=sys.stderr)
        return 1
    count, rows, size = build(options.out, options.rows)
    print(f"{count} pairs, {rows:,} rows, {size / 1e6:.0f} MB in {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
