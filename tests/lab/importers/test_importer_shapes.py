"""The SGD and BFCL importers over JSON of any shape: a counted skip with a reason, never a crash.

They crashed (``TypeError``, ``AttributeError``, ``RecursionError``) on a wrong
type nested anywhere, on very deep JSON, and on an ``--out`` that is a file.
"""

from __future__ import annotations

import copy
import io
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lab.cli import run
from agent_lab.lab.importers.bfcl import import_bfcl
from agent_lab.lab.importers.common import DatasetImportError
from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.lab.workload import load_workload

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab.strict_json import JSONValue

SERVICE: dict[str, Any] = {
    "service_name": "Shop_1",
    "description": "Buy things",
    "slots": [
        {"name": "item", "description": "What", "is_categorical": False, "possible_values": []},
        {"name": "size", "description": "How big", "is_categorical": True,
         "possible_values": ["S", "M"]},
    ],
    "intents": [
        {"name": "Buy", "description": "Buy one", "is_transactional": True,
         "required_slots": ["item"], "optional_slots": {"size": "M"}, "result_slots": []},
    ],
}  # fmt: skip
DIALOGUE: dict[str, Any] = {
    "dialogue_id": "1_00000",
    "services": ["Shop_1"],
    "turns": [
        {"speaker": "USER", "utterance": "I want a hat, size S.", "frames": [
            {"service": "Shop_1", "slots": [], "state": {
                "active_intent": "Buy", "requested_slots": [],
                "slot_values": {"item": ["hat"], "size": ["S"]}},
             "actions": [{"act": "INFORM", "slot": "item", "canonical_values": ["hat"],
                          "values": ["hat"]}]}]},
        {"speaker": "SYSTEM", "utterance": "Done.", "frames": [
            {"service": "Shop_1", "slots": [], "actions": [],
             "service_call": {"method": "Buy", "parameters": {"item": "hat", "size": "S"}},
             "service_results": []}]},
    ],
}  # fmt: skip
QUESTION: dict[str, Any] = {
    "id": "simple_0",
    "question": [[{"role": "user", "content": "Area of a 3 by 4 rectangle?"}]],
    "function": [
        {"name": "geo.area", "description": "Area of a rectangle.",
         "parameters": {"type": "dict", "properties": {
             "w": {"type": "integer", "description": "width"},
             "h": {"type": "float", "description": "height", "optional": True}},
             "required": ["w"]}},
    ],
}  # fmt: skip
ANSWER: dict[str, Any] = {
    "id": "simple_0",
    "ground_truth": [{"geo.area": {"w": [3], "h": [4.0, ""]}}],
}

