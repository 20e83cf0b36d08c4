"""`mine <verb> ginrummy`: Gin Rummy's own options (simulate's `--me`, `fit --source`:
all, simulated or server logs), what its commands print, its demo, its tournament."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from mine.models import ginrummy as model
from mine.pipeline import options
from mine.pipeline.console import console, ratio, show, show_against, show_pairs
from mine.pipeline.options import own
from mine.pipeline.stats.ginrummy import (
    GAME,
    NOT_MEASURED,
    GinStats,
    Players,
    PlayersAgainst,
    knocks_by_deadwood,
)
from mine.strategies.bots.ginrummy import BASELINES as BASELINE_BOTS
from mine.strategies.engines.ginrummy import GinRummyRules

BOT_NAMES = (
    "simple, random, ginhunter, student, never-knock, explorer, explorer:<share>, "
    "explorer:<policy>:<share>"
)
BASELINES = ",".join(BASELINE_BOTS)

OPTIONS = {
    "simulate": {
        "games": (options.games("Games per pairing (each deal from both seats)."), 100),
        "players": (options.players(f"Bots, comma-separated ({BOT_NAMES}): every pair plays "
                                    "one match."), "simple,explorer"),
        "me": (options.Me, 0),
    },
    "fit": {
        "source": own(str, "--source", "all", "Logs to fit from: all, simulated or server."),
        "against": own(str, "--against", "all", "Whose habits the player's priors about its "
                       "opponent take: all, me (the logs' writer) or opponent."),
    },
    "generate": {
        "games": (options.games("Games against simple for the docstring's figures.",
                                minimum=0), 100),
        "seed": (options.Seed, 0),
        "rules": (options.Rules, None),
    },
    "validate": {
        "games": (options.games("Games against each baseline."), 1000),
        "seed": (options.Seed, 0),
        "opponents": (options.baselines("Baselines, comma-separated (simple, random, "
                                        "ginhunter, …)."), BASELINES),
        "workers": (options.Workers, 2),
    },
    "report": {
        "games": (options.games("Without --card: games against each baseline behind the "
                                "page's strength section.", minimum=1), 40),
        "opponents": (options.baselines("Without --card: the baselines the page's player "
                                        "plays, comma-separated."), BASELINES),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play Gin Rummy games between bots; write <stem>.csv + <stem>-score.csv per "
    "game, from --me's seat.",
    "stats": "Derive Gin Rummy statistics from the warehouse and store them there "
    "(stats_ginrummy_*; `--by player`: each player's habits, and its knocks against a fitted "
    "knock policy).",
    "fit": "Fit the danger, draw and knock tables, and the priors about the opponents the logs "
    "show (their knock rate and how low their hands run), from the warehouse's Gin Rummy logs.",
    "generate": "Generate a single-file, standard-library-only Gin Rummy player from fitted "
    "tables.",
    "validate": "Full games to the target against each baseline (and --against another file), "
    "seats alternating: win rate with its 95 % interval, points per round, how rounds end, "
    "invalid plays and call times.",
    "report": "One self-contained HTML page: the knock policy, the danger grid, what the "
    "opponent throws, and with a warehouse its draw statistics (real logs' included) and "
    "how rounds end; the tables' provenance.",
}


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots("simple, random, ginhunter, explorer:POLICY:SHARE") = BASELINES,
    games: options.games("Games per pairing (even: each deal from both seats).", 2) = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 2,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: full games to the target, each deal played
    from both seats; win rates and point margins with 95 % intervals, Elo-style ratings,
    invalid plays and faults per player."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.tournament.match import Context

    context = Context(options.game_rules(GinRummyRules, rules))
    shared.run("ginrummy", files, bots, games, seed, workers, context, as_json, html, cluster)


# --- what the commands print ------------------------------------------------------


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
    knock, prior = np.array(fitted.tables["knock"]), fitted.part("prior")
    rate = f"{prior['value'][0]:.3f} ({int(prior['extra'][0]):,}/{prior['n'][0]:,})"
    show_pairs(
        f"ginrummy tables → {path}",
        [
            ("logs / rounds / turns",
             f"{metadata['games']:,} / {metadata['rounds']:,} / {metadata['rows']:,}"),
            ("danger model", f"{danger['discards']:,} discards, {danger['picked_up']:,} picked "
                             f"up, held-out AUC {danger['held_out_auc']}"),
            ("knock policy", f"wait in {int((knock == 0).sum()):,} of {knock.size:,} "
                             "(score, deadwood, turn) cells"),
            (f"opponents ({metadata['settings']['against']})",
             f"knock rate {rate} where a knock was allowed"),
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
        "(calls: knock or gin where allowed; knock deadwood: mean, most; undercut suffered: "
        "n/its knocks; dealt: n/the other's knocks; gin: n/rounds)",
    )
    _show(
        stats.player_knocks,
        "knock threshold: plays at each deadwood where a knock was "
        "allowed, knocks (gin at 0), undercuts",
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
    mean = "-"
    if knocks:
        mean = f"{row['knock_deadwood_sum'] / knocks:.1f}, {row['knock_deadwood_max']}"
    return {
        "player": row["player"],
        "discard draws": ratio(row["n_discard_draws"], row["n_draw_opportunities"]),
        "when it melds": ratio(row["n_meld_draws"], row["n_meld_draw_opportunities"]),
        "calls": ratio(row["n_call"], row["n_call_opportunities"]),
        "knock deadwood": mean,
        "undercut suffered": ratio(row["n_undercut"], knocks),
        "dealt": ratio(row["n_undercut_dealt"], row["n_opponent_knocks"]),
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


# --- its part of `mine demo` ------------------------------------------------------

# Over the real server logs of `examples/logs/ginrummy/` (November 2020): the demo ingests
# them first and names their logs `example_logs`.
QUERIES = {
    "Real Gin Rummy rounds by how they ended": """
        SELECT ending, count(*) AS rounds, round(avg(points + opponent_points), 1) AS mean_points
        FROM ginrummy_rounds JOIN example_logs USING (log_id)
        GROUP BY ending ORDER BY rounds DESC""",
    "Mean points per round, by side": """
        SELECT round(avg(points), 2) AS mine, round(avg(opponent_points), 2) AS opponent,
               count(*) AS rounds
        FROM ginrummy_rounds JOIN example_logs USING (log_id)""",
    "Draws from the discard pile": """
        SELECT CASE WHEN mine THEN 'me' ELSE 'opponent' END AS player,
               count(*) FILTER (WHERE drawn_from = 'discard') AS from_discard,
               count(*) AS draws,
               round(100.0 * count(*) FILTER (WHERE drawn_from = 'discard') / count(*), 1) AS pct
        FROM ginrummy_turns JOIN example_logs USING (log_id)
        GROUP BY ALL ORDER BY player""",
}
LOOP = (
    "simulate ginrummy --players simple,explorer --games 20 --seed 2024 --out {out}/logs",
    "simulate ginrummy --players ginhunter,simple --games 20 --seed 2025 --out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats ginrummy --db {db} --logs {out}/logs/*",
    "fit ginrummy --db {db} --logs {out}/logs/* --out {out}/ginrummy-table.parquet",
    "generate ginrummy --table {out}/ginrummy-table.parquet --out {out}/ginrummy_player.py "
    "--games 30 --seed 1",
    "validate ginrummy {out}/ginrummy_player.py --games 20 --baselines simple,random",
    "report ginrummy --table {out}/ginrummy-table.parquet --db {db} "
    "--out {out}/ginrummy-report.html",
)
