"""Compiled validators: built once per schema, errors split into missing and invalid (K12, K14).

The engine is ``jsonschema-rs``: measured here at 0.13 us per valid small
instance against 16 us for pure-Python ``jsonschema`` (docs/performance.md,
"The validation engine"). Two of its defaults are overridden: it would fetch remote ``$ref``
documents over HTTP and read ``file://`` ones, so every compile gets a
retriever that refuses (K3); and it reports an unresolvable reference or a
regex engine failure with the same exception class as bad data, so errors
are sorted by their ``kind`` into user errors and infrastructure failures.

When the parameters are a model class (Pydantic's, matched by shape, since
Pydantic is not a dependency), the model's own validation runs on settled
arguments the schema accepted: its rejections are invalid arguments like the
schema's, and a validator that raises anything else is a broken plugin (K14).
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import jsonschema_rs

from agent_lab.errors import NotFoundError, SchemaError, SchemaInfrastructureError
from agent_lab.kernel.models import ValidationIssue
from agent_lab.strict_json import (
    JSONObject,
    JSONValue,
    escape_pointer_token,
    has_pointer,
    to_pointer,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from agent_lab.kernel.models import ValidatingModel

__all__ = [
    "Check",
    "CompiledSchema",
    "Dialect",
    "SchemaInfrastructureError",
    "UnresolvedReferenceError",
    "build_resource_registry",
    "compile_schema",
    "describe_error",
    "dialect_of",
    "ref_locations",
    "refuse_retrieval",
]


class Dialect(StrEnum):
    """The JSON Schema dialects an event schema may use (K2)."""

    DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
    DRAFT_7 = "http://json-schema.org/draft-07/schema#"


_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": Dialect.DRAFT_2020_12,
    "https://json-schema.org/draft/2020-12/schema#": Dialect.DRAFT_2020_12,
    "http://json-schema.org/draft-07/schema": Dialect.DRAFT_7,
    "http://json-schema.org/draft-07/schema#": Dialect.DRAFT_7,
}

_VALIDATOR_CLASSES = {
    Dialect.DRAFT_2020_12: jsonschema_rs.Draft202012Validator,
    Dialect.DRAFT_7: jsonschema_rs.Draft7Validator,
}
_ENGINE_DRAFTS = {
    Dialect.DRAFT_2020_12: jsonschema_rs.Draft202012,
    Dialect.DRAFT_7: jsonschema_rs.Draft7,
}


def describe_error(err: BaseException) -> str:
    """``Type: message`` for an exception plugin code raised, even when its ``__str__`` raises."""
    try:
        text = str(err)
    except Exception:  # noqa: BLE001 - plugin code wrote __str__ too; it must not escape either
        text = "(its message could not be read)"
    return f"{type(err).__name__}: {text}"


def dialect_of(schema: Mapping[str, Any]) -> Dialect:
    """Return the dialect a root schema declares; Draft 2020-12 when it declares none.

    Raises:
        SchemaError: ``$schema`` names another dialect or is not a string.
    """
    declared = schema.get("$schema")
    if declared is None:
        return Dialect.DRAFT_2020_12
    if type(declared) is str and declared in _DIALECTS:
        return _DIALECTS[declared]
    raise SchemaError(
        f"unsupported $schema {declared!r}: use Draft 2020-12 ({Dialect.DRAFT_2020_12.value}) "
        f"or Draft 7 ({Dialect.DRAFT_7.value})",
        pointer="/$schema",
    )


def refuse_retrieval(uri: str) -> JSONValue:
    """The retriever every compile gets: nothing is fetched from the network or the disk (K3).

    Raises:
        NotFoundError: Always (a ``LookupError``).
    """
    raise NotFoundError(
        f"{uri} is not a registered resource, and agent-lab never fetches schemas: "
        "pass it in EventRegistry(resources={...})"
    )


def build_resource_registry(
    resources: Mapping[str, JSONValue], dialect: Dialect
) -> jsonschema_rs.Registry:
    """Build the engine's registry of caller-supplied documents.

    A resource without ``$schema`` is read in the dialect of the schema that
    refers to it, hence one registry per dialect.
    """
    return jsonschema_rs.Registry(
        list(resources.items()), draft=_ENGINE_DRAFTS[dialect], retriever=refuse_retrieval
    )


# Keywords under which the next path segment is a property or definition name, not a keyword.
_NAMING_KEYWORDS = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
)
# A failure below these keywords depends on which branch applies, so it is never "missing" (K12).
_CONDITIONAL_KEYWORDS = frozenset({"anyOf", "oneOf", "not", "if", "then", "else", "contains"})
_MISSING_KINDS = frozenset({"required"})
_INFRASTRUCTURE_KINDS = frozenset(
    {"Referencing", "BacktrackLimitExceeded", "RegexEngineFailure", "Custom"}
)


def _is_conditional(evaluation_path: list[str | int]) -> bool:
    naming = False
    for segment in evaluation_path:
        if naming:
            naming = False
        elif type(segment) is int:
            continue
        elif segment in _NAMING_KEYWORDS:
            naming = True
        elif segment in _CONDITIONAL_KEYWORDS:
            return True
    return False


def _is_infrastructure(error: jsonschema_rs.ValidationError) -> bool:
    kind = error.kind
    if type(kind).__name__ in _INFRASTRUCTURE_KINDS:
        return True
    if kind.name in ("anyOf", "oneOf"):
        # A branch that failed for infrastructure reasons says nothing about the data.
        context: list[list[jsonschema_rs.ValidationError]] = kind.as_dict().get("context", [])
        return any(_is_infrastructure(inner) for branch in context for inner in branch)
    return False


class Check(NamedTuple):
    """The outcome of validating arguments: what is missing, and what is invalid (K12).

    A NamedTuple rather than a dataclass: it is internal, and built on every
    dispatch that reaches the fallback, where a tuple is the cheapest value.
    """

    missing: tuple[str, ...] = ()
    """JSON pointers of required properties that are absent, unconditionally."""
    invalid: tuple[ValidationIssue, ...] = ()
    """Every other violation."""
    instance: object = None
    """The model's instance, when asked for (``with_model``) and there is a model."""


