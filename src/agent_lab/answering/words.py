"""Words plain code can say with no model: a question for what only the user knows, a refusal.

A parameter only the user can supply (``"x-user-only": true``) that the
conversation does not hold is asked for by name, where a model could only
ask the same or make the value up; a value the tool's schema forbids (a
48-hour timer where 24 is the most) is said back to the user, where a model
would "repair" it, as the kernel forbids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from agent_lab.agents.tool_specs import tool_name
from agent_lab.kernel.tools import USER_ONLY_NOTE
from agent_lab.strict_json import pointer_tokens

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.kernel.models import ValidationIssue

__all__ = ["question", "refusal", "schema_of"]


def refusal(issues: Sequence[ValidationIssue]) -> str | None:
    """What is wrong with what the user asked, one clause per value; ``None`` for no issue."""
    said = [
        f"{issue.pointer.rsplit('/', 1)[-1].replace('_', ' ') or 'the request'}: {issue.message}"
        for issue in issues
    ]
    return "That cannot be done as asked (" + "; ".join(said) + ")." if said else None


_SHORT = 60
"""The longest title or description a question quotes; a longer one is named by its key."""


def question(missing: Sequence[str], schema: Mapping[str, object] | None = None) -> str:
    """A question asking the user for the missing values, each named in plain words.

    Each value (a JSON pointer) is named by its schema's ``title`` when there is a
    short one, else by its key with underscores as spaces; a short ``description``
    follows in brackets: ``Please tell me the party size (how many people) and the
    date.`` Deterministic: the same pointers and schema, the same words.
    """
    names = [_named(pointer, schema) for pointer in dict.fromkeys(missing)]
    if not names:
        return "Please tell me more."
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"Please tell me {listed}."


def _named(pointer: str, schema: Mapping[str, object] | None) -> str:
    tokens = pointer_tokens(pointer)
    words = " ".join(token.replace("_", " ") for token in tokens if not token.isdigit())
    node = _property(schema, tokens)
    title = node.get("title") if node is not None else None
    # Pydantic titles every field after its name ("Party Size"): that says nothing more.
    auto = {words.title(), tokens[-1].replace("_", " ").title() if tokens else ""}
    if isinstance(title, str) and title.strip() and len(title) <= _SHORT and title not in auto:
        words = _mid_sentence(title.strip())
    described = node.get("description") if node is not None else None
    if isinstance(described, str):
        described = described.replace(USER_ONLY_NOTE, "").strip().rstrip(".").strip()
        if described and len(described) <= _SHORT and described.lower() != words.lower():
            return f"the {words} ({_mid_sentence(described)})"
    return f"the {words or 'details'}"


def _mid_sentence(text: str) -> str:
    # "Guest name" in mid-sentence is "guest name"; an acronym such as "URL" stays as it is.
    return text[0].lower() + text[1:] if text[1:2].islower() else text


def _property(
    schema: Mapping[str, object] | None, tokens: list[str]
) -> Mapping[str, object] | None:
    """The subschema of the property a pointer names, following ``properties`` and ``items``."""
    node = schema
    for token in tokens:
        if node is None:
            return None
        properties = node.get("properties")
        child: object = None
        if isinstance(properties, Mapping) and token in properties:
            child = cast("Mapping[str, object]", properties)[token]
        elif token.isdigit():
            child = node.get("items")
        node = cast("Mapping[str, object]", child) if isinstance(child, Mapping) else None
    return node


def schema_of(
    event: str, tools: Sequence[Mapping[str, object]], plugins: PluginSet | None
) -> Mapping[str, object] | None:
    """The parameters of the event decided: the plugin's own schema, else the offered tool's."""
    for definition in plugins.definitions if plugins is not None else ():
        if definition.name == event and isinstance(definition.parameters, Mapping):
            return cast("Mapping[str, object]", definition.parameters)
    for tool in tools:
        if tool_name(tool) == event:
            function = cast("Mapping[str, object]", tool["function"])
            parameters = function.get("parameters")
            if isinstance(parameters, Mapping):
                return cast("Mapping[str, object]", parameters)
    return None
