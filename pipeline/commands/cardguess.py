"""`mine <verb> cardguess`: card guessing's own options, what its commands print, its
demo, its tournament. The game has one player, the guesser (`--players` names one bot);
the answerer (`--answerer`) is chance. The logs name no player (a log is one guesser's
games, and the stats are per log already), so there is no `--by player`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import typer

from mine.models.cardguess import UNIFORM_ALPHA
from mine.pipeline import options
from mine.pipeline.console import console, show, show_pairs, unless_none
from mine.pipeline.options import own
from mine.pipeline.stats.cardguess import CardGuessStats, headline
from mine.strategies.bots.cardguess import BASELINES, GUESSERS
from mine.strategies.engines.cardguess import ANSWERERS, SIZES
from mine.strategies.solvers.cardguess import Trees


def read_sizes(text: str) -> tuple[int, ...]:
    """`--n`: answer sizes, comma-separated."""
    try:
        chosen = tuple(int(part) for part in options.names(text))
    except ValueError:
        raise typer.BadParameter(f"--n takes numbers like 2,3,4, not {text!r}") from None
    if not chosen or any(n not in SIZES for n in chosen):
        raise typer.BadParameter(f"--n takes 2, 3 or 4, not {text!r}")
    return chosen


def read_answerer(text: str) -> str:
    """`--answerer`: one of the engine's answerers."""
    if text not in ANSWERERS:
        raise typer.BadParameter(f"unknown answerer {text!r} (known: {', '.join(ANSWERERS)})")
    return text


N = own(int, "--n", 2, "Cards in each answer.", min=1, max=4)
ANSWERER = own(str, "--answerer", "uniform", "Who picks the answers: uniform or faces.",
               parser=read_answerer)  # fmt: skip
WORKERS = (options.Workers, 1)
OPTIONS = {
    "simulate": {
        "games": (options.games("Games to play."), 1000),
        "players": (options.players(f"The guesser, one of {', '.join(GUESSERS)}."), "greedy"),
        "n": N,
        "answerer": ANSWERER,
    },
    "fit": {
        "sizes": own(Any, "--n", None, "Answer sizes to fit a tree for, comma-separated "
                     "(default: 2,3,4, the sizes the course grades; a player refuses an n its "
                     "table has no tree for).", parser=read_sizes, metavar="2,3,4"),
        "quick": own(bool, "--quick", False, "Search n = 2 and 3 faster, less deeply (for "
                     "trials; n = 4 is searched as without it)."),
        "workers": own(int | None, "--workers", None, "Worker processes sharing each n's "
                       "search (default: one a core; the same trees whatever the number).",
                       min=1, max=options.MAX_WORKERS, show_default=False),
    },
    "generate": {"workers": WORKERS},
    "validate": {
        "sizes": own(Any, "--n", None, "Answer sizes, comma-separated (default: 2,3,4).",
                     parser=read_sizes, metavar="2,3,4"),
        "answerer": ANSWERER,
        "answers": own(int | None, "--answers", None,
                       "Answers per n, drawn with a fixed seed (default: every answer for "
                       "n = 2, 3, weighted by the answerer's exact chances: exact figures; "
                       "5000 for n = 4).", min=1),
        "baselines": own(Any, "--baselines", None, "Guessers playing the same answers, "
                         f"comma-separated (default: {','.join(BASELINES)}).",
                         parser=options.names, metavar="NAMES"),
        "workers": WORKERS,
    },
}  # fmt: skip
ABOUT = {
    "simulate": "Play card-guessing games, a guesser against an answerer, and write them as "
    "<stem>.csv + <stem>-score.csv.",
    "stats": "Derive card guessing's statistics and store them as stats_cardguess_* tables: "
    "guesses per game, candidates left after each guess, answer card and rank frequencies, "
    "first-guess quality.",
    "fit": "Fit guessing trees from the logged answers: the answer distribution, then for "
    "each n (2, 3 and 4 by default) the tree minimising the expected number of guesses "
    "(about a minute of CPU, most of it n = 4's, shared by one process a core).",
    "generate": "Generate a single-file, standard-library-only card-guessing player from a "
    "table: it plays each n the table has a tree for and refuses the others; measured "
    "against the baselines on the same answers, and not written if it needs more guesses "
    "than greedy for any n it plays.",
    "validate": "Play the file's own initial_guess/next_guess on every answer (n = 2, 3) and "
    "a fixed sample (n = 4), against the baselines on the same answers; an n the file "
    "refuses is reported, not played.",
    "report": "Write one self-contained HTML page: the player's strength against the "
    "baselines (the trees' own, or --player's), what it plays for each n, each tree's first "
    "levels and the guess-count distributions.",
}


