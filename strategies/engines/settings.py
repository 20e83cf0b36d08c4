"""Rule settings as text: one reading of `--rules KEY=VALUE` for every game's rules.

Each game's rules are a frozen dataclass whose fields are its settings; `RuleSettings`
gives it `from_settings` and `with_settings`, which read a value by the field's default's
type (on/off words for a flag) and let the dataclass's own checks have the last word.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Self

ON = ("true", "1", "yes", "on")
OFF = ("false", "0", "no", "off")


def parse(settings: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """`KEY=VALUE` strings (or a mapping) as a mapping; dashes in keys read as underscores."""
    if isinstance(settings, Mapping):
        return {key.strip().replace("-", "_"): str(text) for key, text in settings.items()}
    pairs = {}
    for setting in settings:
        key, sep, text = setting.partition("=")
        if not sep:
            raise ValueError(f"bad rule {setting!r}: expected KEY=VALUE")
        pairs[key.strip().replace("-", "_")] = text.strip()
    return pairs


class RuleSettings:
    """Mixin for a frozen rules dataclass. `BOUNDS` (a class attribute) gives each numeric
    setting's least and greatest value: what a rule can be set to from outside (the
    command line, a table's metadata), so that no setting asks for unbounded time or
    memory."""

    BOUNDS: ClassVar[Mapping[str, tuple[float, float]]] = {}

    @classmethod
    def from_settings(
        cls, settings: Iterable[str] | Mapping[str, str], base: Self | None = None
    ) -> Self:
        """`base` (the defaults) with these settings applied."""
        return (base or cls()).with_settings(settings)

    def with_settings(self, settings: Iterable[str] | Mapping[str, str]) -> Self:
        fields = [f.name for f in dataclasses.fields(self)]
        changes: dict[str, Any] = {}
        for key, text in parse(settings).items():
            if key not in fields:
                raise ValueError(f"bad rule {key!r}: the rules are {', '.join(fields)}")
            changes[key] = _value(key, text, getattr(self, key))
            if not self.within(key, changes[key]):
                low, high = self.BOUNDS[key]
                raise ValueError(f"bad rule {key}={text}: {key} takes {low:,} to {high:,}")
        return dataclasses.replace(self, **changes)

    def at_least(self, **least: float) -> None:
        """ValueError for the first of these settings below its least value."""
        for name, low in least.items():
            if (value := getattr(self, name)) < low:
                raise ValueError(f"{name} must be at least {low}, not {value}")

    @classmethod
    def within(cls, key: str, value: float) -> bool:
        """Whether `value` is a number `key` may be set to (finite, within its bounds)."""
        if key not in cls.BOUNDS:
            return True
        low, high = cls.BOUNDS[key]
        # An int is compared as it is: one past a float's range (a command line's or a
        # table's digits) is out of bounds, not an OverflowError of isfinite
        return (isinstance(value, int) or math.isfinite(value)) and low <= value <= high

    def changes(self) -> dict[str, Any]:
        """The settings that differ from the defaults."""
        base = type(self)()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }


def _value(key: str, text: str, default: Any) -> Any:
    if isinstance(default, bool):
        if text.lower() not in ON + OFF:
            raise ValueError(f"bad rule {key}={text!r}: {key} takes on or off")
        return text.lower() in ON
    kind = type(default)
    try:
        return kind(text)
    except ValueError:
        name = {int: "whole number", float: "number", str: "word"}.get(kind, kind.__name__)
        raise ValueError(f"bad rule {key}={text!r}: {key} takes a {name}") from None
