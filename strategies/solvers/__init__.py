"""Exact solvers: the optimum of each game that allows one, and the value of a given table."""
