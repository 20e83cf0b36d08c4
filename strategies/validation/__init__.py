"""Validation: a generated player file measured against each game's baselines in its engine.

A game's module (the registry's `validator`) provides `CONTRACT`, the same verbs for
every game:
- `validate(path, rules, *, against=None, progress=None, **options)`: the file's figures
  (its report card, a JSON-able dict) against every baseline (and `against`, another
  file, head to head), the file run contained; `rules` are the `--rules KEY=VALUE`
  settings, over the rules the file states (or the defaults);
- `check(path, fitted, **options)`: the figures a generated file states in its docstring,
  measured on that file (what `mine generate` writes in);
- `failure(card)`: None, or the one line that says why the card's figures do not hold
  (the file's invalid plays, say), naming the file (the card's `player`), which makes
  `mine validate` exit 1.
- `FUNCTIONS`: the functions a player file defines (what loading it checks);
- for tournaments (`strategies/tournament/match.py`): `load(path)` (a file's module in
  this worker), `seat(module)` (the file at a table: the engine's adapter for the course's
  interface), `LIMITS` (its contained limits), `TIMED_OUT` (words of the faults that are
  the game's own clock), `MARGIN` (what a pairing's margin counts, or None); and
  `exact(sides, swapped, rules)` where a pairing's game is an exact expectation (Hog).
The harness (the game loop around a file, its timing, its faults) is apart from the
evaluators that score plays (`<game>` modules keep both only where both are small).
"""

CONTRACT = {
    "FUNCTIONS": None,
    "validate": ("path", "rules"),
    "check": ("path", "fitted"),
    "failure": ("card",),
    "load": ("path",),
    "seat": ("module",),
    "LIMITS": None,
    "TIMED_OUT": None,
    "MARGIN": None,
}
OPTIONAL = {"exact": ("sides", "swapped", "rules")}
