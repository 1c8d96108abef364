"""Registration: frozen copies, metaschema and $ref checks, Pydantic models, lazy mode (K1-K5)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from pydantic import BaseModel, Field

from agent_lab import (
    DefinitionError,
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    Status,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 7}},
    "required": ["city"],
    "additionalProperties": False,
}


def kernel_for(schema: Any, resolved: dict[str, Any], **registry_options: Any) -> EventKernel:
    registry = EventRegistry(**registry_options)
    registry.register(EventDefinition("weather", parameters=schema, resolver=lambda e: resolved))
    return EventKernel(registry)


# K1 -------------------------------------------------------------------------


def test_regression_5_mutating_the_callers_schema_changes_nothing() -> None:
    """Regression 5 (K1): register, mutate the caller's schema: validation is unchanged."""
    schema = copy.deepcopy(SCHEMA)
    registry = EventRegistry()
    resolved: dict[str, Any] = {"city": "Oslo", "days": 3}
    registry.register(EventDefinition("weather", parameters=schema, resolver=lambda e: resolved))
    kernel = EventKernel(registry)
    assert kernel.dispatch(Event("weather")).status is Status.SUCCESS

    schema["properties"]["city"]["type"] = "integer"
    schema["properties"]["days"]["maximum"] = 1
    schema["required"].append("country")
    schema["additionalProperties"] = True
    del schema["type"]

    assert kernel.dispatch(Event("weather")).status is Status.SUCCESS
    resolved["extra"] = 1
    assert kernel.dispatch(Event("weather")).status is Status.INVALID_ARGUMENTS
    assert registry.schema("weather")["required"] == ("city",)
    assert registry.get("weather").parameters is registry.schema("weather")


def test_registered_schema_is_read_only() -> None:
    """K1: the schema a registered definition exposes raises TypeError on mutation."""
    registry = EventRegistry()
    registered = registry.register(EventDefinition("weather", parameters=SCHEMA))
    parameters: Any = registered.parameters
    with pytest.raises(TypeError):
        parameters["type"] = "array"
    with pytest.raises(TypeError):
        parameters["properties"]["city"]["type"] = "integer"
    with pytest.raises(AttributeError):
        parameters["required"].append("days")
    for change in (
        lambda: parameters.update({"type": "array"}),
        lambda: parameters.pop("type"),
        lambda: parameters.setdefault("x", 1),
        parameters.clear,
        parameters.popitem,
        lambda: parameters.__delitem__("type"),
        lambda: parameters.__ior__({"type": "array"}),
    ):
        with pytest.raises(TypeError):
            change()
    assert registry.get("weather") is registered
    assert registry.schema("weather")["type"] == "object"


def test_a_registered_schema_is_json_as_it_is() -> None:
    """json.dumps, a deep copy and a pickle take the frozen schema as it is, and equal it."""
    import copy
    import json
    import pickle

    registry = EventRegistry()
    registry.register(EventDefinition("weather", parameters=SCHEMA))
    frozen = registry.schema("weather")
    assert json.loads(json.dumps(frozen)) == SCHEMA
    assert copy.deepcopy(frozen) == frozen
    assert pickle.loads(pickle.dumps(frozen)) == frozen


def test_fingerprint_is_canonical_and_stable() -> None:
    """K1: the fingerprint depends on the schema's content, not its key order or source."""
    reordered = dict(reversed(list(copy.deepcopy(SCHEMA).items())))
    one, two = EventRegistry(), EventRegistry()
    one.register(EventDefinition("weather", parameters=SCHEMA))
    two.register(EventDefinition("weather", parameters=reordered))
    assert one.fingerprint("weather") == two.fingerprint("weather")
    assert len(one.fingerprint("weather")) == 64
    three = EventRegistry()
    three.register(EventDefinition("weather", parameters={**SCHEMA, "required": []}))
    assert three.fingerprint("weather") != one.fingerprint("weather")


def test_a_registered_definition_can_be_registered_elsewhere() -> None:
    """K1: the frozen copy is itself a valid definition for another registry."""
    first = EventRegistry()
    registered = first.register(EventDefinition("weather", parameters=SCHEMA))
    second = EventRegistry()
    second.register(registered)
    assert second.fingerprint("weather") == first.fingerprint("weather")


