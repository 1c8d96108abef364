"""Rules learned from logs (``agent-lab learn``): plain data, applied by the schema-driven resolver.

A rules file is JSON a person can review: each rule names its tool, its
parameter, its kind, the value it gives, and its evidence (training support,
held-out right and wrong, the Wilson lower bound, examples). Six kinds:

* ``alias``: words for a value ("the big apple" -> "New York"), where the
  resolver read nothing and no other alias of the parameter names another;
* ``constant``: the value calls give a parameter the words say nothing of;
* ``context``: the words before a free-form value ("a table at" Sino);
* ``format``: how a plain string parameter is written (``date``, ``time``, ``number``);
* ``spelling``: how the calls write a value read ("San Fran" -> "San
  Francisco"), the one kind that rewrites a value read (whole, any case);
* ``route``: a phrase that picks the tool where nothing else does.

``RuleBook.annotate`` writes a tool's rules into its parameters'
``x-agent-lab`` hint (``learned``), where ``SchemaResolver`` reads them, and
its routes into the tool's own hint (``plugins_from_tools``): every caller of
``decide`` applies rules by annotating the tools it offers. A rule whose value
the parameter's schema rejects is never written: it cannot fire.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock
from typing import Any, cast

import jsonschema_rs

from agent_lab._input_files import MAX_RULES_BYTES, read_input_text
from agent_lab.errors import InputFileError, MissingInputError
from agent_lab.resolvers.rules_bounds import misspelt, phrase_over, rules_over, searched_over
from agent_lab.strict_json import JSONObject, JSONValue, StrictJSONError
from agent_lab.strict_json import loads as strict_loads

__all__ = [
    "ANY_TOOL",
    "FORMAT",
    "FORMATS",
    "RULE_KINDS",
    "Evidence",
    "LearnedRule",
    "RuleBook",
    "accepts",
    "context_pattern",
    "formatted",
    "load_rules",
    "phrase_pattern",
    "property_validator",
    "takes_format",
]

ANY_TOOL = "*"
"""The ``tool`` of a rule learned across tools (``learn --across-tools``): it applies to
every tool with a parameter of its name (no tool name can be ``*``); a spelling's
``parameter`` too: it applies to every free-form string parameter (``takes_format``)."""
FORMAT = "agent-lab.rules/1"
"""The rules file's ``format``: a reader refuses any other."""
RULE_KINDS = ("alias", "constant", "context", "format", "route", "spelling")
FORMATS = ("date", "time", "number")
"""The values of a ``format`` rule: the kinds the schema-driven resolver reads and writes."""
HINT = "x-agent-lab"
_KEPT = 256
_KEEPING = Lock()
"""Annotated tools a ``RuleBook`` keeps, the first made first dropped."""
_AS_GIVEN: JSONObject = {}
"""Kept for a tool none of whose rules applies (route rules among tools not seen)."""


# A run of capitalised words (a name: "San Jose", "Sino", "The Met"), linear in the text;
# no full stop inside a word, so that a name ending a sentence is captured without it.
_NAME = r"([A-Z0-9][\w'&-]*(?:\s+[A-Z0-9][\w'&-]*)*)"


@functools.lru_cache(maxsize=4096)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """An ``alias`` rule's phrase, lower case, on word boundaries (``resolvers.aliases``)."""
    return re.compile(rf"(?<!\w){re.escape(phrase.lower())}(?!\w)")


def property_validator(schema: Mapping[str, Any]) -> Any:
    """The parameter's own schema (its hint left out) as a validator; ``None`` if it has none."""
    plain = {k: v for k, v in schema.items() if k != HINT}
    try:
        return jsonschema_rs.validator_for(plain)
    except (ValueError, jsonschema_rs.ValidationError):
        return None


@functools.lru_cache(maxsize=4096)
def context_pattern(words: str) -> re.Pattern[str]:
    """The pattern of a ``context`` rule: its words (any case, whole), then a name it captures."""
    return re.compile(rf"(?i:(?<!\w){re.escape(words)})\s+{_NAME}")


