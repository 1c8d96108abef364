"""JSON-Schema-Test-Suite conformance, run through EventRegistry and EventKernel.

Event arguments are always an object, while the suite validates any JSON
value. So each group's schema is registered as an in-memory resource, and
the event's schema is ``{"properties": {"value": {"$ref": <resource>}},
"required": ["value"]}``: the value is valid against the event exactly when
it is valid against the group's schema, and ``#`` pointers, ``$id`` bases and
boolean root schemas keep their meaning. The remote documents are mapped in
memory under ``http://localhost:1234/``; nothing is served or fetched.

A valid instance must give ``SUCCESS``. An invalid one must never give
``SUCCESS``: it gives ``INVALID_ARGUMENTS``, or ``MISSING_INFORMATION`` when
its only faults are unconditional ``required`` failures, which is the K12
classification (no fallback is configured here).
"""

from __future__ import annotations

import json
import re
import socket
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urldefrag, urljoin

import pytest

from agent_lab import DefinitionError, Event, EventDefinition, EventKernel, EventRegistry, Status
from tests.conftest import corpus

if TYPE_CHECKING:
    from collections.abc import Iterator


SUITE = corpus("json-schema-test-suite")
REMOTE_BASE = "http://localhost:1234/"
ROOT_URI = "https://conformance.agent-lab.invalid/root.json"
DIALECTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}


DRAFT_FOLDER = re.compile(r"^(draft[0-9-]+|v[0-9]+)$")


def member(document: object, key: str) -> object:
    """``document[key]`` when the document is an object that has it, else None."""
    return cast("dict[str, object]", document).get(key) if isinstance(document, dict) else None


SUPPORTED_METASCHEMAS = {
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
}


def load_remotes(draft: str) -> dict[str, Any]:
    """The remote documents a draft's tests may use, keyed by their localhost:1234 URL.

    Documents in the draft's own folder and at the top level are read in that
    draft's dialect; another draft's documents only when they declare their
    ``$schema`` as one of the two supported dialects (the engine crawls every
    resource, and a Draft 2019-09 document read as Draft 7 does not resolve).
    """
    remotes = SUITE / "remotes"
    found: dict[str, Any] = {}
    for path in sorted(remotes.rglob("*.json")):
        relative = path.relative_to(remotes)
        document = json.loads(path.read_bytes())
        top = relative.parts[0]
        another_drafts = DRAFT_FOLDER.match(top) is not None and top != draft
        own = len(relative.parts) == 1 or not another_drafts
        declared = member(document, "$schema")
        if own or declared in SUPPORTED_METASCHEMAS:
            found[REMOTE_BASE + relative.as_posix()] = document
    return found


REMOTES = {draft: load_remotes(draft) for draft in DIALECTS}
EVERY_REMOTE = {
    REMOTE_BASE + path.relative_to(SUITE / "remotes").as_posix()
    for path in (SUITE / "remotes").rglob("*.json")
}


@dataclass(frozen=True)
class Group:
    draft: str
    kind: str  # "required", "optional" or "format"
    file: str
    description: str
    schema: Any
    tests: tuple[tuple[str, Any, bool], ...]

    @property
    def id(self) -> str:
        return f"{self.draft}/{self.file}/{self.description}"


def groups(draft: str, kind: str) -> list[Group]:
    folder = SUITE / "tests" / draft
    pattern = {
        "required": "*.json",
        "optional": "optional/*.json",
        "format": "optional/format/*.json",
    }
    paths = sorted(folder.glob(pattern[kind]))
    assert paths, f"no {kind} tests for {draft} in {folder}"
    return [
        Group(
            draft=draft,
            kind=kind,
            file=path.relative_to(folder).as_posix(),
            description=raw["description"],
            schema=raw["schema"],
            tests=tuple((t["description"], t["data"], t["valid"]) for t in raw["tests"]),
        )
        for path in paths
        for raw in json.loads(path.read_bytes())
    ]


