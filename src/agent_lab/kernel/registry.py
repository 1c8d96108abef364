"""EventRegistry: registration, frozen schema copies, metaschema and local-only ``$ref`` checks."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, cast

import jsonschema_rs

from agent_lab.errors import DefinitionError, SchemaError, StrictJSONError, WrongTypeError
from agent_lab.kernel.models import EventDefinition, SchemaModel, ValidatingModel
from agent_lab.kernel.user_only import marked_user_only
from agent_lab.kernel.validation import (
    CompiledSchema,
    Dialect,
    UnresolvedReferenceError,
    build_resource_registry,
    compile_schema,
    dialect_of,
    ref_locations,
)
from agent_lab.strict_json import (
    JSONObject,
    JSONValue,
    canonical_dumps,
    ensure_json_data,
    freeze_json,
    thaw_json,
    to_pointer,
)

__all__ = ["MAX_SCHEMA_DEPTH", "EventRegistry", "RegisteredEvent"]

MAX_SCHEMA_DEPTH = 128
"""The deepest schema (in nested objects and arrays) a registry accepts. Deeper
is a ``DefinitionError``, never a ``RecursionError`` (schemas nest about two
containers per level of ``properties``, so this is some 60 levels)."""


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _engine_error_to_definition_error(
    name: str, schema: JSONObject, error: jsonschema_rs.ValidationError
) -> DefinitionError:
    cause = _first_line(error.message)
    if type(error.kind).__name__ == "Referencing":
        return _unresolved_reference(name, schema, cause)
    return DefinitionError(
        name, to_pointer(list(error.instance_path)), f"not a valid schema: {cause}"
    )


def _unresolved_reference(name: str, schema: JSONObject, cause: str) -> DefinitionError:
    # The engine does not say where the failing $ref is; find the one it names.
    for pointer, reference in ref_locations(schema):
        document, _, fragment = reference.partition("#")
        if any(part and part in cause for part in (reference, document, fragment)):
            return DefinitionError(name, pointer, f"unresolvable $ref: {cause}")
    return DefinitionError(name, "", f"unresolvable $ref: {cause}")


def _model_of(parameters: object) -> type[ValidatingModel] | None:
    # A model class that can validate, not only describe itself: its validators run too.
    if isinstance(parameters, type) and issubclass(parameters, ValidatingModel):
        return parameters
    return None


class RegisteredEvent:
    """A definition as the registry holds it: read-only schema, fingerprint, validator."""

    __slots__ = (
        "_compiled",
        "_lock",
        "_prepare",
        "definition",
        "fingerprint",
        "model",
        "schema",
        "user_only",
    )

    definition: EventDefinition
    schema: Mapping[str, Any]
    fingerprint: str
    model: type[ValidatingModel] | None

    def __init__(
        self,
        definition: EventDefinition,
        schema: Mapping[str, Any],
        fingerprint: str,
        prepare: Callable[[], CompiledSchema | DefinitionError],
        model: type[ValidatingModel] | None = None,
        *,
        user_only: tuple[str, ...] = (),
    ) -> None:
        """Hold a definition; ``prepare()`` builds its validator or returns the error."""
        self.definition = definition
        """The registered definition; its ``parameters`` are the frozen schema (K1)."""
        self.schema = schema
        """The frozen schema, typed as a mapping (the same object as ``definition.parameters``)."""
        self.fingerprint = fingerprint
        """sha256 of the schema's canonical JSON, to prove two runs used the same definition."""
        self.model = model
        """The model class the definition gave as ``parameters``, or ``None`` (K4): its
        own validation runs after the schema's, since its JSON Schema cannot carry it."""
        self.user_only = user_only
        """Pointers of the parameters only the user can supply (``events.user_only``)."""
        self._prepare: Callable[[], CompiledSchema | DefinitionError] | None = prepare
        self._compiled: CompiledSchema | DefinitionError | None = None
        self._lock = threading.Lock()

    def validator(self) -> CompiledSchema | DefinitionError:
        """The compiled validator, or the ``DefinitionError`` that prevents it (K5)."""
        compiled = self._compiled
        if compiled is None:
            with self._lock:
                compiled = self._compiled
                if compiled is None:
                    assert self._prepare is not None
                    compiled = self._prepare()
                    self._compiled = compiled
                    self._prepare = None  # release the schema copy it closed over
        return compiled


