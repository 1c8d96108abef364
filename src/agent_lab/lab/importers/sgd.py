"""Schema-Guided Dialogue (SGD) into events, two workload variants and an import report (L4).

Mapping rules (also written into the output's ``import-report.json``):

* Each (service, intent) becomes the event ``<service>__<intent>`` with a
  Draft 2020-12 schema: the intent's required slots are required, its optional
  slots optional (with their default kept as ``default``, ``dontcare`` noted
  in the description); categorical slots are enums of their possible values,
  free-form slots strings. SGD values are canonical strings, so every
  property is a string; a hint (``x-agent-lab``) says what kind of value it
  is, read from the values the dialogues use: dates ``YYYY-MM-DD``, times
  ``HH:MM``, numbers as digit strings, booleans ``True``/``False``.
* Each system ``service_call`` becomes a case whose expected arguments are
  its parameters, in two variants: ``utterance`` (all user turns up to the
  call, as text) and ``payload`` (the last user turn as text; the slots the
  user's dialogue state holds that were established before that turn, by the
  user or offered by the system, as a structured payload of canonical values).
* Relative dates refer to the dataset's "today", 2019-03-01.

The data is CC BY-SA 4.0 (Rastogi et al., AAAI 2020); anything written from
it is an adaptation under the same licence, which the output says.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab.application.events.models import EventDefinition
from agent_lab.application.events.registry import EventRegistry
from agent_lab.errors import DefinitionError
from agent_lab.lab.importers.common import (
    DatasetImportError,
    SkippedFile,
    SkippedItem,
    read_text,
    reason_counts,
    write_events,
    write_readme,
    write_report,
    write_workload,
)
from agent_lab.strict_json import ensure_json_data

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONValue

__all__ = [
    "REFERENCE_DATE",
    "SGDCounts",
    "SGDEvent",
    "SGDReport",
    "SkippedService",
    "import_sgd",
]

REFERENCE_DATE = "2019-03-01"
ATTRIBUTION = (
    "Converted from the Schema-Guided Dialogue dataset (Rastogi et al., 'Towards Scalable "
    "Multi-domain Conversational Agents: The Schema-Guided Dialogue Dataset', AAAI 2020), "
    "CC BY-SA 4.0. This adaptation is released under CC BY-SA 4.0."
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")
_NUMBER = re.compile(r"^\d+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class SGDEvent:
    """An event written, with the kind of value each of its slots holds."""

    event: str
    slots: dict[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedService:
    """A service of ``schema.json`` left out, and why."""

    service: JSONValue
    """Its ``service_name``, as the file has it (``None`` when absent)."""
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SGDCounts:
    """How much was read, written and skipped."""

    dialogue_files: int
    dialogues: int
    events: int
    cases_per_variant: int
    skipped_calls: int
    skipped_call_reasons: dict[str, int]
    skipped_files: int
    skipped_services: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SGDReport:
    """What ``import_sgd`` converted and skipped, as ``import-report.json`` holds it."""

    source: str = "sgd"
    folder: str
    reference_date: str = REFERENCE_DATE
    attribution: str = ATTRIBUTION
    rules: str
    skipped_files: tuple[SkippedFile, ...]
    extra_files: tuple[str, ...]
    """Files of the folder that are neither dialogues nor the schema (left alone)."""
    events: tuple[SGDEvent, ...]
    skipped_services: tuple[SkippedService, ...]
    skipped_calls: tuple[SkippedItem, ...]
    counts: SGDCounts

    def summary(self) -> str:
        """One line: what was imported, and how much was skipped."""
        c = self.counts
        return (
            f"imported {c.events} events and {c.cases_per_variant} cases per variant from "
            f"{c.dialogues} dialogues; skipped {c.skipped_calls} calls, {c.skipped_files} "
            f"files, {c.skipped_services} services"
        )

    @property
    def first_workload(self) -> str:
        """The payload variant: the one deterministic-first is built for."""
        return "workload-payload.jsonl"


@dataclass(slots=True)
class _Skipped:
    """What the import leaves out, gathered while it runs."""

    files: list[SkippedFile] = field(default_factory=list[SkippedFile])
    services: list[SkippedService] = field(default_factory=list[SkippedService])
    calls: list[SkippedItem] = field(default_factory=list[SkippedItem])


def event_name(service: str, intent: str) -> str:
    """``Restaurants_2`` + ``ReserveRestaurant`` -> ``Restaurants_2__ReserveRestaurant``."""
    return f"{service}__{intent}"


def _kind(values: set[str], *, categorical: bool, possible: list[str]) -> str:
    pool = set(possible) | values
    if pool and pool <= {"True", "False"}:
        return "boolean"
    if categorical and possible:
        return "enum" if not (pool and all(_NUMBER.match(v) for v in pool)) else "number"
    if values and all(_DATE.match(v) for v in values):
        return "date"
    if values and all(_TIME.match(v) for v in values):
        return "time"
    if values and all(_NUMBER.match(v) for v in values):
        return "number"
    return "free-form"


def _load(path: Path, skipped: list[SkippedFile]) -> Any | None:
    text = read_text(path, skipped)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        skipped.append(SkippedFile(file=path.name, reason=f"{type(err).__name__}: {err}"))
        return None


def _field(value: Any, key: str) -> Any:
    return cast("dict[str, Any]", value).get(key) if isinstance(value, dict) else None


def _payload_at(turn: Any, stated: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The structured payload a client would send with this user turn, per service.

    The user's dialogue state says which slots they want; of those, the ones
    established before this turn (their canonical value, as said by the user
    or offered by the system) form the payload; what this turn informs is left
    to the text.
    """
    payload: dict[str, dict[str, str]] = {}
    for frame in turn.get("frames", []):
        service = frame.get("service")
        wanted: dict[str, Any] = _field(frame.get("state"), "slot_values") or {}
        said_now = {a.get("slot") for a in frame.get("actions", []) if a.get("act") == "INFORM"}
        known = stated.get(service, {})
        payload[service] = {
            slot: known[slot] for slot in wanted if slot in known and slot not in said_now
        }
    return payload


