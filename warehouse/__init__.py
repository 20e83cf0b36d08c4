"""The DuckDB warehouse: schema, ingest, query, connection settings.

A game's module (the registry's `schema`) provides `CONTRACT`: its log format (`FORMAT`,
the parsers module), its rules class (`RULES`, the settings `--rules` reads at ingest),
its tables and views (`SCHEMA`, `TABLES`), how the staged rows land (`LOAD`), and the
checks ingest runs: each row's fields (`ROW_CHECKS`), the files' consistency (`CHECKS`)
and the game's rules replayed over the log (`RULE_CHECKS`).
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
    "RULE_CHECKS": None,
}