# K2 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"type": "dict"}, "/type"),
        ({"type": "object", "required": "city"}, "/required"),
        ({"type": "object", "properties": {"a": {"minimum": "5"}}}, "/properties/a/minimum"),
        (
            {"type": "object", "properties": {"a": {"pattern": "(unclosed"}}},
            "/properties/a/pattern",
        ),
        ({"$schema": "http://json-schema.org/draft-04/schema#"}, "/$schema"),
        ({"$schema": "https://example.com/my-meta"}, "/$schema"),
        ({"$schema": 7}, "/$schema"),
        ({"type": "string"}, "/type"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}, "/properties/a/$ref"),
        ({"type": "object", "enum": [math.nan]}, "/enum/0"),
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"a": {"type": 5}},
            },
            "/properties/a/type",
        ),
    ],
    ids=[
        "unknown-type",
        "required-not-array",
        "minimum-not-number",
        "bad-regex",
        "draft-4",
        "custom-metaschema",
        "schema-not-string",
        "rejects-every-object",
        "unresolvable-ref",
        "nan-in-schema",
        "draft-7-invalid",
    ],
)
def test_broken_schema_raises_definition_error_naming_event_pointer_and_cause(
    schema: dict[str, Any], pointer: str
) -> None:
    """K2: a broken definition raises DefinitionError with the name, pointer and cause."""
    with pytest.raises(DefinitionError) as caught:
        EventRegistry().register(EventDefinition("weather", parameters=schema))
    error = caught.value
    assert error.event == "weather"
    assert error.pointer == pointer
    assert error.cause
    assert "weather" in str(error)


@pytest.mark.parametrize(
    "dialect",
    [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
    ],
)
def test_supported_dialects_are_accepted(dialect: str) -> None:
    """K2: Draft 2020-12 (default) and Draft 7, with or without the trailing '#'."""
    kernel = kernel_for({**SCHEMA, "$schema": dialect}, {"city": "Oslo"})
    assert kernel.dispatch(Event("weather")).status is Status.SUCCESS


def test_dialect_decides_semantics() -> None:
    """K2: the same keywords mean what their dialect says (items as an array is Draft 7 only)."""
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": {"items": [{"type": "integer"}], "additionalItems": False}},
    }
    assert kernel_for(draft7, {"pair": [1]}).dispatch(Event("weather")).ok
    result = kernel_for(draft7, {"pair": [1, 2]}).dispatch(Event("weather"))
    assert result.status is Status.INVALID_ARGUMENTS
    with pytest.raises(DefinitionError):
        # In Draft 2020-12, "items" must be a schema, not an array.
        EventRegistry().register(
            EventDefinition(
                "weather", parameters={k: v for k, v in draft7.items() if k != "$schema"}
            )
        )


# K3 -------------------------------------------------------------------------


