"""The call the whole conversation asks for, when the last message alone does not decide it.

A tool call is assembled from a conversation: the task the user stated
turns ago, the assistant's summary the user just accepted ("Yes, that's
right"), the search whose city the booking keeps, a refinement ("What about
March 6th?") of the last call. ``read_conversation`` reads them, in this
order, each step only where the one before left the answer open:

1. **The tool.** The one the last message routes to (after an assent, by
   its words that request something); else the one the user's latest
   message since the last call routes to (the task they stated, "Please
   book me a table"); else the last call's tool, for a message that changes
   one of its values; else, after an accepted summary, the one tool it
   completes and speaks of. An offer the user accepted that speaks of
   another tool leaves it to the model.
2. **Values, in layers, each with a source** (``Decision.sources``): earlier
   calls' arguments (``earlier_call``), dropped where the words since may
   restate them (``answering.restatements``); what the user said in each
   earlier message of the task (``earlier_message``); an accepted summary's
   values (``summary``, ``answering.summaries``), which may not contradict
   what was said before; what the last message reads (``message``); above
   all, a name earlier calls or their results held that the words repeat
   verbatim (``named_result``).
3. **Only a complete call.** The decision must be made with no model, valid
   against the schema, with nothing the text says left unread; a call to the
   last call's tool must change one of its values (asking again for the same
   search is the model's to answer in words). Otherwise: ``None``, and the
   request goes to the model as before.

Precision first: a value read wrongly skips the model, so each step takes
one reading or none. Measured with ``agent-lab shadow`` on SGD rendered as
logs (docs/experiments.md); nothing here knows SGD's services, slot names or
templates.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_lab.agents.act_pairs import asks_for_act
from agent_lab.agents.tool_specs import tool_acts, tool_name, tool_parameters, tool_properties
from agent_lab.answering.conversation import Conversation
from agent_lab.answering.kept_readings import Reader, ReaderOf
from agent_lab.answering.known_values import kept_by_pick, named_values, said_now, stands
from agent_lab.answering.retries import retried
from agent_lab.answering.said_before import (
    asks_about_results,
    earlier_calls,
    leaves_another,
    said_before,
    still_held,
)
from agent_lab.answering.summaries import accepted_summary, name_left
from agent_lab.answering.task_in_view import TaskInView
from agent_lab.answering.utterances import (
    accepts,
    asks,
    asks_to_act,
    asks_what,
    confirms,
    declines,
    item_offered,
    offers,
    proposes,
    requests,
    unasked,
)
from agent_lab.kernel.ledger import ValueSource, first_sources
from agent_lab.resolvers.schema import ASKED, SchemaResolver

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.decider import Decider
    from agent_lab.agents.decision import Decision
    from agent_lab.agents.turn import Turn
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["read_conversation"]

_TERSE = 1_000
"""The longest message read for a tool by the values it takes: each offered tool reads it."""


def read_conversation(
    decider: Decider,
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    turn: Turn,
    routed: str | None,
    *,
    reader_of: ReaderOf | None = None,
) -> Decision | None:
    """The complete, model-free decision the conversation supports, or ``None``.

    ``routed`` is the tool the last message routed to on its own, if any;
    ``reader_of`` gives a tool's reader (default: one made for this call).
    """
    conversation = Conversation.of(messages)
    offer = conversation.offer
    accepted = asks(offer) and accepts(conversation.last_user)
    confirmed = accepted and confirms(offer)
    # "Would you like to buy 2 tickets for Hamlet on May 3rd?" "Yes": an offer to act that
    # says what it would do is a summary the user accepted, once it states enough and the
    # user adds nothing to it (``_call``: a value added is confirmed again).
    offered = accepted and not confirmed and offers(offer)
    if not accepted and confirms(offer):
        return None  # a correction of the assistant's summary: it confirms again
    if accepted and routed is not None:
        # "Yes, that's good. When does it start?": the question asks about the accepted
        # offer; only the words that request something may route.
        request = requests(conversation.last_user)
        if decider.router.route(request, turn.candidates).event != routed:
            routed = None
    if confirmed:
        # What the user confirms is an action (a booking, a purchase): an assistant does not
        # ask to confirm a look-up, so only the offered tools that act are in view.
        names = turn.candidates or tuple(n for t in tools if (n := tool_name(t)) is not None)
        turn = dataclasses.replace(turn, candidates=tuple(n for n in names if tool_acts(tools, n)))
        routed = routed if routed is not None and tool_acts(tools, routed) else None
    if not accepted and (
        declines(conversation.last_user) or asks_about_results(conversation, conversation.last_user)
    ):
        # "No, not today", "thanks, that's all", "is there live music?": no request for a
        # call, or a question about what was found, for words.
        return None
    reading = _Reading(
        decider,
        conversation,
        tools,
        turn,
        reader_of
        or (lambda event: Reader(SchemaResolver(tool_parameters(tools, event)), tool=event)),
        accepted=accepted,
        confirmed=confirmed,
        offered=offered,
    )
    return reading.decision(routed)


@dataclass(frozen=True, slots=True)
class _Reading:
    """One conversation's reading for the call it asks for (``read_conversation``)."""

    decider: Decider
    conversation: Conversation
    tools: Sequence[Mapping[str, object]]
    turn: Turn
    reader_of: ReaderOf
    accepted: bool
    """The user accepted the assistant's question or summary just before."""
    confirmed: bool
    """What the user accepted was a summary to confirm."""
    offered: bool = False
    """It was a yes/no question, not a summary: it may offer to act ("Shall I book it?")."""

    @property
    def task(self) -> TaskInView:
        """Which tool the conversation's words are on (``answering.task_in_view``)."""
        return TaskInView(self.decider, self.conversation, self.turn, self.tools)

    def decision(self, routed: str | None) -> Decision | None:
        """The tool (the routed one, the task in view, or the last call's), and its call."""
        if self.offered and routed is None:
            acting = [
                decision
                for candidate in self.turn.candidates or ()
                if self._offers_to(candidate)
                and (decision := self._call(candidate, refining=False, fitting=True)) is not None
            ]
            if len(acting) == 1:
                return acting[0]  # the one action the offer says, complete
        if self.accepted and not self.confirmed:  # "I couldn't book it. 7 pm?" "Yes."
            again = retried(self.decider, self.conversation, self.tools, self.turn, self.reader_of)
            if again is not None:
                return again
        last = self.conversation.last_call
        event = routed or self.task.tracked()
        if (
            routed is None
            and event is not None
            and not self.accepted
            and self.task.leans(self.conversation.last_user, event)
        ):
            return None  # the last message leans to another tool than the task in view
        if (
            event is not None
            and self.accepted
            and self.task.leans(self.conversation.offer or "", event)
        ):
            return None  # the offer the user accepted speaks of another tool
        candidates = self.turn.candidates
        refined = last.name if last and last.name in (candidates or [last.name]) else None
        looked_up = event or refined
        if (
            routed is None
            and looked_up
            and not tool_acts(self.tools, looked_up)
            and asks_for_act(self.conversation.last_user)
        ):
            return None  # "Please purchase it", after a search: the act's, no look-up
        if event is None and last is not None and (candidates is None or last.name in candidates):
            offer = [self.conversation.offer or ""] if self.accepted else []
            # "Yes. What is the address?": a question beside an assent asks of what it accepts.
            said = self.conversation.since_call
            spoken = [*said[:-1], *(unasked(s) if self.accepted else s for s in said[-1:]), *offer]
            if any(self.task.leans(said, last.name) for said in spoken):
                return None  # another tool's task spoken of since, or offered: no refinement
            return self._call(last.name, refining=True)
        if event is not None:
            # A last message that names a new task, or proposes the one it routes to, asks
            # for it, though the values may all be known ("Can you find me hotels there
            # too?" after a trip to Bristol, "What about the pollen there?").
            text = self.conversation.last_user
            new = (
                event == routed
                and (last is None or last.name != event)
                and not asks_what(text)
                and (self.task.names(event) or proposes(text))
            )
            return self._call(event, refining=False, new=new)
        if not self.accepted:
            return self._fits_alone() if last is None else None
        # An accepted summary that names no tool: the one tool it completes (a search
        # already made with the same values is not asked again).
        offer = self.conversation.offer or ""
        fitting = [
            decision
            for candidate in candidates or ()
            if not self.task.leans(offer, candidate)
            and (decision := self._call(candidate, refining=False, fitting=True)) is not None
        ]
        return fitting[0] if len(fitting) == 1 else None

    def _fits_alone(self) -> Decision | None:
        """The one look-up the words speak of, too weakly to route, that takes them all.

        "ferries from Bergen to Stavanger next Monday?" speaks of ``ferry_times`` alone
        and gives it both ports and the day; "a film in Leeds, an imax one" speaks of
        two film look-ups, and only the one by town and format takes both. Values alone
        tell no tool: "the cheapest hotel in Miami on Friday" fits a forecast's city and
        day, and is no forecast.
        A value another tool reads and the call leaves ("large" for a grooming's size,
        beside a search for open slots) leaves it to the model, as do two tools that
        fit; so do a lone tool (its words must name it: ``LexicalRouter.speaks_of``),
        fewer than two values, and a tool that acts.
        """
        text, context = self.conversation.last_user, self.turn.context
        names = self.task.names_offered
        if len(names) < 2 or any(role == "user" for role, _ in self.conversation.said[:-1]):
            return None  # a task stated before, in words no tool's name holds: unknown
        spoken: set[str] = self.task.spoken_of(text) if len(text) <= _TERSE else set()
        if not spoken:
            return None  # the words name no tool (a hotel is no weather)
        read = {
            name: list(self.reader_of(name).read(name, text, context).values()) for name in names
        }
        given = [value for values in read.values() for value in values]
        if len({repr(value) for value in given}) < 2:
            return None
        fitting = [
            decision
            for name in names
            # A tool that acts is never chosen by its values; one that looks up must take
            # every value the words alone give it before its call is made.
            if not tool_acts(self.tools, name)
            and all(value in read[name] for value in given)
            and (decision := self._call(name, refining=False, alone=True)) is not None
            and all(value in (decision.arguments or {}).values() for value in given)
        ]
        # Words of this one, too few to route, bear it out ("ferries from Bergen to
        # Stavanger next Monday?" for ``ferry_times``).
        return fitting[0] if len(fitting) == 1 and fitting[0].event in spoken else None

    def _call(
        self,
        event: str,
        *,
        refining: bool,
        fitting: bool = False,
        new: bool = False,
        alone: bool = False,
    ) -> Decision | None:
        """The decision for ``event``, complete with no model, or ``None`` (module docstring).

        ``new``: the last message asks for this task; ``alone``: see ``_fits_alone``.
        """
        conversation, turn = self.conversation, self.turn
        properties = self._may_call(event, alone=alone) and tool_properties(self.tools, event)
        if not properties:
            return None
        reader = self.reader_of(event)
        offer = conversation.offer if self.accepted else None
        earlier = earlier_calls(self.conversation, event, properties, reader.required)
        said = self._said(offer)
        # An item the assistant offered (a result's record) is the call's only once the user
        # accepts the assistant's summary of it: picking it is not yet asking to act on it.
        grounded = named_values(conversation, event, properties, said[::-1], records=self.accepted)
        if self.accepted:
            earlier = {**kept_by_pick(conversation, grounded, properties), **earlier}
        prefill, pointed = still_held(
            event,
            properties,
            reader,
            said,
            offer=offer,
            context=turn.context,
            earlier=earlier,
            grounded=grounded,
            conversation=conversation,
        )
        before: JSONObject = {}
        if not refining:
            before = said_before(conversation, event, properties, reader, turn.context)
        prefill.update(before)
        summary = self._summarised(event, properties, reader, offer, prefill, grounded)
        if summary is None:
            return None
        for name in grounded:
            prefill.pop(name, None)
        if self.confirmed and offer:
            known = {**prefill, **grounded}
            left = name_left(offer, properties, reader, known, conversation.held_as)
            if left and (not fitting or self.task.leads(offer) == event):  # the one it names
                summary.update(left)
                prefill.update(summary)
        decision, text, context = self._decide(event, grounded, prefill)
        if not decision.local:
            return None
        arguments = dict(decision.arguments or {})
        if leaves_another(conversation, event, properties, arguments, tools=self.tools):
            return None  # a value of another search it leaves: the model's to weigh
        if not (self.accepted or new) and not said_now(
            arguments, {**earlier, **pointed, **before}, grounded, conversation.last_user
        ):
            return None  # the last message adds nothing to the call: not a request for it
        if not stands(
            self.conversation,
            event,
            arguments,
            properties,
            reader=reader,
            said=said,
            refining=refining,
        ):
            return None
        layers: list[tuple[Mapping[str, JSONValue], ValueSource]] = [
            (grounded, ValueSource.NAMED_RESULT),
            (reader.read(event, text, context), ValueSource.MESSAGE),
            (summary, ValueSource.SUMMARY),
            (before, ValueSource.EARLIER_MESSAGE),
            ({**earlier, **pointed}, ValueSource.EARLIER_CALL),
        ]
        return dataclasses.replace(decision, read_from=first_sources(arguments, layers))

    def _decide(
        self, event: str, grounded: JSONObject, prefill: JSONObject
    ) -> tuple[Decision, str, dict[str, object]]:
        """The decider's decision for ``event`` over ``prefill``; the text and context read.

        After an assent, only the words that request something are read ("Yes. Is it
        far?"); otherwise the whole message, the assistant's question before it in view.
        """
        conversation, turn = self.conversation, self.turn
        context = dict(turn.context)
        if not self.accepted and conversation.offer:
            context[ASKED] = conversation.offer
        text = requests(conversation.last_user) if self.accepted else conversation.last_user
        decision = self.decider.decide(
            dataclasses.replace(
                turn,
                text=text,
                event=event,
                context=context,
                payload={**turn.payload, **grounded},
                prefill={**turn.prefill, **prefill},
            )
        )
        return decision, text, context

    def _may_call(self, event: str, *, alone: bool = False) -> bool:
        """Whether ``event`` is offered, and, if it acts, the user accepted its summary.

        A call that acts (books, buys, sends) assembled from earlier turns is made only
        once the user accepted the assistant's summary of it: a wrong booking costs more
        than a question, and an assistant confirms before acting. ``alone``: a look-up
        the last message asks for with no hold nor negation (``utterances.asks_to_act``).
        """
        if self.turn.candidates is not None and event not in self.turn.candidates:
            return False
        if alone:
            text = self.conversation.last_user
            return not tool_acts(self.tools, event) and asks_to_act(text, acting=False)
        return not tool_acts(self.tools, event) or self.confirmed or self._offers_to(event)

    def _said(self, offer: str | None) -> list[str]:
        """The words since the last call, the accepted offer's last.

        A question about what was found ("does it have a garage?") states no value.
        """
        since = self.conversation.since_call
        return [
            *(text for text in since[:-1] if not asks_about_results(self.conversation, text)),
            *since[-1:],
            *([offer] if offer else []),
        ]

    def _summarised(  # noqa: PLR0917 - the reading's own parts, in _call's order
        self,
        event: str,
        properties: Mapping[str, Any],
        reader: Reader,
        offer: str | None,
        prefill: JSONObject,
        grounded: JSONObject,
    ) -> JSONObject | None:
        """The accepted summary's values (``summaries.accepted_summary``)."""
        return accepted_summary(
            reader,
            event,
            properties,
            offer,
            acting=tool_acts(self.tools, event),
            confirmed=self.confirmed,
            offered=self.offered,
            last_user=self.conversation.last_user,
            context=self.turn.context,
            prefill=prefill,
            grounded=grounded,
        )

    def _offers_to(self, event: str) -> bool:
        """Whether the accepted offer may propose ``event``'s action: not an item found.

        "Do you like Jolene by Dolly Parton?" offers an item to pick before anything is
        done with it; what is enough of a summary is ``summaries.sums_up``'s to say.
        """
        return (
            self.offered
            and tool_acts(self.tools, event)
            and not item_offered(self.conversation.offer or "")
        )
