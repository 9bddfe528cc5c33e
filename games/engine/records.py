"""The one JSON form of the engine's frozen records (melds, lay-offs, showdowns, scores).

A record's JSON is its fields in declaration order: cards as R1 text, tuples as lists, nested
records by their own ``to_dict``, numbers, text and None as they are. Reading it back goes by
each field's declared type: ``Card`` from its text, ``tuple[Card, ...]`` from a list of texts,
a record (or a tuple of them) from its dict (or a list of dicts), ``tuple[int, ...]`` and
``tuple[int, int]`` from a list, ``X | None`` as ``X`` unless null. Stored hand states and
match results are built from these, so the order of a record's fields is part of its stored
form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Any, ClassVar, Self, Union, cast, get_args, get_origin
from typing import get_type_hints as type_hints

from games.engine.cards import Card, coerce_cards, parse_card

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Decoder = Callable[[Any], Any]
_CODECS: dict[type, tuple[tuple[str, Decoder | None], ...]] = {}


def json_form(value: object) -> object:
    """``value`` as JSON-able data: a card as its text, a tuple as a list of JSON forms, a
    record by its ``to_dict``."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple):
        return [json_form(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return value if to_dict is None else to_dict()


class Record:
    """Mixin of a frozen dataclass stored as JSON: ``to_dict`` writes every field in order in
    its JSON form; ``from_dict`` reads each one back by its declared type, or through the
    decoder ``decoders`` names for it."""

    __slots__ = ()
    decoders: ClassVar[Mapping[str, Decoder]] = {}

    def to_dict(self) -> dict[str, Any]:
        return {name: json_form(getattr(self, name)) for name, _ in _codec(type(self))}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        return cls(
            **{
                name: data[name] if decode is None else decode(data[name])
                for name, decode in _codec(cls)
            }
        )

    @classmethod
    def tuple_from_json(cls, items: Iterable[Mapping[str, Any]]) -> tuple[Self, ...]:
        """Stored records of this type (a JSON list) read back, in order."""
        return tuple(cls.from_dict(item) for item in items)


def _codec(record_type: type[Record]) -> tuple[tuple[str, Decoder | None], ...]:
    """Each field of ``record_type`` with the decoder that reads it back (None: as it is)."""
    codec = _CODECS.get(record_type)
    if codec is None:
        hints = type_hints(record_type)
        dataclass_fields = fields(cast("type[DataclassInstance]", record_type))
        codec = _CODECS[record_type] = tuple(
            (field.name, record_type.decoders.get(field.name) or _decoder(hints[field.name]))
            for field in dataclass_fields
        )
    return codec


def _decoder(hint: Any) -> Decoder | None:
    """How a field declared ``hint`` is read back from its JSON form (None: as it is)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Card:
        return parse_card
    if isinstance(hint, type) and issubclass(hint, Record):
        return hint.from_dict
    if origin in (UnionType, Union) and NoneType in args:
        (inner,) = (arg for arg in args if arg is not NoneType)
        decode = _decoder(inner)
        return None if decode is None else _unless_null(decode)
    if origin is not tuple:
        return None
    if len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if item is Card:
            return coerce_cards
        if isinstance(item, type) and issubclass(item, Record):
            return item.tuple_from_json
        return tuple
    return _exactly(len(args))


def _unless_null(decode: Decoder) -> Decoder:
    return lambda value: None if value is None else decode(value)


def _exactly(count: int) -> Decoder:
    """A fixed-size tuple (``tuple[int, int]``: one value per seat, heads-up)."""

    def decode(values: Iterable[Any]) -> tuple[Any, ...]:
        items = tuple(values)
        if len(items) != count:
            raise ValueError(f"expected {count} values, got {len(items)}")
        return items

    return decode
