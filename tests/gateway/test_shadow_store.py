"""The gateway's store, read by ``agent-lab shadow``: the same figures as the same requests
logged as ``pairs``; and trust earned from it in ``enforce``."""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import io
import json
import sqlite3
import time
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from agent_lab.cli import run
from agent_lab.gateway import GatewaySettings, Mode
from tests.gateway.conftest import COVERED, SDK, TOOLS, user
from tests.gateway.running import Served, serving
from tests.openai_server import Behavior, OpenAIServer, content, tool_calls

TALKS: list[tuple[str, str | None, dict[str, Any], bool]] = [
    ("get the weather forecast in Paris", "get_weather", {"city": "Paris"}, False),
    ("get the weather forecast in Oslo", "get_weather", {"city": "Oslo", "unit": "celsius"}, True),
    ("get the weather forecast in Rome", "get_weather", {"city": "Paris"}, False),  # it erred
    ("get the weather forecast", "get_weather", {"city": "Rome"}, True),  # nothing to read
    ("set timer for 5 minutes", "set_timer", {"minutes": 5}, True),
    ("tell me a joke", None, {}, False),
]
"""What the user said, what the model called, and whether the client streamed it."""


def answer(name: str | None, arguments: dict[str, Any]) -> Behavior:
    if name is None:
        return content("Why did the tool cross the road?")
    made = tool_calls((name, json.dumps(arguments)))
    made.finish_reason = "tool_calls"
    return made


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run(list(argv), stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """The figures without what differs by construction: where a request is, its timing."""
    for tally in [document, *document["by_tool"].values()]:
        if "saved" in tally:
            tally["saved"].pop("latency_ms")
    for examples in document["disagreements"].values():
        for example in examples["examples"]:
            example.pop("where")
    return document


def send(served: Served, text: str, *, stream: bool) -> dict[str, Any]:
    body = {"model": "gpt-4o-mini", "messages": user(text), "tools": TOOLS, "stream": stream}
    response = httpx.post(f"{served.url}/chat/completions", json=body, timeout=10)
    assert response.status_code == 200
    return body


def test_shadow_on_the_store_agrees_with_shadow_on_the_same_requests_as_pairs(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """Coverage, agreement, the savings in requests and tokens, the disagreements: equal."""
    store = tmp_path / "gateway.sqlite"
    upstream.script = [answer(name, arguments) for _, name, arguments, _ in TALKS]
    with serving(GatewaySettings(upstream=upstream.url, db=str(store))) as served:
        for text, _, _, stream in TALKS:
            send(served, text, stream=stream)
        served.flush()
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "".join(
            json.dumps({"request": r.body, "response": r.reply, "latency_ms": 1.0}) + "\n"
            for r in upstream.requests
        )
    )
    from_store = json.loads(cli("shadow", str(store), "--json"))
    from_pairs = json.loads(cli("shadow", str(pairs), "--json"))
    assert (from_store["calls"], from_store["covered"], from_store["agreement"]["right"]) == (
        5,
        4,
        3,
    )
    assert comparable(from_store) == comparable(from_pairs)


def test_each_row_holds_the_decision_beside_the_answer(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """The stored decision is the replay of the stored line: covered, agreed, the rule."""
    store = tmp_path / "gateway.sqlite"
    upstream.script = [answer("get_weather", {"city": "Paris"}), content("Sure.")]
    with serving(GatewaySettings(upstream=upstream.url, db=str(store))) as served:
        send(served, "get the weather forecast in Paris", stream=False)
        httpx.post(
            f"{served.url}/chat/completions",
            json={"model": "m", "messages": user("hi"), "tool_choice": "none", "tools": TOOLS},
            timeout=10,
        )
        served.flush()
    rows = sqlite3.connect(store).execute("SELECT origin, decision FROM exchanges ORDER BY id")
    decisions = [(origin, json.loads(decision)) for origin, decision in rows]
    assert decisions[0][0] == "upstream"
    assert decisions[0][1]["covered"] is True
    assert decisions[0][1]["agreed"] is True
    assert decisions[0][1]["rule"] is None
    assert decisions[1][1]["rule"] == "tool_choice_none"


def test_requests_answered_locally_are_stored_but_not_counted_by_shadow(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """No model answered them: nothing to agree with, so ``agent-lab shadow`` leaves them out."""
    store = tmp_path / "gateway.sqlite"
    settings = GatewaySettings(
        upstream=upstream.url, mode=Mode.ENFORCE, enforce=("get_weather",), db=str(store)
    )
    with serving(settings) as served:
        send(served, "get the weather forecast in Paris", stream=False)
        send(served, "get the weather forecast in Oslo", stream=True)
        served.flush()
    origins = sqlite3.connect(store).execute("SELECT origin FROM exchanges").fetchall()
    assert origins == [("local",), ("local",)]
    assert json.loads(cli("shadow", str(store), "--json"))["requests"] == 0


def test_a_tool_earns_trust_from_the_store_and_is_then_answered_locally(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """``--min-agreement``: forwarded while the store is thin, local once its bound clears."""
    store = tmp_path / "gateway.sqlite"
    upstream.default = answer("get_weather", {"city": "Paris"})
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        min_agreement=0.9,
        trust_refresh_seconds=0.1,
        db=str(store),
    )
    body = {"model": "m", "messages": user("get the weather forecast in Paris"), "tools": TOOLS}
    response = httpx.Response(0)
    with serving(settings) as served:
        for _ in range(200):
            response = httpx.post(f"{served.url}/chat/completions", json=body, timeout=10)
            if "x-agent-lab-answered" in response.headers:
                break
            time.sleep(0.01)  # the writer and the refresh run beside the requests
        forwarded = len(upstream.requests)
        timer = send(served, "set timer for 5 minutes", stream=False)
    assert response.headers["x-agent-lab-answered"] == "local"
    # 35 agreeing calls of 35 is the fewest whose 95% Wilson lower bound clears 0.9.
    assert 35 <= forwarded < 200
    assert upstream.requests[-1].body == timer  # set_timer earned nothing: forwarded


@pytest.mark.parametrize("agreeing", [30, 0], ids=["too-few", "disagreeing"])
def test_trust_is_not_earned_below_the_bound(
    upstream: OpenAIServer, tmp_path: Path, agreeing: int
) -> None:
    """30 agreeing calls do not clear 0.9 at the lower bound; disagreeing ones never do."""
    store = tmp_path / "gateway.sqlite"
    upstream.default = answer("get_weather", {"city": "Rome" if agreeing == 0 else "Paris"})
    with serving(GatewaySettings(upstream=upstream.url, db=str(store))) as served:
        for _ in range(agreeing or 60):
            send(served, "get the weather forecast in Paris", stream=False)
        served.flush()
    settings = GatewaySettings(
        upstream=upstream.url, mode=Mode.ENFORCE, min_agreement=0.9, db=str(store)
    )
    with serving(settings) as served:
        response = httpx.post(
            f"{served.url}/chat/completions",
            json={
                "model": "m",
                "messages": user("get the weather forecast in Oslo"),
                "tools": TOOLS,
            },
            timeout=10,
        )
        assert served.gateway.trust.earned == frozenset()
    assert "x-agent-lab-answered" not in response.headers


LOOKUP: Any = {"type": "function", "function": {"name": "lookup", "parameters": {}}}
UNREADABLE: list[Any] = [
    [LOOKUP, LOOKUP],
    [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "nonsense"}}}],
]
"""A client's tools replay cannot use, which the gateway forwards (a schema that is no object
is its own 400): one tool offered twice (the reader refuses it), and a schema the registry
refuses (replay does: the stored decision says so)."""


