"""Baseline bots each game's generated players are measured against.

A game's module (the registry's `bots`) provides `CONTRACT`: the names of its baselines
(`BASELINES`, the bots `validate` measures against by default) and `make_bot(spec, rules,
rng)`, the bot a name (with its parameters, `always_roll:6`) stands for; ValueError for a
name the game does not know, saying which it does.
"""

CONTRACT = {"BASELINES": None, "make_bot": ("spec", "rules", "rng")}