NAMES = sorted(
    {*SERVICE, *SERVICE["slots"][0], *SERVICE["intents"][0], *DIALOGUE, *DIALOGUE["turns"][0],
     *DIALOGUE["turns"][0]["frames"][0], "slot_values", "act", "canonical_values", "method",
     *QUESTION, "role", "content", *QUESTION["function"][0], "type", "properties", "required",
     "items", "optional", "ground_truth"}
)  # fmt: skip
"""The keys the importers read: random objects use them, to reach past the first check."""

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(["USER", "SYSTEM", "Shop_1", "Buy", "item", "INFORM", "dict", "geo.area"])
)
VALUES: st.SearchStrategy[JSONValue] = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def _paths(node: JSONValue, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every place in ``node``, the root included."""
    if isinstance(node, dict):
        inner = [p for key, item in node.items() for p in _paths(item, (*path, key))]
    elif isinstance(node, list):
        inner = [p for index, item in enumerate(node) for p in _paths(item, (*path, index))]
    else:
        inner = []
    return [path, *inner]


def _replaced(node: JSONValue, path: tuple[str | int, ...], value: JSONValue) -> JSONValue:
    if not path:
        return value
    head, *rest = path
    if isinstance(node, dict):
        return {**node, str(head): _replaced(node[str(head)], tuple(rest), value)}
    assert isinstance(node, list)
    index = int(head)
    return [*node[:index], _replaced(node[index], tuple(rest), value), *node[index + 1 :]]


@st.composite
def mutated(draw: st.DrawFn, document: JSONValue) -> JSONValue:
    """``document`` with one to three places, each drawn among all of its places, replaced."""
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(document)))
        if path in _paths(document):  # an earlier replacement may have removed it
            document = _replaced(document, path, draw(VALUES))
    return document


def _write(path: Path, document: JSONValue | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text, encoding="utf-8")


def _workloads_load(out: Path) -> None:
    for workload in out.glob("workload-*.jsonl"):
        load_workload(workload)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(
    schema=mutated([SERVICE]) | st.just([SERVICE]),
    dialogues=mutated([DIALOGUE, DIALOGUE | {"dialogue_id": "1_00001"}]),
)
def test_sgd_never_crashes_and_accounts_for_every_dialogue(
    schema: JSONValue, dialogues: JSONValue
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder, out = Path(temporary) / "sgd", Path(temporary) / "out"
        _write(folder / "schema.json", schema)
        _write(folder / "dialogues_001.json", dialogues)
        try:
            report = import_sgd(folder, out)
        except DatasetImportError:
            assert not isinstance(schema, list)
            return
        if isinstance(dialogues, list):
            accounted = report.counts.dialogues + report.counts.skipped_dialogues
            assert accounted == len(dialogues)
        assert len(report.skipped_services) + report.counts.events >= 0
        _workloads_load(out)


@FUZZ
@given(
    question=mutated(QUESTION) | st.just(QUESTION),
    answer=mutated(ANSWER) | st.just(ANSWER),
)
def test_bfcl_never_crashes_and_accounts_for_every_question(
    question: JSONValue, answer: JSONValue
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder, out = Path(temporary) / "bfcl", Path(temporary) / "out"
        _write(folder / "BFCL_v4_simple.json", json.dumps(question) + "\n")
        _write(folder / "possible_answer" / "BFCL_v4_simple.json", json.dumps(answer) + "\n")
        report = import_bfcl(folder, out)
        counts = report.counts
        # The question line: a case, a skipped case, or (no object with an id) a skipped line.
        question_lines = [s for s in report.skipped_lines if s.file == "BFCL_v4_simple.json"]
        assert counts.cases + counts.skipped_cases + len(question_lines) == 1
        _workloads_load(out)


def _sgd_with(tmp_path: Path, change: Callable[[dict[str, Any], dict[str, Any]], None]) -> Path:
    service, dialogue = copy.deepcopy(SERVICE), copy.deepcopy(DIALOGUE)
    change(service, dialogue)
    folder = tmp_path / "sgd"
    _write(folder / "schema.json", [service, SERVICE | {"service_name": "Shop_2"}])
    _write(folder / "dialogues_001.json", [dialogue, DIALOGUE | {"dialogue_id": "1_00001"}])
    return folder


def _set(path: str, value: JSONValue) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    def change(service: dict[str, Any], dialogue: dict[str, Any]) -> None:
        root, *keys = path.split("/")
        node: Any = service if root == "service" else dialogue
        for token in keys[:-1]:
            node = cast("Any", node[int(token)] if isinstance(node, list) else node[token])
        last = keys[-1]
        node[int(last) if isinstance(node, list) else last] = value

    return change


SGD_FAULTS: dict[str, tuple[str, JSONValue, str]] = {
    "slot name a number": ("service/slots/0/name", 7, "expected a string, not a number"),
    "intents an object": ("service/intents", {}, "expected a list, not an object"),
    "optional slots a list": (
        "service/intents/0/optional_slots",
        ["size"],
        "an object, not a list",
    ),
    "possible value a number": ("service/slots/1/possible_values/0", 3, "a string, not a number"),
    "turns a string": ("dialogue/turns", "none", "expected a list, not a string"),
    "frame null": ("dialogue/turns/0/frames/0", None, "expected an object, not null"),
    "actions an object": ("dialogue/turns/0/frames/0/actions", {"act": "INFORM"}, "a list"),
    "slot values not lists": ("dialogue/turns/0/frames/0/state/slot_values/item", "hat", "a list"),
    "parameters a list": (
        "dialogue/turns/1/frames/0/service_call/parameters",
        ["hat"],
        "an object",
    ),
    "parameter a number": ("dialogue/turns/1/frames/0/service_call/parameters/item", 5, "a string"),
    "speaker null": ("dialogue/turns/0/speaker", None, "expected a string, not null"),
}


@pytest.mark.parametrize(("path", "value", "said"), list(SGD_FAULTS.values()), ids=list(SGD_FAULTS))
def test_a_wrong_type_in_sgd_is_a_counted_skip_with_its_pointer(
    tmp_path: Path, path: str, value: JSONValue, said: str
) -> None:
    """L4: the service or dialogue is skipped whole; the report says where (pointer) and why."""
    report = import_sgd(_sgd_with(tmp_path, _set(path, value)), tmp_path / "out")
    written = json.loads((tmp_path / "out" / "import-report.json").read_text(encoding="utf-8"))
    kind, _, inner = path.partition("/")
    pointer = f"/0/{inner}"  # the first service, or the first dialogue, of its file
    if kind == "service":
        assert report.counts.skipped_services == 1
        assert written["skipped_services"][0]["reason"].startswith(f"ShapeError: at {pointer}: ")
        assert said in written["skipped_services"][0]["reason"]
        assert report.counts.events == 1  # Shop_2's intent
        # Both dialogues call the skipped Shop_1: their calls are skipped, and counted.
        assert report.counts.skipped_call_reasons == {"unknown event": 2}
        return
    assert report.counts.skipped_dialogues == 1
    (entry,) = written["skipped_dialogues"]
    assert (entry["file"], entry["pointer"]) == ("dialogues_001.json", pointer)
    assert said in entry["reason"]
    assert report.counts.dialogues == 1
    assert report.counts.cases_per_variant == 1


def test_an_intent_naming_a_slot_its_service_lacks_skips_the_service(tmp_path: Path) -> None:
    """L4: the service is skipped, the intent and the slot named; the import goes on."""
    missing = _set("service/intents/0/required_slots/0", "colour")
    report = import_sgd(_sgd_with(tmp_path, missing), tmp_path / "out")
    written = json.loads((tmp_path / "out" / "import-report.json").read_text(encoding="utf-8"))
    assert report.counts.skipped_services == 1
    assert written["skipped_services"][0]["reason"] == (
        "UnknownSlotError: at /intents/0: intent Buy names no slot of the service: colour"
    )
    assert report.counts.events == 1  # Shop_2's intent


BFCL_FAULTS: dict[str, tuple[dict[str, JSONValue], str, str]] = {
    "function a number": ({"function": 5}, "case", "at /function: expected a list, not a number"),
    "question an object": ({"question": {"a": 1}}, "case", "at /question: expected a list"),
    "content a list": (
        {"question": [[{"role": "user", "content": ["x"]}]]},
        "case",
        "at /question/0/0/content: expected a string",
    ),
    "a turn a string": ({"question": ["hi"]}, "case", "at /question/0: expected a list"),
    "parameters a list": (
        {"function": [{"name": "f", "parameters": []}]},
        "function",
        "at /function/0/parameters: expected an object, not a list",
    ),
    "name missing": ({"function": [{"description": "x"}]}, "function", "/function/0/name: missing"),
    "properties a number": (
        {"function": [{"name": "f", "parameters": {"type": "dict", "properties": 1}}]},
        "function",
        "DefinitionError: event 'f': at /properties: ",
    ),
}


@pytest.mark.parametrize(
    ("change", "kind", "said"), list(BFCL_FAULTS.values()), ids=list(BFCL_FAULTS)
)
def test_a_wrong_type_in_bfcl_is_a_counted_skip_with_its_pointer(
    tmp_path: Path, change: dict[str, JSONValue], kind: str, said: str
) -> None:
    folder = tmp_path / "bfcl"
    lines = [QUESTION | change | {"id": "bad"}, QUESTION]
    _write(folder / "BFCL_v4_simple.json", "\n".join(json.dumps(line) for line in lines))
    answers = [ANSWER | {"id": "bad"}, ANSWER]
    _write(folder / "possible_answer" / "BFCL_v4_simple.json", "\n".join(map(json.dumps, answers)))
    report = import_bfcl(folder, tmp_path / "out")
    assert report.counts.cases == 1
    skipped = report.skipped_cases if kind == "case" else report.skipped_functions
    assert [s.case for s in skipped] == ["bad"]
    assert said in skipped[0].reason


def _deep_schema(levels: int) -> dict[str, JSONValue]:
    schema: dict[str, JSONValue] = {"type": "dict", "properties": {}}
    for _ in range(levels):
        schema = {"type": "dict", "properties": {"a": schema}}
    return schema


DEEP = "[" * 100_000 + "]" * 100_000


def test_very_deep_json_is_a_skipped_file_or_line_never_a_recursion_error(tmp_path: Path) -> None:
    sgd = _sgd_with(tmp_path, lambda service, dialogue: None)
    _write(sgd / "dialogues_002.json", DEEP)
    report = import_sgd(sgd, tmp_path / "sgd-out")
    assert [(f.file, f.reason) for f in report.skipped_files] == [
        ("dialogues_002.json", "StrictJSONError: nested too deep to read")
    ]
    assert report.counts.cases_per_variant == 2
    _write(sgd / "schema.json", DEEP)
    with pytest.raises(DatasetImportError, match="nested too deep"):
        import_sgd(sgd, tmp_path / "sgd-out")

    bfcl = tmp_path / "bfcl"
    # A schema 400 containers deep: json.loads takes it, the schema walks would not.
    function: dict[str, JSONValue] = {"name": "f", "parameters": _deep_schema(200)}
    deep_question = QUESTION | {"id": "deep", "function": [function]}
    lines = [json.dumps(deep_question), DEEP, json.dumps(QUESTION)]
    _write(bfcl / "BFCL_v4_simple.json", "\n".join(lines))
    _write(bfcl / "possible_answer" / "BFCL_v4_simple.json", json.dumps(ANSWER))
    report = import_bfcl(bfcl, tmp_path / "bfcl-out")
    assert [(s.line, s.reason.split(":")[0]) for s in report.skipped_lines] == [
        (1, "nesting deeper than 136"),
        (2, "nesting deeper than 136"),
    ]
    assert report.counts.cases == 1


@pytest.mark.parametrize("source", ["sgd", "bfcl"])
def test_an_out_that_is_a_file_is_exit_2(tmp_path: Path, source: str) -> None:
    """``import --out FILE`` was a FileExistsError traceback, after reading the whole corpus."""
    folder = tmp_path / source
    if source == "sgd":
        folder = _sgd_with(tmp_path, lambda service, dialogue: None)
    else:
        _write(folder / "BFCL_v4_simple.json", json.dumps(QUESTION))
    a_file = tmp_path / "taken"
    a_file.write_text("x", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run(["import", source, str(folder), "--out", str(a_file)], stdout=out, stderr=err)
    assert code == 2, err.getvalue()
    assert err.getvalue() == f"agent-lab: --out {a_file} is a file, not a folder\n"
    assert a_file.read_text(encoding="utf-8") == "x"
