"""The report kit's pieces every page shares: the strength section it leads with, the
provenance as a short table (every figure one click away), ticks without a signed zero."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mine.pipeline.reports import kit

CARD_WEIGHTS = {f"{rank}{suit}": 1.0 for rank in "23456789TJQKA" for suit in "CDHS"}
METADATA = {
    "game": "cardguess",
    "fingerprint": "dbeff9c7385e239f5315ba7251502ddfc824787cdac4a09976af010e64e5b475",
    "games": 100,
    "settings": {"sizes": [2], "quick": True},
    "answerer": {"uniform": True, "card_weights": CARD_WEIGHTS},
    "count_play": [{"tc_low": -10, "tc_high": -3, "bid": 100}, {"tc_low": -2, "tc_high": 10,
                                                                "bid": 10}],
    "coefficients": {f"rank={r}": 0.1 * r - 0.6 for r in range(2, 14)},
}  # fmt: skip


def test_the_provenance_is_one_row_per_entry_and_every_figure_is_behind_it():
    short = dict(kit.provenance_summary(METADATA))
    assert list(short) == ["game", "fingerprint", "games", "settings", "answerer", "count play",
                           "coefficients"]  # fmt: skip
    assert short["fingerprint"] == "dbeff9c7385e239f…"
    assert short["settings"] == "sizes 2 · quick yes"
    assert short["answerer"].startswith("53 figures: uniform yes · card weights › 2C 1 …")
    assert short["count play"] == "2 records"
    assert short["coefficients"].startswith("12 figures: rank=2 -0.4 · rank=3 -0.3")
    assert dict(kit.provenance_summary({"weights": CARD_WEIGHTS})) == {
        "weights": "52 entries, all 1"
    }
    every = dict(kit.provenance_rows(METADATA))
    assert every["answerer › card weights › KS"] == "1"
    assert every["count play › 2"] == "tc low -2 · tc high 10 · bid 10"  # not "–, –"
    page = kit.page("t", [], METADATA)
    short_table, details = page.split("<details>")
    assert short_table.count("<tr>") == len(short) and details.count("<tr>") == len(every)


def _strength(sample: int | None) -> kit.Section:
    interval = None if sample is None else (0.30, 0.70)
    return kit.strength(
        [kit.Measured("random", 0.5, interval, sample, best=0.9 if sample is None else None)],
        measure="win rate",
        summary="The player against random.",
    )


def test_the_strength_section_says_how_sure_each_figure_is():
    small, large, exact = _strength(20), _strength(400), _strength(None)
    assert small.anchor == large.anchor == exact.anchor == "strength"
    assert (
        "20 games against random: the interval is wide (0.300 … 0.700); more games would "
        "narrow it." in small.paragraphs
    )
    assert not any("wide" in p for p in large.paragraphs)
    two = kit.strength(
        [kit.Measured(name, 0.5, (0.3, 0.7), 20) for name in ("a", "b", "c")],
        measure="win rate", summary="",
    )  # fmt: skip
    assert "20 games against each of a, b and c: the intervals are wide (see the table); " \
        "more games would narrow them." in two.paragraphs  # fmt: skip
    assert "Exact figures are computed, not played: they carry no interval." in exact.paragraphs
    table = str(exact.figures[0])
    cells = re.findall(r"<td[^>]*>(.*?)</td>", table)
    assert cells == ["random", "0.500", "exact", "exact", "0.900", "0.400"]
    assert "exact optimum" in table and "exact optimum" not in str(small.figures[0])
    assert "<path" in str(small.figures[1]) and "<path" not in str(exact.figures[1]).split(
        "</text>", 1)[0]  # fmt: skip


def test_a_small_sample_that_all_agrees_is_not_called_wide_nor_certain():
    """Super-Nim's all-draw games give a margin interval of no width (no spread seen):
    the caveat says why it has none, not that it is wide."""
    one = kit.strength([kit.Measured("random", 0.0, (0.0, 0.0), 12)], measure="margin",
                       summary="", fmt="{:+.3f}".format)  # fmt: skip
    assert (
        "12 games against random, each +0.000: the interval has no width only because they "
        "all agree; more games would show the spread." in one.paragraphs
    )
    assert not any("wide" in p for p in one.paragraphs)
    mixed = kit.strength(
        [kit.Measured("a", 0.0, (0.0, 0.0), 12), kit.Measured("b", 0.5, (0.3, 0.7), 20)],
        measure="margin", summary="",
    )  # fmt: skip
    assert "12 to 20 games against each of a and b: the intervals are wide (see the table; " \
        "one without width only means its games all agreed); more games would narrow them." \
        in mixed.paragraphs  # fmt: skip


def test_a_page_with_a_strength_section_leads_with_it():
    page = kit.page("t", [_strength(None), kit.Section("Table")], {"game": "hog"})
    assert page.index('<section id="strength">') < page.index('<section id="table">')


@given(st.floats(-1e4, 1e4), st.floats(1e-6, 1e4))
def test_ticks_are_never_a_signed_zero(low, span):
    ticks = kit._ticks(low, low + span)
    # they cover the data, up to a billionth of a step (what rounding leaves of 0.1 * 3)
    slack = 1e-9 * (ticks[1] - ticks[0])
    assert ticks[0] <= low + slack and ticks[-1] >= low + span - slack
    assert all(kit._tick(t) != "-0" for t in ticks)


def test_no_number_that_rounds_to_zero_reads_negative():
    assert [kit.unsigned_zero(t) for t in ("-0", "-0.00", "-0.0 %", "-0.05", "-10", "-")] == [
        "0", "0.00", "0.0 %", "-0.05", "-10", "-"
    ]  # fmt: skip
    plot = kit.line_plot({"mean": ([-3, 0, 3], [-0.0001, 0.2, -0.13])}, title="t",
                         x_label="x", y_label="y", zero=True)  # fmt: skip
    assert not re.search(r">-0(\.0+)?<", str(plot))
    table = kit.count_table([{"margin": -0.0001}], title="t", formats={"margin": "{:+.2f}".format})
    assert ">-0.00<" not in str(table) and ">0.00<" in str(table)


def test_a_grid_keys_only_what_it_draws_and_marks_the_cells_asked():
    legend = {"H": ("Hit", "#f4a3a3"), "S": ("Stand", "#f6e27f"), "-": ("no decision", "#eee")}
    keys = [["H", "S"], ["S", "S"]]
    plain = str(kit.grid(keys, ["a", "b"], ["1", "2"], legend, title="t"))
    assert ">H Hit<" in plain and ">S Stand<" in plain and "no decision" not in plain
    assert "pointer-events" not in plain  # no mark asked, none drawn
    marked = str(
        kit.grid(
            keys,
            ["a", "b"],
            ["1", "2"],
            legend,
            title="t",
            marked=[[True, False], [False, True]],
            mark_name="by the count",
        )
    )
    assert marked.count('pointer-events="none"') == 2 and ">by the count<" in marked


def test_the_strength_table_says_none_short_of_the_optimum_and_no_interval_as_such():
    section = kit.strength(
        [kit.Measured("exact", 0.0856, best=0.0856), kit.Measured("one game", 2.0, None, 1)],
        measure="return", summary="", fmt="{:+.4f}".format,
    )  # fmt: skip
    cells = re.findall(r"<td[^>]*>(.*?)</td>", str(section.figures[0]))
    # a value at the optimum is short of it by nothing, not "+0.0000"; a sampled figure
    # without an interval is not called exact
    assert cells == ["exact", "+0.0856", "exact", "exact", "+0.0856", "none: it is the optimum",
                     "one game", "+2.0000", "–", "1", "–", "–"]  # fmt: skip


def test_outcome_bars_keep_one_colour_each_and_draw_their_intervals():
    chart = str(kit.bar_plot(
        ["random", "greedy"], {"win": [0.6, 0.1], "draw": [0.1, 0.8], "loss": [0.3, 0.1]},
        title="results", x_label="opponent", y_label="share", colours=kit.OUTCOMES,
        errors={"win": [(0.4, 0.8), None]},
    ))  # fmt: skip
    bars = re.findall(r'<rect [^>]*fill="(#[0-9a-f]{6})"><title>(\w+), (\w+): ([^<]*)</title>',
                      chart)  # fmt: skip
    assert {(series, colour) for colour, _, series, _ in bars} == set(
        (name, colour) for name, colour in kit.OUTCOMES.items())  # fmt: skip
    assert ("random", "win") in {(label, series) for _, label, series, text in bars
                                 if "95 % interval 0.4 … 0.8" in text}  # fmt: skip
    assert chart.count('stroke="#333"') == 1  # one whisker: the one interval given
    assert kit.LOSS not in kit.SERIES and kit.WIN not in kit.SERIES
