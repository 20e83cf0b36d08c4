"""The report kit: one page template and the charts every game's report draws with.

A game's report module only chooses data and charts: it builds `Section`s whose figures
come from the primitives here (`strength`, `against_each`, `interval_plot`, `grid`,
`heat_map`, `count_table`, `line_plot`, `bar_plot`), and `page` lays them out with the
title, the version and date, a table of contents and the data's provenance as a short table
(every figure of it one click away). Every page leads with how strong the player is:
`strength` builds that section, the same for every game. Every chart is inline SVG (a large
heat map is an inline PNG inside the SVG): the page needs no network and no script, and it
prints.
"""

from __future__ import annotations

import base64
import html
import math
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from mine import __version__
from mine.pipeline.console import day_written
from mine.strategies.intervals import normal_mean, wilson

# Viridis reversed (light for low, dark for high), so "more" reads as "darker" in print too.
RAMP = (
    "#fde725", "#b5de2b", "#6ece58", "#35b779", "#1f9e89",
    "#26828e", "#31688e", "#3e4989", "#482878", "#440154",
)  # fmt: skip
MISSING = "#eeeeee"
# One meaning per colour on every page: green is a win (good for the player), red a loss
# (bad for it), grey a draw or no data; series that are none of these (sides, sources,
# guessers) take colours that are neither red nor green.
WIN, DRAW, LOSS = "#2ca02c", "#9e9e9e", "#d62728"
OUTCOMES = {"win": WIN, "draw": DRAW, "loss": LOSS}
SERIES = ("#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#e377c2")
MARK = "#000000"  # a reference drawn on a chart: the exact optimum's diamond
RASTER_CELLS = 2500  # a heat map with more cells is drawn as a PNG inside the SVG
FONT = 11
WRAP = 32  # characters: a longer table cell may wrap (a shorter one, a figure, does not)


@dataclass(frozen=True)
class Section:
    title: str
    text: str = ""  # paragraphs, separated by blank lines
    figures: Sequence[str] = field(default_factory=tuple)
    ident: str = ""  # the anchor, where the title's own would not do

    @property
    def anchor(self) -> str:
        return self.ident or "".join(c if c.isalnum() else "-" for c in self.title.lower()).strip(
            "-"
        )

    @property
    def paragraphs(self) -> list[str]:
        return [" ".join(p.split()) for p in self.text.split("\n\n") if p.strip()]


def page(
    title: str, sections: Sequence[Section], provenance: Mapping[str, Any], intro: str = ""
) -> str:
    """The whole HTML page."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return environment.get_template("page.html.j2").render(
        title=title,
        intro=Section("", intro).paragraphs,
        sections=sections,
        provenance=provenance_summary(provenance),
        details=provenance_rows(provenance),
        version=__version__,
        date=day_written().isoformat(),
    )


def provenance_rows(metadata: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Nested metadata as (key, value) rows, every figure of it: `learned › decks`, a list
    of flat records one row each, lists joined, numbers grouped."""
    rows = []
    for key, value in metadata.items():
        name = f"{prefix}{_name(key)}"
        if isinstance(value, Mapping) and value:
            rows.extend(provenance_rows(value, f"{name} › "))
        elif _records(value):
            for k, record in enumerate(value, start=1):
                if any(isinstance(v, Mapping | list | tuple) for v in record.values()):
                    rows.extend(provenance_rows(record, f"{name} › {k} › "))
                else:  # a flat record reads as one line: "tc low -2 · tc high 10 · bid 10"
                    rows.append((f"{name} › {k}", _text(record)))
        else:
            rows.append((name, _text(value)))
    return rows


SHORT = 60  # characters: a longer value is cut in the short provenance table
TOKEN = 20  # characters: a longer single word (a fingerprint) is cut to its start
LEAF = 28  # characters: a longer figure is cut where a group's line shows its first two