VALID = Check()


class CompiledSchema:
    """A validator built once from a frozen schema; safe to share across threads.

    Collecting errors costs far more than a yes/no answer (6.7 us against
    0.2 us on a 40-property schema), and the usual reason to collect them on
    the fallback path is a missing top-level property. So a second validator
    is compiled from the schema without its root ``required``: when the full
    schema fails and that one passes, the failures can only be the root's
    ``required``, and the missing pointers are the absent root-required names.
    It is built only when no reference can re-enter the root (only ``#/...``
    pointers below it), since such a reference would relax nested copies too.
    """

    __slots__ = ("_is_relaxed_valid", "_is_valid", "_iter_errors", "_model", "_root_required")

    def __init__(
        self,
        validator: jsonschema_rs.Validator,
        relaxed: jsonschema_rs.Validator | None = None,
        root_required: tuple[str, ...] = (),
        *,
        model: type[ValidatingModel] | None = None,
    ) -> None:
        """Wrap an engine validator, optionally its relaxed twin, and the model class if any."""
        self._is_valid = validator.is_valid
        self._iter_errors = validator.iter_errors
        self._is_relaxed_valid = relaxed.is_valid if relaxed is not None else None
        self._root_required = root_required
        self._model = model

    def check(
        self, instance: JSONObject, *, source: str = "resolver", with_model: bool = False
    ) -> Check:
        """Validate ``instance``; split the errors into missing and invalid.

        ``with_model`` also runs the model's own validation when the schema
        passes, giving its rejections as invalid or its instance. Ask for it
        only on settled arguments: a validator judges the whole, and one that
        is still to grow may fail it for a value the fallback would supply.

        Raises:
            SchemaInfrastructureError: The validator itself failed (K14), or
                the model's validation raised something other than a rejection.
        """
        try:
            if self._is_valid(instance):
                if with_model and self._model is not None:
                    return _check_model(self._model, instance, source)
                return VALID
            if self._is_relaxed_valid is not None and self._is_relaxed_valid(instance):
                absent = tuple(
                    [
                        "/" + escape_pointer_token(name)
                        for name in self._root_required
                        if name not in instance
                    ]
                )
                if absent:
                    return Check(missing=absent)
            errors = list(self._iter_errors(instance))
        except SchemaInfrastructureError:
            raise
        except Exception as err:
            # The model's errors() may be plugin code too, hence describe_error.
            raise SchemaInfrastructureError(describe_error(err)) from err
        missing: list[str] = []
        invalid: list[ValidationIssue] = []
        for error in errors:
            if _is_infrastructure(error):
                raise SchemaInfrastructureError(error.message)
            keyword = error.kind.name
            path = list(error.instance_path)
            if keyword in _MISSING_KINDS and not _is_conditional(list(error.evaluation_path)):
                name: str = error.kind.as_dict()["property"]
                pointer = to_pointer(path) + "/" + escape_pointer_token(name)
                if pointer not in missing:
                    missing.append(pointer)
            else:
                invalid.append(
                    ValidationIssue(
                        pointer=to_pointer(path),
                        keyword=keyword,
                        message=error.message,
                        source=source,
                    )
                )
        if not missing and not invalid:
            raise SchemaInfrastructureError("validator rejected the instance but reported no error")
        return Check(missing=tuple(missing), invalid=tuple(invalid))