@pytest.mark.parametrize(
    "tools", UNREADABLE, ids=["a tool offered twice", "schema the registry refuses"]
)
def test_a_stored_request_replay_cannot_use_is_left_out_and_counted_not_an_error(
    upstream: OpenAIServer, tmp_path: Path, sdk: SDK, tools: Any
) -> None:
    """Issue 36: the gateway's owner cannot fix a client's request, so ``agent-lab shadow`` on
    the store counts it under its reason and reads on (exit 0); the same request in a log of
    one's own stays an error."""
    store = tmp_path / "gateway.sqlite"
    upstream.script = [content("I cannot look that up."), answer("get_weather", {"city": "Paris"})]
    with serving(GatewaySettings(upstream=upstream.url, db=str(store))) as served:
        client = sdk(served.url)
        client.chat.completions.create(
            model="gpt-4o-mini", messages=user("look up Paris"), tools=tools
        )
        client.chat.completions.create(model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS)
        served.flush()
    marked = sqlite3.connect(store).execute("SELECT decision FROM exchanges ORDER BY id").fetchone()
    assert json.loads(marked[0])["skipped"] == "bad_tools"
    document = json.loads(cli("shadow", str(store), "--json"))
    assert document["skipped"] == {"bad_tools": 1}
    assert (document["calls"], document["covered"], document["saved"]["requests"]) == (1, 1, 1)
    assert "Left out: bad_tools 1." in cli("shadow", str(store))
    own = tmp_path / "own.jsonl"
    exchanged = upstream.requests[0]
    own.write_text(json.dumps({"request": exchanged.body, "response": exchanged.reply}) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert run(["shadow", str(own)], stdout=out, stderr=err) == 2
    assert f"{own}:1" in err.getvalue()


def test_requests_the_gateway_forwards_are_never_covered_nor_saved_from_the_store(
    upstream: OpenAIServer, tmp_path: Path, sdk: SDK
) -> None:
    """Issue 36: ``tool_choice: "none"`` and ``response_format`` are forwarded whatever plain
    code decides; plain code acting where the model answered in words saves nothing."""
    store = tmp_path / "gateway.sqlite"
    upstream.default = content("It is sunny in Paris.")
    with serving(GatewaySettings(upstream=upstream.url, db=str(store))) as served:
        client = sdk(served.url)
        create = partial(
            client.chat.completions.create,
            model="gpt-4o-mini",
            messages=user(COVERED),
            tools=TOOLS,
        )
        create()
        create(tool_choice="none")
        create(response_format={"type": "json_object"})
        served.flush()
    rows = sqlite3.connect(store).execute("SELECT decision FROM exchanges ORDER BY id")
    assert [json.loads(text)["covered"] for (text,) in rows] == [True, False, False]
    document = json.loads(cli("shadow", str(store), "--json"))
    assert (document["answered_in_words"], document["covered"]) == (3, 0)
    assert document["acted_where_the_model_answered_in_words"] == 1
    assert document["saved"]["requests"] == 0
