"""Every game's module in every layer provides its layer's contract (the `CONTRACT` its
layer package states): the names, and each function's leading parameters."""

from __future__ import annotations

import inspect

import pytest

from mine import games

CASES = [(game.name, part) for game in games.GAMES for part in sorted(game.parts)]


def promised(game: games.Game, part: str) -> dict[str, tuple[str, ...] | None]:
    """The contract of `part`, with the optional verbs the game's module does provide."""
    package = game.package(part)
    module = game.module(part)
    optional = getattr(package, "OPTIONAL", {})
    return {**package.CONTRACT, **{k: v for k, v in optional.items() if hasattr(module, k)}}


@pytest.mark.parametrize(("name", "part"), CASES)
def test_every_module_keeps_its_layers_contract(name, part):
    game = games.get(name)
    module = game.module(part)
    missing = [key for key in promised(game, part) if not hasattr(module, key)]
    assert not missing, f"{module.__name__} lacks {', '.join(missing)}"
    for key, leading in promised(game, part).items():
        if leading is None:
            continue
        function = getattr(module, key)
        assert callable(function), f"{module.__name__}.{key} is not callable"
        parameters = list(inspect.signature(function).parameters)[: len(leading)]
        assert tuple(parameters) == leading, f"{module.__name__}.{key}{tuple(parameters)}"


def test_every_layer_states_a_contract():
    for part in games.PARTS:
        package = games.GAMES[0].package(part)
        assert isinstance(package.CONTRACT, dict), part
