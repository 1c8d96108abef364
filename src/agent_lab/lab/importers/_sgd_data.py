"""SGD's ``schema.json`` services and dialogues as typed values, every field's type checked.

A field the importer reads that is missing (where SGD always has it) or of
the wrong type raises ``ShapeError`` with its JSON pointer; the importer
skips that service or dialogue and says why (L4).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_lab.lab.importers._shape import (
    ShapeError,
    boolean,
    each,
    need,
    obj,
    optional,
    string,
    string_map,
    strings,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.strict_json import JSONValue

__all__ = [
    "Action",
    "Dialogue",
    "Frame",
    "Intent",
    "Service",
    "ServiceCall",
    "Slot",
    "Turn",
    "read_dialogue",
    "read_service",
]

_NO_VALUES: Mapping[str, JSONValue] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class Slot:
    """A slot of a service."""

    name: str
    description: str
    categorical: bool
    possible_values: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Intent:
    """An intent of a service: its required slots, and its optional ones with their defaults."""

    name: str
    description: str
    required: tuple[str, ...]
    optional: Mapping[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Service:
    """A service of ``schema.json``."""

    name: str
    description: str
    slots: tuple[Slot, ...]
    intents: tuple[Intent, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    """A dialogue act of a frame (``INFORM``, ``OFFER``...), with the slot's canonical values."""

    act: str
    slot: str
    canonical_values: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceCall:
    """A system's call of an intent, with its parameters as canonical strings."""

    method: str
    parameters: Mapping[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """What one turn says about one service."""

    service: str
    actions: tuple[Action, ...]
    wanted: tuple[str, ...]
    """The slots of the user's dialogue state (``state.slot_values``), in order."""
    call: ServiceCall | None
    results: tuple[Mapping[str, str], ...] = ()
    """What the call returned (``service_results``): one record per item found."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One utterance of the user or the system."""

    speaker: str
    utterance: str
    frames: tuple[Frame, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Dialogue:
    """A dialogue: its id and its turns."""

    id: str
    turns: tuple[Turn, ...]
    services: tuple[str, ...] = ()
    """The services the dialogue uses, as its ``services`` field lists them."""


def _slot(value: object) -> Slot:
    fields = obj(value)
    return Slot(
        name=need(fields, "name", string),
        description=optional(fields, "description", string, ""),
        categorical=optional(fields, "is_categorical", boolean, default=False),
        possible_values=optional(fields, "possible_values", strings, ()),
    )


def _intent(value: object) -> Intent:
    fields = obj(value)
    return Intent(
        name=need(fields, "name", string),
        description=optional(fields, "description", string, ""),
        required=need(fields, "required_slots", strings),
        optional=MappingProxyType(need(fields, "optional_slots", string_map)),
    )


def read_service(value: object) -> Service:
    """One entry of ``schema.json``.

    Raises:
        ShapeError: A field missing or of the wrong type.
    """
    fields = obj(value)
    return Service(
        name=need(fields, "service_name", string),
        description=optional(fields, "description", string, ""),
        slots=need(fields, "slots", lambda slots: each(slots, _slot)),
        intents=need(fields, "intents", lambda intents: each(intents, _intent)),
    )


def _action(value: object) -> Action:
    fields = obj(value)
    return Action(
        act=need(fields, "act", string),
        slot=optional(fields, "slot", string, ""),
        canonical_values=optional(fields, "canonical_values", strings, ()),
    )


def _call(value: object) -> ServiceCall:
    fields = obj(value)
    return ServiceCall(
        method=need(fields, "method", string),
        parameters=MappingProxyType(optional(fields, "parameters", string_map, {})),
    )


def _wanted(value: object) -> tuple[str, ...]:
    # Only the slots are read; their values are checked all the same (lists of strings).
    values = optional(obj(value), "slot_values", obj, _NO_VALUES)
    for slot, said in values.items():
        try:
            strings(said)
        except ShapeError as err:
            raise err.under("slot_values", slot) from None
    return tuple(values)


def _frame(value: object) -> Frame:
    fields = obj(value)
    return Frame(
        service=need(fields, "service", string),
        actions=optional(fields, "actions", lambda actions: each(actions, _action), ()),
        wanted=optional(fields, "state", _wanted, ()),
        call=optional(fields, "service_call", _call, None),
        results=optional(
            fields,
            "service_results",
            lambda results: tuple(MappingProxyType(r) for r in each(results, string_map)),
            (),
        ),
    )


def _turn(value: object) -> Turn:
    fields = obj(value)
    return Turn(
        speaker=need(fields, "speaker", string),
        utterance=optional(fields, "utterance", string, ""),
        frames=optional(fields, "frames", lambda frames: each(frames, _frame), ()),
    )


def read_dialogue(value: object) -> Dialogue:
    """One dialogue of a ``dialogues_*.json`` file.

    Raises:
        ShapeError: A field missing or of the wrong type.
    """
    fields = obj(value)
    return Dialogue(
        id=need(fields, "dialogue_id", string),
        turns=optional(fields, "turns", lambda turns: each(turns, _turn), ()),
        services=optional(fields, "services", strings, ()),
    )