def kernel_for(group: Group, *, remotes: bool = True, **options: Any) -> EventKernel:
    resources = {ROOT_URI: group.schema} | (REMOTES[group.draft] if remotes else {})
    registry = EventRegistry(resources=resources, **options)
    registry.register(event_definition(group))
    return EventKernel(registry)


def event_definition(group: Group) -> EventDefinition:
    return EventDefinition(
        "validate",
        parameters={
            "$schema": DIALECTS[group.draft],
            "type": "object",
            "properties": {"value": {"$ref": ROOT_URI}},
            "required": ["value"],
        },
        resolver=lambda event: {"value": event.payload["value"]},
    )


def mismatches(kernel: EventKernel, group: Group) -> list[str]:
    wrong: list[str] = []
    for description, data, valid in group.tests:
        result = kernel.dispatch(Event("validate", payload={"value": data}))
        if valid:
            ok = result.status is Status.SUCCESS
        elif result.status is Status.MISSING_INFORMATION:
            ok = not result.errors and bool(result.missing)
        else:
            ok = result.status is Status.INVALID_ARGUMENTS
        if not ok:
            wrong.append(f"{description}: expected valid={valid}, got {result.status.value}")
    return wrong


REQUIRED = [g for d in DIALECTS for g in groups(d, "required")]
OPTIONAL = [g for d in DIALECTS for g in groups(d, "optional")]
FORMAT = [g for d in DIALECTS for g in groups(d, "format")]

CUSTOM_VOCABULARY = (
    "the engine does not honour a custom metaschema's $vocabulary, so format-assertion "
    "stays an annotation"
)
DRAFT_2019_09 = (
    "the group references Draft 2019-09 documents, a dialect agent-lab does not accept (K2)"
)
KNOWN_FAILURES = {
    "draft2020-12/optional/format-assertion.json/"
    "schema that uses custom metaschema with format-assertion: false": CUSTOM_VOCABULARY,
    "draft2020-12/optional/format-assertion.json/"
    "schema that uses custom metaschema with format-assertion: true": CUSTOM_VOCABULARY,
    "draft2020-12/optional/cross-draft.json/"
    "refs to historic drafts are processed as historic drafts": DRAFT_2019_09,
    "draft7/optional/cross-draft.json/"
    "refs to future drafts are processed as future drafts": DRAFT_2019_09,
}
"""Optional groups known to fail, by name, with the reason; any other mismatch fails."""


def with_known_failures(found: list[Group]) -> list[Any]:
    return [
        pytest.param(g, id=g.id, marks=pytest.mark.xfail(reason=KNOWN_FAILURES[g.id], strict=True))
        if g.id in KNOWN_FAILURES
        else pytest.param(g, id=g.id)
        for g in found
    ]


def conforms(group: Group, *, validate_formats: bool = False) -> list[str]:
    """The group's mismatches; a schema refused at registration is one mismatch."""
    try:
        kernel = kernel_for(group, validate_formats=validate_formats)
    except DefinitionError as err:
        return [f"schema not accepted at registration: {err}"]
    return mismatches(kernel, group)


@pytest.mark.parametrize("group", REQUIRED, ids=lambda g: g.id)
def test_required_suite(group: Group) -> None:
    """Required tests of Draft 2020-12 and Draft 7: valid gives SUCCESS, invalid never does."""
    assert mismatches(kernel_for(group), group) == []


@pytest.mark.parametrize("group", with_known_failures(OPTIONAL))
def test_optional_suite(group: Group) -> None:
    """Optional tests pass, except the known failures listed by name with their reason."""
    assert conforms(group) == []


@pytest.mark.parametrize("group", with_known_failures(FORMAT))
def test_format_suite(group: Group) -> None:
    """Format assertion (EventRegistry(validate_formats=True)) passes every group."""
    assert conforms(group, validate_formats=True) == []


