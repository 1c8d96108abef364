"""One logged request replayed with no LLM: covered, agreed, and why not."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from agent_lab import EventDefinition, PluginSet, Resolution
from agent_lab.answering import Answerer
from agent_lab.log_replay.figures import ShadowFigures, rate
from agent_lab.log_replay.replayed import Cause, Kind, Replayed, replay
from agent_lab.logs.record import (
    LogFormat,
    LoggedRequest,
    LoggedToolCall,
    LoggedUsage,
    SkippedLine,
    SkipReason,
)
from agent_lab.providers.pricing import Price, PriceTable

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "enum": ["Paris", "Oslo"]},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            },
            "required": ["city"],
        },
    },
}


def logged(
    text: str,
    *calls: tuple[str, dict[str, Any]],
    tools: tuple[dict[str, Any], ...] = (WEATHER,),
    before: tuple[dict[str, Any], ...] = (),
    usage: LoggedUsage | None = None,
) -> LoggedRequest:
    return LoggedRequest(
        where="log.jsonl:1#1",
        format=LogFormat.CHAT,
        messages=(*before, {"role": "user", "content": text}),
        tools=tools,
        calls=tuple(
            LoggedToolCall(name=name, arguments=arguments, raw="{}") for name, arguments in calls
        ),
        model="gpt-4o-mini",
        usage=usage,
    )


def replayed(request: LoggedRequest, **options: Any) -> Replayed:
    outcome = replay(request, Answerer(**options))
    assert isinstance(outcome, Replayed)
    return outcome


def test_a_call_plain_code_completes_is_covered_and_agrees_with_defaults_applied() -> None:
    # The model left out the defaulted unit; plain code does not state it either.
    outcome = replayed(
        logged("get the weather forecast in Paris", ("get_weather", {"city": "Paris"}))
    )
    assert (outcome.kind, outcome.covered, outcome.agreed, outcome.cause) == (
        Kind.CALL, True, True, None,
    )  # fmt: skip
    assert outcome.expected == outcome.produced == {"city": "Paris"}
    assert outcome.routed == "get_weather"


def test_a_default_stated_by_the_model_agrees_with_one_left_out() -> None:
    stated = ("get_weather", {"city": "Paris", "unit": "celsius"})
    outcome = replayed(logged("get the weather forecast in Paris", stated))
    assert (outcome.covered, outcome.agreed) == (True, True)
    other = ("get_weather", {"city": "Paris", "unit": "fahrenheit"})
    assert replayed(logged("get the weather forecast in Paris", other)).agreed is False


def test_a_covered_call_with_other_values_disagrees_and_says_why() -> None:
    outcome = replayed(
        logged("get the weather forecast in Paris", ("get_weather", {"city": "Oslo"}))
    )
    assert (outcome.covered, outcome.agreed, outcome.cause) == (True, False, Cause.ARGUMENTS)


def test_a_call_whose_value_is_not_in_the_words_is_not_covered() -> None:
    outcome = replayed(logged("get the weather forecast", ("get_weather", {"city": "Paris"})))
    assert (outcome.covered, outcome.agreed, outcome.status) == (False, None, "missing_information")


def test_acting_where_the_model_answered_in_words_is_counted_as_such() -> None:
    outcome = replayed(logged("get the weather forecast in Paris"))
    assert (outcome.kind, outcome.covered, outcome.agreed, outcome.cause) == (
        Kind.WORDS, True, False, Cause.ACTED,
    )  # fmt: skip


def test_a_request_that_is_the_models_whatever_plain_code_decides_is_never_covered() -> None:
    """``tool_choice: "none"``, or a gateway's rule: decided, routed, never covered."""
    request = dataclasses.replace(
        logged("get the weather forecast in Paris", ("get_weather", {"city": "Paris"})),
        forwarded="tool_choice_none",
    )
    outcome = replayed(request)
    assert (outcome.covered, outcome.agreed, outcome.cause) == (False, None, None)
    assert (outcome.routed, outcome.produced) == ("get_weather", {"city": "Paris"})


def test_saved_counts_only_covered_requests_that_agreed() -> None:
    """Issue 36: a covered call that disagrees, or acting on words, saves nothing."""
    usage = LoggedUsage(prompt_tokens=100, completion_tokens=10)
    figures = ShadowFigures()
    for request in (
        logged(
            "get the weather forecast in Paris", ("get_weather", {"city": "Paris"}), usage=usage
        ),
        logged("get the weather forecast in Paris", ("get_weather", {"city": "Oslo"}), usage=usage),
        logged("get the weather forecast in Oslo", usage=usage),
    ):
        figures.add(replayed(request))
    document: dict[str, Any] = figures.as_json()
    assert (document["covered"], document["acted_where_the_model_answered_in_words"]) == (2, 1)
    saved = document["saved"]
    assert (saved["requests"], saved["prompt_tokens"], saved["completion_tokens"]) == (1, 100, 10)
    assert document["by_tool"]["get_weather"]["saved"]["requests"] == 1


def test_a_request_after_a_tools_result_is_a_follow_up() -> None:
    request = LoggedRequest(
        where="log.jsonl:1#2",
        format=LogFormat.CHAT,
        messages=(
            {"role": "user", "content": "weather in Paris"},
            {"role": "tool", "content": "9C"},
        ),
        tools=(WEATHER,),
        calls=(),
    )
    assert replayed(request).kind is Kind.FOLLOW_UP


