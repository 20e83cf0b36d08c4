"""Gin Rummy's report: the knock policy by score, the discard danger of every card, what the
opponent throws, and from the warehouse the draw decisions, how rounds end and knocks by
deadwood (real server logs included)."""

from __future__ import annotations

from typing import Any

import polars as pl

from mine.models.ginrummy import (
    KNOCK_LIMIT,
    SCORE_BUCKETS,
    SCORE_STEP,
    TURN_BUCKET,
    TURN_BUCKETS,
)
from mine.parsers.cards import COURSE_RANKS, SUITS
from mine.pipeline.reports import kit
from mine.pipeline.stats import ginrummy as stats
from mine.pipeline.stats import opponents
from mine.strategies.intervals import wilson

KNOCK, WAIT, NO_DATA = "K", "W", "-"
LEGEND = {KNOCK: ("knock", "#1f77b4"), WAIT: ("wait", "#bbbbbb")}
GAPS = {NO_DATA: ("no data", kit.MISSING)}
ENDINGS = ("Gin", "Knock", "Drop")

# The knock policy's score situations the report draws: (caption, my bucket, theirs).
_TOP = SCORE_BUCKETS - 1
KNOCK_SCORES = (("level, at the start", 0, 0), ("far behind", 0, _TOP),
                ("near the target", _TOP, 0))  # fmt: skip


def _scores(bucket: int) -> str:
    low = bucket * SCORE_STEP
    return f"{low}+" if bucket == _TOP else f"{low}-{low + SCORE_STEP - 1}"


def _turns(bucket: int) -> str:
    first = bucket * TURN_BUCKET + 1
    return f"{first}+" if bucket == TURN_BUCKETS - 1 else f"{first}-{first + TURN_BUCKET - 1}"


def knock_chart(frame: pl.DataFrame, caption: str, mine: int, theirs: int) -> str:
    """Knock or wait at one pair of score buckets, by deadwood (rows) and turn bucket
    (columns), with the knock-minus-wait margin in each cell's tooltip."""
    scores = mine * SCORE_BUCKETS + theirs
    knock = frame.filter((pl.col("table") == "knock") & (pl.col("c") == scores))
    cells = {(a, b): (value, n, extra) for a, b, value, n, extra
             in knock.select("a", "b", "value", "n", "extra").iter_rows()}  # fmt: skip
    turns = range(max((b for _, b in cells), default=0) + 1)
    deadwoods = range(KNOCK_LIMIT + 1)

    def cell(a: int, b: int) -> tuple[str, str]:
        where = f"deadwood {a}, turns {b * TURN_BUCKET + 1}-{b * TURN_BUCKET + TURN_BUCKET}"
        if (a, b) not in cells:
            return NO_DATA, f"{where}: no data"
        value, n, extra = cells[(a, b)]
        key = KNOCK if value >= 0.5 else WAIT
        margin = "n/a" if extra is None else f"{100 * extra:+.2f}"
        return key, f"{where}: {LEGEND[key][0]} (knock − wait {margin} % game-win chance, n {n})"

    shown = [[cell(a, b) for b in turns] for a in deadwoods]
    keys = [[key for key, _ in row] for row in shown]
    return kit.grid(
        keys,
        [str(a) for a in deadwoods],
        [str(b * TURN_BUCKET + 1) for b in turns],
        LEGEND | GAPS,  # the key names only the keys drawn
        title=f"{caption} ({_scores(mine)} against {_scores(theirs)})",
        x_label="turn (first of the bucket)",
        y_label="deadwood after the discard",
        tips=[[tip for _, tip in row] for row in shown],
        ident=f"knock-{mine}-{theirs}",
    )


def danger_grid(frame: pl.DataFrame) -> str:
    """The model's pickup chance of every card, averaged over its logged discards."""
    cards = {(a, c): (v, n, e) for a, c, v, n, e in frame.filter(pl.col("table") == "card")
             .select("a", "c", "value", "n", "extra").iter_rows()}  # fmt: skip
    ranks = range(1, 14)
    found = [[cards.get((s, rank), (0.0, 0, None)) for rank in ranks] for s in range(4)]
    tips = [
        [f"{suit}{COURSE_RANKS[rank - 1]}: model {value:.3f}, observed "
         f"{'n/a' if seen is None else f'{seen:.3f}'}, n {n}"
         for rank, (value, n, seen) in zip(ranks, row, strict=True)]
        for suit, row in zip(SUITS, found, strict=True)
    ]  # fmt: skip
    return kit.heat_map(
        [[value for value, _, _ in row] for row in found], list(SUITS), list(COURSE_RANKS),
        title="Chance the opponent picks the card up", value_label="pickup chance",
        x_label="rank", y_label="suit", low=0.0, tips=tips, ident="danger",
    )  # fmt: skip


