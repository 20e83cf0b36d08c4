"""`mine <verb> twentyone`: TwentyOne's own options, what its commands print, its demo,
its tournament."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl

from mine.pipeline import options
from mine.pipeline.console import console, fail, interval, ratio, show, show_against, show_pairs
from mine.pipeline.options import own
from mine.pipeline.stats.twentyone import (
    DEALER_OUTCOMES,
    UP_ORDER,
    TwentyOneStats,
    dealer_grid,
    up_name,
)
from mine.pipeline.stats.twentyone_players import PlayerStats
from mine.strategies.bots.twentyone import BOTS
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.strategies.engines.twentyone_chart import Strategy
from mine.strategies.intervals import NO, UNDECIDED, YES, at_least, said
from mine.strategies.validation.twentyone import NEAR_OPTIMUM

SEED = (options.Seed, 0)
OPTIONS = {
    "simulate": {
        "games": (options.games("Games to play (one file pair each)."), 10),
        "players": (options.players(f"Bots, comma-separated, one per seat: {', '.join(BOTS)}; "
                                    "explorer:POLICY:SHARE (explorer:textbook:0.1)."),
                    "textbook,dealer,cautious,random,explorer"),
        "me": own(int, "--me", 0, "The player (index in --players) whose point of view the "
                  "logs take.", min=0, max=9),
    },
    "stats": {"rules": (options.Rules, None)},
    "generate": {
        "rules": (options.Rules, None),
        "hands": (options.hands("Hands for the docstring's flat-bet figure."), 200_000),
        "seed": SEED,
    },
    "validate": {
        "hands": (options.hands("Hands for the flat-bet returns."), 2_000_000),
        "shoe_hands": (options.hands("Hands on continuous shoes for the count play, paired "
                                     "against the static optimal chart (0: none).", minimum=0,
                                     flag="--shoe-hands"), 1_000_000),
        # no verdict rests on the full games (they show play at a table, and invalid
        # actions): 20 are one task, a fifth of the default measure's time, not four fifths
        "games": (options.games("Full games at a table of baselines.", minimum=0), 20),
        "seed": SEED,
    },
    "report": {
        "fmt": own(str, "--format", "html",
                   "html (the report) or csv (the chart: one row per context and situation)."),
        "hands": (options.hands("Without --card: hands for the page's flat-bet figures."),
                  200_000),
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play TwentyOne games between bots at one table; write <stem>.csv + "
    "<stem>-score.csv per game.",
    "stats": "Derive TwentyOne statistics from the warehouse and store them as "
    "stats_twentyone_* (`--by player`: each player id's habits, and its choices against a "
    "fitted chart), settling the hands by the rules (--rules over the defaults).",
    "fit": "Fit TwentyOne action and bid tables: learn the game from the logs, then solve it.",
    "generate": "Generate a single-file, standard-library-only TwentyOne player from a table.",
    "validate": "Measure a player file: flat-bet return vs baselines and the exact optimum, "
    "count play on continuous shoes, full games, invalid actions and decision times; with "
    "--against, another file on the same cards and head to head at one table.",
    "report": "Write the table's report: one self-contained HTML page (the strategy as grids, "
    "play by the count, insurance, the bid table and, from the warehouse if there is one, the "
    "dealer's outcomes by up card and results by count), or the chart as CSV.",
}


def tournament(
    files: options.PlayerFiles = None,
    bots: options.bots(
        "textbook, dealer, cautious, random, explorer, …"
    ) = "textbook,dealer,random",
    games: options.games("Games per pairing (even: each shoe from both seats).", 2) = 20,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    rules: options.Rules = None,
    table_bots: options.option(
        str, "--table-bots", help="Bots that sit at every table beside the pair."
    ) = "",
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of player files and bots: each pairing plays full games at one table
    (with --table-bots), each shoe from both seats; who ranks higher, point margins with
    95 % intervals, Elo-style ratings, invalid actions and faults per player."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.tournament.match import Context, Match

    game_rules = options.game_rules(TwentyOneRules, rules)
    table = Context(game_rules, tuple(options.names(table_bots)))
    try:
        for spec in table.bots:
            Match("twentyone").check_bot(spec, table)
    except ValueError as error:
        raise fail(str(error), 2) from None
    if len(table.bots) + 2 > game_rules.max_players:
        raise fail(
            f"--table-bots: a table seats {game_rules.max_players} players, the pair included", 2
        )
    shared.run("twentyone", files, bots, games, seed, workers, table, as_json, html, cluster)


# --- what the commands print: mine stats ------------------------------------------------------

RATE = "{:.3f}".format


def stats(stats: TwentyOneStats) -> None:
    """The settlement check, the dealer's outcomes, hard 16's choices, results by count."""
    check = stats.settlement.row(0, named=True)
    console.print(
        f"settlement of final hands vs score files: {check['matched']:,} of "
        f"{check['player_rounds']:,} player-rounds match ({check['match_rate']:.4%})"
    )
    show(
        dealer_grid(stats.dealer),
        "dealer's final hand by up card (rate, n / opportunities)",
        formats={o: (lambda v: "-" if v is None else RATE(v)) for o in DEALER_OUTCOMES},
    )
    situations = stats.situations
    show(
        situations.filter(
            (situations["total"] == 16) & ~situations["soft"] & (situations["pair"] == 0)
            & situations["action"].is_in(["Hit", "Stand"]) & (situations["n_cards"] <= 3)
        ).sort(pl.col("up").replace(1, 11), "n_cards", "action").to_dicts(),  # the ace last
        "hard 16 (any cards): Hit vs Stand, n / opportunities and mean result",
        {"up": "up", "n_cards": "cards", "action": "action", "n": "n",
         "opportunities": "opportunities", "rate": "rate", "mean_result": "mean result"},
        {"up": up_name, "rate": RATE, "mean_result": "{:+.3f}".format},
    )  # fmt: skip
    show(
        stats.count_results.to_dicts(),
        "results per unit of bid by true count before the round (logged play)",
        {"tc": "true count", "hands": "hands", "share": "share",
         "mean_result": "mean result", "mean_bid": "mean bid"},
        {"share": RATE, "mean_result": "{:+.4f}".format, "mean_bid": "{:.1f}".format},
    )  # fmt: skip


def players(stats: PlayerStats, table: Path | None) -> None:
    """Each player id's habits, its hits on hard 16 by up card, and (with a chart) its
    choices against the chart's and the costliest of them."""
    rows = list(stats.players.iter_rows(named=True))
    show([_player_row(row) for row in rows], "per player id: n/opportunities")
    show(hit16_grid(stats.player_ups), "hits on hard 16 by up card: n/opportunities")
    deviations = getattr(stats, "player_deviations", None)
    show_against(
        None if deviations is None else [_chart_row(row) for row in rows],
        f"choices against the chart of {table}: EV of the logged action minus the chart's, "
        "per unit of bid (sum, per deviation) and in points at the logged bids",
        "twentyone",
        "each player's choices against its chart and what each deviation cost",
    )
    if deviations is not None:
        _show_costliest(deviations)