def import_sgd(folder: str | Path, out: str | Path) -> SGDReport:
    """Convert an SGD split folder; write ``events.json``, two workloads and the report.

    Raises:
        DatasetImportError: No readable ``schema.json`` (nothing can be converted).
    """
    source, target = Path(folder), Path(out)
    skipped = _Skipped()
    schema_path = source / "schema.json"
    if not schema_path.is_file():
        raise DatasetImportError(f"{source}: no schema.json, so no service can be converted")
    loaded_services = _load(schema_path, skipped.files)
    if not isinstance(loaded_services, list):
        reasons = [asdict(file) for file in skipped.files]
        raise DatasetImportError(f"{schema_path}: not a list of services ({reasons})")
    services = cast("list[Any]", loaded_services)
    dialogue_files = sorted(source.glob("dialogues_*.json"))
    known = {"schema.json", "README.md", "LICENSE.txt"}
    extra_files = sorted(
        p.name
        for p in source.iterdir()
        if p.is_file() and p not in dialogue_files and p.name not in known
    )
    dialogues: list[Any] = []
    for path in dialogue_files:
        loaded = _load(path, skipped.files)
        if isinstance(loaded, list):
            dialogues += [d for d in cast("list[Any]", loaded) if isinstance(d, dict)]
        elif loaded is not None:
            skipped.files.append(SkippedFile(file=path.name, reason="not a list of dialogues"))

    # The values each slot takes in service calls tell what kind of value it is.
    observed: dict[tuple[str, str], set[str]] = {}
    for dialogue in dialogues:
        for turn in dialogue.get("turns", []):
            for frame in turn.get("frames", []):
                parameters: dict[str, Any] = _field(frame.get("service_call"), "parameters") or {}
                for slot, value in parameters.items():
                    observed.setdefault((frame.get("service"), slot), set()).add(str(value))

    registry = EventRegistry()
    definitions: list[dict[str, Any]] = []
    events: list[SGDEvent] = []
    intents: dict[str, dict[str, Any]] = {}
    for service in services:
        try:
            name_of_service = service["service_name"]
            slots = {slot["name"]: slot for slot in service["slots"]}
            for intent in service["intents"]:
                name = event_name(name_of_service, intent["name"])
                properties: dict[str, Any] = {}
                for slot_name in list(intent["required_slots"]) + list(intent["optional_slots"]):
                    slot = slots[slot_name]
                    possible = [str(v) for v in slot.get("possible_values", [])]
                    values = observed.get((name_of_service, slot_name), set())
                    kind = _kind(
                        values, categorical=bool(slot.get("is_categorical")), possible=possible
                    )
                    prop: dict[str, Any] = {
                        "type": "string",
                        "description": slot.get("description", ""),
                    }
                    if slot.get("is_categorical") and possible:
                        prop["enum"] = possible
                    if kind == "date":
                        prop["pattern"] = r"^\d{4}-\d{2}-\d{2}$"
                    elif kind == "time":
                        prop["pattern"] = r"^\d{2}:\d{2}$"
                    prop["x-agent-lab"] = {"kind": kind, "format": "string"}
                    default = intent["optional_slots"].get(slot_name)
                    if default is not None and slot_name not in intent["required_slots"]:
                        if default == "dontcare":
                            prop["description"] += " (default: no preference)"
                        else:
                            prop["default"] = str(default)
                    properties[slot_name] = prop
                parameters = {
                    "type": "object",
                    "properties": properties,
                    "required": list(intent["required_slots"]),
                    "additionalProperties": False,
                }
                description = f"{service.get('description', '')}: {intent.get('description', '')}"
                registry.register(
                    EventDefinition(name, description=description, parameters=parameters)
                )
                definitions.append(
                    {
                        "name": name,
                        "description": description,
                        "parameters": parameters,
                        "service": name_of_service,
                        "intent": intent["name"],
                    }
                )
                intents[name] = {"slots": set(properties), "schema": parameters}
                kinds = {s: p["x-agent-lab"]["kind"] for s, p in properties.items()}
                events.append(SGDEvent(event=name, slots=kinds))
        except (KeyError, TypeError, DefinitionError) as err:
            skipped.services.append(
                SkippedService(
                    service=_field(service, "service_name"),
                    reason=f"{type(err).__name__}: {err}",
                )
            )

    variants: dict[str, list[dict[str, Any]]] = {"utterance": [], "payload": []}
    for dialogue in dialogues:
        user_turns: list[str] = []
        stated: dict[str, dict[str, str]] = {}  # service -> slot -> canonical value said so far
        before_last_user: dict[str, dict[str, str]] = {}
        turns = dialogue.get("turns", [])
        for index, turn in enumerate(turns):
            speaker, utterance = turn.get("speaker"), str(turn.get("utterance", ""))
            if speaker == "USER":
                user_turns.append(utterance)
                before_last_user = _payload_at(turn, stated)
            for frame in turn.get("frames", []):
                service = frame.get("service")
                call = frame.get("service_call")
                if isinstance(call, dict) and speaker == "SYSTEM":
                    site = _CallSite(dialogue, index, service, cast("dict[str, Any]", call))
                    problem = _add_case(site, user_turns, before_last_user, intents, variants)
                    if problem is not None:
                        skipped.calls.append(SkippedItem(case=site.case_id, reason=problem))
                for action in frame.get("actions", []):
                    if action.get("act") in ("INFORM", "OFFER", "CONFIRM") and action.get("slot"):
                        canonical: list[Any] = action.get("canonical_values") or []
                        if canonical:
                            stated.setdefault(service, {})[action["slot"]] = str(canonical[0])
    target.mkdir(parents=True, exist_ok=True)
    write_events(
        target,
        {
            "source": "sgd",
            "reference_date": REFERENCE_DATE,
            "attribution": ATTRIBUTION,
            "events": definitions,
        },
        indent=1,
    )
    for variant, cases in variants.items():
        write_workload(target, variant, cases)
    write_readme(target, "SGD", ATTRIBUTION, "and every skipped item")
    report = SGDReport(
        folder=source.name,
        rules=(__doc__ or "").split("Mapping rules")[1].split("The data is")[0].strip(),
        skipped_files=tuple(skipped.files),
        extra_files=tuple(extra_files),
        events=tuple(events),
        skipped_services=tuple(skipped.services),
        skipped_calls=tuple(skipped.calls),
        counts=SGDCounts(
            dialogue_files=len(dialogue_files),
            dialogues=len(dialogues),
            events=len(definitions),
            cases_per_variant=len(variants["payload"]),
            skipped_calls=len(skipped.calls),
            skipped_call_reasons=reason_counts(skipped.calls),
            skipped_files=len(skipped.files),
            skipped_services=len(skipped.services),
        ),
    )
    write_report(target, report)
    return report


