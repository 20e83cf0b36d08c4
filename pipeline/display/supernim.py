"""What `mine <verb> supernim` prints: outcomes by pairing, parity and move kind, the
fitted heuristic's provenance, a player file's report card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mine.models.supernim import Fitted
from mine.pipeline.console import console, interval, show, show_pairs
from mine.pipeline.stats.supernim import SuperNimStats

RATE = "{:.3f}".format


def stats(stats: SuperNimStats) -> None:
    show(
        stats.pairings.to_dicts(),
        "outcomes by pairing (max vs min)",
        formats={"max_win_rate": RATE, "draw_rate": RATE, "cutoff_rate": RATE},
    )
    show(
        stats.parity.to_dicts(),
        "outcomes by start 2-heap parity (odd: the first mover cashes one more)",
        formats={"first_win_rate": RATE},
    )
    show(
        stats.value.to_dicts(),
        "results against the exact value (value-losing moves per side; max's margin - value)",
        # none where the solver reaches no start (a variant's long games)
        formats={"max_margin_minus_value": lambda v: "" if v is None else f"{v:+.3f}"},
    )
    show(
        stats.kinds.to_dicts(),
        "outcomes by move kind (final margin from the mover's side)",
        formats={"mean_final_margin": "{:+.3f}".format, "win_rate": RATE},
    )
    show(
        stats.features.sort("positions", descending=True).head(12).to_dicts(),
        "position value by board features (the 12 most seen)",
        formats={"mean_future_margin": "{:+.3f}".format, "mean_final_margin": "{:+.3f}".format},
    )


def fitted(fitted: Fitted, path: Path) -> None:
    meta = fitted.metadata
    held = meta["holdout"]
    show_pairs(
        f"supernim heuristic table → {path}",
        [
            ("logs / games / positions", f"{meta['logs']} / {meta['games']:,} / {meta['rows']:,}"),
            ("data fingerprint", meta["fingerprint"][:16] + "…"),
            ("model", meta["method"]),
            ("feature cells / boards", f"{meta['feature_cells']:,} / {meta['boards']:,}"),
            (
                "held-out |fit - value|, 2-heap / none",
                f"{held['mean_abs_error_with_two']:.3f} / {held['mean_abs_error_without_two']:.3f}",
            ),
            (
                "held-out |0 - value| (plain), 2-heap / none",
                f"{held['plain_mean_abs_error_with_two']:.3f} / "
                f"{held['plain_mean_abs_error_without_two']:.3f}",
            ),
            ("exact yardstick boards", meta["yardstick"]["boards"]),
            ("mean |fit - exact|", f"{meta['yardstick']['mean_abs_error']:.3f}"),
            ("mean |0 - exact| (plain)", f"{meta['yardstick']['plain_mean_abs_error']:.3f}"),
        ],
    )


def generated(path: Path, card: dict[str, Any]) -> None:
    console.print(
        f"wrote {path} (depth {card['depth']}, at most {card['budget_seconds']} s a move)"
    )


def _against_value(row: dict[str, Any] | None) -> dict[str, Any]:
    """The card's figures against the exact value (blank where no start was solved)."""
    if row is None:
        return dict.fromkeys(("below value", "margin - value", "odd: 1st wins", "even: losses"))
    return {
        "below value": interval(row["below_value"], "{:.4f}"),
        "margin - value": row["mean_margin_minus_value"],
        "odd: 1st wins": interval(row["odd_first_wins"], "{:.3f}"),
        "even: losses": interval(row["even_losses"], "{:.4f}"),
    }


def validated(card: dict[str, Any]) -> None:
    rows = [
        {
            "opponent": name,
            "games": row["games"],
            "win": interval(row["win"], "{:.3f}"),
            "draw": interval(row["draw"], "{:.3f}"),
            "loss": interval(row["loss"], "{:.3f}"),
            "cutoff": row["cutoff_rate"],
            "margin": row["mean_margin"],
            "invalid": row["invalid_moves"],
            "theirs": row["opponent_invalid_moves"],
            "p99 s": row["p99_move_seconds"],
            **_against_value(row.get("against_value")),
        }
        for name, row in card["against"].items()
    ]
    show(
        rows,
        f"{card['player']} ({card['rules_text']}; asked with {card['asked_with']})",
        formats={
            "cutoff": "{:.1%}".format,
            "margin - value": lambda v: "" if v is None else f"{v:+.3f}",
        },  # fmt: skip
    )
