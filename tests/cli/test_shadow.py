"""``agent-lab shadow`` and ``agent-lab import logs`` through the command line."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lab.cli import run
from tests.conftest import REPO_ROOT

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "enum": ["Paris", "Oslo", "Rome"]},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            },
            "required": ["city"],
        },
    },
}
TIMER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "set_timer",
        "description": "Set a timer.",
        "parameters": {
            "type": "object",
            "properties": {"minutes": {"type": "integer", "minimum": 1}},
            "required": ["minutes"],
        },
    },
}
TOOLS = [WEATHER, TIMER]
TALKS: list[tuple[str, str | None, dict[str, Any]]] = [
    ("get the weather forecast in Paris", "get_weather", {"city": "Paris"}),
    ("get the weather forecast in Oslo", "get_weather", {"city": "Oslo", "unit": "celsius"}),
    ("get the weather forecast in Rome", "get_weather", {"city": "Paris"}),  # the model erred
    ("get the weather forecast", "get_weather", {"city": "Rome"}),  # nothing to read
    ("set timer for 5 minutes", "set_timer", {"minutes": 5}),
    ("tell me a joke", None, {}),
]


def call(index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def chat_line(index: int, text: str, name: str | None, arguments: dict[str, Any]) -> str:
    reply: dict[str, Any] = (
        {"role": "assistant", "content": "Why did the tool cross the road?"}
        if name is None
        else {"role": "assistant", "content": None, "tool_calls": [call(index, name, arguments)]}
    )
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}, reply]
    if name is not None:
        messages += [
            {"role": "tool", "tool_call_id": f"call_{index}", "content": "done"},
            {"role": "assistant", "content": "Done."},
        ]
    return json.dumps({"messages": messages, "tools": TOOLS})


def pairs_line(index: int, text: str, name: str | None, arguments: dict[str, Any]) -> str:
    message: dict[str, Any] = (
        {"role": "assistant", "content": "Why did the tool cross the road?"}
        if name is None
        else {"role": "assistant", "content": None, "tool_calls": [call(index, name, arguments)]}
    )
    return json.dumps({
        "request": {"model": "gpt-4o-mini", "tools": TOOLS,
                    "messages": [{"role": "user", "content": text}]},
        "response": {
            "id": f"chatcmpl-{index}", "object": "chat.completion", "created": 1764547200,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "stop" if name is None else "tool_calls"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
        },
        "latency_ms": 500.0,
    })  # fmt: skip


def cli(*argv: str, code: int = 0) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    got = run(list(argv), stdout=out, stderr=err)
    assert got == code, err.getvalue() + out.getvalue()
    return out.getvalue(), err.getvalue()


@pytest.fixture
def logs(tmp_path: Path) -> dict[str, Path]:
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(chat_line(i, *t) + "\n" for i, t in enumerate(TALKS)))
    pairs = tmp_path / "pairs.jsonl.gz"
    with gzip.open(pairs, "wt") as log:
        log.write("".join(pairs_line(i, *t) + "\n" for i, t in enumerate(TALKS)))
    return {"chat": chat, "pairs": pairs}


def test_shadow_json_has_the_promised_shape_and_counts(logs: dict[str, Path]) -> None:
    out, _ = cli("shadow", str(logs["pairs"]), "--json")
    document = json.loads(out)
    assert (document["calls"], document["covered"]) == (5, 4)
    assert document["agreement"]["right"] == 3
    assert document["agreement"]["of"] == 4
    for key in ("rate", "low", "high"):
        assert isinstance(document["agreement"][key], float)
    assert set(document["by_tool"]) == {"get_weather", "set_timer"}
    assert document["by_tool"]["set_timer"]["calls"] == 1
    saved = document["saved"]
    # Covered and agreed: the covered call where the model erred is no saving.
    assert saved["requests"] == 3
    assert (saved["prompt_tokens"], saved["completion_tokens"]) == (300, 30)
    assert saved["cost_usd"] > 0  # gpt-4o-mini, priced by genai-prices
    assert document["skipped"] == {}
    assert document["answered_in_words"] == 1
    assert document["measures"] == "agreement with the logged model, not accuracy"


def test_shadow_json_is_what_its_published_schema_says(logs: dict[str, Path]) -> None:
    schema = json.loads((REPO_ROOT / "docs" / "shadow.schema.json").read_text())
    document = json.loads(cli("shadow", str(logs["chat"]), "--json")[0])
    jsonschema_rs.validator_for(schema).validate(document)


def test_chat_and_pairs_give_the_same_calls_and_agreement(logs: dict[str, Path]) -> None:
    chat = json.loads(cli("shadow", str(logs["chat"]), "--json")[0])
    pairs = json.loads(cli("shadow", str(logs["pairs"]), "--json")[0])
    for key in ("calls", "covered", "agreement", "agreement_lenient", "router", "by_tool"):
        if key == "by_tool":
            assert {t: f["agreement"] for t, f in chat[key].items()} == {
                t: f["agreement"] for t, f in pairs[key].items()
            }
        else:
            assert chat[key] == pairs[key], key
    # The chat format logs no usage: nothing saved in tokens, said as unknown.
    assert chat["saved"]["prompt_tokens"] is None
    assert chat["follow_ups"] == 5


def test_the_terminal_names_agreement_for_what_it_is(logs: dict[str, Path]) -> None:
    out, _ = cli("shadow", str(logs["pairs"]))
    assert "not accuracy" in out
    assert "get_weather" in out
    assert "Deterministic-first would have sent no request for 4 of the 5 tool calls" in out


def test_saved_counts_only_requests_answered_locally_and_agreed(tmp_path: Path) -> None:
    """Issue 36: plain code acting where the model answered in words is no saving, and a
    ``tool_choice: "none"`` request (the model's whatever plain code decides) is never covered."""
    lines = [json.loads(pairs_line(i, text, None, {})) for i, (text, *_) in enumerate(TALKS[:2])]
    for index, (text, *_) in enumerate(TALKS[:2], start=2):
        line = json.loads(pairs_line(index, text, None, {}))
        line["request"]["tool_choice"] = "none"
        lines.append(line)
    log = tmp_path / "words.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    document = json.loads(cli("shadow", str(log), "--json")[0])
    assert (document["answered_in_words"], document["calls"], document["covered"]) == (4, 0, 0)
    assert document["acted_where_the_model_answered_in_words"] == 2  # not the tool_choice ones
    assert document["saved"]["requests"] == 0
    assert document["saved"]["cost_unknown_for"] == 0
    assert document["switch_first"] == []
    assert "Saved where it agreed: 0 requests." in cli("shadow", str(log))[0]


def test_workers_give_the_figures_one_process_gives(logs: dict[str, Path]) -> None:
    one = json.loads(cli("shadow", str(logs["pairs"]), "--json")[0])
    two = json.loads(cli("shadow", str(logs["pairs"]), "--json", "--workers", "2")[0])
    assert one == two


def test_redact_keeps_text_and_values_out_of_every_output(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    page = tmp_path / "shadow.html"
    out, _ = cli("shadow", str(logs["pairs"]), "--json", "--redact", "--html", str(page))
    for text in (out, page.read_text()):
        assert "Rome" not in text
        assert "forecast" not in text
    assert "get_weather" in out


def test_a_malformed_line_is_an_error_naming_the_file_and_line(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.jsonl"
    lines = logs["chat"].read_text().splitlines()
    broken.write_text("\n".join([lines[0], '{"messages": [', *lines[1:]]) + "\n")
    _, err = cli("shadow", str(broken), code=2)
    assert f"{broken}:2" in err
    out, _ = cli("shadow", str(broken), "--json", "--skip-bad-lines")
    document = json.loads(out)
    assert document["skipped"] == {"malformed_json": 1}
    assert document["calls"] == 5


def _unknown_role(line: dict[str, Any]) -> None:
    line["request"]["messages"].append({"role": "wizard", "content": "abracadabra"})


def _tool_not_offered(line: dict[str, Any]) -> None:
    line["response"]["choices"][0]["message"]["tool_calls"][0]["function"]["name"] = "launch"


def _arguments_not_json(line: dict[str, Any]) -> None:
    line["response"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = "{ci"


@pytest.mark.parametrize(
    ("spoil", "said", "reason"),
    [
        (_unknown_role, "unknown role 'wizard'", "unknown_role"),
        (_tool_not_offered, "'launch', not offered", "tool_not_offered"),
        (_arguments_not_json, "arguments are not JSON", "arguments_not_json"),
    ],
    ids=["unknown role", "tool not offered", "arguments not JSON"],
)
def test_a_line_the_reader_cannot_use_is_named_or_counted_by_every_log_command(
    tmp_path: Path, spoil: Callable[[dict[str, Any]], None], said: str, reason: str
) -> None:
    """Each unusable line is an error naming the file and line (exit 2), or, with
    ``--skip-bad-lines``, a skip counted under its reason while the rest is read."""
    line = json.loads(pairs_line(0, *TALKS[0]))
    spoil(line)
    log = tmp_path / "spoiled.jsonl"
    log.write_text(pairs_line(1, *TALKS[1]) + "\n" + json.dumps(line) + "\n")
    for command in (
        ["shadow", str(log)],
        ["import", "logs", str(log), "--out", str(tmp_path / "i")],
    ):
        _, err = cli(*command, code=2)
        assert f"{log}:2" in err
        assert said in err
        assert "Traceback" not in err
    document = json.loads(cli("shadow", str(log), "--json", "--skip-bad-lines")[0])
    assert (document["skipped"], document["calls"]) == ({reason: 1}, 1)
    cli("import", "logs", str(log), "--out", str(tmp_path / "i"), "--skip-bad-lines")
    imported = json.loads((tmp_path / "i" / "import-report.json").read_text())
    assert (imported["skipped"], imported["cases"]) == ({reason: 1}, 1)


def test_import_logs_writes_a_workload_every_command_accepts(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "imported"
    out, _ = cli("import", "logs", str(logs["pairs"]), "--out", str(target))
    assert "6 cases from 6 logged requests" in out
    workload = str(target / "workload-logs.jsonl")
    precision = json.loads(cli("precision", workload, "--plugins", str(target), "--json")[0])
    assert precision["overall"]["filled"] > 0
    assert "agreement with the logged model, not accuracy" in precision["truth"]
    assert "not accuracy" in cli("precision", workload, "--plugins", str(target))[0]
    cli("routing", workload, "--plugins", str(target), "--json")
    db = str(tmp_path / "runs.sqlite")
    for _ in range(2):
        cli("run", workload, "--plugins", str(target), "--provider", "simulated",
            "--simulated-latency", "1,2", "--warmup", "0", "--db", db, "--no-progress")  # fmt: skip
    runs = json.loads(cli("runs", db, "--json")[0])
    # Scored against the logged model's calls, the run's figures say so wherever they say
    # where they come from: the headline, the JSON, the page.
    report = json.loads(cli("report", db, "--json")[0])
    assert "agreement with the logged model, not accuracy" in report["provenance"]
    assert any("agreement with the logged model" in line for line in report["headline"])
    assert "agreement with the logged model" in " ".join(cli("report", db)[0].split())
    gated, _ = cli("gate", db, "--run", runs[1]["run_id"], "--baseline", runs[0]["run_id"],
                   "--json")  # fmt: skip
    assert json.loads(gated)["checks"]
    swept = cli("sweep", workload, "--plugins", str(target), "--vary", "wrong_value=0,0.1",
                "--db", str(tmp_path / "sweep.sqlite"), "--no-progress", "--json")  # fmt: skip
    assert "agreement with the logged model, not accuracy" in json.loads(swept[0])["truth"]


def test_tools_the_registry_refuses_are_named_or_counted(tmp_path: Path) -> None:
    broken = {"type": "function", "function": {"name": "get_weather",
                                               "parameters": {"type": "nonsense"}}}  # fmt: skip
    line = json.loads(pairs_line(0, *TALKS[0]))
    line["request"]["tools"] = [broken]
    log = tmp_path / "broken-tools.jsonl"
    log.write_text(json.dumps(line) + "\n" + pairs_line(1, *TALKS[1]) + "\n")
    _, err = cli("shadow", str(log), code=2)
    assert f"{log}:1" in err
    assert "tools offered" in err
    document = json.loads(cli("shadow", str(log), "--json", "--skip-bad-lines")[0])
    assert document["skipped"] == {"bad_tools": 1}
    assert document["calls"] == 1


def _many_tools(line: dict[str, Any]) -> None:
    line["request"]["tools"] = TOOLS + [
        {"type": "function", "function": {"name": f"tool_{i}", "parameters": {"type": "object"}}}
        for i in range(20_001 - len(TOOLS))
    ]


def _many_messages(line: dict[str, Any]) -> None:
    line["request"]["messages"] *= 1_001


def _many_schema_values(line: dict[str, Any]) -> None:
    line["request"]["tools"][1]["function"]["parameters"]["properties"]["minutes"]["enum"] = list(
        range(1, 20_002)
    )


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (_many_tools, "too large: 20,001 tools offered; a request is decided on 128 at most"),
        (_many_messages, "too large: 1,001 messages; a request is decided on 1,000 at most"),
        (_many_schema_values, "too large: the tools' schemas hold more than 20,000 JSON values"),
    ],
    ids=["20,001 tools", "1,001 messages", "20,001 schema values"],
)
def test_a_request_past_the_bounds_is_named_or_counted_as_too_large(
    tmp_path: Path, spoil: Callable[[dict[str, Any]], None], said: str
) -> None:
    """A request past ``logs.bounds`` is refused naming its file and line (exit 2), or, with
    ``--skip-bad-lines``, counted as too_large while the rest is read (issue 36: 20,001
    tools once cost 15 s of CPU)."""
    line = json.loads(pairs_line(0, *TALKS[0]))
    spoil(line)
    log = tmp_path / "huge.jsonl"
    log.write_text(pairs_line(1, *TALKS[1]) + "\n" + json.dumps(line) + "\n")
    _, err = cli("shadow", str(log), code=2)
    assert f"{log}:2: {said}" in err
    document = json.loads(cli("shadow", str(log), "--json", "--skip-bad-lines")[0])
    assert (document["skipped"], document["calls"]) == ({"too_large": 1}, 1)


def test_the_parsers_default_agreement_is_the_figures(tmp_path: Path) -> None:
    from agent_lab.cli.parser import build_parser
    from agent_lab.log_replay.figures import DEFAULT_MIN_AGREEMENT

    options = build_parser().parse_args(["shadow", str(tmp_path)])
    assert options.min_agreement == DEFAULT_MIN_AGREEMENT


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    junk=st.lists(
        st.one_of(
            st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda inner: (
                    st.lists(inner, max_size=4)
                    | st.dictionaries(
                        st.sampled_from(
                            [
                                "messages",
                                "tools",
                                "request",
                                "response",
                                "role",
                                "content",
                                "tool_calls",
                                "function",
                                "name",
                                "arguments",
                                "choices",
                                "message",
                                "usage",
                                "type",
                                "parameters",
                            ]
                        ),
                        inner,
                        max_size=5,
                    )
                ),
                max_leaves=20,
            ).map(json.dumps),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_fuzzed_log_never_crashes_the_command(tmp_path: Path, junk: list[str]) -> None:
    """Whatever the lines hold: exit 0 with --skip-bad-lines, 0 or 2 without; never a traceback."""
    log = tmp_path / "fuzzed.jsonl"
    good = pairs_line(0, *TALKS[0])
    log.write_text("\n".join([good, *(j.replace("\n", " ") for j in junk)]) + "\n")
    out, err = io.StringIO(), io.StringIO()
    code = run(["shadow", str(log), "--json", "--skip-bad-lines"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    json.loads(out.getvalue())
    assert run(["shadow", str(log), "--json"], stdout=io.StringIO(), stderr=err) in (0, 2)
    assert "Traceback" not in err.getvalue()


def test_import_logs_reads_in_one_process_unless_ray_is_named(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    _, err = cli("import", "logs", str(logs["pairs"]), "--out", str(tmp_path / "i"),
                 "--workers", "2", code=2)  # fmt: skip
    assert "--workers needs --engine ray here" in err


def test_a_store_is_read_over_a_time_window(tmp_path: Path) -> None:
    """--since and --until select a store's rows by arrival (UTC unless an offset is given)."""
    from agent_lab.exchange_stores import NewRow, open_exchanges

    store = tmp_path / "gateway.sqlite"
    table = open_exchanges(str(store), create=True)
    table.insert(
        [
            NewRow(
                request_id=str(i),
                at=f"2026-12-0{i + 1}T12:00:00.000+00:00",
                origin="upstream",
                status=200,
                line=pairs_line(i, *talk),
                decision=None,
                worker=1,
            )
            for i, talk in enumerate(TALKS)
        ]
    )
    table.close()

    def requests(*window: str) -> int:
        return int(json.loads(cli("shadow", str(store), "--json", *window)[0])["requests"])

    assert requests() == len(TALKS)
    assert requests("--since", "2026-12-03") == len(TALKS) - 2
    assert requests("--since", "2026-12-02", "--until", "2026-12-04T12:00") == 2
    # Noon at +02:00 is ten in UTC: the row of 2026-12-04 at noon UTC is after it.
    assert requests("--until", "2026-12-04T12:00+02:00") == 3


def test_a_window_needs_a_store_and_an_order(logs: dict[str, Path], tmp_path: Path) -> None:
    _, err = cli("shadow", str(logs["chat"]), "--since", "2026-12-01", code=2)
    assert "select a gateway store's rows: name a store" in err
    store = tmp_path / "gateway.sqlite"
    from agent_lab.exchange_stores import open_exchanges

    open_exchanges(str(store), create=True).close()
    _, err = cli("shadow", str(store), "--since", "2026-12-02", "--until", "2026-12-01", code=2)
    assert "is not before --until" in err
    _, err = cli("shadow", str(store), "--since", "yesterday", code=2)
    assert "is not an ISO 8601 date or time" in err


def test_a_postgresql_store_is_read_in_one_process() -> None:
    _, err = cli("shadow", "postgresql://gateway@db.invalid/agent", "--engine", "ray", code=2)
    assert "a gateway's store is read in one process" in err
