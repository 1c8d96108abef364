"""``agent-lab serve`` in front of a real model: llama-cpp-python's own server, on loopback.

The upstream is not scripted here: llama-cpp-python's OpenAI-compatible
server serves the default local model, and ``agent-lab serve`` runs as its
own process in front of it, as a user would start it. The client is the
official ``openai`` SDK. What the model says is its own (this small model
ignores the tools and writes a few words), so the tests hold its answer to
the API's shape, not to its content. One server serves the whole module, and
every answer is a few tokens long: the module takes seconds.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import io
import json
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx

from agent_lab.cli import run
from agent_lab.logs import LoggedRequest, read_logs
from tests.gateway.conftest import COVERED, SDK, TOOLS, user
from tests.gateway.process import output, serve
from tests.llama_server import ALIAS, NEEDS, llama_cpp_server

pytestmark = [pytest.mark.slow, NEEDS]

MAX_TOKENS = 8
"""The model's answers are cut this short: its words are not what is tested."""


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with llama_cpp_server(tmp_path_factory.mktemp("llama") / "server.log") as url:
        yield url


def test_shadow_forwards_to_the_model_and_the_store_holds_the_exchange(
    llama: str, sdk: SDK, tmp_path: Path
) -> None:
    """The model's answer, unchanged, to the client; the same exchange read back from the store."""
    store = tmp_path / "gateway.sqlite"
    with serve("--upstream", llama, "--db", str(store)) as (root, process, said):
        client = sdk(f"{root}/v1")
        raw = client.chat.completions.with_raw_response.create(
            model=ALIAS, messages=user(COVERED), tools=TOOLS, max_tokens=MAX_TOKENS
        )
        process.send_signal(signal.SIGTERM)  # finishes, and writes what is queued
        assert process.wait(15) == 0, output(said)
    assert "x-agent-lab-answered" not in raw.headers
    answer = raw.parse()
    assert (answer.object, answer.model) == ("chat.completion", ALIAS)
    choice = answer.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content or choice.message.tool_calls
    assert choice.finish_reason in ("stop", "length", "tool_calls")
    assert answer.usage is not None
    assert 0 < answer.usage.completion_tokens <= MAX_TOKENS
    (logged,) = read_logs(store)
    assert isinstance(logged, LoggedRequest)
    assert logged.messages[-1]["content"] == COVERED
    assert [tool["function"] for tool in logged.tools] == [tool["function"] for tool in TOOLS]
    assert (logged.model, logged.text) == (ALIAS, choice.message.content)
    out, err = io.StringIO(), io.StringIO()
    assert run(["shadow", str(store), "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    assert json.loads(out.getvalue())["requests"] == 1
    with sqlite3.connect(store) as connection:
        ((decision,),) = connection.execute("SELECT decision FROM exchanges").fetchall()
    assert json.loads(decision)["covered"] is True  # plain code's call, beside the model's words


def test_enforce_answers_what_plain_code_covers_and_the_model_the_rest(
    llama: str, sdk: SDK
) -> None:
    """The weather in Paris is answered here; a joke goes to the model and comes back."""
    with serve(
        "--upstream", llama, "--mode", "enforce", "--enforce", "get_weather", "--no-store"
    ) as (root, _, _):
        client = sdk(f"{root}/v1")
        # A bound the answer fits (its bytes, 16 more a call): 8 tokens could not write it.
        local = client.chat.completions.with_raw_response.create(
            model=ALIAS, messages=user(COVERED), tools=TOOLS, max_tokens=64
        )
        forwarded = client.chat.completions.with_raw_response.create(
            model=ALIAS, messages=user("tell me a joke"), tools=TOOLS, max_tokens=MAX_TOKENS
        )
        metrics = httpx.get(f"{root}/metrics", timeout=5).text
    assert local.headers["x-agent-lab-answered"] == "local"
    calls = local.parse().choices[0].message.tool_calls or []
    assert [
        (call.function.name, json.loads(call.function.arguments))
        for call in calls
        if call.type == "function"
    ] == [("get_weather", {"city": "Paris"})]
    assert "x-agent-lab-answered" not in forwarded.headers
    answer = forwarded.parse()
    assert (answer.object, answer.model) == ("chat.completion", ALIAS)
    assert answer.choices[0].message.role == "assistant"
    assert answer.usage is not None
    assert 0 < answer.usage.completion_tokens <= MAX_TOKENS
    assert "agent_lab_gateway_answered_locally_total 1.0" in metrics
    assert "agent_lab_gateway_forwarded_total 1.0" in metrics
