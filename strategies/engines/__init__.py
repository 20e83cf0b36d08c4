"""Reference engines: the rules of each game in one place, OpenSpiel-style.

Every engine implements the State API of `state.py` (one convention each for mutability,
chance, an illegal action and the shape of returns), and every game is played through its
State by one referee (`referee.py`) and simulated by one loop (`simulation.py`). A game's
module (the registry's `engine`) provides `CONTRACT`:

- its rules (`RULES`, a frozen `settings.RuleSettings` dataclass, and `DEFAULT_RULES`),
  what its returns pay (`UTILITY`, words; `ZERO_SUM`);
- its `State` and `new_game(rules, rng, players, swapped=False, **setup)`: a game from its
  start between the player ids `players` (in seat order; the State's `players` says where
  each sits, which TwentyOne draws), chance drawn from the seeded rng; `swapped`: the same
  deal from the other side (a two-seat game's second game of a deal); `setup`: the game's
  own (a start board, an answerer);
- how many it seats (`NUM_PLAYERS`, a range) and what a fault costs (`FORFEIT`, one of the
  referee's policies), with `limits(rules)` and `WORDS` where the course has its own;
- its logs: `log_rows(state, game, me)`, the game's rows as its log format's records
  (`game` its number in its file, `me` the id whose point of view they take, where the
  format has one), `ONE_GAME_A_FILE` (whether a log pair holds one game or a match), and
  `GAMES_PER_TASK` (a simulation's task: a constant, so a seed's bytes never depend on the
  runner);
- where it pays, `play_fast(rules, bots, ids, span, rng)`: a task's games at once (Hog's
  vectorised games), held equal to the State path by a test; `points(state)` where a
  margin counts other points than the returns; `log_bytes(rules, players)`, a game's logs'
  size at most (the disk is checked before a simulation).
"""

CONTRACT = {
    "GAME": None,
    "RULES": None,
    "DEFAULT_RULES": None,
    "UTILITY": None,
    "ZERO_SUM": None,
    "State": None,
    "new_game": ("rules", "rng", "players", "swapped"),
    "NUM_PLAYERS": None,
    "FORFEIT": None,
    "ONE_GAME_A_FILE": None,
    "GAMES_PER_TASK": None,
    "log_rows": ("state", "game", "me"),
    "log_bytes": ("rules", "players"),
}
OPTIONAL = {
    "play_fast": ("rules", "bots", "ids", "span", "rng"),
    "points": ("state",),
    "limits": ("rules",),
}