def provenance_summary(metadata: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The provenance as a short table: one row per top-level entry, a group (settings,
    what was learned, a model's coefficients) or a long list summarised in one line."""
    return [(_name(key), _summary(value)) for key, value in metadata.items()]


def _summary(value: Any) -> str:
    if isinstance(value, Mapping) and value:
        leaves = provenance_rows(value)
        shown = {text for _, text in leaves}
        if len(leaves) > 2 and len(shown) == 1:
            return f"{len(leaves)} entries, all {shown.pop()}"
        line = " · ".join(f"{name} {text}" for name, text in leaves)
        if len(leaves) <= 4 and len(line) <= SHORT:
            return line
        first = " · ".join(f"{name} {_cut(text, LEAF)}" for name, text in leaves[:2])
        return f"{len(leaves)} figures: {first}" + ("" if first.endswith("…") else " …")
    if _records(value):
        return f"{len(value)} records"
    if isinstance(value, list | tuple) and len(value) > 6:
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            return f"{len(value)} values from {_text(min(value))} to {_text(max(value))}"
        return f"{len(value)} values: {_text(list(value[:3]))}, …"
    return _cut(_text(value))


def _cut(text: str, limit: int = SHORT) -> str:
    if " " not in text and len(text) > TOKEN:
        return text[: TOKEN - 4] + "…"
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " …"


def _name(key: Any) -> str:
    return str(key).replace("_", " ")


def _records(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(isinstance(v, Mapping) for v in value)
    )


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "–"}[value]
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return unsigned_zero(f"{value:,.6g}")
    if isinstance(value, list | tuple):
        if all(isinstance(v, list | tuple) for v in value) and value:
            return "; ".join(", ".join(_text(x) for x in v) for v in value)
        return ", ".join(_text(v) for v in value)
    if isinstance(value, Mapping):
        return " · ".join(f"{_name(k)} {_text(v)}" for k, v in value.items()) or "–"
    return str(value)


def unsigned_zero(text: str) -> str:
    """A number that rounds to zero without its sign: `-0`, `-0.00` (a small negative
    number, or IEEE's negative zero) reads `0`, `0.00`."""
    if text[:1] in "-−" and "0" in text and not text[1:].strip("0.,% "):
        return text[1:]
    return text


# --- how strong the player is ----------------------------------------------------------

SMALL_SAMPLE = 100  # a sampled figure from fewer games than this says its interval is wide
STRENGTH = "strength"  # the anchor of the section every page leads with


@dataclass(frozen=True)
class Measured:
    """How the player did against one opponent: `value`, with its 95 % `interval` over
    `sample` games (hands, answers), both None where the figure is exact (computed, not
    played); `best`: the exact optimum's value against the same opponent, where one is
    known; `note`: a detail (each seat's figure)."""

    against: str
    value: float
    interval: tuple[float, float] | None = None
    sample: int | None = None
    best: float | None = None
    note: str = ""


def strength(
    measured: Sequence[Measured],
    *,
    measure: str,
    summary: str,
    unit: str = "games",
    fmt: Callable[[float], str] = "{:.3f}".format,
    higher_is_better: bool = True,
    reference: float | None = None,
    figures: Sequence[str] = (),
    plot: str = "",
) -> Section:
    """The section every report leads with: the player against each opponent (a table and
    the intervals drawn, titled `plot` where the rows are not all opponents; `reference`
    a dashed line: the value that is par), the exact optimum beside it where one is known,
    and a caveat wherever a sample is too small to say much; the game's own `figures`
    after them. `summary`: the game's own lead sentence."""
    rows = _rows(measured, measure, unit, fmt)
    sampled = [m for m in measured if m.sample is not None]
    notes = [summary]
    if len(sampled) < len(measured):
        notes.append(
            "Exact figures are computed, not played: they carry no interval."
            if not sampled
            else "Figures marked exact are computed, not played: they carry no interval."
        )
    if sampled:
        notes.append(f"Intervals are 95 %; {'higher' if higher_is_better else 'lower'} is "
                     "better.")  # fmt: skip
    notes += _small_samples(sampled, unit, fmt)
    plot = plot or f"The player's {measure} against each opponent"
    drawn = _drawn(rows, measured, measure, fmt, reference, f"The player's {measure}", plot)
    return Section("How strong the player is", "\n\n".join(notes), drawn + [*figures], STRENGTH)


def _rows(measured: Sequence[Measured], measure: str, unit: str, fmt) -> list[dict[str, Any]]:
    """Each figure's row: against whom, the value, its interval (exact: none to give; –: a
    sampled figure without one) and the sample; the exact optimum and the gap to it where
    one is known, the detail where there is one."""
    best = any(m.best is not None for m in measured)
    rows = []
    for m in measured:
        shown = ("exact" if m.sample is None else "–") if m.interval is None else (
            f"{fmt(m.interval[0])} … {fmt(m.interval[1])}")  # fmt: skip
        row = {"against": m.against, measure: m.value, "95 % interval": shown,
               unit: "exact" if m.sample is None else m.sample}  # fmt: skip
        if best:
            row["exact optimum"] = m.best
            row["short of it by"] = None if m.best is None else _short(m.best - m.value, fmt)
        if any(x.note for x in measured):
            row["detail"] = m.note
        rows.append(row)
    return rows


def _drawn(rows, measured, measure, fmt, reference, table, plot, ident="") -> list[Markup]:
    """The figures' `rows` as a table titled `table`, and their intervals drawn, titled
    `plot`."""
    formats = {measure: fmt, "exact optimum": lambda v: "–" if v is None else fmt(v)}
    shown = count_table(rows, title=table, formats=formats)
    plotted, marks = (
        [(m.against, m.value, m.interval) for m in measured],
        [m.best for m in measured],
    )
    drawn = interval_plot(
        plotted, title=plot, x_label=measure, fmt=fmt, marks=marks, reference=reference, ident=ident
    )
    return [shown, drawn]


def _small_samples(sampled: Sequence[Measured], unit: str, fmt: Callable[[float], str]) -> list:
    """The caveat where a sample is too small to say much, once for all of them."""
    small = [m for m in sampled if m.sample < SMALL_SAMPLE and m.interval is not None]
    # Where every game gave the same value the interval has no width: not certainty, only
    # no spread seen yet in a few games.
    if len(small) == 1:
        (m,) = small
        low, high = m.interval
        if low == high:
            return [
                f"{m.sample:,} {unit} against {m.against}, each {fmt(low)}: the interval has "
                f"no width only because they all agree; more {unit} would show the spread."
            ]
        return [
            f"{m.sample:,} {unit} against {m.against}: the interval is wide "
            f"({fmt(low)} … {fmt(high)}); more {unit} would narrow it."
        ]
    if not small:
        return []
    least, most = min(m.sample for m in small), max(m.sample for m in small)
    counts = f"{least:,}" if least == most else f"{least:,} to {most:,}"
    names = _listed([m.against for m in small])
    agreeing = any(m.interval[0] == m.interval[1] for m in small)
    seen = f"see the table; one without width only means its {unit} all agreed" if agreeing \
        else "see the table"  # fmt: skip
    return [
        f"{counts} {unit} against each of {names}: the intervals are wide ({seen}); "
        f"more {unit} would narrow them."
    ]


# --- the logs' player against each opponent -----------------------------------------------

OPPONENTS = "against-each-opponent"  # the anchor of the section


def against_each(
    pairings: Sequence[Mapping[str, Any]],
    *,
    measure: str,
    summary: str,
    label: Callable[[Mapping[str, Any]], str] = lambda row: row["opponent"],
    note: Callable[[Mapping[str, Any]], str] = lambda row: "",
    unit: str = "games",
    fmt: Callable[[float], str] = "{:.3f}".format,
    higher_is_better: bool = True,
    reference: float | None = None,
) -> Section:
    """What the logs show of their player against each opponent there: the stats layer's
    `pairings` (`pipeline.stats.opponents`), one row each in the order given (the weakest
    matchup first), named by `label`, a detail by `note`, drawn as `strength` draws the
    player's: a rate with its Wilson 95 % interval (draws count half), a mean with its
    normal one. `summary`: who the player is and what the figure means in this game."""
    measured = [
        Measured(label(r), r["value"], _interval(r), r["n"], note=note(r)) for r in pairings
    ]
    notes = [summary]
    if not measured:
        notes.append("The logs show no opponent to set it against.")
        return Section("Against each opponent", "\n\n".join(notes), ident=OPPONENTS)
    better = "higher" if higher_is_better else "lower"
    notes.append(f"Intervals are 95 %; {better} is better; the weakest matchup comes first.")
    notes += _small_samples([m for m in measured if m.sample is not None], unit, fmt)
    table, plot = f"Against each opponent: {measure}", f"{measure} against each opponent"
    plot = f"{plot[:1].upper()}{plot[1:]}, weakest first"
    rows = _rows(measured, measure, unit, fmt)
    drawn = _drawn(rows, measured, measure, fmt, reference, table, plot, "opponent-intervals")
    return Section("Against each opponent", "\n\n".join(notes), drawn, ident=OPPONENTS)


def _interval(row: Mapping[str, Any]) -> tuple[float, float] | None:
    if "sd" in row:
        return normal_mean(row["value"], row["sd"], row["n"])
    return wilson(row["wins"] + row["draws"] / 2, row["n"])


def _short(gap: float, fmt: Callable[[float], str]) -> str:
    """How far a value falls short of its exact optimum: none where it is the optimum (to
    the shown digits), never a signed zero."""
    shown = fmt(abs(gap))
    return "none: it is the optimum" if not shown.strip("+-0.,% ") else shown.lstrip("+")


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# --- colours -----------------------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def shade(fraction: float) -> str:
    """The sequential palette at `fraction` (0 light … 1 dark)."""
    if fraction != fraction:  # NaN
        return MISSING
    at = min(max(fraction, 0.0), 1.0) * (len(RAMP) - 1)
    low = int(at)
    high = min(low + 1, len(RAMP) - 1)
    a, b = _rgb(RAMP[low]), _rgb(RAMP[high])
    t = at - low
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


def ordinal_palette(levels: int) -> tuple[str, ...]:
    """`levels` colours for the values 0 … levels - 1, light to dark."""
    return tuple(shade(i / max(levels - 1, 1)) for i in range(levels))


# --- SVG pieces ----------------------------------------------------------------------------


def _label(x: float, y: float, text: str, anchor: str = "middle", **extra: str) -> str:
    attributes = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in extra.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{attributes}>'
        f"{html.escape(unsigned_zero(text))}</text>"
    )


