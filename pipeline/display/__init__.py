"""What each command prints on a terminal for a game: one module per game.

The commands are the same for every game (`pipeline/commands`); what differs is the
figures each game's results hold, and this layer says how they read at a terminal. A
game's module provides `CONTRACT`, each function printing with `pipeline.console`'s
`show`/`show_pairs`: `stats(stats)` (what `mine stats` derived), `fitted(fitted, path)`
(the table `mine fit` wrote), `generated(path, card)` (the file `mine generate` wrote and
its figures) and `validated(card)` (a `mine validate` report card); and `players(stats,
table)` where the game has per-player statistics. With `--json` none of these is called:
the same results print as JSON.
"""

CONTRACT = {
    "stats": ("stats",),
    "fitted": ("fitted", "path"),
    "generated": ("path", "card"),
    "validated": ("card",),
}
OPTIONAL = {"players": ("stats", "table")}
