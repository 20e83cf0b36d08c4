"""What `mine <verb> cardguess` prints: the statistics per n and log, the fitted trees'
provenance, a player's report card against the baselines on the same answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from mine.pipeline.console import console, show, show_pairs
from mine.pipeline.stats.cardguess import CardGuessStats, headline
from mine.strategies.engines.cardguess import SIZES
from mine.strategies.solvers.cardguess import Trees


def stats(stats: CardGuessStats) -> None:
    rate, two = "{:.3f}".format, "{:.2f}".format
    show(
        stats.guess_summary.to_dicts(),
        "guesses per game by n and log",
        {"n": "n", "log": "log", "games": "games", "mean": "mean", "most": "most"},
        {"mean": "{:.4f}".format},
    )
    show(distribution_rows(stats.guesses), "games by number of guesses")
    show(stats.candidates.to_dicts(), "candidates left after each guess (replayed)",
         {"n": "n", "log": "log", "guess_no": "guess", "games": "games",
          "mean_left": "mean left", "most_left": "most left"},
         {"mean_left": two})  # fmt: skip
    show(
        stats.answer_ranks.to_dicts(),
        "answer ranks",
        {"rank": "rank", "times": "times", "share": "share", "uniform_share": "uniform"},
        {"share": rate, "uniform_share": rate},
        f"chi-square p-value of the 52 card counts under a uniform answerer: "
        f"{headline(stats)['answers_uniform_p_value']:.4g}",
    )
    show(stats.first_guess.to_dicts(), "first guesses",
         {"n": "n", "log": "log", "guess": "guess", "games": "games",
          "expected_left_uniform": "expected left", "observed_left": "observed left"},
         {"expected_left_uniform": two, "observed_left": two})  # fmt: skip


def distribution_rows(per_game: pl.DataFrame) -> list[dict[str, Any]]:
    """A row per n and log, a column per number of guesses: the games that took it."""
    rows: dict[tuple, dict[str, Any]] = {}
    for n, log, guesses, games in per_game.select("n", "log", "guesses", "games").iter_rows():
        rows.setdefault((n, log), {"n": n, "log": log})[str(guesses)] = games
    return list(rows.values())


def fitted(fitted: Trees, path: Path) -> None:
    metadata = fitted.metadata
    answerer = metadata["answerer"]
    show_pairs(
        f"cardguess trees → {path}",
        [
            ("logs / games / rows",
             f"{metadata['logs']} / {metadata['games']:,} / {metadata['rows']:,}"),
            ("data fingerprint", metadata["fingerprint"][:16] + "…"),
            ("answerer uniform", f"{answerer['uniform']} (p {answerer['chi_square_p_value']:.4g})"),
            *((f"n = {n}", tree_line(metadata["trees"].get(str(n)), n)) for n in SIZES),
        ],
    )  # fmt: skip


def tree_line(tree: dict[str, Any] | None, n: int) -> str:
    """What a player from the table does for n: its searched tree, or a refusal."""
    if tree is None:
        return f"no tree: a player from this table refuses n = {n} (fit it with --n {n})"
    search = "quick search" if tree.get("quick") else "search"
    return (
        f"{search}: {tree['expected_guesses']:.4f} expected guesses, {tree['nodes']:,} nodes, "
        f"first {tree['first_guess']}"
    )


def generated(path: Path, card: dict[str, Any]) -> None:
    console.print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    validated({"player": str(path), **card})


def validated(card: dict[str, Any]) -> None:
    rows, refused = [], {}
    for n, entry in card["sizes"].items():
        if "refused" in entry:
            refused[n] = entry["refused"]
            continue
        named = [
            ("player", entry["player"], None),
            *((name, figures, entry["vs"][name]) for name, figures in entry["baselines"].items()),
        ]
        if "compared" in entry:
            named.append((entry["compared"]["file"], entry["compared"], None))
        rows += [
            {
                "n": int(n),
                "guesser": name,
                "answers": figures["games"],
                "mean": figures.get("mean"),
                "worst": figures.get("worst"),
                "invalid": figures["invalid"],
                "slowest call (s)": figures.get("slowest_call_s"),
                "player needs fewer by": vs and vs.get("mean_difference"),
            }
            for name, figures, vs in named
        ]
    show(rows, f"{card['player']} ({card['answers_from']})",
         formats={"mean": "{:.4f}".format, "slowest call (s)": _or_blank("{:.4f}"),
                  "player needs fewer by": _or_blank("{:+.4f}")})  # fmt: skip
    for n, reason in refused.items():
        console.print(f"n = {n}: refused, not played ({reason})")
    for n, entry in card["sizes"].items():
        if "compared" in entry:
            paired = entry["compared"]["paired"]
            console.print(
                f"n = {n}: {entry['compared']['file']} needs {paired['mean_difference']:+.4f} "
                f"guesses more per answer, 95 % interval {paired['ci95']}"
            )


def _or_blank(fmt: str):
    return lambda value: "" if value is None else fmt.format(value)