def _player_row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "player": row["player"],
        "hands": row["hands"],
        "hit 16": ratio(row["n_hit_16"], row["n_16_opportunities"]),
        "double": ratio(row["n_double"], row["n_double_opportunities"]),
        "split": ratio(row["n_split"], row["n_split_opportunities"]),
        "insure": ratio(row["n_insurance"], row["n_insurance_opportunities"]),
        "mean bid": f"{row['bid_sum'] / row['n_bids']:.1f}",
        "net points": f"{row['net_points']:+,}",
    }


def _chart_row(row: dict[str, Any]) -> dict[str, Any]:
    deviations = row["n_deviations"]
    return {
        "player": row["player"],
        "off the chart": ratio(deviations, row["chart_decisions"]),
        "not valued": row["n_unmeasured"],
        "EV vs chart": f"{row['ev_diff_sum']:+.2f}",
        "per deviation": f"{row['ev_diff_sum'] / deviations:+.3f}" if deviations else "-",
        "points": f"{row['ev_diff_points']:+,.0f}",
    }


def _show_costliest(deviations: pl.DataFrame, rows: int = 12) -> None:
    worst = deviations.filter(pl.col("deviation")).sort("ev_diff_points").head(rows)
    show(
        [
            {
                "player": r["player"],
                "situation": situation_name(r),
                "played": r["action"],
                "chart": r["chart_action"],
                "n": r["n"],
                "per decision": f"{r['ev_diff_sum'] / r['measured']:+.3f}"
                if r["measured"]
                else "-",
                "points": f"{r['ev_diff_points']:+,.0f}",
            }
            for r in worst.iter_rows(named=True)
        ],
        "the costliest deviations (exact values for an infinite deck, the chart playing on)",
    )