def _figure(kind: str, title: str, body: str, caption: str, ident: str, size=None) -> Markup:
    """A figure with its title and caption; with `size` (width, height), `body` is what an
    SVG image that size draws."""
    if size:
        width, height = (f"{x:.0f}" for x in size)
        body = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(title)}" '
            f'font-family="system-ui, sans-serif" font-size="{FONT}">{body}</svg>'
        )
    name = f' id="{html.escape(ident)}"' if ident else ""
    note = f"<p class='caption'>{html.escape(caption)}</p>" if caption else ""
    return Markup(
        f'<figure class="chart {kind}"{name}><figcaption>{html.escape(title)}</figcaption>'
        f"{body}{note}</figure>"
    )


def _cells_frame(
    rows: Sequence[str], columns: Sequence[str], x_label: str, y_label: str, cell: int
) -> tuple[float, float, list[str]]:
    """Offsets of the cell area and the axis text around it (columns on top)."""
    left = 14 + max((len(r) for r in rows), default=1) * 6.5 + (16 if y_label else 0)
    top = 30 + (14 if x_label else 0)
    parts = []
    if x_label:
        parts.append(_label(left + len(columns) * cell / 2, 12, x_label, font_weight="bold"))
    if y_label:
        middle = top + len(rows) * cell / 2
        parts.append(
            _label(10, middle, y_label, font_weight="bold", transform=f"rotate(-90 10 {middle})")
        )
    # Label every k-th row and column, k such that labels do not overlap.
    widest = max((len(c) for c in columns), default=1) * 6.5 + 4
    across, down = math.ceil(widest / cell), math.ceil((FONT + 2) / cell)
    for j, name in enumerate(columns):
        if j % across == 0:
            parts.append(_label(left + (j + 0.5) * cell, top - 6, name))
    for i, name in enumerate(rows):
        if i % down == 0:
            parts.append(_label(left - 5, top + (i + 0.5) * cell + 4, name, "end"))
    return left, top, parts


