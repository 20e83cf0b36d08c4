"""`mine <verb> cardguess`: options, the layers that do the work, what is printed.

Everything downstream of `mine ingest` reads the warehouse (`cardguess_guesses`,
`cardguess_games`): the same path whether the logs came from a server or from `mine
simulate cardguess`. The game has no opponent, so `--guesser` and `--answerer` take the
place of `--players`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mine.pipeline import options
from mine.pipeline.commands.warehouse import working_on
from mine.pipeline.console import (
    console,
    fail,
    next_step,
    print_json,
    read_fitted,
    show,
    show_pairs,
    write_fitted,
    write_report,
)
from mine.pipeline.progress import per_name, working
from mine.strategies.contained import PlayerFault

Sizes = Annotated[
    str | None,
    typer.Option("--n", help="Answer sizes, comma-separated (2, 3, 4)."),
]
Answerer = Annotated[
    str, typer.Option("--answerer", help="Who picks the answers: uniform or faces.")
]


def _sizes(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        sizes = tuple(int(part) for part in options.names(text))
    except ValueError:
        raise fail(f"--n takes numbers like 2,3,4, not {text!r}") from None
    if not sizes or any(n not in (2, 3, 4) for n in sizes):
        raise fail(f"--n takes 2, 3 or 4, not {text!r}")
    return sizes


def simulate(
    n: Annotated[int, typer.Option("--n", min=1, max=4, help="Cards in each answer.")] = 2,
    games: options.games("Games to play.") = 1000,
    guesser: Annotated[
        str,
        typer.Option(
            "--guesser",
            help="first-consistent, random-consistent, greedy or entropy.",
        ),
    ] = "greedy",
    answerer: Answerer = "uniform",
    seed: options.Seed = 0,
    out: options.out("Folder for the log files.") = Path("logs/cardguess"),
    rules: options.Rules = None,
    as_json: options.Json = False,
) -> None:
    """Play card-guessing games and write <guesser>-<answerer>-n<N>.csv + -score.csv."""
    from mine.strategies.bots.cardguess import GUESSERS, make_bot
    from mine.strategies.engines.cardguess import ANSWERERS, CardGuessRules, GameOver
    from mine.strategies.engines.cardguess import simulate as play_games

    game_rules = options.game_rules(CardGuessRules, [f"n={n}", *(rules or [])])
    if guesser not in GUESSERS:
        raise fail(f"unknown guesser {guesser!r} (known: {', '.join(GUESSERS)})")
    if answerer not in ANSWERERS:
        raise fail(f"unknown answerer {answerer!r} (known: {', '.join(ANSWERERS)})")
    bar, advance = per_name(as_json)
    try:
        with bar:
            summary = play_games(game_rules, [guesser], games, seed, out, progress=advance,
                                 make_bot=make_bot, answerer=answerer)  # fmt: skip
    except GameOver as error:
        raise fail(f"{guesser}: {error}") from None
    except OSError as error:
        raise fail(f"cannot write the logs into {out}: {error.strerror}") from None
    if as_json:
        print_json({"seed": seed, "out": str(out), "n": game_rules.n, **summary})
        return
    show([summary], f"cardguess {guesser} vs {answerer}, n = {game_rules.n} → {out}")
    next_step(f"mine ingest {out}")


def stats(
    db: options.Db = None,
    logs: options.Logs = None,
    as_json: options.Json = False,
) -> None:
    """Derive card guessing's statistics and store them as stats_cardguess_* tables:
    guesses per game, candidates left after each guess, answer card and rank frequencies,
    first-guess quality."""
    from mine.pipeline.stats import cardguess as stats_of

    with (
        working_on(db, read_only=False) as con,
        working("deriving card guessing's statistics (replaying every game)", as_json),
    ):
        derived = stats_of.derive(con, stats_of.chosen_logs(con, logs))
        names = stats_of.store_all(con, derived)
    headline = stats_of.headline(derived)
    if as_json:
        print_json(
            {"tables": {names[k]: t.height for k, t in derived._asdict().items()}, **headline}
        )
        return
    rate = "{:.3f}".format
    show(
        derived.guess_summary.to_dicts(),
        "guesses per game by n and log",
        {"n": "n", "log": "log", "games": "games", "mean": "mean", "most": "most"},
        {"mean": "{:.4f}".format},
    )
    show(_distribution_rows(derived.guesses), "games by number of guesses")
    show(
        derived.candidates.to_dicts(),
        "candidates left after each guess (replayed)",
        {
            "n": "n",
            "log": "log",
            "guess_no": "guess",
            "games": "games",
            "mean_left": "mean left",
            "most_left": "most left",
        },
        {"mean_left": "{:.2f}".format},
    )
    show(
        derived.answer_ranks.to_dicts(),
        "answer ranks",
        {"rank": "rank", "times": "times", "share": "share", "uniform_share": "uniform"},
        {"share": rate, "uniform_share": rate},
        f"chi-square p-value of the 52 card counts under a uniform answerer: "
        f"{headline['answers_uniform_p_value']:.4g}",
    )
    show(derived.first_guess.to_dicts(), "first guesses",
         {"n": "n", "log": "log", "guess": "guess", "games": "games",
          "expected_left_uniform": "expected left", "observed_left": "observed left"},
         {"expected_left_uniform": "{:.2f}".format, "observed_left": "{:.2f}".format})  # fmt: skip
    console.print(f"stored {', '.join(names.values())}")
    next_step(f"mine fit cardguess{options.again(db, logs)}")


def _distribution_rows(per_game) -> list[dict[str, Any]]:
    rows: dict[tuple, dict[str, Any]] = {}
    for n, log, guesses, games in per_game.select("n", "log", "guesses", "games").iter_rows():
        rows.setdefault((n, log), {"n": n, "log": log})[str(guesses)] = games
    return list(rows.values())


def fit(
    out: options.out("Table file to write (Parquet; its metadata beside it as .json).") = Path(
        "cardguess-table.parquet"
    ),
    n: Sizes = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="A greedy-estimate tree in seconds (for trials).")
    ] = False,
    db: options.Db = None,
    logs: options.Logs = None,
    as_json: options.Json = False,
) -> None:
    """Fit guessing trees from the logged answers: the answer distribution, then for each
    n the tree minimising the expected number of guesses."""
    from mine.models import cardguess as model
    from mine.pipeline.stats import cardguess as stats_of

    sizes = _sizes(n)
    with working_on(db) as con:
        log_ids = stats_of.chosen_logs(con, logs)
        plans = dict.fromkeys(sizes or (2, 3, 4), model.QUICK) if quick else None
        with working("fitting the guessing trees" + ("" if quick else " (minutes)"), as_json):
            fitted = stats_of.fit_from_warehouse(con, sizes, log_ids, plans)
    path = write_fitted(model.write_table, out, fitted)
    metadata = fitted.metadata
    if as_json:
        print_json({"table": str(path), **metadata})
        return
    answerer = metadata["answerer"]
    show_pairs(
        f"cardguess trees → {path}",
        [
            ("logs / games / rows",
             f"{metadata['logs']} / {metadata['games']:,} / {metadata['rows']:,}"),
            ("data fingerprint", metadata["fingerprint"][:16] + "…"),
            ("answerer uniform", f"{answerer['uniform']} (p {answerer['chi_square_p_value']:.4g})"),
            *(
                (f"n = {size}", f"{tree['expected_guesses']:.4f} expected guesses, "
                 f"{tree['nodes']:,} nodes, first {tree['first_guess']}, {tree['seconds']} s")
                for size, tree in metadata["trees"].items()
            ),
        ],
    )  # fmt: skip
    next_step(f"mine generate cardguess --table {path}")


def generate(
    table: options.Table,
    out: options.out("The player module to write.") = Path("cardguess_player.py"),
    validate: Annotated[
        bool,
        typer.Option(
            "--validate/--no-validate",
            help="Measure the file and put the figures in its docstring.",
        ),
    ] = True,
    workers: options.Workers = 1,
    as_json: options.Json = False,
) -> None:
    """Generate a single-file, standard-library-only card-guessing player from a table."""
    from mine.models import cardguess as model
    from mine.strategies.codegen.cardguess import write_module
    from mine.strategies.validation import cardguess as validation

    fitted = read_fitted(model.read_table, table)
    card = None
    try:
        write_module(out, fitted)
        if validate:
            with working(f"measuring {out} on every answer", as_json):
                card = validation.check(out, fitted, workers=workers)
            write_module(out, fitted, card)
    except (ValueError, OSError, PlayerFault) as error:
        raise fail(f"cannot generate from {table}: {error}") from None
    if as_json:
        print_json({"player": str(out), "bytes": out.stat().st_size, "card": card})
        return
    console.print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    if card is not None:
        _show_card(card)
    next_step(f"mine validate cardguess {out}")


def validate(
    player: options.PlayerFile,
    n: Sizes = None,
    answerer: Answerer = "uniform",
    answers: Annotated[
        int | None,
        typer.Option(
            "--answers",
            min=1,
            help="Answers per n, drawn with a fixed seed (default: every answer for n = 2, 3, "
            "weighted by the answerer's exact chances: exact figures; 5000 for n = 4).",
        ),
    ] = None,
    baselines: options.baselines("Guessers playing the same answers.") = "greedy,entropy",
    compare: Annotated[
        Path | None,
        typer.Option(
            "--against",
            "--compare",
            help="Another player file, measured on the same answers (paired, head to head).",
        ),
    ] = None,
    workers: options.Workers = 1,
    as_json: options.Json = False,
) -> None:
    """Play the file's own initial_guess/next_guess on every answer (n = 2, 3) and a fixed
    sample (n = 4), against the baselines on the same answers."""
    from mine.strategies.engines.cardguess import ANSWERERS
    from mine.strategies.validation import cardguess as validation

    if answerer not in ANSWERERS:
        raise fail(f"unknown answerer {answerer!r} (known: {', '.join(ANSWERERS)})")
    try:
        with working(f"measuring {player} and the baselines on the same answers", as_json):
            card = validation.validate(
                player,
                against=compare,
                sizes=_sizes(n) or (2, 3, 4),
                answerer=answerer,
                answers=answers,
                baselines=options.names(baselines),
                workers=workers,
            )
    except (ValueError, PlayerFault) as error:  # the file, or a bad baseline
        raise fail(str(error)) from None
    if as_json:
        print_json(card)
        return
    _show_card(card)


def _show_card(card: dict[str, Any]) -> None:
    rows = []
    for n, entry in card["sizes"].items():
        named = [
            ("player", entry["player"], None),
            *((name, figures, entry["vs"][name]) for name, figures in entry["baselines"].items()),
        ]
        if "compared" in entry:
            named.append((entry["compared"]["file"], entry["compared"], None))
        for name, figures, vs in named:
            rows.append(
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
            )
    show(rows, f"{card['player']} ({card['answers_from']})",
         formats={"mean": "{:.4f}".format, "slowest call (s)": _or_blank("{:.4f}"),
                  "player needs fewer by": _or_blank("{:+.4f}")})  # fmt: skip
    for n, entry in card["sizes"].items():
        if "compared" in entry:
            paired = entry["compared"]["paired"]
            console.print(
                f"n = {n}: {entry['compared']['file']} needs {paired['mean_difference']:+.4f} "
                f"guesses more per answer, 95 % interval {paired['ci95']}"
            )


def _or_blank(fmt: str):
    return lambda value: "" if value is None else fmt.format(value)


def tournament(
    files: options.PlayerFiles = None,
    n: Annotated[int, typer.Option("--n", min=1, max=4, help="Cards in each answer.")] = 2,
    bots: options.bots(
        "first-consistent, random-consistent, greedy, entropy"
    ) = "greedy,random-consistent",
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

    game_rules = options.game_rules(CardGuessRules, [f"n={n}", *(rules or [])])
    shared.run("cardguess", files, bots, games, seed, workers, game_rules, as_json, html, cluster)


def report(
    table: options.Table,
    out: options.out("The HTML file to write.") = Path("cardguess-report.html"),
    player: Annotated[
        Path | None,
        typer.Option("--player", help="A generated player whose validation to show (runs it)."),
    ] = None,
    as_json: options.Json = False,
) -> None:
    """Write one self-contained HTML page: each tree's first levels and the guess-count
    distributions (the model's, and the player's against the baselines with --player)."""
    from mine.models import cardguess as model
    from mine.pipeline.reports import cardguess as report_page
    from mine.strategies.validation import cardguess as validation

    fitted = read_fitted(model.read_table, table)
    card = None
    if player is not None:
        try:
            with working(f"measuring {player}", as_json):
                card = validation.validate(player, sizes=sorted(fitted.trees))
        except (ValueError, PlayerFault) as error:
            raise fail(str(error)) from None
    with working("drawing the page", as_json):
        page = report_page.html(fitted.trees, fitted.metadata, card)
    write_report(out, page, as_json)
