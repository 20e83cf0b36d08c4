"""Each game's HTML report, drawn with one kit (`kit.py`, `page.html.j2`).

A game's module provides `CONTRACT`: `html(fitted, observed, **options)`, the whole page of
a fitted table (as its `read_table` returns it), where `observed` is what the warehouse
shows of the game (its `observed(con, log_ids)`, where the page draws any; None without a
warehouse). The module picks data and charts; the kit draws them. Where an option asks for
the table alone (TwentyOne's `--format csv`), `table_alone(**options)` says so: no player is
measured and no logs are read for it.
"""

CONTRACT = {"html": ("fitted", "observed")}
OPTIONAL = {"observed": ("con", "log_ids"), "table_alone": None}