def _square(x: float, y: float, size: int, fill: str, tip: str, text: str = "", font=FONT) -> str:
    """One square of a grid or heat map: its colour, its tooltip, and text written on it."""
    square = (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{size - 1}" height="{size - 1}" '
        f'fill="{fill}"><title>{html.escape(tip)}</title></rect>'
    )
    if not text:
        return square
    middle = x + size / 2 - 0.5, y + size / 2 + 3.5
    r, g, b = _rgb(fill)  # black or white text, whichever reads on the square
    ink = "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"
    return square + _label(*middle, text, fill=ink, font_size=str(font))


def _legend(
    items: Sequence[tuple[str, str]], x: float, y: float, width: float = 10_000
) -> tuple[str, float, float]:
    """Swatches with names, in rows no wider than `width`; the SVG, the width and the
    height used."""
    parts, at, line, widest = [], x, 0, 0.0
    for colour, name in items:
        size = 16 + 6.5 * len(name) + 14
        if at > x and at + size - 14 > x + width:
            at, line = x, line + 1
        top = y + 18 * line
        parts.append(
            f'<rect x="{at:.1f}" y="{top:.1f}" width="12" height="12" fill="{colour}" '
            'stroke="#999" stroke-width="0.5"/>'
        )
        parts.append(_label(at + 16, top + 10, name, "start"))
        at += size
        widest = max(widest, at - 14 - x)
    return "".join(parts), widest, 18 * (line + 1) if items else 0


# --- charts --------------------------------------------------------------------------------


