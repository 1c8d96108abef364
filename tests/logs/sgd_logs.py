"""SGD dialogues rendered as an agent's logs (``chat`` or ``pairs`` lines): tests and experiments.

One conversation per dialogue: each user turn a user message; each system
turn whose frame calls a service an assistant message with that one tool
call, then a tool message with the service's results; each system turn then
the assistant's words. The tools offered are the events of the dialogue's
services, and a call's name and arguments are those of the importer's case
for it: the SGD importer itself runs (``import_sgd``), and its
``events.json`` and utterance workload are read back, so that nothing of
its mapping is written twice. A call the importer skips (a slot its intent
lacks, a value outside the enum...) is left out, the turn keeping its words.

In ``pairs``, each tool-call message is one line: the request (the messages
so far, the tools, the model) and a ``chat.completion`` with that call, whose
usage is an estimate (one token per four characters, ``estimate_tokens``),
labelled ``"estimated": true`` in the line's ``metadata``.

Run ``python -m tests.logs.sgd_logs SGD_SPLIT_DIR --format chat|pairs --out FILE``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_lab.lab.importers._sgd_data import read_dialogue
from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.providers.simulated import estimate_tokens
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

MODEL = "sgd-system"
"""The model a rendered ``pairs`` line names: SGD's own system, whose calls are the truth."""
CREATED = 1_551_398_400
"""2019-03-01T00:00:00Z, the dataset's "today" (``REFERENCE_DATE``): every rendered time."""
TIMESTAMP = "2019-03-01T00:00:00+00:00"
"""The same time as a ``chat`` line's ``timestamp`` (a ``pairs`` line's ``created``)."""


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class SGDLogs:
    """An SGD split folder's dialogues with the importer's events and cases, ready to render.

    Args:
        folder: An SGD split folder (``schema.json`` and ``dialogues_*.json``).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        with tempfile.TemporaryDirectory() as out:
            import_sgd(folder, out)
            events = loads(Path(out, "events.json").read_bytes(), max_bytes=1 << 30)
            workload = Path(out, "workload-utterance.jsonl").read_text(encoding="utf-8")
        assert isinstance(events, dict)
        definitions: list[Any] = events["events"]  # type: ignore[assignment]
        self.tools: dict[str, list[dict[str, Any]]] = {}
        for definition in definitions:
            spec = {
                "type": "function",
                "function": {
                    "name": definition["name"],
                    "description": definition["description"],
                    "parameters": definition["parameters"],
                },
            }
            self.tools.setdefault(definition["service"], []).append(spec)
        self.cases: dict[str, dict[str, Any]] = {
            case["id"]: case for case in map(json.loads, workload.splitlines())
        }

    def dialogues(self) -> Iterator[dict[str, Any]]:
        """The raw dialogues, in the importer's order (files sorted, then as each file has them)."""
        for path in sorted(self.folder.glob("dialogues_*.json")):
            loaded = loads(path.read_bytes(), max_bytes=1 << 30)
            assert isinstance(loaded, list)
            yield from (item for item in loaded if isinstance(item, dict))

    def conversation(self, raw: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """A dialogue's messages, and the index of each tool-call message's case id among them."""
        dialogue = read_dialogue(raw)
        messages: list[dict[str, Any]] = []
        calls: list[str] = []
        for index, turn in enumerate(dialogue.turns):
            if turn.speaker == "USER":
                messages.append({"role": "user", "content": turn.utterance})
                continue
            case = self.cases.get(f"{dialogue.id}-{index:02d}")
            frames = raw["turns"][index]["frames"]
            if case is not None:
                empty: list[Any] = []
                results: Any = next(
                    (f.get("service_results", empty) for f in frames if "service_call" in f), empty
                )
                call_id = f"call_{case['id']}"
                arguments = case["expected"]["arguments"]
                call = {"name": case["event"], "arguments": _dumps(arguments)}
                messages.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": call_id, "type": "function", "function": call}],
                    }
                )
                calls.append(case["id"])
                messages.append(
                    {"role": "tool", "tool_call_id": call_id, "content": _dumps(results)}
                )
            messages.append({"role": "assistant", "content": turn.utterance})
        return messages, calls

    def offered(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        """The tools a dialogue offers: every event of each of its services."""
        return [tool for service in raw.get("services", []) for tool in self.tools.get(service, [])]

    def render(self, format: Literal["chat", "pairs"]) -> Iterator[str]:
        """The log's lines, without newlines: one per dialogue (chat) or per call (pairs)."""
        for raw in self.dialogues():
            messages, cases = self.conversation(raw)
            tools = self.offered(raw)
            if format == "chat":
                yield _dumps({"messages": messages, "tools": tools, "timestamp": TIMESTAMP})
                continue
            calls = iter(cases)
            for index, message in enumerate(messages):
                if message.get("tool_calls"):
                    yield _dumps(_pair(messages[:index], tools, message, next(calls)))


def _pair(
    sent: list[dict[str, Any]], tools: list[dict[str, Any]], message: dict[str, Any], case: str
) -> dict[str, Any]:
    request = {"model": MODEL, "messages": sent, "tools": tools}
    usage = {
        "prompt_tokens": estimate_tokens(_dumps(sent) + _dumps(tools)),
        "completion_tokens": estimate_tokens(_dumps(message["tool_calls"])),
    }
    response = {
        "id": f"chatcmpl-{case}",
        "object": "chat.completion",
        "created": CREATED,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": usage,
    }
    return {
        "request": request,
        "response": response,
        "metadata": {"estimated": True, "source": "sgd", "case": case},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Write an SGD split's dialogues as a log file; print how many lines."""
    parser = argparse.ArgumentParser(prog="python -m tests.logs.sgd_logs", description=__doc__)
    parser.add_argument("folder", type=Path, help="an SGD split folder (schema.json, dialogues_*)")
    parser.add_argument("--format", choices=("chat", "pairs"), required=True)
    parser.add_argument("--out", type=Path, required=True, help="the log file to write")
    options = parser.parse_args(argv)
    if not (options.folder / "schema.json").is_file():
        parser.error(f"{options.folder}: no schema.json, so no SGD split folder")
    lines = 0
    with options.out.open("w", encoding="utf-8") as out:
        for line in SGDLogs(options.folder).render(options.format):
            out.write(line + "\n")
            lines += 1
    sys.stdout.write(f"{lines} {options.format} lines written to {options.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
