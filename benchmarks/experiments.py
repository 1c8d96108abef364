"""The published experiment on public benchmarks: SGD dev (both variants), BFCL.

One command reproduces every table of docs/experiments.md:

    uv run python benchmarks/experiments.py CORPORA_DIR [--out experiments] [--local-sample N]

CORPORA_DIR holds ``sgd/dev`` and ``bfcl`` (the shared corpora). For each
workload it imports the benchmark, measures the deterministic precision per
kind of value (no LLM), runs the three policies under the simulated provider
on every case, and, with ``--local-sample N`` (default 60, 0 to skip), under
the embedded local model on a stratified sample of N cases. Each run is saved
in its own database with an HTML report; a summary table in Markdown is
printed and written to ``OUT/summary.md``.

Everything goes through the ``agent-lab`` command, so each step can also be
run by hand (the commands are printed as they run).
"""

from __future__ import annotations

import argparse
import shlex
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

WORKLOADS = {
    "sgd-payload": ("sgd", "sgd/dev", "workload-payload.jsonl"),
    "sgd-utterance": ("sgd", "sgd/dev", "workload-utterance.jsonl"),
    "bfcl-simple": ("bfcl", "bfcl", "workload-simple_python.jsonl"),
    "bfcl-multiple": ("bfcl", "bfcl", "workload-multiple.jsonl"),
    "bfcl-irrelevance": ("bfcl", "bfcl", "workload-irrelevance.jsonl"),
}


HEADER = (
    "| workload | provider | policy | trials | accuracy | LLM calls/trial | no LLM call "
    "| p50 ms | tokens/trial |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
)


def agent_lab(*argv: str, log: Path) -> str:
    command = ["agent-lab", *argv]
    print("$ " + shlex.join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    with log.open("a", encoding="utf-8") as handle:
        handle.write("$ " + shlex.join(command) + "\n" + done.stdout + done.stderr + "\n")
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def summary(db: Path) -> list[tuple[str, int, float, float, float, float, float]]:
    """policy, trials, accuracy, LLM calls/trial, share with no LLM call, p50 ms, tokens/trial."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            """
            SELECT policy, COUNT(*), AVG(correct), AVG(llm_calls), AVG(llm_calls = 0),
                   AVG(COALESCE(prompt_tokens, 0) + COALESCE(completion_tokens, 0))
            FROM trials WHERE warmup = 0 GROUP BY policy ORDER BY policy
            """
        ).fetchall()
        latencies = {
            policy: [
                ns for (ns,) in connection.execute(
                    "SELECT latency_ns FROM trials WHERE warmup = 0 AND policy = ?", (policy,)
                )
            ]
            for policy, *_ in rows
        }  # fmt: skip
    return [
        (policy, n, acc, calls, free, statistics.median(latencies[policy]) / 1e6, tokens)
        for policy, n, acc, calls, free, tokens in rows
    ]


def table_row(name: str, provider: str, db: Path) -> list[str]:
    return [
        f"| {name} | {provider} | {policy} | {n} | {acc:.1%} | {calls:.2f} "
        f"| {free:.1%} | {p50:.1f} | {tokens:.0f} |"
        for policy, n, acc, calls, free, p50, tokens in summary(db)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--out", type=Path, default=Path("experiments"))
    parser.add_argument("--local-sample", type=int, default=60)
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    parser.add_argument("--no-simulated", action="store_true", help="only the local-model runs")
    parser.add_argument(
        "--summary-only", action="store_true", help="print the table of the databases in --out"
    )
    options = parser.parse_args()
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    if options.summary_only:
        rows = [
            row
            for name in WORKLOADS
            for provider in ("simulated", "local")
            if (out / f"{name}-{provider}.sqlite").is_file()
            for row in table_row(name, provider, out / f"{name}-{provider}.sqlite")
        ]
        print("\n".join([*HEADER, *rows]))
        return
    log = out / "commands.log"
    imported: set[str] = set()
    lines = list(HEADER)
    for name in options.only or WORKLOADS:
        source, folder, workload = WORKLOADS[name]
        data = out / source
        if source not in imported:
            agent_lab("import", source, str(options.corpora / folder), "--out", str(data), log=log)
            imported.add(source)
        cases = str(data / workload)
        precision = agent_lab(
            "precision", cases, "--plugins", str(data), "--examples", "5", log=log
        )
        (out / f"{name}-precision.txt").write_text(precision, encoding="utf-8")
        runs: list[tuple[str, list[str]]] = []
        if not options.no_simulated:
            runs.append(("simulated", ["--provider", "simulated", "--concurrency", "64"]))
        if options.local_sample:
            runs.append(("local", ["--provider", "local", "--limit", str(options.local_sample)]))
        for provider, extra in runs:
            db = out / f"{name}-{provider}.sqlite"
            db.unlink(missing_ok=True)
            agent_lab(
                "run", cases, "--plugins", str(data), "--db", str(db), "--no-progress", *extra,
                log=log,
            )  # fmt: skip
            report = agent_lab("report", str(db), "--html", str(out / f"{name}-{provider}.html"),
                               log=log)  # fmt: skip
            (out / f"{name}-{provider}.txt").write_text(report, encoding="utf-8")
            lines += table_row(name, provider, db)
    table = "\n".join(lines) + "\n"
    summary_file = out / ("summary-local.md" if options.no_simulated else "summary.md")
    summary_file.write_text(table, encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