def grid(
    keys: Sequence[Sequence[str]],
    rows: Sequence[str],
    columns: Sequence[str],
    legend: Mapping[str, tuple[str, str]],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    tips: Sequence[Sequence[str]] | None = None,
    letters: bool = True,
    cell: int = 22,
    marked: Sequence[Sequence[bool]] | None = None,
    mark_name: str = "",
    ident: str = "",
    caption: str = "",
) -> Markup:
    """A categorical chart: `keys[i][j]` names the cell's category, `legend` maps each
    key to (name, colour), and only the keys drawn are in the key; `tips` are the cells'
    tooltips; a cell `marked` has a black corner, named `mark_name` in the key."""
    left, top, parts = _cells_frame(rows, columns, x_label, y_label, cell)
    for i, row in enumerate(keys):
        for j, key in enumerate(row):
            name, colour = legend[key]
            tip = tips[i][j] if tips else f"{rows[i]}, {columns[j]}: {name}"
            x, y = left + j * cell, top + i * cell
            parts.append(_square(x, y, cell, colour, tip, key if letters else ""))
            if marked and marked[i][j]:
                parts.append(  # a black triangle in the cell's top right corner
                    f'<path d="M{x + cell - 8:.1f} {y:.1f}H{x + cell - 1:.1f}V{y + 7:.1f}z" '
                    'fill="#000000" pointer-events="none"/>'
                )
    width = left + len(columns) * cell + 10
    bottom = top + len(rows) * cell + 10
    drawn = {key for row in keys for key in row}
    used = [(legend[k][1], f"{k} {legend[k][0]}" if letters else legend[k][0])
            for k in legend if k in drawn]  # fmt: skip
    if marked and any(any(row) for row in marked):
        used.append(("#000000", mark_name))
    svg, legend_width, legend_height = _legend(used, left, bottom, max(width - left, 240))
    parts.append(svg)
    size = max(width, left + legend_width + 10), bottom + legend_height + 4
    return _figure("grid", title, "".join(parts), caption, ident, size)


def heat_map(
    values: Sequence[Sequence[float | None]],
    rows: Sequence[str],
    columns: Sequence[str],
    *,
    title: str,
    value_label: str,
    x_label: str = "",
    y_label: str = "",
    low: float | None = None,
    high: float | None = None,
    fmt: Callable[[float], str] = "{:.2f}".format,
    tips: Sequence[Sequence[str]] | None = None,
    show_values: bool = True,
    cell: int = 30,
    palette: Sequence[str] | None = None,
    ident: str = "",
    caption: str = "",
) -> Markup:
    """Numbers as colours on the sequential palette, `low` (light) to `high` (dark). With
    `palette`, the values are whole numbers indexing it (an ordinal scale). A map of more
    than `RASTER_CELLS` cells is one PNG image, without per-cell text."""
    flat = [v for row in values for v in row if v is not None and v == v]
    low = min(flat, default=0.0) if low is None else low
    high = max(flat, default=1.0) if high is None else high
    span = (high - low) or 1.0

    def colour(value: float | None) -> str:
        if value is None or value != value:
            return MISSING
        if palette is not None:
            return palette[min(max(int(value), 0), len(palette) - 1)]
        return shade((value - low) / span)

    raster = len(rows) * len(columns) > RASTER_CELLS
    left, top, parts = _cells_frame(rows, columns, x_label, y_label, cell)
    if raster:
        image = _png([[colour(v) for v in row] for row in values], cell)
        parts.append(
            f'<image x="{left}" y="{top}" width="{len(columns) * cell}" '
            f'height="{len(rows) * cell}" href="data:image/png;base64,{image}"/>'
        )
    else:
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                shown = "–" if value is None or value != value else fmt(value)
                tip = tips[i][j] if tips else f"{rows[i]}, {columns[j]}: {shown}"
                parts.append(_square(left + j * cell, top + i * cell, cell, colour(value), tip,
                                   shown if show_values else "", FONT - 1))  # fmt: skip
    bottom = top + len(rows) * cell + 12
    key_height = 34
    if palette is not None:
        levels = range(max(int(low), 0), min(int(high), len(palette) - 1) + 1)
        parts.append(_label(left, bottom + 10, value_label, "start"))
        start = left + 6.5 * len(value_label) + 8
        room = max(len(columns) * cell - (start - left), 200)
        swatches = [(palette[k], str(k)) for k in levels]
        svg, key_width, key_height = _legend(swatches, start, bottom, room)
        parts.append(svg)
        key_width += start - left
        key_height += 8
    else:
        steps = 60
        for s in range(steps):
            parts.append(
                f'<rect x="{left + s * 3}" y="{bottom}" width="3" height="12" '
                f'fill="{shade(s / (steps - 1))}"/>'
            )
        parts.append(_label(left, bottom + 26, fmt(low), "start"))
        parts.append(_label(left + steps * 3, bottom + 26, fmt(high), "end"))
        parts.append(_label(left + steps * 3 + 8, bottom + 10, value_label, "start"))
        key_width = steps * 3 + 8 + 6.5 * len(value_label)
    width = max(left + len(columns) * cell + 10, left + key_width + 20)
    return _figure("heat-map", title, "".join(parts), caption, ident, (width, bottom + key_height))


