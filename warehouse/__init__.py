"""The DuckDB warehouse: schema, ingest, query, connection settings.

A game's module (the registry's `schema`) provides `CONTRACT`: its log format (`FORMAT`,
the parsers module), its rules class (`RULES`, the settings `--rules` reads at ingest),
its tables and views (`SCHEMA`, `TABLES`), how the staged rows land (`LOAD`), and the
checks ingest runs: each row's fields (`ROW_CHECKS`) and the files' consistency (`CHECKS`).
The game's rules are replayed over each well-formed log by `replay(rules, turns, scores)`:
one ordered pass through the engine's rule functions, giving every broken rule as (role,
line, reason), in tasks `replay.py` cuts a batch into.
"""

CONTRACT = {
    "GAME": None,
    "FORMAT": None,
    "RULES": None,
    "SCHEMA": None,
    "TABLES": None,
    "LOAD": None,
    "ROW_CHECKS": None,
    "CHECKS": None,
    "replay": ("rules", "turns", "scores"),
}