def situation_name(row: dict) -> str:
    """`hard 16, 3 cards, up 10` (with the pair and the context where they matter)."""
    hand = f"pair of {up_name(row['pair_value'])}s" if row["pair_value"] else (
        f"{'soft' if row['soft'] else 'hard'} {row['total']}"
    )  # fmt: skip
    where = "" if row["context"] == "main" else f", {row['context']} hand"
    return f"{hand}, {row['n_cards']} cards, up {up_name(row['up'])}{where}"


def hit16_grid(ups: pl.DataFrame) -> list[dict]:
    """Hits on hard 16 by up card (2..10, A) as one row per player: `n/opportunities`."""
    rows = []
    for (player,), cells in ups.group_by("player", maintain_order=True):
        by_up = {r["up"]: r for r in cells.iter_rows(named=True)}
        row = {"player": player}
        for up in UP_ORDER:
            cell = by_up.get(up)
            opportunities = cell["n_16_opportunities"] if cell else 0
            row[up_name(up)] = f"{cell['n_hit_16']}/{opportunities}" if opportunities else "-"
        rows.append(row)
    return rows


# --- mine fit ---------------------------------------------------------------------------------


def fitted(fitted: Strategy, path: Path) -> None:
    """The table's provenance and what was learned, one figure a row; the bids by count."""
    metadata = fitted.metadata
    show_pairs(f"twentyone table → {path}", learned_rows(metadata))
    show(
        [{"tc": f"{r['tc_low']}..{r['tc_high']}", **r} for r in metadata["count_play"]],
        "bid by true count",
        {"tc": "true count", "rounds": "rounds", "ev": "model value", "bid": "bid"},
        {"ev": "{:+.4f}".format},
    )


def learned_rows(metadata: dict[str, Any]) -> list[tuple[str, Any]]:
    """What a fit learned as (name, value) rows: the data, the shoe, the dealer's rule,
    the player's card limit, each payoff, insurance, the bids, the model's value."""
    learned = metadata["learned"]
    dealer = learned["dealer_rule"]
    limit = dealer["card_limit"]
    rows: list[tuple[str, Any]] = [
        ("logs / hands / decisions",
         f"{metadata['logs']:,} / {metadata['hands']:,} / {metadata['rows']:,}"),
        ("decks", learned["decks"]),
        ("dealer hits hard totals up to", dealer["hits_hard_up_to"]),
        ("dealer hits soft 17", "yes" if dealer["hits_soft_17"] else "no"),
        ("dealer hits soft totals up to", dealer["hits_soft_up_to"]),
        ("dealer card limit", "none" if limit is None else f"{limit} cards"),
        ("player card limit", f"{learned['player_card_limit']} cards"),
    ]  # fmt: skip
    rows += [(f"paid back: {name}", f"{value:.4f}") for name, value in learned["payoffs"].items()]
    rows += [
        (f"insurance net: {INSURANCE_CASES.get(name, name)}", f"{value:+.4f}")
        for name, value in learned["insurance_net"].items()
    ]
    rows += [
        ("bids", f"{learned['min_bid']}..{learned['max_bid']}"),
        ("model value per hand", f"{metadata['model_ev']:+.5f}"),
    ]
    return rows


INSURANCE_CASES = {
    "win": "dealer Combo",
    "lose": "no dealer Combo",
    "win_bust": "dealer Combo, hand bust",
    "lose_bust": "no dealer Combo, hand bust",
    "no_play": "the dealer did not play",
}


# --- mine generate, mine validate ------------------------------------------------------------