def thrown_grid(frame: pl.DataFrame) -> str:
    """The chance an unseen card of each rank (columns) is the opponent's next discard, by
    turn bucket (rows), in per cent."""
    thrown = frame.filter(pl.col("table") == "thrown").sort("b", "a")
    buckets, values, tips = [], [], []
    for (b,), part in thrown.group_by("b", maintain_order=True):
        rows = part.select("a", "value", "n", "extra").rows()
        buckets.append(_turns(b))
        values.append([100 * value for _, value, _, _ in rows])
        tips.append([f"turns {_turns(b)}, rank {COURSE_RANKS[a - 1]}: {100 * value:.1f} %, "
                     f"{int(extra or 0):,} thrown of {n:,} unseen"
                     for a, value, n, extra in rows])  # fmt: skip
    return kit.heat_map(
        values, buckets, list(COURSE_RANKS), title="The opponent's next discard, per cent",
        value_label="% of unseen cards", x_label="rank", y_label="turns", low=0.0,
        fmt="{:.1f}".format, tips=tips, ident="thrown",
    )  # fmt: skip


def undercut_plot(knocks: pl.DataFrame) -> str:
    """Undercut rate by the deadwood knocked with (1 to the knock limit), per source, each
    with its Wilson 95 % interval."""
    shown = knocks.filter(pl.col("deadwood").is_between(1, KNOCK_LIMIT))
    deadwoods = list(range(1, KNOCK_LIMIT + 1))
    rates, errors = {}, {}
    for (source,), part in shown.group_by("source", maintain_order=True):
        found = {d: (u, k) for d, u, k in part.select("deadwood", "undercuts", "knocks").rows()}
        rates[source] = [found[d][0] / found[d][1] if d in found else 0.0 for d in deadwoods]
        errors[source] = [wilson(*found[d]) if d in found else None for d in deadwoods]
    return kit.bar_plot(
        [str(d) for d in deadwoods], rates, errors=errors, fmt="{:.3f}".format,
        title="Undercut rate by deadwood at the knock", x_label="deadwood at the knock",
        y_label="undercut rate", ident="undercuts",
        caption="Bars: undercuts / knocks; whiskers: the Wilson 95 % interval (wide where "
        "few knocks were made at that deadwood; no bar: none).",
    )  # fmt: skip


def knock_summary(knocks: pl.DataFrame) -> list[dict[str, Any]]:
    """Per source: how many knocks, the deadwood they were made at (quartiles), how many
    were undercut (with the Wilson interval of the rate) and the callers' mean points."""
    rows = []
    for (source,), part in knocks.group_by("source", maintain_order=True):
        at = part.select(pl.col("deadwood").repeat_by("knocks").explode()).to_series()
        total, undercuts = int(part["knocks"].sum()), int(part["undercuts"].sum())
        low, high = wilson(undercuts, total)
        rows.append({
            "source": source, "knocks": total,
            "deadwood (quartiles)": " · ".join(str(int(at.quantile(q, "nearest")))
                                               for q in (0.25, 0.5, 0.75)),
            "gin (deadwood 0)": int(part.filter(pl.col("deadwood") == 0)["knocks"].sum()),
            "undercut": undercuts, "undercut rate": undercuts / total if total else 0.0,
            "95 % interval": f"{low:.3f} … {high:.3f}",
            "mean points": float(part["points"].sum()) / total if total else 0.0,
        })  # fmt: skip
    return rows


def knock_counts(knocks: pl.DataFrame) -> str:
    """How many rounds each source's callers ended at each deadwood."""
    deadwoods = sorted(set(knocks["deadwood"].to_list()))
    counts = {}
    for (source,), part in knocks.group_by("source", maintain_order=True):
        found = dict(part.select("deadwood", "knocks").rows())
        counts[source] = [found.get(d, 0) for d in deadwoods]
    return kit.bar_plot(
        [str(d) for d in deadwoods], counts, fmt=str, title="Knocks by deadwood, counts",
        x_label="the caller's deadwood", y_label="rounds", ident="knock-counts",
    )  # fmt: skip


def endings_plot(rounds: pl.DataFrame) -> str:
    """The share of rounds ending each way (either player calling), per source."""
    shares = rounds.group_by("source", "ending").agg(pl.col("share").sum())
    found = {(source, ending): share for source, ending, share in shares.iter_rows()}
    sources = sorted({source for source, _ in found})
    return kit.bar_plot(
        ["gin", "knock", "stock-out"],
        {source: [found.get((source, ending), 0.0) for ending in ENDINGS] for source in sources},
        title="How rounds end, by source", x_label="ending", y_label="share of rounds",
        ident="endings",
    )  # fmt: skip


def strength(card: dict[str, Any]) -> kit.Section:
    """The generated player's win rate against each baseline, with its interval."""
    rows = [
        kit.Measured(name, f["win_rate"], tuple(f["win_ci"]), f["games"],
                     note=f"{f['points_per_round']:+.1f} points a round over {f['rounds']:,} "
                     f"rounds; {f['invalid']} invalid plays")
        for name, f in card["against"].items()
    ]  # fmt: skip
    return kit.strength(
        rows,
        measure="win rate",
        summary="The generated player (these tables, as `mine generate ginrummy` writes them) "
        "in full games to the target against each baseline in the reference engine, seats "
        f"alternating (seed {card['seed']}). Gin Rummy has no exact optimum to set beside "
        "it; `mine validate ginrummy` plays more games.",
    )