class UnresolvedReferenceError(SchemaError):
    """A ``$ref`` somewhere in the schema does not resolve (raised by ``compile_schema``)."""


# Not canonical_dumps, which writes 1.0 as 1: the model must see the types the
# schema saw. Built once: json.dumps with options builds an encoder per call.
_json_text = json.JSONEncoder(allow_nan=False).encode


def _check_model(model: type[ValidatingModel], instance: JSONObject, source: str) -> Check:
    try:
        text = _json_text(instance)
    except ValueError as err:
        # Only an integer longer than Python writes (4300 digits) gets here.
        issue = ValidationIssue(
            pointer="", keyword="number_too_long", message=str(err), source=source
        )
        return Check(invalid=(issue,))
    try:
        # JSON mode, because the arguments are JSON: Python mode in strict mode
        # refuses "EUR" for an Enum and "2024-01-02" for a date. Strict, because
        # lax mode would turn 5.0 into 5 for an int, a difference strict_json
        # keeps everywhere else; the schema has already refused "5" for one.
        return Check(instance=model.model_validate_json(text, strict=True))
    except Exception as err:
        issues = _model_issues(err, instance, source)
        if issues is None:
            # A validator with a bug (ZeroDivisionError...) is the plugin's fault, like
            # a resolver that raises, never the user's: no rejection, no crash either.
            raise SchemaInfrastructureError(
                f"the model's validation raised {describe_error(err)}"
            ) from err
        return Check(invalid=issues)


def _model_issues(
    err: Exception, instance: JSONObject, source: str
) -> tuple[ValidationIssue, ...] | None:
    # A rejection is a ValueError whose errors() lists {loc, msg, type}, as
    # Pydantic's ValidationError does (a validator's ValueError, AssertionError
    # or PydanticCustomError arrives wrapped in one); anything else is not one.
    errors = getattr(err, "errors", None)
    if not isinstance(err, ValueError) or not callable(errors):
        return None
    found: object = errors()
    if not isinstance(found, list) or not found:
        return None
    issues: list[ValidationIssue] = []
    for item in cast("list[object]", found):
        if not isinstance(item, dict):
            return None
        detail = cast("dict[str, object]", item)
        loc, message, kind = detail.get("loc"), detail.get("msg"), detail.get("type")
        if not isinstance(loc, tuple) or type(message) is not str or type(kind) is not str:
            return None
        pointer = _pointer_of(cast("tuple[object, ...]", loc), instance)
        issues.append(
            ValidationIssue(pointer=pointer, keyword=kind, message=message, source=source)
        )
    return tuple(issues)


