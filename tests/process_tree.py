"""Processes a test started, followed by (pid, start time) so that a pid the kernel has
given to another process since is not taken for one of them."""

from __future__ import annotations

from mine.strategies.confinement import processes


def family(pid: int) -> set[tuple[int, int]]:
    """The processes descended from `pid`, each as (pid, start time)."""
    table = processes()
    children: dict[int, list[int]] = {}
    for process in table.values():
        children.setdefault(process.ppid, []).append(process.pid)
    found, stack = set(), [pid]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.add((child, table[child].start))
            stack.append(child)
    return found


def alive(ours: set[tuple[int, int]]) -> list[int]:
    """Those of `ours` that still run (the same pid, started at the same time)."""
    table = processes()
    return sorted(
        pid for pid, start in ours
        if pid in table and table[pid].start == start and table[pid].state != "Z"
    )  # fmt: skip
