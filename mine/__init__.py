"""mine: turn game logs into players.

The layers are installed under this one name (`mine.parsers`, `mine.warehouse`,
`mine.pipeline`, `mine.models`, `mine.strategies`; the source keeps them as top-level
folders) and `mine.games` says which games there are and where each one's parts live.
"""

__version__ = "0.2.0"
