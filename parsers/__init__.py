"""One module per log format: each reads and writes its files (so round trips are testable).

A game's module (the registry's `log_format`) provides `CONTRACT`: its name, the two file
formats (`TURNS`, `SCORES`: `csvlog.Format`s, the columns declared once), the record of a
row of each (`Turn`, `Score`) and how a record is written (`turn_fields`, `score_fields`).
"""

CONTRACT = {
    "GAME": None,
    "TURNS": None,
    "SCORES": None,
    "Turn": None,
    "Score": None,
    "turn_fields": ("turn",),
    "score_fields": ("score",),
}
"""What every game's module provides: a name → None for a constant or a class, or the
leading parameters of a function."""