def generated(path: Path, card: dict[str, Any]) -> None:
    """The file's sampled flat-bet return with its interval, and where the exact optimum
    lies against that interval (a sampled return above the optimum is the sample's)."""
    measure, flat = next((name, value) for name, value in card.items()
                         if name.startswith("flat-bet return"))  # fmt: skip
    ci95, optimum = (card["95% CI low"], card["95% CI high"]), card["exact optimum, infinite deck"]
    where = {YES: "below", NO: "above"}.get(at_least(ci95, optimum), "inside")
    sample = re.sub(r"\d+", lambda n: f"{int(n[0]):,}", measure.removeprefix("flat-bet return, "))
    console.print(
        f"wrote {path}: flat-bet return {flat:+.4f} [{ci95[0]:+.4f}, {ci95[1]:+.4f}] per unit "
        f"of bid (95 % interval, {sample}); the exact optimum {optimum:+.4f} (infinite deck) "
        f"lies {where} it"
    )


def validated(card: dict[str, Any]) -> None:
    """The flat-bet returns against the baselines and the optimum, the count play, the
    full games, invalid actions and decision times."""
    flat = card["flat_bet"]
    rows = [{"player": "player (this file)", "return": interval(flat["player"]), "gap": ""}]
    rows += [
        {
            "player": name,
            "return": interval(row["return"]),
            "gap": interval(row["player_minus_this"]),
        }
        for name, row in flat["baselines"].items()
    ]
    rows += [
        {"player": f"exact optimum ({name.replace('_', ' ')})", "return": f"{v:+.4f}", "gap": ""}
        for name, v in flat["exact_optimum"].items()
    ]
    other = card.get("against")
    if other:
        rows.append({
            "player": other["file"],
            "return": interval(other["flat_bet"]["return"]),
            "gap": interval(other["flat_bet"]["player_minus_this"]),
        })  # fmt: skip
    value = flat["exact_value_of_player_chart_infinite_deck"]
    rows.append({"player": "exact value of this chart (infinite deck)", "return": f"{value:+.4f}"})
    looks = flat.get("looks", [flat["hands"]])
    cap = looks[-1]
    hands = f"{flat['hands']:,} hands" if flat["hands"] == cap else (
        f"{flat['hands']:,} hands (decided at a look; at most {cap:,})")  # fmt: skip
    over = f", 95 % intervals over {len(looks)} looks" if len(looks) > 1 else ""
    show(
        rows,
        f"flat-bet return per hand per unit of bid, {hands}, same shoes ({flat['decks']} "
        f"decks{over})",
        {"player": "player", "return": "return (95% CI)", "gap": "player − this (95% CI)"},
    )
    shoe = card.get("continuous_shoe")
    if shoe:
        console.print(
            f"count play, {shoe['hands']:,} hands of continuous {shoe['decks']}-deck shoes "
            f"({shoe['count_cells']} cells change with the count): "
            f"{interval(shoe['player'])}; gain over the static optimal chart on the same "
            f"shoes {interval(shoe['gain_over_static_optimum'], '{:+.5f}')}"
        )
    gap = flat["gap_to_optimum"]
    more = f"more than {flat['hands']:,} hands"
    console.print(
        f"gap to the optimum {gap['mean']:+.4f}: "
        + said(flat["within_0.005_of_optimum"], f"within {NEAR_OPTIMUM} of it", gap["ci95"], more)
    )
    leads = {name: row["player_minus_this"]["ci95"] for name, row in flat["baselines"].items()}
    # the lead that decides the verdict: one behind, else one undecided, else the closest
    rank = {NO: 0, UNDECIDED: 1, YES: 2}
    closest = min(leads, key=lambda name: (rank[at_least(leads[name], 0.0)], leads[name][0]))
    console.print(
        "lead over every baseline: "
        + said(
            flat["beats_every_baseline_95"],
            f"ahead of each (closest: {closest})",
            leads[closest],
            more,
        )  # fmt: skip
    )
    if other and other["games"]:
        pair = other["games"]
        low, high = pair["a_score_ci95"]
        console.print(
            f"head to head with {other['file']}, {pair['games']} games at one table (each "
            f"shoe from both seats): this file ranks higher in {pair['a_wins']}, draws "
            f"{pair['draws']}, lower in {pair['b_wins']}; score {pair['a_score_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}]"
        )
    games = card.get("games")
    if games:
        _games(games)


