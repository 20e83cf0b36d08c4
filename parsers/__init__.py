"""One module per log format: each reads and writes its files (so round trips are testable)."""