@dataclass(frozen=True, slots=True)
class _CallSite:
    dialogue: dict[str, Any]
    index: int
    service: str
    call: dict[str, Any]

    @property
    def case_id(self) -> str:
        return f"{self.dialogue.get('dialogue_id')}-{self.index:02d}"


def _add_case(
    site: _CallSite,
    user_turns: list[str],
    stated: dict[str, dict[str, str]],
    intents: dict[str, dict[str, Any]],
    variants: dict[str, list[dict[str, Any]]],
) -> str | None:
    """Add the call's case to both variants; or say why it cannot be one."""
    service, call, case_id = site.service, site.call, site.case_id
    name = event_name(service, str(call.get("method")))
    intent = intents.get(name)
    parameters: dict[str, Any] = call.get("parameters") or {}
    if intent is None:
        return f"unknown event: {name}"
    arguments = {slot: str(value) for slot, value in parameters.items()}
    unknown = sorted(set(arguments) - intent["slots"])
    if unknown:
        return f"slots not in the intent: {unknown}"
    properties = intent["schema"]["properties"]
    bad: dict[str, str] = {
        s: v
        for s, v in arguments.items()
        if "enum" in properties[s] and v not in properties[s]["enum"]
    }
    if bad:
        return f"values outside the enum: {bad}"
    if not user_turns:
        return "no user turn before the call"
    earlier = {
        slot: value
        for slot, value in stated.get(service, {}).items()
        if slot in intent["slots"]
        and ("enum" not in properties[slot] or value in properties[slot]["enum"])
    }
    common = {
        "event": name,
        "event_given": True,
        "context": {"now": f"{REFERENCE_DATE}T00:00"},
        "expected": {"status": "success", "arguments": ensure_json_data(arguments)},
    }
    variants["utterance"].append(
        {
            "id": case_id,
            "text": " ".join(user_turns),
            "payload": {},
            "tags": ["utterance", service],
            **common,
        }
    )
    variants["payload"].append(
        {
            "id": case_id,
            "text": user_turns[-1],
            "payload": earlier,
            "tags": ["payload", service],
            **common,
        }
    )
    return None
