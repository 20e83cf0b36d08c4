"""The DuckDB warehouse: schema, ingest, query, connection settings.

A game's module (the registry's `schema`) provides `CONTRACT`: its log format (`FORMAT`, the
parsers module), its rules class (`RULES`, the settings `--rules` reads at ingest), its
tables and views (`SCHEMA`, `TABLES`; `FILE_ROWS`: the table holding one row per turn file
row and the one per score file row, as `logs` counts them), how the staged rows land
(`LOAD`), and the checks ingest runs: each row's fields (`ROW_CHECKS`) and the files'
consistency (`CHECKS`). The game's rules are replayed over each well-formed log by
`replay(rules, turns, scores)` (the log's rows, line first, then the format's columns, in
file order): one ordered pass through the engine's rule functions, giving every broken rule
as (role, line, reason), in tasks `replay.py` cuts a batch into. Where it pays,
`suspects(rules, turns, scores)` checks the same rules over a whole batch at once (frames of
rows by log and line) and names the logs `replay` may find a broken rule in: only those are
replayed one by one, so a valid log costs no Python per row.
"""

CONTRACT = {
    "GAME": None,
    "FORMAT": None,
    "RULES": None,
    "SCHEMA": None,
    "TABLES": None,
    "FILE_ROWS": None,
    "LOAD": None,
    "ROW_CHECKS": None,
    "CHECKS": None,
    "replay": ("rules", "turns", "scores"),
}
