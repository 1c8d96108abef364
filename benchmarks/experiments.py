"""The published experiment on public benchmarks: SGD (train and dev), BFCL, and the demo.

One command reproduces every table of docs/experiments.md:

    uv run python benchmarks/experiments.py CORPORA_DIR [--out experiments] [--local-sample N]
    uv run python benchmarks/experiments.py --report-only [--out experiments]

CORPORA_DIR holds ``sgd/train``, ``sgd/dev`` and ``bfcl`` (the shared corpora).
For each workload it imports the benchmark and then, through the
``agent-lab`` command only (each command is printed as it runs, so every
step can be rerun by hand):

* measures the deterministic precision per kind of value, no LLM, on SGD
  train (where the resolver's rules were tuned) and on dev (held out), and
  with SGD's services left out fold by fold (``leave_services_out.py``);
* runs the three policies on every case under the sighted simulated model,
  once per error profile in ``--profiles`` (default ``ideal`` and
  ``typical``), and once under the oracle (the answer key: a ceiling);
* sweeps the simulated model's ``wrong_value`` rate and states the
  break-even (``--sweep-limit`` cases, at a 1 ms simulated latency, since a
  sweep measures accuracy and requests, not time);
* with ``--local-sample N`` (default 40, 0 to skip), runs the embedded local
  model on a stratified sample of N cases, and ``agent-lab demo`` itself;
* measures routing with no LLM (``agent-lab routing``): the lexical router's
  margin on BFCL multiple, the demo's routes against its lexical figure, and
  the lone-candidate name rule on BFCL simple and irrelevance and on the
  demo's events one at a time (tuned on even case numbers, reported on odd).
  ``--routing-only`` runs this part alone. What the name rule saves is in the
  BFCL simple and parallel runs themselves: the importer never names a
  question's function, so each goes through routing.

Each figure comes from ``agent-lab report --json``, ``precision --json`` or
``sweep --json``, the same numbers the reports print. The tables are written,
in Markdown, to ``OUT/summary.md``.

``--report-only`` runs no trial and imports nothing: it recomputes every
table from what an earlier run left in ``--out`` (its stores, imported
folders and the services-left-out imports), rewrites the HTML reports and
``summary.md``, and needs no CORPORA_DIR. Give it the options the run had
(``--only``, ``--profiles``, ``--sweep-limit``, ``--local-sample``,
``--no-demo``): a store they name that is missing is an error. The sweeps
are re-read from their stores by the function ``agent-lab sweep`` itself
reports with.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from agent_lab.cli.commands.sweep import read_sweep, show_sweep
from agent_lab.cli.loading import Streams
from agent_lab.errors import AgentLabError

SGD = {"sgd-payload": "workload-payload.jsonl", "sgd-utterance": "workload-utterance.jsonl"}
BFCL = {
    "bfcl-simple": "workload-simple_python.jsonl",
    "bfcl-multiple": "workload-multiple.jsonl",
    "bfcl-parallel": "workload-parallel.jsonl",
    "bfcl-parallel-multiple": "workload-parallel_multiple.jsonl",
    "bfcl-irrelevance": "workload-irrelevance.jsonl",
}
WORKLOADS = {
    "demo": ("demo", "demo"),
    **{k: ("sgd", v) for k, v in SGD.items()},
    **{k: ("bfcl", v) for k, v in BFCL.items()},
}
RATES = "0,0.01,0.02,0.05,0.1,0.2"


class Lab:
    """Runs ``agent-lab`` commands, logging each with its output."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.log = out / "commands.log"

    def __call__(self, *argv: str) -> str:
        command = ["agent-lab", *argv]
        print("$ " + shlex.join(command), flush=True)
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        with self.log.open("a", encoding="utf-8") as handle:
            handle.write("$ " + shlex.join(command) + "\n" + done.stdout + done.stderr + "\n")
        if done.returncode != 0:
            sys.exit(f"failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def json(self, *argv: str) -> Any:
        return json.loads(self(*argv, "--json"))

    def reread_sweep(self, db: Path) -> Any:
        """The latest sweep in ``db`` as ``sweep --json`` prints it; its page rewritten."""
        html = db.with_suffix(".html")
        line = f"# re-read the sweep in {db} (agent_lab.cli.commands.sweep.read_sweep), page {html}"
        print(line, flush=True)
        printed, errors = io.StringIO(), io.StringIO()
        streams = Streams(printed, errors, Console(file=printed))
        try:
            show_sweep(read_sweep(db, None), streams, as_json=True, html=str(html))
        except AgentLabError as err:
            sys.exit(f"failed: {err}")
        with self.log.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n" + printed.getvalue() + errors.getvalue() + "\n")
        return json.loads(printed.getvalue())


def pct(estimate: dict[str, Any]) -> str:
    """``98.5% [98.1, 98.8]``, or ``n/a`` when unknown."""
    if estimate.get("value") is None:
        return "n/a"
    value, low, high = estimate["value"], estimate["low"], estimate["high"]
    return f"{value:.1%} [{low:.1%}, {high:.1%}]".replace("%,", ",").replace("%]", "]")


def number(estimate: dict[str, Any], digits: int = 2) -> str:
    value = estimate.get("value")
    return "n/a" if value is None else f"{value:.{digits}f}"


PRECISION_HEADER: tuple[str, ...] = (
    "| split | workload | values filled | precision | "
    "boolean | date | enum | free-form | number | time |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
)


def precision_row(split: str, name: str, figures: dict[str, Any]) -> str:
    overall = figures["overall"]
    kinds = figures["by_kind"]

    def kind(name: str) -> str:
        if name not in kinds or not kinds[name]["filled"]:
            return "-"
        k = kinds[name]
        # Coverage: of the truth's values of this kind, the share filled at all.
        coverage = "" if k.get("coverage") is None else f"; {k['coverage']:.0%}"
        return f"{k['precision']:.2%} [{k['low']:.1%}, {k['high']:.1%}] ({k['filled']}{coverage})"

    cells = [kind(k) for k in ("boolean", "date", "enum", "free-form", "number", "time")]
    precision = pct({"value": overall["precision"], "low": overall["low"], "high": overall["high"]})
    return f"| {split} | {name} | {overall['filled']} | {precision} | " + " | ".join(cells) + " |"


POLICY_HEADER: tuple[str, ...] = (
    "| workload | model | policy | trials | accuracy (95% CI) | in domain | out of domain "
    "| exact | LLM calls/trial | tokens/trial | p50 ms |",
    "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
)


def policy_rows(
    name: str, model: str, report: dict[str, Any], *, references: bool = True
) -> list[str]:
    rows = [
        f"| {name} | {model} | {p['policy']} | {p['trials']} | {pct(p['accuracy'])} "
        f"| {number(p['accuracy_in_domain'], 3)} | {number(p['accuracy_out_of_domain'], 3)} "
        f"| {number(p['accuracy_exact'], 3)} | {number(p['llm_calls_per_trial'])} "
        f"| {number(p['tokens_per_trial'], 0)} | {number(p['latency_p50_ms'], 1)} |"
        for p in report["policies"]
    ]
    rows += [
        f"| {name} | (no LLM) | *{r['name']}* | | {pct(r['accuracy'])} | | | | 0 | 0 | |"
        for r in report["references"]
        if references
    ]
    return rows


SWEEP_HEADER: tuple[str, ...] = (
    "| workload | wrong_value | deterministic-first | llm-always | always-decline "
    "| det-first LLM calls/trial |",
    "| --- | ---: | --- | --- | --- | ---: |",
)


def sweep_rows(name: str, sweep: dict[str, Any]) -> list[str]:
    decline = pct(sweep["always_decline"])
    return [
        f"| {name} | {point['setting']['wrong_value']:g} "
        f"| {pct(point['accuracy']['deterministic-first'])} "
        f"| {pct(point['accuracy']['llm-always'])} | {decline} "
        f"| {number(point['llm_calls_per_trial']['deterministic-first'])} |"
        for point in sweep["points"]
    ]


def break_even_line(name: str, sweep: dict[str, Any]) -> str:
    lines: list[str] = []
    for b in sweep["break_even"]:
        if b["value"] is None:
            lines.append(f"* {name}: none in range ({RATES})")
            continue
        low = "below range" if b["low"] is None else f"{b['low']:.3g}"
        high = "above range" if b["high"] is None else f"{b['high']:.3g}"
        lines.append(f"* {name}: {b['value']:.3g} [{low}, {high}]; above it, {b['above']} wins")
    return "\n".join(lines)


NO_REGRET_HEADER: tuple[str, ...] = (
    "| workload | det-first requests/trial | llm-always | requests ratio (95% CI) "
    "| tokens/trial | llm-always | tokens ratio (95% CI) | paths (det-first trials) |",
    "| --- | ---: | ---: | --- | ---: | ---: | --- | --- |",
)


def ratio(report: dict[str, Any], metric: str) -> str:
    for c in report["comparisons"]:
        if c["policy"] == "deterministic-first" and c["metric"] == metric:
            r = c["ratio"]
            if r["value"] is None:
                return "n/a"
            return f"{r['value']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
    return "n/a"


def no_regret_row(name: str, report: dict[str, Any], db: Path) -> str:
    by = {p["policy"]: p for p in report["policies"]}
    first, always = by["deterministic-first"], by["llm-always"]
    with sqlite3.connect(db) as connection:
        paths = connection.execute(
            "SELECT path, COUNT(*) FROM trials WHERE warmup = 0 AND policy = ? "
            "GROUP BY path ORDER BY COUNT(*) DESC",
            ("deterministic-first",),
        ).fetchall()
    shown = ", ".join(f"{path} {count}" for path, count in paths)
    return (
        f"| {name} | {number(first['llm_calls_per_trial'], 3)} "
        f"| {number(always['llm_calls_per_trial'], 3)} | {ratio(report, 'llm_calls')} "
        f"| {number(first['tokens_per_trial'], 0)} | {number(always['tokens_per_trial'], 0)} "
        f"| {ratio(report, 'tokens')} | {shown} |"
    )


ROUTING_HEADER: tuple[str, ...] = (
    "| workload | split | router | margin | routed | right | precision (Wilson 95%) | coverage "
    "| with the name rule too: routed, right |",
    "| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |",
)


def routing_rows(name: str, split: str, figures: dict[str, Any]) -> list[str]:
    def setting(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    def named(m: dict[str, Any]) -> str:
        return "-" if m["named_routed"] is None else f"{m['named_routed']}, {m['named_right']}"

    return [
        f"| {name} | {split} | {m['router']} | {setting(m['margin'])} | {m['routed']} "
        f"| {m['right']} | {pct({'value': m['precision'], 'low': m['low'], 'high': m['high']})} "
        f"| {m['coverage']:.1%} | {named(m)} |"
        for m in figures["figures"]
    ]


NAME_RULE_HEADER: tuple[str, ...] = (
    "| workload | split | name share | asked | in domain | routed | right "
    "| precision (Wilson 95%) | coverage |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
)
NAME_SHARES = "0.5,0.6,0.7,0.75,0.8,0.9,1"


def name_rule_rows(name: str, split: str, figures: dict[str, Any]) -> list[str]:
    return [
        f"| {name} | {split} | {m['name_share']:g} | {m['cases']} | {m['in_domain']} "
        f"| {m['routed']} | {m['right']} "
        f"| {pct({'value': m['precision'], 'low': m['low'], 'high': m['high']})} "
        f"| {m['coverage']:.1%} |"
        for m in figures["figures"]
    ]


def tune_and_report(split: str) -> str:
    return f"{split} ({'tune' if split == 'even' else 'report'})"


def section(title: str, lines: list[str]) -> str:
    return f"### {title}\n\n" + "\n".join(lines) + "\n"


def model_runs(profiles: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(store suffix, label, provider options): each profile, then the oracle."""
    runs: list[tuple[str, str, tuple[str, ...]]] = [
        (p, f"simulated, {p}", ("--provider", "simulated", "--llm-profile", p))
        for p in profiles.split(",")
    ]
    runs.append(("oracle", "ORACLE (a ceiling, not a model)", ("--provider", "oracle")))
    return runs


def inputs(options: argparse.Namespace) -> list[Path]:
    """What a ``--report-only`` pass reads from ``--out``, to check before any work."""
    out: Path = options.out
    names: list[str] = options.only or list(WORKLOADS)
    sources = {WORKLOADS[n][0] for n in names}
    found = [out / "bfcl"] if "bfcl" in sources else []
    if options.routing_only:
        return found
    if "sgd" in sources:
        folds = out / "leave-services-out"
        found += [out / "sgd", out / "sgd-train", folds / "sgd-train", folds / "sgd-dev"]
    for name in names:
        found += [out / f"{name}-{short}.sqlite" for short, _, _ in model_runs(options.profiles)]
        found.append(out / f"{name}-sweep.sqlite")
        if options.local_sample and WORKLOADS[name][0] != "demo":
            found.append(out / f"{name}-local.sqlite")
    if options.local_sample and not options.no_demo:
        found.append(out / "demo" / "results.sqlite")
    return found


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("corpora", type=Path, nargs="?", help="holds sgd/train, sgd/dev and bfcl")
    parser.add_argument("--out", type=Path, default=Path("experiments"))
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    parser.add_argument("--profiles", default="ideal,typical")
    parser.add_argument("--concurrency", default="128")
    parser.add_argument("--sweep-limit", type=int, default=1000)
    parser.add_argument("--local-sample", type=int, default=40)
    parser.add_argument("--no-demo", action="store_true", help="skip agent-lab demo")
    parser.add_argument(
        "--routing-only", action="store_true", help="only the routing tables (no LLM)"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="no trial, no import: every table again from the stores and folders in --out",
    )
    options = parser.parse_args()
    if not options.report_only:
        if options.corpora is None:
            parser.error("CORPORA_DIR is required (unless --report-only)")
        return options
    if options.corpora is not None:
        parser.error("--report-only reads --out alone: give no CORPORA_DIR")
    missing = [path for path in inputs(options) if not path.exists()]
    if missing:
        parser.error(
            f"--report-only: {missing[0]} is missing ({len(missing)} missing in all); "
            "run without --report-only first, or give the --only, --profiles, "
            "--local-sample and --no-demo the run had"
        )
    return options


def leave_services_out(corpora: Path | None, folds: Path) -> str:
    """The services-left-out tables, from CORPORA or (``None``) from the imports in ``folds``."""
    script = Path(__file__).with_name("leave_services_out.py")
    source = ["--imported"] if corpora is None else [str(corpora)]
    command = [sys.executable, str(script), *source, "--out", str(folds)]
    print("$ " + shlex.join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {done.stderr.strip()}")
    return (folds / "leave-services-out.md").read_text(encoding="utf-8")


def main() -> None:
    options = parse_options()
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    lab = Lab(out)
    fresh = not options.report_only
    names: list[str] = options.only or list(WORKLOADS)
    sources = {WORKLOADS[n][0] for n in names}

    sgd_train, sgd_dev, bfcl = out / "sgd-train", out / "sgd", out / "bfcl"
    if fresh and not options.routing_only and "sgd" in sources:
        lab("import", "sgd", str(options.corpora / "sgd/dev"), "--out", str(sgd_dev))
        lab("import", "sgd", str(options.corpora / "sgd/train"), "--out", str(sgd_train))
    if fresh and "bfcl" in sources:
        lab("import", "bfcl", str(options.corpora / "bfcl"), "--out", str(bfcl))

    leave_out = ""
    if not options.routing_only and "sgd" in sources:
        leave_out = leave_services_out(options.corpora, out / "leave-services-out")
    precision = list(PRECISION_HEADER)
    policies = list(POLICY_HEADER)
    sweeps = list(SWEEP_HEADER)
    break_evens: list[str] = []
    local = list(POLICY_HEADER)
    no_regret = list(NO_REGRET_HEADER)
    routing = list(ROUTING_HEADER)
    name_rule = list(NAME_RULE_HEADER)
    for name in names:
        source, workload = WORKLOADS[name]
        data = sgd_dev if source == "sgd" else bfcl
        cases = "demo" if source == "demo" else str(data / workload)
        plugins = ("--plugins", "agent_lab.demo:plugins" if source == "demo" else str(data))
        splits = [("train", sgd_train), ("dev", sgd_dev)] if source == "sgd" else [("", bfcl)]
        if name == "bfcl-multiple":
            margins = ("--margins", "0,0.05,0.1,0.2,0.3,0.5")
            for split in ("even", "odd"):
                figures = lab.json("routing", cases, *plugins, *margins, "--split", split)
                routing += routing_rows(name, tune_and_report(split), figures)
        if name == "demo":
            routing += routing_rows(name, "all", lab.json("routing", cases, *plugins))
            figures = lab.json("routing", cases, *plugins, "--lexical-only")
            routing += routing_rows(name, "all (report)", figures)
        if name in ("demo", "bfcl-simple", "bfcl-irrelevance"):
            for split in ("even", "odd"):
                figures = lab.json(
                    "routing", cases, *plugins, "--one-event", "--name-shares", NAME_SHARES,
                    "--split", split,
                )  # fmt: skip
                name_rule += name_rule_rows(name, tune_and_report(split), figures)
        if options.routing_only:
            continue
        if source != "demo" and "parallel" not in name and "irrelevance" not in name:
            for split, folder in splits:
                figures = lab.json("precision", str(folder / workload), "--plugins", str(folder))
                precision.append(precision_row(split or "-", name, figures))
        common = (*plugins, "--no-progress", "--concurrency", options.concurrency)
        for index, (short, label, provider) in enumerate(model_runs(options.profiles)):
            db = out / f"{name}-{short}.sqlite"
            if fresh:
                db.unlink(missing_ok=True)
                lab("run", cases, *common, *provider, "--db", str(db))
            report = lab.json("report", str(db), "--html", str(db.with_suffix(".html")))
            policies += policy_rows(name, label, report, references=index == 0)
            if index == 0:
                no_regret.append(no_regret_row(name, report, db))
        db = out / f"{name}-sweep.sqlite"
        if fresh:
            db.unlink(missing_ok=True)
            sweep = lab.json(
                "sweep", cases, *common, "--db", str(db), "--limit", str(options.sweep_limit),
                "--simulated-latency", "1,2", "--vary", f"wrong_value={RATES}",
                "--html", str(db.with_suffix(".html")),
            )  # fmt: skip
        else:
            sweep = lab.reread_sweep(db)
        sweeps += sweep_rows(name, sweep)
        break_evens.append(break_even_line(name, sweep))
        if options.local_sample and source != "demo":
            db = out / f"{name}-local.sqlite"
            if fresh:
                db.unlink(missing_ok=True)
                lab("run", cases, *plugins, "--no-progress", "--provider", "local",
                    "--limit", str(options.local_sample), "--db", str(db))  # fmt: skip
            local += policy_rows(name, "local SmolLM2-135M", lab.json("report", str(db)))
    if options.local_sample and not options.no_demo and not options.routing_only:
        demo = out / "demo"
        if fresh:
            lab("demo", "--out", str(demo), "--no-progress")  # writes its own report.html
        page = () if fresh else ("--html", str(demo / "report.html"))
        report = lab.json("report", str(demo / "results.sqlite"), *page)
        local += policy_rows("demo", "local SmolLM2-135M", report)

    sections = [
        ("Deterministic precision (no LLM; rules tuned on train)", precision),
        ("Deterministic precision, services left out", [leave_out]),
        ("Policies, every case", policies),
        (f"Break-even sweep of wrong_value ({options.sweep_limit} cases)", sweeps),
        ("Break-even wrong_value (95% CI)", break_evens),
        ("No regret: deterministic-first against llm-always, paired", no_regret),
        ("The lexical router (no LLM)", routing),
        ("One candidate: the name rule (no LLM)", name_rule),
        (f"Local model ({options.local_sample}-case samples; the demo)", local),
    ]
    routing_sections = (routing, name_rule)
    text = "\n".join(
        section(title, lines)
        for title, lines in sections
        if not options.routing_only or any(lines is kept for kept in routing_sections)
    )
    (out / "summary.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
