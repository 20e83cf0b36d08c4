"""Baseline bots each game's generated players are measured against."""