def _pointer_of(loc: tuple[object, ...], instance: JSONObject) -> str:
    # A loc can hold a union member's tag ("int", a class name) that is no key,
    # so the pointer is the longest prefix of it that is a path into the arguments.
    pointer = ""
    for part in loc:
        longer = f"{pointer}/{escape_pointer_token(str(part))}"
        if not has_pointer(instance, longer):
            break
        pointer = longer
    return pointer


def compile_schema(
    schema: JSONObject,
    dialect: Dialect,
    resources: jsonschema_rs.Registry,
    *,
    validate_formats: bool = False,
    model: type[ValidatingModel] | None = None,
) -> CompiledSchema:
    """Build the validator: checks the metaschema and resolves every ``$ref`` (K2, K3).

    ``model`` is the parameters' model class, whose own validation
    ``check(with_model=True)`` runs after the schema's.

    Raises:
        jsonschema_rs.ValidationError: The schema is invalid or a reference
            does not resolve (the registry turns it into ``DefinitionError``).
        UnresolvedReferenceError: A reference validation never reaches does
            not resolve.
    """
    cls = _VALIDATOR_CLASSES[dialect]
    options: dict[str, Any] = {
        "registry": resources,
        "retriever": refuse_retrieval,
        "validate_formats": validate_formats,
    }
    validator = cls(schema, **options)
    references = [reference for _, reference in ref_locations(schema)]
    if (
        references
        and all(reference.startswith("#") for reference in references)
        and not _changes_base_uri(schema)
    ):
        # The engine resolves only the references validation reaches; K2 asks for
        # every one, those in unused $defs included, so that a tool spec built from
        # this schema never carries a dangling $ref. References into registered
        # resources are checked by the engine's eager crawl of them; and its
        # dereference() misreads relative references under a nested $id (seen on
        # the JSON-Schema-Test-Suite), so only same-document references are checked.
        try:
            jsonschema_rs.dereference(
                schema,
                registry=resources,
                retriever=refuse_retrieval,
                draft=_ENGINE_DRAFTS[dialect],
            )
        except (ValueError, jsonschema_rs.ReferencingError) as err:
            raise UnresolvedReferenceError(str(err)) from err
    required = schema.get("required")
    if not isinstance(required, list) or not required or not _references_stay_below_root(schema):
        return CompiledSchema(validator, model=model)
    relaxed = cls({key: value for key, value in schema.items() if key != "required"}, **options)
    names = tuple(name for name in required if isinstance(name, str))
    return CompiledSchema(validator, relaxed, names, model=model)


def _changes_base_uri(schema: JSONValue, *, root: bool = True) -> bool:
    if isinstance(schema, dict):
        if not root and isinstance(schema.get("$id"), str):
            return True
        return any(_changes_base_uri(value, root=False) for value in schema.values())
    if isinstance(schema, list):
        return any(_changes_base_uri(item, root=False) for item in schema)
    return False


def _references_stay_below_root(schema: JSONObject) -> bool:
    if "$dynamicAnchor" in schema or "$recursiveAnchor" in schema:
        return False
    return all(reference.startswith("#/") for _, reference in ref_locations(schema)) and not any(
        pointer.endswith("/$dynamicRef") for pointer, _ in ref_locations(schema)
    )


def ref_locations(schema: JSONValue, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Yield ``(pointer, reference)`` for every ``$ref`` and ``$dynamicRef`` in a schema."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            child = f"{pointer}/{escape_pointer_token(key)}"
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield child, value
            else:
                yield from ref_locations(value, child)
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from ref_locations(item, f"{pointer}/{index}")
