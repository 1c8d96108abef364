"""Rules learned on one half of the demo workload, measured on the other half with agent-lab run.

    uv run python benchmarks/learn_demo_halves.py [--out DIR] [--seed 0] [--min-precision 0.99]
        [--min-support 20] [--json]

The demo's 401 cases are split in two by a stable draw from each case's id
(``--seed``). ``agent-lab learn --workload A --plugins agent_lab.demo:plugins``
learns on half A (its own held-out gate inside A); then ``agent-lab run B
--policy deterministic-first`` runs half B against the simulated model (its
ideal profile, the truth as its oracle), once without the rules and once
with ``--rules``. Per run: the share of B's cases answered with no LLM call,
and accuracy, each with its Wilson 95% interval. Every command runs as a
user would run it; the files stay in ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

from agent_lab.cli import run
from agent_lab.lab.workload import load_workload
from agent_lab.log_replay.intervals import wilson

PLUGINS = "agent_lab.demo:plugins"


def in_half_a(case_id: str, seed: int) -> bool:
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    return digest[0] < 128


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    if code != 0:
        raise SystemExit(f"agent-lab {' '.join(argv)} failed ({code}): {err.getvalue()}")
    return out.getvalue()


def figures(db: Path) -> dict[str, object]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT llm_calls, correct FROM trials WHERE NOT warmup"
        ).fetchall()
    cases = len(rows)
    local = sum(1 for calls, _ in rows if calls == 0)
    right = sum(1 for _, correct in rows if correct)
    return {
        "cases": cases,
        "no_llm_call": local,
        "no_llm_call_interval": wilson(local, cases),
        "correct": right,
        "accuracy_interval": wilson(right, cases),
    }


def measure(args: argparse.Namespace, folder: Path) -> dict[str, object]:
    workload = load_workload("demo")
    raw = {json.loads(line)["id"]: line for line in _lines()}
    half_a = folder / "demo-half-a.jsonl"
    half_b = folder / "demo-half-b.jsonl"
    half_a.write_text("".join(raw[c.id] for c in workload.cases if in_half_a(c.id, args.seed)))
    half_b.write_text("".join(raw[c.id] for c in workload.cases if not in_half_a(c.id, args.seed)))
    rules = folder / "rules.json"
    learning = ["learn", "--workload", str(half_a), "--plugins", PLUGINS, "--out", str(rules)]
    learning += ["--min-precision", str(args.min_precision)]
    learning += ["--min-support", str(args.min_support), "--json"]
    learned = json.loads(cli(*learning))
    runs: dict[str, object] = {}
    for name, extra in (("without rules", []), ("with rules", ["--rules", str(rules)])):
        db = folder / f"run-{name.replace(' ', '-')}.sqlite"
        db.unlink(missing_ok=True)
        cli(
            "run", str(half_b), "--plugins", PLUGINS, "--policy", "deterministic-first",
            "--provider", "simulated", "--llm-profile", "ideal", "--simulated-latency", "1,2",
            "--warmup", "0", "--no-progress", "--db", str(db), *extra,
        )  # fmt: skip
        runs[name] = figures(db)
    return {
        "seed": args.seed,
        "half_a_cases": sum(1 for _ in half_a.open()),
        "half_b_cases": sum(1 for _ in half_b.open()),
        "rules_kept": len(learned["rules"]["rules"]),
        "refused": learned["refused"],
        "runs": runs,
    }


def _lines() -> list[str]:
    from importlib.resources import files

    text = files("agent_lab.demo").joinpath("workload.jsonl").read_text(encoding="utf-8")
    return [line + "\n" for line in text.splitlines() if line.strip()]


def markdown(result: dict[str, object]) -> str:
    runs = result["runs"]
    lines = [
        f"Learned on half A ({result['half_a_cases']} cases): {result['rules_kept']} rules kept "
        f"(refused: {result['refused']}). Run on half B ({result['half_b_cases']} cases):",
        "",
        "| deterministic-first on half B (simulated model, ideal profile) | no LLM call "
        "| accuracy |",
        "| --- | --- | --- |",
    ]
    for name, got in cast("dict[str, dict[str, Any]]", runs).items():
        cases = got["cases"]
        low, high = got["no_llm_call_interval"]
        a_low, a_high = got["accuracy_interval"]
        lines.append(
            f"| {name} | {got['no_llm_call']} / {cases} ({got['no_llm_call'] / cases:.1%} "
            f"[{low:.1%}, {high:.1%}]) | {got['correct']} / {cases} "
            f"({got['correct'] / cases:.1%} [{a_low:.1%}, {a_high:.1%}]) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--out", help="keep the halves, the rules and the runs here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-precision", type=float, default=0.99)
    parser.add_argument("--min-support", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        result = measure(args, folder)
    else:
        with tempfile.TemporaryDirectory() as scratch:
            result = measure(args, Path(scratch))
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