class EventRegistry:
    """Holds event definitions, each with a frozen schema and a validator built once.

    Args:
        resources: Absolute URIs mapped to schema documents that ``$ref`` may
            use. Nothing outside this map and the schema itself is ever
            fetched, from the network or the disk (K3).
        check_on_register: ``True`` checks every schema at registration
            (``DefinitionError``). ``False`` defers the check to the first
            dispatch of the event, which then gives ``DEFINITION_ERROR`` (K5).
        validate_formats: Assert ``format`` (``date``, ``email``...) instead
            of treating it as an annotation, the default of Draft 2020-12.

    Raises:
        DefinitionError: A resource is not JSON data. Resources that do not
            resolve are reported for the events that use their dialect.
    """

    def __init__(
        self,
        *,
        resources: Mapping[str, Mapping[str, Any] | bool] | None = None,
        check_on_register: bool = True,
        validate_formats: bool = False,
    ) -> None:
        """Create an empty registry."""
        self._check_on_register = check_on_register
        self._validate_formats = validate_formats
        documents: dict[str, JSONValue] = {}
        for uri, document in (resources or {}).items():
            try:
                documents[uri] = ensure_json_data(document)
            except StrictJSONError as err:
                raise DefinitionError(None, err.pointer or "", f"resource {uri}: {err}") from err
        self._documents = documents
        self._resources: dict[Dialect, jsonschema_rs.Registry | DefinitionError] = {}
        self._resources_lock = threading.Lock()
        self._entries: Mapping[str, RegisteredEvent] = MappingProxyType({})
        self._write_lock = threading.Lock()

    def _resource_registry(self, dialect: Dialect) -> jsonschema_rs.Registry | DefinitionError:
        # Built on first use, for the dialects events actually declare: a resource
        # without $schema is read in the dialect of the schema that refers to it.
        # The engine crawls every resource when its registry is built, so one
        # broken resource fails every event of that dialect (at register, or at
        # dispatch in a lazy registry, K5).
        with self._resources_lock:
            if dialect not in self._resources:
                try:
                    built: jsonschema_rs.Registry | DefinitionError = build_resource_registry(
                        self._documents, dialect
                    )
                except Exception as err:
                    built = DefinitionError(
                        None, "", f"schema resources do not resolve: {_first_line(str(err))}"
                    )
                self._resources[dialect] = built
            return self._resources[dialect]

    def register(self, definition: EventDefinition) -> EventDefinition:
        """Add a definition; return the registered copy, whose schema is read-only.

        Raises:
            DefinitionError: The name is taken, a callable is not callable, or
                (when checking on register) the schema is broken.
            WrongTypeError: ``definition`` is not an ``EventDefinition`` (a ``TypeError``).
        """
        if not isinstance(definition, EventDefinition):
            raise WrongTypeError(
                f"register() takes an EventDefinition, not {type(definition).__name__}"
            )
        name = definition.name
        if type(name) is not str or not name:
            raise DefinitionError(str(name), "", "the name must be a non-empty string")
        if name in self._entries:
            raise DefinitionError(name, "", "an event with this name is already registered")
        for role in ("resolver", "handler"):
            if getattr(definition, role) is not None and not callable(getattr(definition, role)):
                raise DefinitionError(name, "", f"the {role} is not callable")
        reply: object = definition.reply
        if reply is not None and not isinstance(reply, str) and not callable(reply):
            raise DefinitionError(name, "", "the reply must be a template string or a function")
        failed: object = definition.failed
        if failed is not None and not callable(failed):
            raise DefinitionError(name, "", "failed must be a function of the result")
        marks: object = definition.user_only
        if isinstance(marks, str) or not isinstance(marks, tuple | list):
            raise DefinitionError(name, "", "user_only must be a tuple of names or JSON pointers")
        if not all(type(mark) is str and mark for mark in cast("tuple[object, ...]", marks)):
            raise DefinitionError(name, "", "user_only must hold non-empty strings")
        model = _model_of(definition.parameters)
        if definition.pass_model and model is None:
            # Raised even by a lazy registry: like an uncallable handler, it is no schema matter.
            raise DefinitionError(
                name, "", "pass_model needs a Pydantic model class (with model_validate_json)"
            )

        schema_or_error = self._schema_of(definition)
        if isinstance(schema_or_error, DefinitionError):
            if self._check_on_register:
                raise schema_or_error
            error = schema_or_error
            empty: Mapping[str, Any] = MappingProxyType({})
            registered = dataclasses.replace(definition, parameters=empty)
            entry = RegisteredEvent(registered, empty, "", lambda: error)
        else:
            schema, dialect, canonical = schema_or_error
            fingerprint = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
            frozen: Mapping[str, Any] = freeze_json(schema)
            registered = dataclasses.replace(
                definition, parameters=frozen, description=_description(definition, schema)
            )
            entry = RegisteredEvent(
                registered,
                frozen,
                fingerprint,
                lambda: self._compile(name, schema, dialect, model),
                model,
                user_only=marked_user_only(schema, definition.user_only),
            )
            if self._check_on_register:
                compiled = entry.validator()
                if isinstance(compiled, DefinitionError):
                    raise compiled

        with self._write_lock:
            if name in self._entries:
                raise DefinitionError(name, "", "an event with this name is already registered")
            # Copy-on-write: a dispatch that already looked up its entry keeps a consistent view.
            self._entries = MappingProxyType({**self._entries, name: entry})
        return registered

    def _schema_of(
        self, definition: EventDefinition
    ) -> tuple[JSONObject, Dialect, str] | DefinitionError:
        name = definition.name
        parameters: object = definition.parameters
        if isinstance(parameters, type):
            if not issubclass(parameters, SchemaModel):
                return DefinitionError(
                    name, "", "parameters must be a JSON Schema mapping or a Pydantic model class"
                )
            try:
                parameters = parameters.model_json_schema()
            except Exception as err:
                return DefinitionError(
                    name, "", f"model_json_schema() failed: {type(err).__name__}: {err}"
                )
        if not isinstance(parameters, Mapping):
            return DefinitionError(
                name, "", "parameters must be a JSON Schema mapping or a Pydantic model class"
            )
        try:
            # A schema may come frozen (from another registry) or with tuples for arrays.
            thawed = thaw_json(parameters, max_depth=MAX_SCHEMA_DEPTH)
            schema = ensure_json_data(thawed, max_depth=MAX_SCHEMA_DEPTH)
            # The fingerprint's text: a 5000-digit integer cannot be written.
            canonical = canonical_dumps(schema, max_depth=MAX_SCHEMA_DEPTH)
        except StrictJSONError as err:
            return DefinitionError(name, err.pointer or "", f"the schema is not JSON data: {err}")
        except Exception as err:
            # A caller's Mapping may run any code; what it raises is a broken definition.
            return DefinitionError(
                name, "", f"the schema could not be read: {type(err).__name__}: {err}"
            )
        assert isinstance(schema, dict)
        try:
            dialect = dialect_of(schema)
        except SchemaError as err:
            return DefinitionError(name, err.pointer, err.cause)
        declared = schema.get("type")
        if isinstance(declared, str | list) and "object" not in (
            [declared] if isinstance(declared, str) else declared
        ):
            return DefinitionError(
                name, "/type", "arguments are always an object; this schema rejects every object"
            )
        return schema, dialect, canonical

    def _compile(
        self,
        name: str,
        schema: JSONObject,
        dialect: Dialect,
        model: type[ValidatingModel] | None = None,
    ) -> CompiledSchema | DefinitionError:
        resources = self._resource_registry(dialect)
        if isinstance(resources, DefinitionError):
            return DefinitionError(name, "", resources.cause)
        try:
            return compile_schema(
                schema, dialect, resources, validate_formats=self._validate_formats, model=model
            )
        except jsonschema_rs.ValidationError as err:
            return _engine_error_to_definition_error(name, schema, err)
        except UnresolvedReferenceError as err:
            return _unresolved_reference(name, schema, _first_line(err.cause))
        except Exception as err:
            return DefinitionError(name, "", f"{type(err).__name__}: {_first_line(str(err))}")

    def lookup(self, name: str) -> RegisteredEvent | None:
        """Return the registered entry for ``name``, or ``None``; used by the kernel."""
        return self._entries.get(name)

    def get(self, name: str) -> EventDefinition:
        """Return the registered definition called ``name``.

        Raises:
            KeyError: No such event.
        """
        return self._entries[name].definition

    def schema(self, name: str) -> Mapping[str, Any]:
        """Return the event's frozen JSON Schema (read-only mappings and tuples).

        Raises:
            KeyError: No such event.
        """
        return self._entries[name].schema

    def fingerprint(self, name: str) -> str:
        """Return the sha256 of the canonical JSON of the event's schema.

        Raises:
            KeyError: No such event.
        """
        return self._entries[name].fingerprint

    def names(self) -> tuple[str, ...]:
        """Return the registered names, in registration order."""
        return tuple(self._entries)

    def __iter__(self) -> Iterator[EventDefinition]:
        """Iterate over registered definitions, in registration order."""
        return (entry.definition for entry in tuple(self._entries.values()))

    def __len__(self) -> int:
        """Return how many events are registered."""
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        """Return whether an event called ``name`` is registered."""
        return isinstance(name, str) and name in self._entries


def _description(definition: EventDefinition, schema: JSONObject) -> str:
    # An event that says nothing of itself is described by its schema's own description:
    # a Pydantic model's docstring lands there, and the tool the model is offered needs it.
    if definition.description:
        return definition.description
    found = schema.get("description")
    return found if isinstance(found, str) else ""
