"""Reference engines: the rules of each game in one place, OpenSpiel-style.

Every engine implements the State API of `state.py` (one convention each for mutability,
chance, an illegal action and the shape of returns). A game's module (the registry's
`engine`) provides `CONTRACT`: its rules (`RULES`, a frozen `settings.RuleSettings`
dataclass, and `DEFAULT_RULES`), what its returns pay (`UTILITY`, words; `ZERO_SUM`), its
`State` and `new_game(rules, rng, **setup)` (a game from its start, chance drawn from the
seeded rng), and one simulation signature for every game:
`simulate(rules, players, games, seed, out, *, make_bot, progress=None, **options)` plays
`games` games between the bots named in `players`, each made by `make_bot` (the game's
`bots.make_bot`: engines do not import bots) from the simulation's own seeded rng, and
writes their logs into the folder `out` (the same seed, the same bytes); it returns the
summary a command prints.
"""

CONTRACT = {
    "GAME": None,
    "RULES": None,
    "DEFAULT_RULES": None,
    "UTILITY": None,
    "ZERO_SUM": None,
    "State": None,
    "new_game": ("rules", "rng"),
    "simulate": ("rules", "players", "games", "seed", "out"),
}