def _png(colours: Sequence[Sequence[str]], cell: int) -> str:
    """An indexed-colour PNG, `cell` × `cell` pixels per value, written with zlib alone;
    base64 for a data URI."""
    palette = sorted({c for row in colours for c in row})
    index = {c: i for i, c in enumerate(palette)}
    lines = []
    for row in colours:
        line = b"".join(bytes([index[c]]) * cell for c in row)
        lines.extend([b"\x00" + line] * cell)  # filter 0: the indices as they are

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", len(colours[0]) * cell, len(colours) * cell, 8, 3, 0, 0, 0)
    data = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"PLTE", b"".join(bytes(_rgb(c)) for c in palette))
        + chunk(b"IDAT", zlib.compress(b"".join(lines), 9))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(data).decode("ascii")


def count_table(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str,
    columns: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    ident: str = "",
    caption: str = "",
) -> Markup:
    """Rows (dicts, e.g. `frame.to_dicts()`) as a table: `columns` maps keys to headings
    (default: every key), numbers right-aligned and grouped, rates to 4 places."""
    columns = columns or {key: key.replace("_", " ") for key in (rows[0] if rows else {})}
    formats = formats or {}
    head = "".join(f"<th>{html.escape(name)}</th>" for name in columns.values())
    body = []
    for row in rows:
        cells = []
        for key in columns:
            value = row.get(key)
            shown = unsigned_zero(formats[key](value) if key in formats else _cell(value))
            number = isinstance(value, int | float) and not isinstance(value, bool)
            kind = " class=num" if number else " class=wrap" if len(shown) > WRAP else ""
            cells.append(f"<td{kind}>{html.escape(shown)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    table = f'<table class="counts"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}'
    return _figure("table", title, f"{table}</tbody></table>", caption, ident)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "–" if value != value else f"{value:,.4f}".rstrip("0").rstrip(".")
    return _text(value)


def interval_plot(
    rows: Sequence[tuple[str, float, tuple[float, float] | None]],
    *,
    title: str,
    x_label: str,
    fmt: Callable[[float], str] = "{:.3f}".format,
    marks: Sequence[float | None] = (),
    mark_name: str = "exact optimum",
    reference: float | None = None,
    ident: str = "",
    caption: str = "",
) -> Markup:
    """One row per (label, value, 95 % interval): a dot at the value and a bar over the
    interval (none for an exact value, None); `marks` (one per row, or None) are diamonds
    (the best possible value); `reference` a dashed line (an even match, the mean)."""
    ends = [x for _, value, ci in rows for x in (value, *(ci or ()))]
    ends += [m for m in marks if m is not None] + ([reference] if reference is not None else [])
    ticks = _ticks(min(ends, default=0.0), max(ends, default=1.0))
    left = 16 + max((len(label) * 6.5 for label, _, _ in rows), default=0.0)  # in the font
    top, row_height, width = 8, 22, 420
    bottom = top + row_height * len(rows)
    x_at = _scale(ticks, left, width)
    parts = []
    for t in ticks:
        parts.append(f'<line x1="{x_at(t):.1f}" x2="{x_at(t):.1f}" y1="{top}" y2="{bottom}" '
                     'stroke="#e4e4e4"/>')  # fmt: skip
        parts.append(_label(x_at(t), bottom + 16, _tick(t)))
    parts.append(f'<line x1="{left}" x2="{left + width}" y1="{bottom}" y2="{bottom}" '
                 'stroke="#555"/>')  # fmt: skip
    if reference is not None:
        parts.append(f'<line x1="{x_at(reference):.1f}" x2="{x_at(reference):.1f}" y1="{top}" '
                     f'y2="{bottom}" stroke="#888" stroke-dasharray="4 3"/>')  # fmt: skip
    colour, mark_colour = SERIES[0], MARK
    for i, (label, value, ci) in enumerate(rows):
        y = top + row_height * (i + 0.5)
        parts.append(_label(left - 8, y + 4, label, "end"))
        if ci is not None:
            a, b = x_at(ci[0]), x_at(ci[1])
            parts.append(
                f'<path d="M{a:.1f} {y - 5:.1f}v10M{a:.1f} {y:.1f}H{b:.1f}M{b:.1f} {y - 5:.1f}v10" '
                f'stroke="{colour}" stroke-width="1.5" fill="none"/>'
            )
        mark = marks[i] if i < len(marks) else None
        if mark is not None:
            m = x_at(mark)
            parts.append(
                f'<path d="M{m:.1f} {y - 6:.1f}l6 6l-6 6l-6-6z" fill="none" '
                f'stroke="{mark_colour}" stroke-width="1.5"><title>'
                f"{html.escape(f'{label}: {mark_name} {fmt(mark)}')}</title></path>"
            )
        shown = "exact" if ci is None else f"95 % interval {fmt(ci[0])} … {fmt(ci[1])}"
        parts.append(
            f'<circle cx="{x_at(value):.1f}" cy="{y:.1f}" r="4" fill="{colour}"><title>'
            f"{html.escape(f'{label}: {fmt(value)} ({shown})')}</title></circle>"
        )
    parts.append(_label(left + width / 2, bottom + 34, x_label, font_weight="bold"))
    named = [(colour, "value, its 95 % interval" if any(ci for *_, ci in rows) else "value")]
    if any(m is not None for m in marks):
        named.append((mark_colour, mark_name))
    legend, legend_width, legend_height = _legend(named, left, bottom + 44, width)
    parts.append(legend)
    size = max(left + width, left + legend_width) + 16, bottom + 48 + legend_height
    return _figure("interval-plot", title, "".join(parts), caption, ident, size)


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if step * m >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    # by index, not by adding steps up: no drift, and no negative zero (-0.0 + 0.0 is 0.0)
    return [round(k * step, 10) + 0.0 for k in range(first, last + 1)]


def _scale(ticks: Sequence[float], start: float, length: float) -> Callable[[float], float]:
    """Where a value falls on an axis `length` long from `start`, its ends the first and the
    last tick."""
    low, high = ticks[0], ticks[-1]
    return lambda value: start + length * (value - low) / ((high - low) or 1)


def _tick(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e5 else f"{value:,.0f}"


class _Axes:
    """A plot area with a y axis from its ticks and an x axis placed by the caller."""

    def __init__(self, y_values: Sequence[float], y_label: str, zero: bool):
        low, high = min(y_values, default=0.0), max(y_values, default=1.0)
        if zero:
            low, high = min(low, 0.0), max(high, 0.0)
        self.ticks = _ticks(low, high)
        self.low, self.high = self.ticks[0], self.ticks[-1]
        self.left = 24 + max(len(_tick(t)) for t in self.ticks) * 6.5
        self.top, self.height, self.width = 12, 200, 420
        self.y_label = y_label

    def y(self, value: float) -> float:
        return self.top + self.height * (self.high - value) / ((self.high - self.low) or 1)

    def frame(self, x_label: str, drop: float = 0.0) -> list[str]:
        parts = []
        for t in self.ticks:
            y = self.y(t)
            parts.append(
                f'<line x1="{self.left}" x2="{self.left + self.width}" y1="{y:.1f}" '
                f'y2="{y:.1f}" stroke="#e4e4e4"/>'
            )
            parts.append(_label(self.left - 5, y + 4, _tick(t), "end"))
        bottom = self.top + self.height
        parts.append(
            f'<line x1="{self.left}" x2="{self.left + self.width}" y1="{bottom}" '
            f'y2="{bottom}" stroke="#555"/><line x1="{self.left}" x2="{self.left}" '
            f'y1="{self.top}" y2="{bottom}" stroke="#555"/>'
        )
        parts.append(
            _label(self.left + self.width / 2, bottom + 34 + drop, x_label, font_weight="bold")
        )
        middle = self.top + self.height / 2
        parts.append(
            _label(10, middle, self.y_label, font_weight="bold",
                   transform=f"rotate(-90 10 {middle})")
        )  # fmt: skip
        return parts


def line_plot(
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    zero: bool = False,
    ident: str = "",
    caption: str = "",
) -> Markup:
    """One line (with points) per series: name → (xs, ys)."""
    xs = [x for x_values, _ in series.values() for x in x_values]
    axes = _Axes([y for _, y_values in series.values() for y in y_values], y_label, zero)
    x_ticks = _ticks(min(xs, default=0.0), max(xs, default=1.0))
    x_at = _scale(x_ticks, axes.left, axes.width)
    parts = axes.frame(x_label)
    bottom = axes.top + axes.height
    for t in x_ticks:
        parts.append(_label(x_at(t), bottom + 16, _tick(t)))
    for n, (name, (x_values, y_values)) in enumerate(series.items()):
        colour = SERIES[n % len(SERIES)]
        points = " ".join(
            f"{x_at(x):.1f},{axes.y(y):.1f}" for x, y in zip(x_values, y_values, strict=True)
        )
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        for x, y in zip(x_values, y_values, strict=True):
            parts.append(
                f'<circle cx="{x_at(x):.1f}" cy="{axes.y(y):.1f}" r="3" fill="{colour}">'
                f"<title>{html.escape(f'{name}: {_tick(x)}, {y:.4g}')}</title></circle>"
            )
    legend, _, _ = _legend(
        [(SERIES[n % len(SERIES)], name) for n, name in enumerate(series)], axes.left, bottom + 46
    )
    parts.append(legend)
    width = axes.left + axes.width + 16
    return _figure("line-plot", title, "".join(parts), caption, ident, (width, bottom + 66))


def bar_plot(
    labels: Sequence[str],
    values: Sequence[float] | Mapping[str, Sequence[float]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    fmt: Callable[[float], str] = "{:.3g}".format,
    colours: Mapping[str, str] | None = None,
    errors: Mapping[str, Sequence[tuple[float, float] | None]] | None = None,
    ident: str = "",
    caption: str = "",
) -> Markup:
    """Bars by label; several series (name → values) stand side by side, each in its
    colour of `colours` (OUTCOMES for wins, draws and losses) or the next of SERIES; a
    series' `errors` are 95 % intervals drawn over its bars."""
    groups = values if isinstance(values, Mapping) else {y_label: values}
    errors = errors or {}
    colours = {name: (colours or {}).get(name, SERIES[n % len(SERIES)])
               for n, name in enumerate(groups)}  # fmt: skip
    ends = [x for ci in errors.values() for pair in ci if pair for x in pair]
    axes = _Axes([v for vs in groups.values() for v in vs] + ends, y_label, zero=True)
    slot = axes.width / max(len(labels), 1)
    bar = slot * 0.8 / len(groups)
    # labels wider than their slot are turned, and the axis label moves down below them
    turn = max((len(label) for label in labels), default=0) * 6.5 > slot * 0.9
    drop = (max(len(label) for label in labels) * 6.5 * 0.57 + 4) if turn else 0.0
    parts = axes.frame(x_label, drop)
    bottom = axes.top + axes.height
    base = axes.y(0.0)
    for j, label in enumerate(labels):
        x = axes.left + (j + 0.5) * slot
        if turn:
            spin = f"rotate(-35 {x + 4:.1f} {bottom + 12})"
            parts.append(_label(x + 4, bottom + 12, label, "end", transform=spin))
        else:
            parts.append(_label(x, bottom + 16, label))
        for n, (name, vs) in enumerate(groups.items()):
            value = vs[j]
            x = axes.left + j * slot + slot * 0.1 + n * bar
            y = min(axes.y(value), base)
            ci = errors.get(name, [None] * len(labels))[j]
            series = f", {name}" if len(groups) > 1 else ""
            shown = fmt(value) + ("" if ci is None else f" (95 % interval {fmt(ci[0])} … "
                                                        f"{fmt(ci[1])})")  # fmt: skip
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                f'height="{abs(axes.y(value) - base):.1f}" fill="{colours[name]}">'
                f"<title>{html.escape(f'{label}{series}: {shown}')}</title></rect>"
            )
            if ci is not None:
                middle, low, high = x + bar / 2, axes.y(ci[0]), axes.y(ci[1])
                parts.append(
                    f'<path d="M{middle - 3:.1f} {low:.1f}h6M{middle:.1f} {low:.1f}V{high:.1f}'
                    f'M{middle - 3:.1f} {high:.1f}h6" stroke="#333" stroke-width="1.2" '
                    'fill="none"/>'
                )
    legend_height = 0.0
    if len(groups) > 1:
        named = [(colours[name], name) for name in groups]
        legend, _, legend_height = _legend(named, axes.left, bottom + 46 + drop, axes.width)
        parts.append(legend)
    size = axes.left + axes.width + 16, bottom + 48 + drop + legend_height
    return _figure("bar-plot", title, "".join(parts), caption, ident, size)
