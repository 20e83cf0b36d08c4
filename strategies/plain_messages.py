"""What a contained worker may tell the harness: plain data, never code.

A message is its length (4 bytes, big-endian) and JSON text of at most `MAX_BYTES`. JSON
holds None, booleans, numbers, strings, lists and objects of string keys; the rest of what
the jobs return is written as a one-key object whose key starts with NUL: a tuple, a dict
of other keys, or a record (a dataclass or NamedTuple of the harness's own modules, built
from its fields by its class). Reading one never imports, unpickles or calls anything the
message names beyond such a record's class; anything else is `Malformed`.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import struct
import sys
from typing import Any

MAX_BYTES = 16 * 2**20  # far above any job's result (the largest seen are a few kB)
HEADER = struct.Struct(">I")
TUPLE, DICT, RECORD = "\0t", "\0d", "\0r"
HARNESS = "mine."  # the modules whose records a message may name


class Malformed(ValueError):
    """A message that is not plain data in this format."""


def encode(value: Any) -> bytes:
    """`value` as one message (TypeError for what is not plain data)."""
    text = json.dumps(_plain(value), separators=(",", ":")).encode()
    if len(text) > MAX_BYTES:
        raise TypeError(f"a message of {len(text):,} bytes (over {MAX_BYTES // 2**20} MB)")
    return HEADER.pack(len(text)) + text


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        return _plain(value.item())  # a numpy scalar: its Python number or bool
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if _is_record(type(value)):
        fields = _fields(type(value))
        name = f"{type(value).__module__}:{type(value).__qualname__}"
        return {RECORD: [name, {f: _plain(getattr(value, f)) for f in fields}]}
    if isinstance(value, tuple):
        return {TUPLE: [_plain(item) for item in value]}
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("\0") for key in value):
            return {key: _plain(item) for key, item in value.items()}
        return {DICT: [[_plain(key), _plain(item)] for key, item in value.items()]}
    raise TypeError(f"{type(value).__name__} is not plain data")


def length(header: bytes) -> int:
    """The length a message's header announces (Malformed when over the cap)."""
    (size,) = HEADER.unpack(header)
    if size > MAX_BYTES:
        raise Malformed(f"a message of {size:,} bytes, over the {MAX_BYTES // 2**20} MB cap")
    return size


def decode(text: bytes) -> Any:
    """The value of one message's text (after its header)."""
    try:
        return json.loads(text, object_hook=_tagged)
    except (ValueError, TypeError, RecursionError) as error:  # UnicodeError is a ValueError
        if isinstance(error, Malformed):
            raise
        raise Malformed(f"not plain data ({type(error).__name__})") from None


def _tagged(obj: dict) -> Any:
    tags = [key for key in obj if key.startswith("\0")]
    if not tags:
        return obj
    if len(obj) != 1 or tags[0] not in (TUPLE, DICT, RECORD):
        raise Malformed("an unknown tag")
    (body,) = obj.values()
    if tags[0] == TUPLE and isinstance(body, list):
        return tuple(body)
    if tags[0] == DICT and isinstance(body, list) and all(_pair(item) for item in body):
        return dict(body)  # TypeError (an unhashable key) is malformed too
    if tags[0] == RECORD and _pair(body) and isinstance(body[1], dict):
        return _record(*body)
    raise Malformed(f"a malformed {tags[0][1:]!r} tag")


def _pair(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2


def _record(name: Any, fields: dict) -> Any:
    """An instance of a record class the harness has loaded (no import: a class that is
    not in memory already is not one a job returns), from exactly its fields."""
    module, _, qualname = str(name).partition(":")
    cls: Any = sys.modules.get(module) if module.startswith(HARNESS) else None
    for part in qualname.split("."):
        cls = getattr(cls, part, None) if part and not part.startswith("_") else None
    if not isinstance(cls, type) or not _is_record(cls) or cls.__module__ != module:
        raise Malformed(f"{name!r} is not a record of the harness")
    if set(fields) != set(_fields(cls)):
        raise Malformed(f"the fields of {cls.__qualname__} are {', '.join(_fields(cls))}")
    try:
        return cls(**fields)
    except (TypeError, ValueError) as error:  # the class's own checks
        raise Malformed(f"not a {cls.__qualname__}: {error}") from None


def _is_record(cls: type) -> bool:
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))


def _fields(cls: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return tuple(cls._fields)  # type: ignore[attr-defined]
