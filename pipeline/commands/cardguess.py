"""`mine <verb> cardguess`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`cardguess_guesses`,
`cardguess_games`): the same path whether the logs came from a server or from `mine
simulate cardguess`. The game has one player, the guesser (`--players` names one bot);
the answerer (`--answerer`) is chance. `--logs GLOB` narrows stats and fit to the logs
ingested from matching files. The logs name no player (a log is one guesser's games, and
the stats are per log already), so there is no `--by player`.
"""

from __future__ import annotations

from typing import Any

import typer

from mine.pipeline import options
from mine.pipeline.options import own
from mine.strategies.bots.cardguess import BASELINES, GUESSERS
from mine.strategies.engines.cardguess import ANSWERERS, SIZES


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
WORKERS = own(int, "--workers", 1, "Worker processes.", min=1, max=options.MAX_WORKERS)
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
        "quick": own(bool, "--quick", False, "Search n = 2 and 3 in seconds, not minutes (for "
                     "trials; n = 4 is searched as without it)."),
        "workers": own(int, "--workers", 1, "Worker processes (one n's tree each).", min=1,
                       max=options.MAX_WORKERS),
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
    "(minutes; n = 4 takes the most).",
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
