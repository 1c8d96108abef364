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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from agent_lab.application.events.models import EventDefinition
from agent_lab.application.events.registry import EventRegistry
from agent_lab.errors import DefinitionError
from agent_lab.lab.importers.common import DatasetImportError, write_readme, write_workload
from agent_lab.strict_json import ensure_json_data

__all__ = ["REFERENCE_DATE", "import_sgd"]

REFERENCE_DATE = "2019-03-01"
ATTRIBUTION = (
    "Converted from the Schema-Guided Dialogue dataset (Rastogi et al., 'Towards Scalable "
    "Multi-domain Conversational Agents: The Schema-Guided Dialogue Dataset', AAAI 2020), "
    "CC BY-SA 4.0. This adaptation is released under CC BY-SA 4.0."
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")
_NUMBER = re.compile(r"^\d+$")


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


def _load(path: Path, report: dict[str, Any]) -> Any | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        report["skipped_files"].append(
            {"file": path.name, "reason": f"{type(err).__name__}: {err}"}
        )
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


def import_sgd(folder: str | Path, out: str | Path) -> dict[str, Any]:
    """Convert an SGD split folder; write ``events.json``, two workloads and the report.

    Raises:
        DatasetImportError: No readable ``schema.json`` (nothing can be converted).
    """
    source, target = Path(folder), Path(out)
    report: dict[str, Any] = {
        "source": "sgd",
        "folder": source.name,
        "reference_date": REFERENCE_DATE,
        "attribution": ATTRIBUTION,
        "rules": (__doc__ or "").split("Mapping rules")[1].split("The data is")[0].strip(),
        "skipped_files": [],
        "extra_files": [],
        "events": [],
        "skipped_services": [],
        "skipped_calls": [],
        "counts": {},
    }
    schema_path = source / "schema.json"
    if not schema_path.is_file():
        raise DatasetImportError(f"{source}: no schema.json, so no service can be converted")
    loaded_services = _load(schema_path, report)
    if not isinstance(loaded_services, list):
        raise DatasetImportError(
            f"{schema_path}: not a list of services ({report['skipped_files']})"
        )
    services = cast("list[Any]", loaded_services)
    dialogue_files = sorted(source.glob("dialogues_*.json"))
    known = {"schema.json", "README.md", "LICENSE.txt"}
    report["extra_files"] = sorted(
        p.name
        for p in source.iterdir()
        if p.is_file() and p not in dialogue_files and p.name not in known
    )
    dialogues: list[Any] = []
    for path in dialogue_files:
        loaded = _load(path, report)
        if isinstance(loaded, list):
            dialogues += [d for d in cast("list[Any]", loaded) if isinstance(d, dict)]
        elif loaded is not None:
            report["skipped_files"].append({"file": path.name, "reason": "not a list of dialogues"})

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
                report["events"].append(
                    {
                        "event": name,
                        "slots": {s: p["x-agent-lab"]["kind"] for s, p in properties.items()},
                    }
                )
        except (KeyError, TypeError, DefinitionError) as err:
            report["skipped_services"].append(
                {
                    "service": _field(service, "service_name"),
                    "reason": f"{type(err).__name__}: {err}",
                }
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
                    call = cast("dict[str, Any]", call)
                    _add_case(
                        _CallSite(dialogue, index, service, call),
                        user_turns,
                        before_last_user,
                        intents,
                        variants,
                        report,
                    )
                for action in frame.get("actions", []):
                    if action.get("act") in ("INFORM", "OFFER", "CONFIRM") and action.get("slot"):
                        canonical: list[Any] = action.get("canonical_values") or []
                        if canonical:
                            stated.setdefault(service, {})[action["slot"]] = str(canonical[0])
    target.mkdir(parents=True, exist_ok=True)
    (target / "events.json").write_text(
        json.dumps(
            {
                "source": "sgd",
                "reference_date": REFERENCE_DATE,
                "attribution": ATTRIBUTION,
                "events": definitions,
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    for variant, cases in variants.items():
        write_workload(target, variant, cases)
    write_readme(target, "SGD", ATTRIBUTION, "and every skipped item")
    report["counts"] = {
        "dialogue_files": len(dialogue_files),
        "dialogues": len(dialogues),
        "events": len(definitions),
        "cases_per_variant": len(variants["payload"]),
        "skipped_calls": len(report["skipped_calls"]),
        "skipped_call_reasons": dict(
            Counter(s["reason"].split(":")[0] for s in report["skipped_calls"])
        ),
        "skipped_files": len(report["skipped_files"]),
        "skipped_services": len(report["skipped_services"]),
    }
    (target / "import-report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    return report


@dataclass(frozen=True, slots=True)
class _CallSite:
    dialogue: dict[str, Any]
    index: int
    service: str
    call: dict[str, Any]


def _add_case(  # noqa: PLR0917 - private helper, one call site
    site: _CallSite,
    user_turns: list[str],
    stated: dict[str, dict[str, str]],
    intents: dict[str, dict[str, Any]],
    variants: dict[str, list[dict[str, Any]]],
    report: dict[str, Any],
) -> None:
    service, call = site.service, site.call
    name = event_name(service, str(call.get("method")))
    case_id = f"{site.dialogue.get('dialogue_id')}-{site.index:02d}"
    intent = intents.get(name)
    parameters: dict[str, Any] = call.get("parameters") or {}
    if intent is None:
        report["skipped_calls"].append({"case": case_id, "reason": f"unknown event: {name}"})
        return
    arguments = {slot: str(value) for slot, value in parameters.items()}
    unknown = sorted(set(arguments) - intent["slots"])
    if unknown:
        report["skipped_calls"].append(
            {"case": case_id, "reason": f"slots not in the intent: {unknown}"}
        )
        return
    properties = intent["schema"]["properties"]
    bad: dict[str, str] = {
        s: v
        for s, v in arguments.items()
        if "enum" in properties[s] and v not in properties[s]["enum"]
    }
    if bad:
        report["skipped_calls"].append(
            {"case": case_id, "reason": f"values outside the enum: {bad}"}
        )
        return
    if not user_turns:
        report["skipped_calls"].append({"case": case_id, "reason": "no user turn before the call"})
        return
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