def test_the_users_own_resolver_is_used_for_the_tool_it_names() -> None:
    def always_oslo(event: Any) -> Resolution:
        return Resolution({"city": "Oslo"})

    own = PluginSet(
        "mine",
        (EventDefinition("get_weather", parameters=WEATHER["function"]["parameters"],
                         resolver=always_oslo, description="weather forecast"),),
    )  # fmt: skip
    outcome = replayed(
        logged("get the weather forecast", ("get_weather", {"city": "Oslo"})), plugins=own
    )
    assert (outcome.covered, outcome.agreed) == (True, True)


def test_replay_never_runs_the_users_handler() -> None:
    """A log is replayed, not acted on: the user's handler for a tool does not run."""
    ran: list[object] = []

    def book(arguments: Any) -> str:
        ran.append(arguments)
        return "booked"

    own = PluginSet(
        "mine",
        (EventDefinition("get_weather", parameters=WEATHER["function"]["parameters"],
                         resolver=lambda event: Resolution({"city": "Paris"}),
                         handler=book, description="weather forecast"),),
    )  # fmt: skip
    outcome = replayed(
        logged("get the weather forecast in Paris", ("get_weather", {"city": "Paris"})),
        plugins=own,
    )
    assert (outcome.covered, outcome.agreed) == (True, True)
    assert ran == []


def test_tools_the_registry_refuses_are_a_skipped_line() -> None:
    broken = {"type": "function", "function": {"name": "x", "parameters": {"type": "nonsense"}}}
    outcome = replay(logged("do x", ("x", {}), tools=(broken,)))
    assert isinstance(outcome, SkippedLine)
    assert outcome.reason is SkipReason.BAD_TOOLS


def test_figures_count_saved_tokens_and_cost_and_keep_unknown_unknown() -> None:
    prices = PriceTable({"gpt-4o-mini": Price(Decimal(1), Decimal(2))})
    figures = ShadowFigures(prices=prices)
    usage = LoggedUsage(prompt_tokens=1_000_000, completion_tokens=500_000)
    figures.add(
        replayed(
            logged(
                "get the weather forecast in Paris", ("get_weather", {"city": "Paris"}), usage=usage
            )
        )
    )
    figures.add(
        replayed(logged("get the weather forecast in Oslo", ("get_weather", {"city": "Oslo"})))
    )
    figures.add(
        replayed(logged("get the weather forecast", ("get_weather", {"city": "Oslo"}), usage=usage))
    )
    document = figures.as_json()
    assert (document["calls"], document["covered"]) == (3, 2)
    assert document["agreement"] == rate(2, 2)
    saved = document["saved"]
    assert saved == {
        "requests": 2,
        "prompt_tokens": 1_000_000,
        "completion_tokens": 500_000,
        "tokens_unknown_for": 1,
        "cost_usd": 2.0,
        "cost_unknown_for": 1,
        "latency_ms": None,
        "latency_unknown_for": 2,
    }
    assert document["measures"] == "agreement with the logged model, not accuracy"


def test_figures_merge_to_the_same_as_one_pass() -> None:
    requests = [
        logged("get the weather forecast in Paris", ("get_weather", {"city": "Paris"})),
        logged("get the weather forecast in Oslo", ("get_weather", {"city": "Paris"})),
        logged("get the weather forecast"),
    ]
    whole = ShadowFigures()
    halves = (ShadowFigures(), ShadowFigures())
    for index, request in enumerate(requests):
        whole.add(replayed(request))
        halves[index % 2].add(replayed(request))
    halves[0].merge(halves[1])
    assert halves[0].as_json() == whole.as_json()


def test_redaction_keeps_text_and_values_out() -> None:
    figures = ShadowFigures()
    figures.add(
        replayed(logged("get the weather forecast in Paris", ("get_weather", {"city": "Oslo"})))
    )
    text = str(figures.as_json(redact=True))
    for said in ("Paris", "Oslo", "forecast"):
        assert said not in text
    assert "city" in text


def test_each_value_plain_code_filled_is_counted_by_its_kind() -> None:
    """Per value: its schema's kind, and whether the logged call holds it (or its default)."""
    agreeing = replayed(
        logged(
            "get the weather forecast in Oslo in fahrenheit",
            ("get_weather", {"city": "Oslo", "unit": "fahrenheit"}),
        )
    )
    differing = replayed(
        logged(
            "get the weather forecast in Oslo in fahrenheit",
            ("get_weather", {"city": "Paris", "unit": "fahrenheit"}),
        )
    )
    defaulted = replayed(
        logged("get the weather forecast in Paris in celsius", ("get_weather", {"city": "Paris"}))
    )
    said = "message"  # read in the message answered
    assert agreeing.values == (("city", "enum", True, said), ("unit", "enum", True, said))
    assert differing.values == (("city", "enum", False, said), ("unit", "enum", True, said))
    assert defaulted.values == (("city", "enum", True, said), ("unit", "enum", True, said))
    figures = ShadowFigures()
    for outcome in (agreeing, differing, defaulted):
        figures.add(outcome)
    other = ShadowFigures()
    other.add(agreeing)
    figures.merge(other)
    assert figures.values == {"enum": [7, 8]}
    assert figures.as_json()["values_by_kind"] == {"enum": rate(7, 8)}
    assert figures.as_json()["values_by_source"] == {"message": rate(7, 8)}