def _games(games: dict[str, Any]) -> None:
    show(
        [
            {"seat": pid, **row, "rank_distribution": " ".join(map(str, row["rank_distribution"]))}
            for pid, row in sorted(games["players"].items(), key=lambda kv: kv[1]["mean_rank"])
        ],
        f"{games['games']} full games of {games['rounds']} rounds, {len(games['seats'])} seats",
        {"seat": "seat", "mean_points": "mean points", "mean_rank": "mean rank",
         "wins": "wins", "rank_distribution": "rank distribution"},
        {"mean_points": "{:,.0f}".format, "mean_rank": "{:.2f}".format},
    )  # fmt: skip
    gain = games.get("bid_gain_vs_flat_minimum")
    if gain:
        console.print(
            "bid table vs flat minimum bids, same games: "
            f"{gain['mean_points_per_game']:+,.0f} points per game "
            f"[{gain['ci95'][0]:+,.0f}, {gain['ci95'][1]:+,.0f}] over {gain['games']} games"
        )
    table = games.get("flat_bet_at_table")
    if table:
        low, high = table["ci95"]
        console.print(
            f"flat minimum bids at this table: {table['mean_per_unit']:+.4f} per unit of bid "
            f"[{low:+.4f}, {high:+.4f}] over {table['rounds']:,} rounds"
        )
        for taken, row in games["insurance_at_table"].items():
            combo = row["dealer_two_card_21"]
            console.print(
                f"  ace up, {taken}: {row['ace_rounds']:,} rounds, dealer two-card 21 "
                f"{combo['mean']:.3f} [{combo['ci95'][0]:.3f}, {combo['ci95'][1]:.3f}]"
            )
    times, cpu = games["decision_seconds"], games["decision_cpu_seconds"]
    if not games["decisions_timed"]:
        console.print(f"invalid actions: {games['invalid_actions']}; no decision was timed")
        return
    console.print(
        f"invalid actions: {games['invalid_actions']}; "
        f"decision time p50 {times['p50'] * 1e6:.0f} µs, "
        f"p99 {times['p99'] * 1e6:.0f} µs (CPU p99 {cpu['p99'] * 1e6:.0f} µs), max "
        f"{times['max'] * 1e6:.0f} µs over {games['decisions_timed']:,} calls"
    )


# --- its part of `mine demo` ------------------------------------------------------

# Over the real logs of `examples/logs/twentyone/` (the course engine's, 2021): the demo
# ingests them first and names their logs `example_logs`.
QUERIES = {
    "Real TwentyOne rounds: the dealer's final hand by its number of cards": """
        SELECT n_cards AS cards, count(*) AS rounds,
               count(*) FILTER (WHERE total > 21) AS bust,
               count(*) FILTER (WHERE hand_class = 'Charlie') AS charlie
        FROM twentyone_dealer_hands JOIN example_logs USING (log_id) WHERE played
        GROUP BY ALL ORDER BY cards""",
    "Their players' decisions": """
        SELECT action, count(*) AS decisions,
               round(100.0 * count(*) / sum(count(*)) OVER (), 1) AS pct
        FROM twentyone_turns JOIN example_logs USING (log_id)
        WHERE player <> 'dealer' AND action <> 'Bid' GROUP BY ALL ORDER BY decisions DESC""",
}
SEATS = (
    "textbook,dealer,cautious,random,explorer:textbook:0.2,explorer:dealer:0.2,"
    "explorer:cautious:0.2,textbook,dealer,random"
)
LOOP = (
    f"simulate twentyone --players {SEATS} --games 8 --seed 2021 --out {{out}}/logs",
    "ingest {out}/logs --db {db}",
    "stats twentyone --db {db} --logs {out}/logs/*",
    "fit twentyone --db {db} --logs {out}/logs/* --out {out}/twentyone-table.parquet",
    "generate twentyone --table {out}/twentyone-table.parquet --out {out}/twentyone_player.py "
    "--hands 50000",
    "validate twentyone {out}/twentyone_player.py --hands 300000 --shoe-hands 300000 --games 4",
    "report twentyone --table {out}/twentyone-table.parquet --out {out}/twentyone-report.html "
    "--db {db} --logs {out}/logs/*",
)
