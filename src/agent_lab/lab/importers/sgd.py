"""Schema-Guided Dialogue (SGD) into events, three workload variants and an import report (L4).

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
  its parameters, in three variants: ``utterance`` (all user turns up to the
  call, as text), ``payload`` (the last user turn as text; the slots the
  user's dialogue state holds that were established before that turn, by the
  user or offered by the system, as a structured payload of canonical values),
  both with the event given, and ``dialogue`` (the conversation up to the call
  as Chat Completions messages, earlier calls and their results included, as
  an agent's logs hold it; the event is not given, the dialogue's services'
  events are the candidates). A call whose turn does not follow the user's is
  no ``dialogue`` case: there are no words of the user's to answer.
* An optional slot with a default is right stated at its default or left out
  (``expected.alternatives``): the default applies either way.
* A call that lacks a slot its intent requires is skipped and listed: no
  valid dispatch could match it.
* Relative dates refer to the dataset's "today", 2019-03-01.
* Every field read has its type checked: a service or a dialogue with a field
  missing or of the wrong type is skipped whole, with the JSON pointer of the
  fault; a call whose case id was already written is skipped too.

The data is CC BY-SA 4.0 (Rastogi et al., AAAI 2020); anything written from
it is an adaptation under the same licence, which the output says.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lab.errors import DefinitionError, StrictJSONError
from agent_lab.lab.importers._sgd_cases import cases
from agent_lab.lab.importers._sgd_data import read_dialogue, read_service
from agent_lab.lab.importers._sgd_events import SGDEvent, SGDEvents
from agent_lab.lab.importers._shape import ShapeError
from agent_lab.lab.importers.common import (
    DatasetImportError,
    SkippedEntry,
    SkippedFile,
    SkippedItem,
    parse_json,
    read_text,
    reason_counts,
    write_events,
    write_readme,
    write_report,
    write_workload,
)

if TYPE_CHECKING:
    from agent_lab.lab.importers._sgd_data import Dialogue, Service
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
    skipped_dialogues: int
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
    skipped_dialogues: tuple[SkippedEntry, ...]
    skipped_calls: tuple[SkippedItem, ...]
    counts: SGDCounts

    def summary(self) -> str:
        """One line: what was imported, and how much was skipped."""
        c = self.counts
        return (
            f"imported {c.events} events and {c.cases_per_variant} cases per variant from "
            f"{c.dialogues} dialogues; skipped {c.skipped_calls} calls, {c.skipped_dialogues} "
            f"dialogues, {c.skipped_files} files, {c.skipped_services} services"
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
    dialogues: list[SkippedEntry] = field(default_factory=list[SkippedEntry])
    calls: list[SkippedItem] = field(default_factory=list[SkippedItem])


def _load(path: Path, skipped: list[SkippedFile]) -> JSONValue | None:
    text = read_text(path, skipped)
    if text is None:
        return None
    try:
        return parse_json(text)
    except StrictJSONError as err:
        skipped.append(SkippedFile(file=path.name, reason=f"{type(err).__name__}: {err}"))
        return None


def _services(loaded: list[JSONValue], skipped: _Skipped) -> list[Service]:
    services: list[Service] = []
    for index, item in enumerate(loaded):
        try:
            services.append(read_service(item))
        except ShapeError as fault:
            name = item.get("service_name") if isinstance(item, dict) else None
            where = fault.under(index)
            skipped.services.append(SkippedService(service=name, reason=f"ShapeError: {where}"))
    return services


def _dialogues(path: Path, skipped: _Skipped) -> list[Dialogue]:
    loaded = _load(path, skipped.files)
    if loaded is None:
        return []
    if not isinstance(loaded, list):
        skipped.files.append(SkippedFile(file=path.name, reason="not a list of dialogues"))
        return []
    dialogues: list[Dialogue] = []
    for index, item in enumerate(loaded):
        try:
            dialogues.append(read_dialogue(item))
        except ShapeError as fault:
            where = fault.under(index)
            skipped.dialogues.append(
                SkippedEntry(file=path.name, pointer=where.pointer, reason=where.problem)
            )
    return dialogues


def import_sgd(folder: str | Path, out: str | Path) -> SGDReport:
    """Convert an SGD split folder; write ``events.json``, three workloads and the report.

    Raises:
        DatasetImportError: No readable ``schema.json`` (nothing can be converted).
    """
    source, target = Path(folder), Path(out)
    skipped = _Skipped()
    services = _schema_services(source, skipped)
    dialogue_files = sorted(source.glob("dialogues_*.json"))
    extra_files = _extra_files(source, dialogue_files)
    dialogues = [dialogue for path in dialogue_files for dialogue in _dialogues(path, skipped)]
    events = _events(services, _observed(dialogues), skipped)
    variants = cases(dialogues, events.intents, REFERENCE_DATE, skipped.calls)
    _write_dataset(target, events, variants)
    report = SGDReport(
        folder=source.name,
        rules=(__doc__ or "").split("Mapping rules")[1].split("The data is")[0].strip(),
        skipped_files=tuple(skipped.files),
        extra_files=tuple(extra_files),
        events=tuple(events.events),
        skipped_services=tuple(skipped.services),
        skipped_dialogues=tuple(skipped.dialogues),
        skipped_calls=tuple(skipped.calls),
        counts=SGDCounts(
            dialogue_files=len(dialogue_files),
            dialogues=len(dialogues),
            events=len(events.definitions),
            cases_per_variant=len(variants["payload"]),
            skipped_calls=len(skipped.calls),
            skipped_call_reasons=reason_counts(skipped.calls),
            skipped_dialogues=len(skipped.dialogues),
            skipped_files=len(skipped.files),
            skipped_services=len(skipped.services),
        ),
    )
    write_report(target, report)
    return report


def _schema_services(source: Path, skipped: _Skipped) -> list[Service]:
    """The services of ``schema.json``; without a readable list of them, nothing converts."""
    schema_path = source / "schema.json"
    if not schema_path.exists():
        raise DatasetImportError(f"{source}: no schema.json, so no service can be converted")
    loaded_services = _load(schema_path, skipped.files)
    if not isinstance(loaded_services, list):
        reasons = [asdict(file) for file in skipped.files]
        raise DatasetImportError(f"{schema_path}: not a list of services ({reasons})")
    return _services(loaded_services, skipped)


def _extra_files(source: Path, dialogue_files: list[Path]) -> list[str]:
    """Files of the folder that are neither dialogues nor the schema (left alone)."""
    known = {"schema.json", "README.md", "LICENSE.txt"}
    return sorted(
        p.name
        for p in source.iterdir()
        if p.is_file() and p not in dialogue_files and p.name not in known
    )


def _observed(dialogues: list[Dialogue]) -> dict[tuple[str, str], set[str]]:
    """The values each (service, slot) takes in service calls: they tell what kind it is."""
    observed: dict[tuple[str, str], set[str]] = {}
    for dialogue in dialogues:
        for turn in dialogue.turns:
            for frame in turn.frames:
                if frame.call is not None:
                    for slot, value in frame.call.parameters.items():
                        observed.setdefault((frame.service, slot), set()).add(value)
    return observed


def _events(
    services: list[Service], observed: dict[tuple[str, str], set[str]], skipped: _Skipped
) -> SGDEvents:
    """An event per (service, intent); a service that cannot make its events is skipped."""
    events = SGDEvents(observed)
    for service in services:
        try:
            events.add(service)
        except (KeyError, DefinitionError) as err:
            skipped.services.append(
                SkippedService(service=service.name, reason=f"{type(err).__name__}: {err}")
            )
    return events


def _write_dataset(
    target: Path, events: SGDEvents, variants: dict[str, list[dict[str, Any]]]
) -> None:
    """The events, a workload per variant and the README (the report comes last)."""
    target.mkdir(parents=True, exist_ok=True)
    write_events(
        target,
        {
            "source": "sgd",
            "reference_date": REFERENCE_DATE,
            "attribution": ATTRIBUTION,
            "events": events.definitions,
        },
        indent=1,
    )
    for variant, rows in variants.items():
        write_workload(target, variant, rows)
    write_readme(target, "SGD", ATTRIBUTION, "and every skipped item")