def test_every_known_failure_names_a_group_of_the_suite() -> None:
    """A known failure that no longer matches a group's name is a stale entry."""
    names = {g.id for g in OPTIONAL + FORMAT}
    assert set(KNOWN_FAILURES) <= names


# Remote references without a registry entry --------------------------------------


def _targets(schema: object, base: str) -> Iterator[tuple[str, str]]:
    """Yield ("id", uri) for documents a schema defines and ("ref", uri) for ones it uses."""
    if isinstance(schema, list):
        for item in cast("list[object]", schema):
            yield from _targets(item, base)
        return
    if not isinstance(schema, dict):
        return
    mapping = cast("dict[str, object]", schema)
    own_id = mapping.get("$id")
    if isinstance(own_id, str):
        base = urljoin(base, own_id)
        yield "id", urldefrag(base).url
    # "$schema" naming a custom metaschema is not fetched: the engine validates
    # with the standard vocabularies, so only references count.
    for keyword in ("$ref", "$dynamicRef"):
        target = mapping.get(keyword)
        if isinstance(target, str):
            yield "ref", urldefrag(urljoin(base, target)).url
    for key, value in mapping.items():
        if key not in ("enum", "const", "examples", "default"):
            yield from _targets(value, base)


def needs_a_remote(group: Group) -> bool:
    """Whether the group's schema uses a document only the remotes folder holds."""
    found = list(_targets(group.schema, ROOT_URI))
    defined = {uri for kind, uri in found if kind == "id"} | {ROOT_URI}
    return any(kind == "ref" and uri in EVERY_REMOTE and uri not in defined for kind, uri in found)


REMOTE_GROUPS = [g for g in REQUIRED + OPTIONAL if needs_a_remote(g)]


class ConnectionCounter:
    """Listens on loopback ports and counts every connection anyone makes to them."""

    def __init__(self) -> None:
        self.connections = 0
        self.sockets: list[socket.socket] = []
        self._stop = threading.Event()

    def listen(self, host: str, port: int) -> bool:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError:
            return False
        sock.listen(16)
        sock.settimeout(0.05)
        self.sockets.append(sock)
        threading.Thread(target=self._accept, args=(sock,), daemon=True).start()
        return True

    def _accept(self, sock: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        for sock in self.sockets:
            sock.close()


@pytest.fixture(scope="module")
def remote_port_watch() -> Iterator[ConnectionCounter]:
    """A listener on localhost:1234, where the suite's remote documents would be fetched from."""
    counter = ConnectionCounter()
    listening = [counter.listen("127.0.0.1", 1234), counter.listen("::1", 1234)]
    if not any(listening):
        pytest.fail("port 1234 on loopback is taken; cannot watch for remote fetches")
    yield counter
    counter.close()


def test_some_groups_need_remote_documents() -> None:
    """The corpus has groups whose $ref reaches the remotes folder (else the next test is empty)."""
    assert REMOTE_GROUPS
    assert all(g.file.endswith(".json") for g in REMOTE_GROUPS)


@pytest.mark.parametrize("group", REMOTE_GROUPS, ids=lambda g: g.id)
def test_remote_ref_without_registry_entry_is_a_definition_error_and_fetches_nothing(
    group: Group, remote_port_watch: ConnectionCounter
) -> None:
    """No remote registered: DefinitionError when eager, DEFINITION_ERROR when lazy, no fetch."""
    # The schema under test is itself a registry resource here, so the error may
    # come from the registry's constructor (resources) or from register().
    with pytest.raises(DefinitionError) as caught:
        kernel_for(group, remotes=False)
    assert "never fetches" in caught.value.cause

    lazy = EventRegistry(resources={ROOT_URI: group.schema}, check_on_register=False)
    lazy.register(event_definition(group))
    kernel = EventKernel(lazy)
    for _, data, _ in group.tests:
        result = kernel.dispatch(Event("validate", payload={"value": data}))
        assert result.status is Status.DEFINITION_ERROR
        assert result.llm_calls == 0
    assert remote_port_watch.connections == 0