def observed(con: Any, log_ids: list[int] | None) -> dict[str, pl.DataFrame]:
    """What the page shows of the warehouse's logs `log_ids` (real server logs included):
    the logs' writer against each opponent, draw decisions, how rounds end, and knocks by
    deadwood."""
    features = stats.load_features(con, log_ids)
    return {
        "matchups": opponents.of_player(stats.by_opponent(con, log_ids)),
        "draws": stats.draw_stats(features),
        "rounds": stats.round_stats(stats.load_rounds(con, log_ids)),
        "knocks": stats.knocks_by_deadwood(stats.knock_stats(features), ("source",), 3),
    }


def html(fitted: Any, observed: dict[str, pl.DataFrame] | None, measured: dict[str, Any]) -> str:
    """The page of a fitted table (`models.ginrummy.Fitted`), led by its player's games
    (`measured`: its validation card); with what `observed` read from the warehouse, its
    draws, rounds and knocks too."""
    frame, metadata = fitted.frame, fitted.metadata
    danger = metadata.get("danger", {})
    sections = [
        strength(measured),
        kit.Section(
            "Knock policy",
            """Blue (K): knock; grey (W): play on. Rows: deadwood after the discard (0 is
            always gin); columns: first turn of the bucket (both players' turns counted).
            Knocking is weighed against waiting by dynamic programming over the logged plays:
            the chance the opponent calls first, what its call costs, and how deadwood falls
            over the next draws, each round's points counted as the chance of winning the
            game they leave at the round's scores (the policy has one such chart per pair of
            score buckets; three are drawn). Hover for the knock-minus-wait margin and the
            number of logged plays.""",
            [knock_chart(frame, *scores) for scores in KNOCK_SCORES],
        ),
        kit.Section(
            "Discard danger",
            f"""Chance that the opponent picks a discard up (logistic regression on the
            card's relation to the opponent's earlier pickups and passes, and its rank),
            averaged over the logged discards of each card; held-out AUC
            {danger.get("held_out_auc")}. Hover for the observed rate.""",
            [danger_grid(frame)],
        ),
        kit.Section(
            "What the opponent throws",
            """Chance (per cent) that a card of each rank, unseen by a player, is its
            opponent's next discard, by turn. A stock draw reaches each unseen card at one
            rate; the opponent's discards favour the ranks it does not keep, so a hand
            waiting on those fills sooner. The generated player counts both ways in when it
            weighs a discard. Hover for the counts.""",
            [thrown_grid(frame)],
        ),
    ]
    if observed is not None:
        sections += _observed(**observed)
    return kit.page(
        "Gin Rummy: what the logs say, and the fitted tables",
        sections,
        metadata,
        intro=f"Tables fitted from {metadata.get('games')} logs ({metadata.get('rows')} turns; "
        f"sources: {', '.join(metadata.get('sources', []))}); data fingerprint "
        f"{metadata.get('fingerprint')}.",
    )


def against_each(pairings: pl.DataFrame) -> kit.Section:
    """The logs' writer against each opponent its files tell apart: its win rate, with
    intervals, and the points a round each side made."""
    return kit.against_each(
        pairings.to_dicts(),
        note=lambda r: (
            f"{r['rounds']:,} rounds; points a round {r['points_a_round']:.1f} for, "
            f"{r['against_a_round']:.1f} against"
        ),
        measure="win rate",
        summary="The logs' writer (the side they are written from: `me`) against each "
        "opponent: its win rate over the games logged (a file is one game, won by the side "
        "with more points at its end), with the Wilson 95 % interval. The logs name no "
        "player, so an opponent is what the file names tell: a simulated game's match "
        "(a-vs-b, the writer one of the two), and every server log's opponent in one row. "
        "These are the logged games, not the generated player's (its games lead the page).",
        reference=0.5,
    )


def _observed(
    matchups: pl.DataFrame, draws: pl.DataFrame, rounds: pl.DataFrame, knocks: pl.DataFrame
) -> list:
    """The sections drawn from the warehouse: the writer against each opponent, draws, how
    rounds end, knocks by deadwood."""
    formats = {"undercut rate": "{:.3f}".format, "mean points": "{:+.2f}".format}
    return [
        against_each(matchups),
        kit.Section(
            "Draw decisions (the ingested logs, real server logs included)",
            "How often the discard is taken, by what the top card does for the hand.",
            [kit.count_table(draws.to_dicts(), title="Discard taken / opportunities")],
        ),
        kit.Section(
            "How rounds end",
            """By source, how rounds end and who made the last play (a stock-out, `Drop`,
            is scored as a knock by the last player to draw).""",
            [endings_plot(rounds), kit.count_table(rounds.to_dicts(), title="Rounds")],
        ),
        kit.Section(
            "Knocks by deadwood",
            """Rounds ended by a knock or a stock-out, by the caller's deadwood: how many,
            how often the opponent undercut (with its interval), and the caller's mean
            points (its points minus the opponent's).""",
            [
                kit.count_table(knock_summary(knocks), title="Knocks by source", formats=formats),
                knock_counts(knocks),
                undercut_plot(knocks),
            ],  # fmt: skip
        ),
    ]