def tournament(
    files: options.PlayerFiles = None,
    n: N[0] = 2,
    bots: options.bots(", ".join(GUESSERS)) = "greedy,random-consistent",
    games: options.games("Answers per pairing (even), each found by both guessers.", 2) = 100,
    seed: options.Seed = 0,
    workers: options.Workers = 1,
    rules: options.Rules = None,
    cluster: options.Cluster = None,
    as_json: options.Json = False,
    html: options.Html = None,
) -> None:
    """A round robin of guesser files and bots on the same answers: fewer guesses wins
    (equal: a draw); win rates and paired guess differences with 95 % intervals,
    Elo-style ratings, invalid games and faults per player."""
    from mine.pipeline.commands import tournament as shared
    from mine.strategies.engines.cardguess import CardGuessRules
    from mine.strategies.tournament.match import Context

    game_rules = options.game_rules(CardGuessRules, [f"n={n}", *(rules or [])])
    shared.run("cardguess", files, bots, games, seed, workers, Context(game_rules), as_json, html,
               cluster)  # fmt: skip


# --- what the commands print ------------------------------------------------------


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
        f"{headline(stats)['answers_uniform_p_value']:.4g} (cut-off {UNIFORM_ALPHA:g}: below "
        "it, `mine fit cardguess` takes the answerer as skewed)",
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
            ("answerer", answerer_line(answerer)),
            *((f"n = {n}", tree_line(metadata["trees"].get(str(n)), n)) for n in SIZES),
        ],
    )  # fmt: skip


def answerer_line(answerer: dict[str, Any]) -> str:
    """The chi-square test's verdict with its p-value, its cut-off and what it decided."""
    p, cut = answerer["chi_square_p_value"], answerer.get("alpha", UNIFORM_ALPHA)
    if answerer["uniform"]:
        return (
            f"uniform: chi-square p {p:.4g} ≥ cut-off {cut:g}, so the test does not reject a "
            "uniform answerer; the trees take every answer as equally likely"
        )
    return (
        f"skewed: chi-square p {p:.4g} < cut-off {cut:g}, so the test rejects a uniform "
        "answerer; the trees weight answers by the logs' smoothed card frequencies"
    )


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
         formats={"mean": "{:.4f}".format, "slowest call (s)": unless_none("{:.4f}"),
                  "player needs fewer by": unless_none("{:+.4f}")})  # fmt: skip
    for n, reason in refused.items():
        console.print(f"n = {n}: refused, not played ({reason})")
    for n, entry in card["sizes"].items():
        if "compared" in entry:
            paired = entry["compared"]["paired"]
            console.print(
                f"n = {n}: {entry['compared']['file']} needs {paired['mean_difference']:+.4f} "
                f"guesses more per answer, 95 % interval {paired['ci95']}"
            )


# --- its part of `mine demo` ------------------------------------------------------

QUERIES = {
    "Simulated card-guessing games by guesser and n (examples/logs/cardguess)": """
        SELECT l.stem AS log, g.n, count(*) AS games, round(avg(g.guesses), 3) AS mean_guesses,
               max(g.guesses) AS most
        FROM cardguess_games g JOIN logs l USING (log_id) JOIN example_logs USING (log_id)
        GROUP BY ALL ORDER BY log""",
    "How often a first guess's feedback shows each correct-ranks count": """
        SELECT n, ranks AS correct_ranks, count(*) AS guesses
        FROM cardguess_guesses JOIN example_logs USING (log_id)
        WHERE guess_no = 1 GROUP BY ALL ORDER BY n, correct_ranks""",
}
LOOP = (
    "simulate cardguess --n 2 --games 500 --players greedy --seed 0 --out {out}/logs",
    "ingest {out}/logs --db {db}",
    "stats cardguess --db {db} --logs {out}/logs/*",
    "fit cardguess --n 2 --quick --db {db} --logs {out}/logs/* --out {out}/cardguess.parquet",
    "generate cardguess --table {out}/cardguess.parquet --out {out}/cardguess_player.py",
    "validate cardguess {out}/cardguess_player.py --n 2",
    "report cardguess --table {out}/cardguess.parquet --out {out}/cardguess-report.html",
)
