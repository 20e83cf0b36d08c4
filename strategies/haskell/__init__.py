"""Haskell players, run as the courses run them.

`bundles/` holds mine's stand-ins for the course code bundles' modules (types and
instances only, written from the courses' facts: FIT2102's `Cards`, `TwentyOne.Types`,
`Rummy.Types` and `Parser.*`, COMP30020's `Card`) and a driver per game, a Main that
imports the player `safe` and answers a line protocol on stdin and stdout; `build`
compiles a player file with them under the course's flags, `protocol` speaks to the
program it makes. (Python players run through `player_file` and `contained`.)
"""
