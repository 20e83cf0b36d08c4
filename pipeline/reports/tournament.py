"""A tournament's standings, as the terminal shows them and as a page: ratings with their
intervals (drawn as error bars), every pairing, the faults.

Any game's round robin (`mine tournament <game> --html`) draws the same page: it only
picks the data and the charts of the report kit, which escapes every text it is given
(player names are file paths, anything a user typed). The rows are the terminal's too
(`pipeline/commands/tournament.py`): one place says how an exact result (Hog's: no
sampling, no interval) or a void pairing reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mine.pipeline.reports import kit

RATE = "{:.3f}".format


def _figure(fmt: Callable[[float], str]) -> Callable[[Any], str]:
    """A figure formatted; a void pairing's reason, in the same column, as it is."""
    return lambda value: value if isinstance(value, str) else fmt(value)


FORMATS = {"A score (exact)": _figure("{:.4f}".format), "A score": _figure(RATE)}


def title(result: dict[str, Any]) -> str:
    how = (
        f"exact win probabilities, each pairing weighing as {result['games_per_pairing']:,} "
        "games in the ratings"
        if result["exact"]
        else f"{result['games_per_pairing']:,} games a pairing, seed {result['seed']}"
    )
    return f"{result['game']} round robin ({how})"


def rating_note(result: dict[str, Any]) -> str:
    if result["exact"]:
        return (
            "rating: Bradley–Terry (Elo scale, mean 1500) of the exact results, with no ± "
            "(nothing was sampled); score: the exact win probability, averaged over the "
            "pairings; invalid: games lost by an invalid play, the exact expectation"
        )
    return (
        "rating: Bradley–Terry (Elo scale, mean 1500) ± its 95 % interval; score: wins and "
        "half the draws; invalid: games lost by an invalid play"
    )


def standing_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per entrant; a column only where it says something (exact results have
    no ± and no played games, a disqualified entrant no figures)."""
    exact = result["exact"]
    rows = []
    for row in result["standings"]:
        shown: dict[str, Any] = {"rank": row["rank"], "player": row["name"]}
        if row["rating"] is None:
            shown["rating"] = "disqualified"
        elif exact:
            shown["rating"] = f"{row['rating']:.0f}"
        else:
            shown["rating"] = f"{row['rating']:.0f} ± {row['plus_minus']:.0f}"
        if not exact:
            shown["games"] = row["games"]
        shown["score"] = "–" if row["score_rate"] is None else f"{row['score_rate']:.1%}"
        shown["invalid"] = games(row["invalid"], exact)
        if not exact:
            shown["time-outs"] = games(row["timeouts"], exact)
        rows.append(shown)
    return rows


def pairing_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per pairing, from A's side: an exact score as exact, a sampled one with
    its record, interval and seats; a void pairing says why."""
    exact = result["exact"]
    score = "A score (exact)" if exact else "A score"
    rows = []
    for p in result["pairings"]:
        row: dict[str, Any] = {"A": p["a"], "B": p["b"]}
        if "void" in p:
            row[score] = p["void"]
            rows.append(row)
            continue
        if exact:
            row[score] = p["a_score_rate"]
        else:
            low, high = p["a_score_ci95"]
            row["W-D-L"] = f"{p['a_wins']}-{p['draws']}-{p['b_wins']}"
            row[score] = p["a_score_rate"]
            row["95 %"] = f"{RATE(low)} … {RATE(high)}"
            row["first A/B"] = f"{p['a_first']}/{p['b_first']}"
        row["invalid A/B"] = "/".join(games(n, exact) for n in p["invalid"])
        margin = p.get("margin") or {}
        if margin.get("ci95"):
            low, high = margin["ci95"]
            row["margin"] = f"{margin['mean']:+.1f}"
            row["margin 95 %"] = f"{low:+.1f} … {high:+.1f}"
        rows.append(row)
    return rows


def games(count: float | None, exact: bool) -> str:
    """Games counted: whole where played, an expectation (3 figures) where exact."""
    if count is None:
        return "–"
    return f"{count:.3g}" if exact and count else f"{count:,.0f}"


def html(result: dict[str, Any], margin: str | None) -> str:
    standings, exact = result["standings"], result["exact"]
    ratings = []  # a disqualified entrant is not rated
    for row in standings:
        if row["rating"] is not None:
            rating, plus_minus = row["rating"], row["plus_minus"]
            ratings.append(
                (row["name"], rating, None if exact else (rating - plus_minus, rating + plus_minus))
            )
    rows = standing_rows(result)
    if result["disqualified"]:
        for shown, row in zip(rows, standings, strict=True):
            shown["disqualified"] = row["disqualified"] or ""
    pairings = pairing_rows(result)
    columns = {key: key for row in pairings for key in row}  # void rows too
    sections = [
        kit.Section(
            "Standings",
            "Bradley–Terry ratings on the Elo scale, fitted by maximum likelihood over every "
            "game at once (draws half a win each; one virtual draw per pairing keeps a "
            "perfect record finite), the mean anchored at 1500. "
            + (
                "Every pairing is an exact win probability, not a sample: the ratings carry "
                "no interval, and each pairing weighs as "
                f"{result['games_per_pairing']:,} games against the virtual draw."
                if exact
                else "The bars are 95 % intervals from the fit's information."
            )
            + " A disqualified entrant is not rated and ranks last. An invalid play loses "
            "the game it is made in.",
            [
                kit.interval_plot(
                    ratings,
                    title="Ratings" if exact else "Ratings with their 95 % intervals",
                    x_label="rating (Elo scale; the dashed line is the mean, 1500)",
                    fmt="{:.0f}".format,
                    reference=1500.0,
                    ident="ratings",
                ),
                kit.count_table(rows, title="Standings", caption=rating_note(result)),
            ],
        ),  # fmt: skip
        kit.Section(
            "Pairings",
            (
                "Every pairing from A's side: A's exact chance to win, the average of moving "
                "first and moving second; invalid: the games each side loses by an invalid "
                "play, the exact expectation."
                if exact
                else "Every pairing from A's side: wins, draws and losses; A's score rate "
                "(wins plus half the draws) with its Wilson 95 % interval; how often each "
                "side sat or moved first; and A's mean margin with a paired t 95 % interval "
                "over deals (each deal played from both seats)."
            )
            + (f" Margin: {margin}." if margin else ""),
            [kit.count_table(pairings, title="Pairings", columns=columns, formats=FORMATS)],
        ),
    ]
    provenance = {
        "game": result["game"],
        "games per pairing": result["games_per_pairing"],
        "seed": result["seed"],
        "exact": result["exact"],
        "entrants": [e["name"] for e in result["entrants"]],
    }
    return kit.page(f"{result['game']} tournament", sections, provenance)
