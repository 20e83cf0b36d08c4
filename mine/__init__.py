"""mine: turn game logs into players.

The layers are installed under this one name (`mine.parsers`, `mine.warehouse`,
`mine.pipeline`, `mine.models`, `mine.strategies`; the source keeps them as top-level
folders) and `mine.games` says which games there are and where each one's parts live.

The library's small API, what `mine ingest` and `mine query` do, from Python:

    import mine

    con = mine.connect("games.duckdb")        # created if missing; read_only=True to read
    summary = mine.ingest(con, ["logs/"])     # files, folders, globs; once per content
    rounds = mine.frame(con, "SELECT * FROM ginrummy_rounds")  # a polars DataFrame
    con.close()
"""

__version__ = "0.2.0"

_API = {
    "connect": "mine.warehouse.connection",
    "ingest": "mine.warehouse.ingest",
    "frame": "mine.warehouse.query",
    "tables": "mine.warehouse.query",
}
__all__ = [*_API, "__version__"]


def __getattr__(name: str):
    # Loaded on first use: `import mine` (the CLI's start-up) stays free of DuckDB.
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'mine' has no attribute {name!r}")
