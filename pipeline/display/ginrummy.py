"""What `mine <verb> ginrummy` prints: the statistics, the fitted tables' provenance, a
generated player's figures against simple, a player's report card per baseline, and each
player's habits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from mine.models import ginrummy as model
from mine.pipeline.console import console, ratio, show, show_against, show_pairs
from mine.pipeline.stats.ginrummy import (
    GAME,
    NOT_MEASURED,
    GinStats,
    Players,
    PlayersAgainst,
    knocks_by_deadwood,
)


def _plain(value: Any) -> str:
    return "" if value is None else f"{value:,}" if type(value) is int else str(value)


def _show(frame: pl.DataFrame, title: str) -> None:
    show(frame.to_dicts(), title, formats=dict.fromkeys(frame.columns, _plain))


def stats(stats: GinStats) -> None:
    """How rounds end, draws, danger, and knocks by deadwood (summed over turns)."""
    for name in ("rounds", "draws", "danger"):
        _show(getattr(stats, name), f"stats_ginrummy_{name}")
    _show(knocks_by_deadwood(stats.knocks), "stats_ginrummy_knocks (summed over turns)")


def fitted(fitted: model.Fitted, path: Path) -> None:
    metadata = fitted.metadata
    danger = metadata["danger"]
    knock = np.array(fitted.tables["knock"])
    show_pairs(
        f"ginrummy tables → {path}",
        [
            ("logs / rounds / turns",
             f"{metadata['games']:,} / {metadata['rounds']:,} / {metadata['rows']:,}"),
            ("danger model", f"{danger['discards']:,} discards, {danger['picked_up']:,} picked "
                             f"up, held-out AUC {danger['held_out_auc']}"),
            ("knock policy", f"wait in {int((knock == 0).sum()):,} of {knock.size:,} "
                             "(score, deadwood, turn) cells"),
            ("fingerprint", metadata["fingerprint"][:16] + "…"),
        ],
    )  # fmt: skip


def generated(path: Path, card: dict[str, Any]) -> None:
    line = f"wrote {path}"
    figures = card["against"].get("simple")
    if figures:
        line += (f": vs simple {figures['win_rate']:.3f} over {figures['games']} games "
                 f"(95% CI {figures['win_ci'][0]:.3f}-{figures['win_ci'][1]:.3f}), "
                 f"{figures['invalid']} invalid")  # fmt: skip
    console.print(line)


# The validation table's rows: one column per baseline stays readable in 80 columns.
ROWS = {
    "games won": lambda f: f"{f['win_rate']:.3f}",
    "95% interval": lambda f: f"{f['win_ci'][0]:.3f}–{f['win_ci'][1]:.3f}",
    "points per round": lambda f: f"{f['points_per_round']:+.2f}",
    "rounds ended by my gin": lambda f: f"{f['gin_rate']:.3f}",
    "rounds ended by my knock": lambda f: f"{f['knock_rate']:.3f}",
    "  of them undercut": lambda f: f"{f['undercut_rate']:.3f}",
    "rounds run out of stock": lambda f: f"{f['stockout_rate']:.3f}",
    "invalid plays": lambda f: str(f["invalid"]),
    "  the opponent's": lambda f: str(f["opponent_invalid"]),  # a win by its fault
    "p99 call ms (CPU)": lambda f: f"{f['p99_call_ms']:.2f} ({f['p99_call_cpu_ms']:.2f})",
    "max call ms (CPU)": lambda f: f"{f['max_call_ms']:.2f} ({f['max_call_cpu_ms']:.2f})",
}


def validated(card: dict[str, Any]) -> None:
    figures = card["against"]
    show(
        [{"vs": label, **{name: row(f) for name, f in figures.items()}}
         for label, row in ROWS.items()],
        f"{card['player']}: {card['games']:,} games per baseline, seed {card['seed']}",
        {"vs": "vs", **{name: name for name in figures}},
    )  # fmt: skip


def players(stats: Players | PlayersAgainst, table: Path | None) -> None:
    rows = list(stats.players.iter_rows(named=True))
    show(
        [_player_row(row) for row in rows],
        "per player (me: the logs' writer; opponent: whoever it played): n/opportunities "
        "(calls: knock or gin where allowed; undercut: n/knocks; gin: n/rounds)",
    )
    show_against(
        [_knock_row(row) for row in rows] if isinstance(stats, PlayersAgainst) else None,
        f"knock or wait against the knock policy of {table} (value of the logged choice "
        "minus the policy's, in game-win chance)",
        GAME,
        "each player's knocks against the fitted knock policy",
    )
    console.print(f"not measured: {NOT_MEASURED}")


def _player_row(row: dict[str, Any]) -> dict[str, Any]:
    knocks = row["n_knock"]
    return {
        "player": row["player"],
        "discard draws": ratio(row["n_discard_draws"], row["n_draw_opportunities"]),
        "when it melds": ratio(row["n_meld_draws"], row["n_meld_draw_opportunities"]),
        "calls": ratio(row["n_call"], row["n_call_opportunities"]),
        "knock deadwood": f"{row['knock_deadwood_sum'] / knocks:.1f}" if knocks else "-",
        "undercut": ratio(row["n_undercut"], knocks),
        "gin": ratio(row["n_gin"], row["rounds"]),
        "points": row["points"],
    }


def _knock_row(row: dict[str, Any]) -> dict[str, Any]:
    off = row["n_knock_deviations"]
    return {
        "player": row["player"],
        "off the policy": ratio(off, row["knock_decisions"]),
        "waited where it knocks": row["n_waited"],
        "knocked where it waits": off - row["n_waited"],
        "win chance vs policy": f"{row['win_chance_diff_sum']:+.3f}",
        "per deviation": f"{row['win_chance_diff_sum'] / off:+.4f}" if off else "-",
    }