def formatted(schema: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """A parameter's schema read as ``kind`` (a ``format`` rule): its hint names the kind.

    A number the schema types as a string is written as one (``"2"``).
    """
    copied = copy.deepcopy(dict(schema))
    hint = copied.get(HINT)
    hint = dict(cast("Mapping[str, Any]", hint)) if isinstance(hint, Mapping) else {}
    hint["kind"] = kind
    if kind == "number" and copied.get("type") == "string":
        hint["format"] = "string"
    copied[HINT] = hint
    return copied


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """Why a rule is kept: how often training showed it, and how it did on held-out requests."""

    support: int
    """Training requests that showed it."""
    right: int
    """Held-out requests where it would fire and the logged call agrees."""
    wrong: int
    """Held-out requests where it would fire and the logged call disagrees."""
    low: float
    """The Wilson 95% lower bound of the held-out precision it was admitted on."""
    examples: tuple[str, ...] = ()
    """A few of the training words it was mined from."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LearnedRule:
    """One rule: a value for a tool's parameter, and when it applies."""

    kind: str
    tool: str
    parameter: str
    value: JSONValue
    phrase: str | None = None
    """Words for ``value`` (``alias``), before it (``context``), for what the calls write
    ``value`` (``spelling``) or picking the tool (``route``); ``None`` for the others."""
    evidence: Evidence

    def as_json(self) -> JSONObject:
        """The rule as the rules file holds it."""
        evidence: JSONObject = {
            "support": self.evidence.support,
            "heldout_right": self.evidence.right,
            "heldout_wrong": self.evidence.wrong,
            "heldout_low": round(self.evidence.low, 6),
            "examples": list(self.evidence.examples),
        }
        rule: JSONObject = {"kind": self.kind, "tool": self.tool, "parameter": self.parameter}
        if self.phrase is not None:
            rule["phrase"] = self.phrase
        rule["value"] = self.value
        rule["evidence"] = evidence
        return rule


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleBook:
    """Learned rules and their provenance: what logs, which settings, which gate."""

    rules: tuple[LearnedRule, ...]
    source: JSONObject = field(default_factory=dict[str, JSONValue])
    """Provenance: the logs' names and digest, the split, the settings, the counts."""
    tools_seen: tuple[str, ...] = ()
    """Every tool the logs called. A route rule was learned among these: where a request
    offers another (a tool the logs never showed called, which may be the one meant), no
    route rule is written. Empty (a file written by hand): routes are written whatever is
    offered."""
    by_tool: Mapping[str, tuple[LearnedRule, ...]] = field(init=False, repr=False, compare=False)
    """The rules by their ``tool``, grouped once: ``annotate`` runs for every request."""
    kept: dict[str, JSONObject] = field(
        default_factory=dict[str, JSONObject], init=False, repr=False, compare=False
    )
    """Tools annotated, by their JSON: a log or a client offers the same tools with every
    request, and annotating 100,000 aliases took 0.4 s each time (issue 36)."""

    def __post_init__(self) -> None:
        """Group the rules by tool."""
        grouped: dict[str, list[LearnedRule]] = {}
        for rule in self.rules:
            grouped.setdefault(rule.tool, []).append(rule)
        by_tool = {tool: tuple(rules) for tool, rules in grouped.items()}
        object.__setattr__(self, "by_tool", by_tool)  # frozen: set once, here

    def as_json(self) -> JSONObject:
        """The rules file's content."""
        return {
            "format": FORMAT,
            "source": self.source,
            "tools_seen": list(self.tools_seen),
            "rules": [rule.as_json() for rule in self.rules],
        }

    def routes_apply(self, offered: Iterable[str]) -> bool:
        """Whether route rules may pick among these tools: the logs called every one of them."""
        return not self.tools_seen or set(offered) <= set(self.tools_seen)

    def dumps(self) -> str:
        """The rules file's text: indented JSON, for review and diffs."""
        return json.dumps(self.as_json(), indent=2, ensure_ascii=False) + "\n"

    def annotate(self, tools: Sequence[Mapping[str, Any]]) -> tuple[JSONObject, ...]:
        """The tools with their rules in their parameters' hints; tools without rules as given.

        A tool spec is copied only when it has a rule; a rule whose parameter is
        not in the schema, or whose value the parameter's schema rejects, is left out,
        and so are route rules when a tool offered is none of ``tools_seen``. A tool
        annotated before (the same JSON, among the last 256) is the copy made then:
        read it, never change it.
        """
        routing = self.routes_apply(name for tool in tools if (name := _tool_name(tool)))
        annotated: list[JSONObject] = []
        for tool in tools:
            name = _tool_name(tool)
            if name == ANY_TOOL or not (self.by_tool.get(ANY_TOOL) or self.by_tool.get(name or "")):
                # No rule is for it ("*" is not a name a tool can have).
                annotated.append(cast("JSONObject", tool))
                continue
            try:
                key = json.dumps([routing, tool], sort_keys=True)
            except (TypeError, ValueError, RecursionError):  # no plain JSON (a frozen spec)
                key = None
            kept = self.kept.get(key) if key is not None else None
            if kept is None:
                kept = self._annotated(tool, name, routing=routing)
                if key is not None:
                    with _KEEPING:  # the gateway annotates in several threads
                        if len(self.kept) >= _KEPT:
                            self.kept.pop(next(iter(self.kept)))
                        self.kept[key] = kept
            annotated.append(cast("JSONObject", tool) if kept is _AS_GIVEN else kept)
        return tuple(annotated)

    def _annotated(self, tool: Mapping[str, Any], name: str | None, *, routing: bool) -> JSONObject:
        # Rules for any tool first, so that a tool's own constant is the one written.
        rules = [
            rule
            for rule in [*self.by_tool.get(ANY_TOOL, ()), *self.by_tool.get(name or "", ())]
            if rule.kind != "route" or (routing and rule.tool != ANY_TOOL)
        ]
        return _annotated(tool, rules) if rules else _AS_GIVEN


def _tool_name(tool: Mapping[str, Any]) -> str | None:
    function: object = tool.get("function")
    source = cast("Mapping[str, Any]", function if isinstance(function, Mapping) else tool)
    name = source.get("name")
    return name if isinstance(name, str) else None


def _annotated(tool: Mapping[str, Any], rules: list[LearnedRule]) -> JSONObject:
    copied = cast("JSONObject", copy.deepcopy(dict(tool)))
    function = copied.get("function")
    holder = cast("JSONObject", function) if isinstance(function, dict) else copied
    routes = [rule.phrase for rule in rules if rule.kind == "route" and rule.phrase]
    if routes:
        hint = holder.setdefault(HINT, {})
        if isinstance(hint, dict):
            hint["learned"] = {"routes": cast("list[JSONValue]", routes)}
    parameters = holder.get("parameters")
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(properties, dict):
        return copied
    # Each parameter's validator is made once, from its schema as given: checked against the
    # hint growing with each alias, 5,000 aliases cost a minute (issue 36). A hint is no
    # part of what a validator checks (``property_validator``), so the answers are the same.
    validators: dict[str, Any] = {}
    for rule in rules:
        if rule.kind == "route":
            continue
        if rule.kind == "spelling" and rule.parameter == ANY_TOOL:
            # Once, in the parameters schema's hint: each parameter asked as it is read.
            _pair(_learned_of(cast("JSONObject", parameters)), "spellings", rule)
            continue
        prop = properties.get(rule.parameter)
        if not isinstance(prop, dict):
            continue
        if rule.kind == "format":
            if rule.value in FORMATS and takes_format(prop):
                properties[rule.parameter] = cast("JSONObject", formatted(prop, str(rule.value)))
            continue
        if rule.parameter not in validators:
            validators[rule.parameter] = property_validator(prop)
        _learn(prop, rule, validators[rule.parameter])
    return copied


def _learned_of(schema: JSONObject) -> JSONObject:
    """The ``learned`` part of a schema's hint, made where absent (``{}``: an odd hint)."""
    hint = schema.setdefault(HINT, {})
    learned = hint.setdefault("learned", {}) if isinstance(hint, dict) else None
    return learned if isinstance(learned, dict) else {}


def _pair(learned: JSONObject, key: str, rule: LearnedRule) -> None:
    if isinstance(pairs := learned.setdefault(key, []), list):
        pairs.append([rule.phrase, rule.value])


def _learn(prop: JSONObject, rule: LearnedRule, validator: Any) -> None:
    """Write an argument rule into the property's hint, unless its schema refuses the value."""
    if rule.kind != "context" and not (validator is not None and validator.is_valid(rule.value)):
        return
    learned = _learned_of(prop)
    if rule.kind in ("alias", "spelling") and rule.phrase:
        _pair(learned, "aliases" if rule.kind == "alias" else "spellings", rule)
    elif rule.kind == "context" and rule.phrase:
        contexts = learned.setdefault("contexts", [])
        if isinstance(contexts, list):
            contexts.append(rule.phrase)
    elif rule.kind == "constant":
        learned["constant"] = rule.value


def takes_format(schema: Mapping[str, Any]) -> bool:
    """Whether a ``format`` rule may name the parameter's kind: a string of no named kind.

    No enum, ``const`` or ``format`` of its own, and no kind in its hint but
    ``free-form``: a rule never overrides what the schema says.
    """
    hint = schema.get(HINT)
    named = (
        cast("Mapping[str, Any]", hint).get("kind", "free-form")
        if isinstance(hint, Mapping)
        else "free-form"
    )
    return (
        schema.get("type") in (None, "string")
        and not {"enum", "const", "format"} & schema.keys()
        and named == "free-form"
    )


def accepts(schema: Mapping[str, Any], value: JSONValue) -> bool:
    """Whether the parameter's schema takes the value (a rule never fires where it would not)."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # a frozen schema: validated as it is, not cached
        validator = property_validator(schema)
    else:
        validator = _validator_of(key)
    return validator is not None and bool(validator.is_valid(value))


@functools.lru_cache(maxsize=4096)
def _validator_of(schema: str) -> Any:
    """One validator per schema, however many rules and requests ask of it."""
    return property_validator(cast("Mapping[str, Any]", json.loads(schema)))


def load_rules(path: str | Path) -> RuleBook:
    """Read a rules file ``agent-lab learn`` wrote.

    Raises:
        MissingInputError: No such file.
        InputFileError: Not a rules file: not JSON, another ``format``, or a rule
            without its tool, parameter, kind or value; or past a bound, which the
            message names (``resolvers.rules_bounds``).
    """
    where = Path(path)
    try:
        text = read_input_text(where, what="rules file", max_bytes=MAX_RULES_BYTES)
    except FileNotFoundError as err:
        raise MissingInputError(f"{where}: no such rules file") from err
    except OSError as err:
        raise InputFileError(str(where), f"cannot be read ({err})") from err
    try:
        # Strictly, with the depth bound every value decide meets: duplicate keys, lone
        # surrogates or a value nested 100,000 deep are refused here, not at a request.
        # An editor's byte-order mark is no reason to refuse a file edited by hand.
        parsed: object = strict_loads(text.removeprefix("\ufeff"), max_bytes=MAX_RULES_BYTES)
    except StrictJSONError as err:
        raise InputFileError(str(where), f"not JSON ({err})") from err
    data = cast("dict[str, Any]", parsed) if isinstance(parsed, dict) else {}
    if data.get("format") != FORMAT:
        raise InputFileError(str(where), f"not a rules file (its format is not {FORMAT!r})")
    items: object = data.get("rules")
    if not isinstance(items, list):
        raise InputFileError(str(where), "its rules are not a list")
    listed = cast("list[object]", items)
    if broken := rules_over(len(listed)):
        raise InputFileError(str(where), broken)
    rules = [_rule(item, where, index) for index, item in enumerate(listed)]
    spelt = ((r.parameter, r.phrase or "", r.value) for r in rules if r.kind == "spelling")
    if broken := searched_over(rule.kind for rule in rules) or misspelt(spelt):
        raise InputFileError(str(where), broken)
    source: object = data.get("source")
    seen: object = data.get("tools_seen", [])
    if not isinstance(seen, list) or not all(
        isinstance(t, str) for t in cast("list[object]", seen)
    ):
        raise InputFileError(str(where), "its tools_seen is not a list of tool names")
    return RuleBook(
        rules=tuple(rules),
        source=cast("JSONObject", source) if isinstance(source, dict) else {},
        tools_seen=tuple(cast("list[str]", seen)),
    )


def _rule(item: object, where: Path, index: int) -> LearnedRule:
    if not isinstance(item, dict):
        raise InputFileError(str(where), f"rule {index} is not an object")
    rule = cast("dict[str, Any]", item)
    kind, tool, parameter = rule.get("kind"), rule.get("tool"), rule.get("parameter")
    if kind not in RULE_KINDS:
        raise InputFileError(str(where), f"rule {index}'s kind is none of {list(RULE_KINDS)}")
    if not isinstance(tool, str) or not isinstance(parameter, str) or "value" not in rule:
        raise InputFileError(str(where), f"rule {index} lacks its tool, parameter or value")
    phrase = rule.get("phrase")
    if kind in ("alias", "context", "route", "spelling") and not (
        isinstance(phrase, str) and phrase.strip()
    ):
        raise InputFileError(str(where), f"rule {index} ({kind}) has no phrase")
    if isinstance(phrase, str) and (broken := phrase_over(phrase, index)):
        raise InputFileError(str(where), broken)
    if kind == "format" and rule["value"] not in FORMATS:
        raise InputFileError(str(where), f"rule {index} is a format none of {list(FORMATS)}")
    evidence = rule.get("evidence")
    facts = cast("dict[str, Any]", evidence) if isinstance(evidence, dict) else {}
    low = facts.get("heldout_low", 0.0)
    if isinstance(low, bool) or not isinstance(low, int | float) or not 0 <= low <= 1:
        raise InputFileError(str(where), f"rule {index}'s heldout_low is not a number from 0 to 1")
    examples = facts.get("examples")
    return LearnedRule(
        kind=str(kind),
        tool=tool,
        parameter=parameter,
        value=cast("JSONValue", rule["value"]),
        phrase=phrase if isinstance(phrase, str) else None,
        evidence=Evidence(
            support=_count(facts.get("support")),
            right=_count(facts.get("heldout_right")),
            wrong=_count(facts.get("heldout_wrong")),
            low=float(low),
            examples=tuple(map(str, cast("list[object]", examples)))
            if isinstance(examples, list)
            else (),
        ),
    )


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
