"""Validation: a generated player file measured against each game's baselines in its engine."""
