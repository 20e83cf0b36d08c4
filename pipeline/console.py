"""Where every command writes: results to stdout, messages and errors to stderr."""

from __future__ import annotations

import typer
from rich.console import Console

console = Console()
errors = Console(stderr=True)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error (no traceback) and return the Exit to raise."""
    errors.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)
