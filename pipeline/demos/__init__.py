"""Each game's part of `mine demo`: its whole loop, small, on the demo warehouse.

A game's module provides `CONTRACT`: `QUERIES` (title → SQL over its example logs, the
temporary table `example_logs` naming them) and `LOOP`, the options each verb of the loop
is given (verb → option → value), which `pipeline/demo.py` runs through the same commands
a user runs.
"""

CONTRACT = {"QUERIES": None, "LOOP": None}