def test_regression_5_a_lazy_registry_also_validates_against_its_copy() -> None:
    """K1, K5: changing the caller's schema after a lazy register changes nothing."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }
    registry = EventRegistry(check_on_register=False)
    registry.register(EventDefinition("e", parameters=schema, resolver=lambda e: {"n": "x"}))
    schema["properties"]["n"]["type"] = "string"
    schema["required"] = []
    result = EventKernel(registry).dispatch(Event("e"))
    assert result.status is Status.INVALID_ARGUMENTS


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_a_broken_ref_in_an_unused_definition_is_a_definition_error(lazy: bool) -> None:
    """K2: every $ref in the document must resolve, not only those validation reaches."""
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "$defs": {"unused": {"$ref": "#/$defs/nowhere"}},
    }
    registry = EventRegistry(check_on_register=not lazy)
    if not lazy:
        with pytest.raises(DefinitionError) as caught:
            registry.register(EventDefinition("e", parameters=schema))
        assert caught.value.pointer == "/$defs/unused/$ref"
        return
    registry.register(EventDefinition("e", parameters=schema))
    assert EventKernel(registry).dispatch(Event("e")).status is Status.DEFINITION_ERROR


def test_refs_resolve_against_registered_resources_only() -> None:
    """K3: $ref to a caller-registered resource works; anything else is a DefinitionError."""
    uri = "https://schemas.example/units.json"
    resources = {uri: {"$defs": {"unit": {"enum": ["s", "min"]}}}}
    schema = {"type": "object", "properties": {"unit": {"$ref": f"{uri}#/$defs/unit"}}}
    kernel = kernel_for(schema, {"unit": "hours"}, resources=resources)
    result = kernel.dispatch(Event("weather"))
    assert result.status is Status.INVALID_ARGUMENTS
    with pytest.raises(DefinitionError) as caught:
        EventRegistry().register(EventDefinition("weather", parameters=schema))
    assert caught.value.pointer == "/properties/unit/$ref"
    assert "never fetches" in caught.value.cause


def test_invalid_resource_is_a_definition_error() -> None:
    """K3: resources must be JSON data."""
    with pytest.raises(DefinitionError):
        EventRegistry(resources={"https://schemas.example/x": {"enum": [math.inf]}})


# K4 -------------------------------------------------------------------------


class Forecast(BaseModel):
    city: str
    days: int = Field(default=1, ge=1, le=7)


def test_pydantic_model_is_converted_once_at_registration() -> None:
    """K4: a Pydantic model class becomes its JSON Schema at registration."""
    registry = EventRegistry()
    registry.register(
        EventDefinition("forecast", parameters=Forecast, resolver=lambda e: {"days": 9})
    )
    assert registry.schema("forecast")["required"] == ("city",)
    result = EventKernel(registry).dispatch(Event("forecast"))
    assert result.status is Status.INVALID_ARGUMENTS
    assert result.missing == ("/city",)


def test_class_that_is_not_a_schema_model_is_rejected() -> None:
    """K4: only classes that can describe themselves as JSON Schema are accepted."""
    with pytest.raises(DefinitionError):
        EventRegistry().register(EventDefinition("x", parameters=int))  # type: ignore[arg-type]


def test_duplicate_name_raises_definition_error() -> None:
    """K4: names are unique in a registry."""
    registry = EventRegistry()
    registry.register(EventDefinition("weather", parameters=SCHEMA))
    with pytest.raises(DefinitionError) as caught:
        registry.register(EventDefinition("weather", parameters={"type": "object"}))
    assert caught.value.event == "weather"
    lazy = EventRegistry(check_on_register=False)
    lazy.register(EventDefinition("weather", parameters={"type": "dict"}))
    with pytest.raises(DefinitionError):
        lazy.register(EventDefinition("weather", parameters=SCHEMA))


@pytest.mark.parametrize("role", ["resolver", "handler"])
def test_non_callable_resolver_or_handler_is_rejected(role: str) -> None:
    """Registration refuses a resolver or handler that cannot be called."""
    with pytest.raises(DefinitionError):
        EventRegistry().register(
            EventDefinition("x", parameters=SCHEMA, **{role: "not callable"})  # pyright: ignore[reportArgumentType]
        )


# K5 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "dict"},
        {"$schema": "https://example.com/meta"},
        {"type": "object", "properties": {"a": {"$ref": "https://schemas.example/gone.json"}}},
        {"type": "object", "enum": [math.nan]},
    ],
    ids=["invalid-keyword", "unknown-dialect", "remote-ref", "not-json"],
)
def test_lazy_registry_reports_schema_problems_as_definition_error_at_dispatch(
    schema: dict[str, Any],
) -> None:
    """K5: check_on_register=False defers the check; the problem is DEFINITION_ERROR, every time."""
    registry = EventRegistry(check_on_register=False)
    registry.register(EventDefinition("broken", parameters=schema, resolver=lambda e: {"a": 1}))
    kernel = EventKernel(registry)
    for _ in range(3):
        result = kernel.dispatch(Event("broken"))
        assert result.status is Status.DEFINITION_ERROR
        assert result.llm_calls == 0


def test_registry_lists_its_events() -> None:
    """names(), iteration, len and membership reflect registration order."""
    registry = EventRegistry()
    for name in ("b", "a", "c"):
        registry.register(EventDefinition(name, parameters={"type": "object"}))
    assert registry.names() == ("b", "a", "c")
    assert [d.name for d in registry] == ["b", "a", "c"]
    assert len(registry) == 3
    assert "a" in registry
    assert "z" not in registry
    with pytest.raises(KeyError):
        registry.get("z")


def test_refs_are_never_fetched_from_the_network_or_the_disk(tmp_path: Any) -> None:
    """K3: an http $ref to a live loopback server and a file:// $ref to a real file both fail.

    Were either fetched, registration would succeed: the server answers with a
    valid schema, and the file holds one. The server also counts connections.
    """
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    schema_file = tmp_path / "unit.json"
    schema_file.write_text('{"type": "string"}')
    try:
        for reference in (
            f"http://127.0.0.1:{server.server_port}/unit.json",
            schema_file.as_uri(),
        ):
            schema = {"type": "object", "properties": {"unit": {"$ref": reference}}}
            with pytest.raises(DefinitionError) as caught:
                EventRegistry().register(EventDefinition("weather", parameters=schema))
            assert caught.value.pointer == "/properties/unit/$ref"
            lazy = EventRegistry(check_on_register=False)
            lazy.register(EventDefinition("weather", parameters=schema, resolver=lambda e: {}))
            assert EventKernel(lazy).dispatch(Event("weather")).status is Status.DEFINITION_ERROR
    finally:
        server.shutdown()
        server.server_close()
    assert hits == []


class ExplodingModel:
    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        raise RuntimeError("cannot describe myself")


@pytest.mark.parametrize(
    ("parameters", "cause"),
    [
        (ExplodingModel, "model_json_schema() failed"),
        (["not", "a", "schema"], "parameters must be"),
        (True, "parameters must be"),
    ],
    ids=["model-raises", "list", "boolean"],
)
def test_parameters_that_are_no_schema_are_definition_errors(parameters: Any, cause: str) -> None:
    """K4: parameters are a mapping or a schema model class; anything else is the plugin's fault."""
    with pytest.raises(DefinitionError) as caught:
        EventRegistry().register(EventDefinition("x", parameters=parameters))
    assert cause in caught.value.cause


def test_register_takes_a_definition_with_a_name() -> None:
    """Registration refuses what is not an EventDefinition, and empty names."""
    with pytest.raises(TypeError):
        EventRegistry().register({"name": "x"})  # type: ignore[arg-type]
    with pytest.raises(DefinitionError):
        EventRegistry().register(EventDefinition("", parameters={"type": "object"}))
