"""A tournament's standings page: ratings with their intervals, every pairing, the faults.

Any game's round robin (`mine tournament <game> --html`) draws the same page: it only
picks the data and the charts of the report kit, which escapes every text it is given
(player names are file paths, anything a user typed).
"""

from __future__ import annotations

from typing import Any

from mine.pipeline.reports import kit

RATE = "{:.3f}".format


def _interval(low_high: list[float] | None, fmt=RATE) -> str:
    return "–" if not low_high else f"{fmt(low_high[0])} … {fmt(low_high[1])}"


def html(result: dict[str, Any], margin: str | None) -> str:
    standings = result["standings"]
    rated = [row for row in standings if row["rating"] is not None]
    rows = [
        {
            "rank": row["rank"],
            "player": row["name"],
            "rating": row["rating"],
            "± 95 %": row["plus_minus"],
            "games": row["games"],
            "score rate": row["score_rate"],
            "invalid plays": row["invalid"],
            "of them time-outs": row["timeouts"],
            "disqualified": row["disqualified"] or "",
        }
        for row in standings
    ]
    pairings = []
    for p in result["pairings"]:
        if "void" in p:
            pairings.append({"A": p["a"], "B": p["b"], "result": p["void"]})
            continue
        pairings.append({
            "A": p["a"],
            "B": p["b"],
            "games": p["games"],
            "A first": p["a_first"],
            "B first": p["b_first"],
            "A score rate": p["a_score_rate"],
            "95 % interval": _interval(p["a_score_ci95"]),
            "margin": (p.get("margin") or {}).get("mean"),
            "margin 95 %": _interval((p.get("margin") or {}).get("ci95"), "{:+.2f}".format),
            "invalid A / B": f"{p['invalid'][0]} / {p['invalid'][1]}",
        })  # fmt: skip
    sections = [
        kit.Section(
            "Standings",
            "Bradley–Terry ratings on the Elo scale, fitted by maximum likelihood over every "
            "game at once (draws half a win each; one virtual draw per pairing keeps a "
            "perfect record finite), the mean anchored at 1500; ± is the 95 % interval from "
            "the fit's information. A disqualified entrant is not rated and ranks last.",
            [
                kit.count_table(rows, title="Standings", formats={"score rate": _rate}),
                kit.bar_plot(
                    [row["name"] for row in rated],
                    [row["rating"] - 1500 for row in rated],
                    title="Rating above or below 1500",
                    x_label="player",
                    y_label="rating − 1500",
                    fmt="{:+.0f}".format,
                ),
            ],
        ),
        kit.Section(
            "Pairings",
            "Every pairing from A's side: A's score rate (wins plus half the draws) with "
            "its Wilson 95 % interval, how often each side sat or moved first, and A's "
            "mean margin with a paired t 95 % interval over deals (each deal played from "
            "both seats)." + (f" Margin: {margin}." if margin else ""),
            [
                kit.count_table(
                    pairings,
                    title="Pairings",
                    columns={key: key for row in pairings for key in row},  # void rows too
                    formats={"A score rate": _rate, "margin": _signed},
                )
            ],
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


def _rate(value: float | None) -> str:
    return "–" if value is None else RATE(value)


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"
