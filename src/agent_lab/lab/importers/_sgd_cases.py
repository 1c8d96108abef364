"""Each SGD service call as a case of the three workload variants (L4).

* ``utterance``: every user turn up to the call, as one text; the event is given.
* ``payload``: the last user turn as text, and the slots established before it as
  structured data; the event is given.
* ``dialogue``: the conversation up to the call as Chat Completions messages, as an
  agent's logs hold it: each user turn, each system turn's words, and each earlier
  call with its results (an assistant tool call, then a ``tool`` message); the
  text is the last user turn. The event is not given: the tools offered
  (``candidates``) are every event of the dialogue's services, and the
  conversation says which one is meant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_lab.lab.importers._sgd_events import event_name
from agent_lab.lab.importers.common import SkippedItem
from agent_lab.log_replay.scoring import OMITTED
from agent_lab.strict_json import ensure_json_data

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.lab.importers._sgd_data import Dialogue, ServiceCall, Turn
    from agent_lab.strict_json import JSONObject

__all__ = ["VARIANTS", "cases"]

VARIANTS = ("utterance", "payload", "dialogue")

_DIALOGUE_ONLY = "not in the dialogue variant: the turn before the call is not the user's"
"""Why a call is a case of the other variants but not of the dialogue one."""

Cases = dict[str, list[dict[str, Any]]]
"""Per variant, its cases as workload rows."""


def cases(
    dialogues: list[Dialogue],
    intents: dict[str, dict[str, Any]],
    reference_date: str,
    skipped: list[SkippedItem],
) -> Cases:
    """Each system service call as a case of every variant, read turn by turn."""
    variants: Cases = {variant: [] for variant in VARIANTS}
    written: set[str] = set()
    for dialogue in dialogues:
        offered = [
            name for name, intent in intents.items() if intent["service"] in dialogue.services
        ]
        talk = _Talk(dialogue, offered, reference_date)
        stated: dict[str, dict[str, str]] = {}  # service -> slot -> canonical value said so far
        before_last_user: dict[str, dict[str, str]] = {}
        for index, turn in enumerate(dialogue.turns):
            if turn.speaker == "USER":
                talk.user(turn.utterance)
                before_last_user = _payload_at(turn, stated)
            for frame in turn.frames:
                if frame.call is not None and turn.speaker == "SYSTEM":
                    site = _CallSite(dialogue.id, index, frame.service, frame.call)
                    problem = (
                        "duplicate case id"
                        if site.case_id in written
                        else _add_case(site, talk, before_last_user, intents, variants)
                    )
                    if problem is None or problem == _DIALOGUE_ONLY:
                        written.add(site.case_id)
                        talk.called(site, variants["payload"][-1], frame.results)
                    if problem is not None:
                        skipped.append(SkippedItem(case=site.case_id, reason=problem))
                for action in frame.actions:
                    said = action.canonical_values
                    if action.act in ("INFORM", "OFFER", "CONFIRM") and action.slot and said:
                        stated.setdefault(frame.service, {})[action.slot] = said[0]
            if turn.speaker == "SYSTEM":
                talk.system(turn.utterance)
    return variants


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _Talk:
    """One dialogue's messages so far, as an agent's log has them."""

    def __init__(self, dialogue: Dialogue, offered: list[str], reference_date: str) -> None:
        self.dialogue = dialogue
        self.offered = offered
        self.reference_date = reference_date
        self.messages: list[JSONObject] = []

    @property
    def user_turns(self) -> list[str]:
        """The user's words so far, turn by turn."""
        return [
            content
            for message in self.messages
            if message.get("role") == "user" and isinstance(content := message.get("content"), str)
        ]

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def system(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def called(
        self, site: _CallSite, case: dict[str, Any], results: tuple[Mapping[str, str], ...]
    ) -> None:
        """The call made (with the case's arguments), and what it returned."""
        call_id = f"call_{site.case_id}"
        function = {"name": case["event"], "arguments": _dumps(case["expected"]["arguments"])}
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": function}],
            }
        )
        results_data = ensure_json_data([dict(record) for record in results])
        self.messages.append(
            {"role": "tool", "tool_call_id": call_id, "content": _dumps(results_data)}
        )


@dataclass(frozen=True, slots=True)
class _CallSite:
    dialogue: str
    index: int
    service: str
    call: ServiceCall

    @property
    def case_id(self) -> str:
        return f"{self.dialogue}-{self.index:02d}"


def _payload_at(turn: Turn, stated: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The structured payload a client would send with this user turn, per service.

    The user's dialogue state says which slots they want; of those, the ones
    established before this turn (their canonical value, as said by the user
    or offered by the system) form the payload; what this turn informs is left
    to the text.
    """
    payload: dict[str, dict[str, str]] = {}
    for frame in turn.frames:
        said_now = {a.slot for a in frame.actions if a.act == "INFORM"}
        known = stated.get(frame.service, {})
        payload[frame.service] = {
            slot: known[slot] for slot in frame.wanted if slot in known and slot not in said_now
        }
    return payload


def _expected(arguments: dict[str, str], properties: dict[str, Any]) -> dict[str, Any]:
    """The case's truth: the call's parameters, and a default's slot right either way."""
    expected: dict[str, Any] = {"status": "success", "arguments": ensure_json_data(arguments)}
    defaults = {s: p["default"] for s, p in properties.items() if "default" in p}
    if defaults:
        # A slot left at its default means the same stated or not: either is right.
        expected["alternatives"] = {
            **{slot: [value] for slot, value in arguments.items()},
            **{
                slot: [default, OMITTED]
                for slot, default in defaults.items()
                if arguments.get(slot, default) == default
            },
        }
    return expected


def _add_case(
    site: _CallSite,
    talk: _Talk,
    stated: dict[str, dict[str, str]],
    intents: dict[str, dict[str, Any]],
    variants: Cases,
) -> str | None:
    """Add the call's case to every variant; or say why it cannot be one."""
    service, call, case_id = site.service, site.call, site.case_id
    name = event_name(service, call.method)
    intent = intents.get(name)
    if intent is None:
        return f"unknown event: {name}"
    arguments = dict(call.parameters)
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
    absent = [slot for slot in intent["schema"]["required"] if slot not in arguments]
    if absent:
        # SGD's annotation lacks a slot its own schema requires (Hotels_3 in train):
        # no valid dispatch could match such a truth.
        return f"the call lacks required slots: {absent}"
    user_turns = talk.user_turns
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
        "context": {"now": f"{talk.reference_date}T00:00"},
        "expected": _expected(arguments, properties),
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
    if talk.messages[-1].get("role") != "user":
        # Two system turns in a row (SGD alternates, a variant of it may not): no user's
        # words to answer. The other variants keep it.
        return _DIALOGUE_ONLY
    variants["dialogue"].append(
        {
            "id": case_id,
            "text": user_turns[-1],
            "messages": list(talk.messages),
            "candidates": talk.offered,
            "tags": ["dialogue", service],
            **common,
            "event_given": False,
        }
    )
    return None
