"""The layers import as DESIGN.md draws them: every import of every module (those inside
functions too) goes to a room its own room may reach, and only `pipeline/` imports Ray."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("mine", "parsers", "warehouse", "models", "strategies", "pipeline")

PLAYERS = "mine.strategies.players"
HARNESS = (
    "mine.strategies.contained",
    "mine.strategies.confinement",
    "mine.strategies.plain_messages",
    "mine.strategies.player_file",
    "mine.strategies.intervals",
    "mine.strategies.haskell",  # building and running a Haskell player
)
RUNNERS = "mine.strategies.runners"  # where tasks run: the layers take a runner, never Ray
GAMES = ("mine.parsers", "mine.strategies.engines", PLAYERS)  # the rules and formats
ROOMS: dict[str, tuple[str, ...]] = {
    # room: the rooms it may import besides itself (and the package `mine` for its version)
    "mine.games": (),
    "mine.outputs": (),
    "mine.inputs": (),
    PLAYERS: (),
    "mine.parsers": (),
    "mine.strategies.engines": ("mine.parsers", PLAYERS, RUNNERS),
    "mine.strategies.solvers": GAMES,
    "mine.warehouse": ("mine.games", "mine.parsers", "mine.strategies.engines", RUNNERS),
    "mine.models": (*GAMES, "mine.strategies.solvers", RUNNERS),  # card guessing's pool
    **dict.fromkeys(HARNESS, (*HARNESS, "mine.parsers")),
    RUNNERS: (),
    "mine.strategies.bots": (*GAMES, "mine.strategies.solvers"),
    "mine.strategies.codegen": (*GAMES, "mine.strategies.solvers"),
    "mine.strategies.validation": (
        *GAMES, "mine.strategies.solvers", "mine.strategies.bots", *HARNESS, RUNNERS
    ),
    "mine.strategies.tournament": (
        *GAMES, "mine.strategies.solvers", "mine.strategies.bots", *HARNESS, RUNNERS,
        "mine.strategies.validation",
    ),
    "mine.pipeline.stats": (
        "mine.games", "mine.warehouse", *GAMES, "mine.strategies.solvers", "mine.models",
    ),  # fit_inputs builds its model's input
    "mine.pipeline.reports": (
        *GAMES, "mine.strategies.solvers", "mine.strategies.bots", "mine.strategies.intervals",
        "mine.models", "mine.pipeline.stats", "mine.pipeline.console",
    ),  # intervals: the one 95 % interval (and verdict) for what the logs show
    "mine.pipeline": ("mine",),  # the commands compose every layer
}  # fmt: skip
PACKAGES = {"mine.strategies", "mine"}  # their __init__ files are rooms of their own
# Where a written file goes (whole or not at all, never over an input), and how a file not
# of the command's making is read: one rule for every layer that writes or reads one.
EVERYONES = {"mine", "mine.outputs", "mine.inputs"}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    return ".".join(parts) if parts[0] == "mine" else ".".join(("mine", *parts))


def room_of(module: str) -> str | None:
    """The longest room `module` lies in (None: the package inits, a room apart)."""
    found = [room for room in ROOMS if module == room or module.startswith(room + ".")]
    return max(found, key=len) if found else None


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports (line, dotted name), relative imports resolved; an
    import of names from a package counts as an import of each name that is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                package = module_name(path).split(".")
                package = package[: len(package) - node.level + (path.name == "__init__.py")]
                base = ".".join([*package, node.module])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.append((node.lineno, child if _is_module(child) else base))
    return found


def _is_module(name: str) -> bool:
    parts = name.split(".")[1:]
    if not parts:
        return False
    folder = REPO.joinpath(*parts)
    return folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file()


def sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (REPO / folder).rglob("*.py"))


def allowed(source: str, target: str) -> bool:
    if target in EVERYONES or room_of(target) == room_of(source):
        return True
    if source in PACKAGES:
        return True  # `mine` lazily offers the warehouse's API; `mine.strategies` is empty
    reach = ROOMS.get(room_of(source) or "", ())
    return any(target == room or target.startswith(room + ".") for room in reach)


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_imports_follow_the_layers(path):
    source = module_name(path)
    assert source in PACKAGES or room_of(source), f"{source} lies in no room of ROOMS"
    wrong = sorted(
        {
            f"{path.relative_to(REPO)}:{line} imports {target}"
            for line, target in imports(path)
            if target.startswith("mine.") and not allowed(source, target)
        }
    )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_only_the_pipeline_imports_ray(path):
    if module_name(path).startswith("mine.pipeline"):
        return
    assert not [t for _, t in imports(path) if t.split(".")[0] == "ray"]


def test_player_modules_import_only_the_standard_library():
    for path in (REPO / "strategies" / "players").rglob("*.py"):
        roots = {target.split(".")[0] for _, target in imports(path)}
        assert roots <= set(sys.stdlib_module_names), (path, roots - set(sys.stdlib_module_names))


def test_the_rules_catch_an_import_against_them(tmp_path):
    """The check itself: an engine importing a bot, or a model importing the pipeline, is
    refused; a bot importing an engine is not."""
    assert not allowed("mine.strategies.engines.supernim", "mine.strategies.bots.supernim")
    assert not allowed("mine.models.twentyone", "mine.pipeline.stats.twentyone")
    assert not allowed("mine.strategies.codegen.hog", "mine.models.hog")
    assert not allowed("mine.warehouse.hog", "mine.models.hog")
    assert allowed("mine.strategies.bots.hog", "mine.strategies.engines.hog")
    assert allowed("mine.pipeline.commands.hog", "mine.models.hog")


def import_graph() -> dict[str, set[str]]:
    """Every module of mine and the modules of mine it imports (inside functions too)."""
    graph: dict[str, set[str]] = {}
    for path in sources():
        source = module_name(path)
        graph[source] = {t for _, t in imports(path) if t.startswith("mine.") and t != source}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_round_a_cycle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
