"""`mine <verb> <game>`: one module per game (options → the layers), and `warehouse` for
the commands every game shares (ingest, query, tables).

A game's module defines a function per verb it supports (`simulate`, `stats`, `fit`,
`generate`, `validate`, `report`); `pipeline.cli` mounts it as `mine <verb> <game>` from
the registry (`mine.games`), importing the module only when the command runs.
"""

CONTRACT = {"OPTIONS": None, "simulate": None}
