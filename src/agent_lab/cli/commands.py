"""One function per ``agent-lab`` command, each ``(options, streams) -> exit code``.

Imports stay at the top, except what costs a second or more and only some
commands need: building a provider (``cli.providers``: the OpenAI SDK, about
2 s), running and reading results (``cli.trials``, ``cli.results``: numpy,
about 0.4 s) and drawing the report (matplotlib, about 1.5 s, inside
``cli.results.write_report``). So ``agent-lab --help`` stays fast.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from agent_lab.cli.checks import check_output_file, check_output_folder
from agent_lab.cli.loading import (
    DEMO_PLUGINS,
    POLICY_NAMES,
    Streams,
    load_cases,
    load_plugin_set,
    plugin_registry,
    with_rules_file,
)
from agent_lab.errors import (
    DatasetImportError,
    StoreError,
    UsageError,
)
from agent_lab.lab.importers.bfcl import import_bfcl
from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.lab.report.terminal import plain, printable
from agent_lab.lab.results.store import Store
from agent_lab.lab.stats.precision import measure_precision
from agent_lab.lab.stats.routing import measure_routing
from agent_lab.lab.workload import LOGGED_TRUTH, truth_is_logged
from agent_lab.providers.redaction import split_credentials
from agent_lab.strict_json import thaw_json

if TYPE_CHECKING:
    import argparse

    from agent_lab.application.events.registry import EventRegistry


__all__ = [
    "compare",
    "demo",
    "events",
    "export",
    "gate",
    "import_benchmark",
    "precision",
    "providers",
    "report",
    "routing",
    "run",
    "runs",
    "sweep",
]


def demo(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab demo``: the demo workload under the three policies, then the report."""
    from agent_lab.cli.providers import build_provider  # noqa: PLC0415 (the OpenAI SDK)
    from agent_lab.cli.results import write_report  # noqa: PLC0415 (numpy)
    from agent_lab.cli.trials import execute, failed_trials  # noqa: PLC0415 (numpy)

    folder = Path(options.out)
    check_output_folder(folder, "--out")
    plugins = load_plugin_set(DEMO_PLUGINS)
    workload = load_cases("demo", skip_bad=False, plugins=plugins, stderr=streams.err)
    built = build_provider(options, workload)
    db = folder / "results.sqlite"
    limit: int | None = None if options.full else options.limit
    concurrency = options.concurrency or (1 if options.provider == "local" else 8)
    print(
        printable(
            f"agent-lab demo: {'all' if limit is None else f'about {limit}'} of "
            f"{len(workload.cases)} cases, 3 policies, model {built.model} ({options.provider})"
        ),
        file=streams.out,
    )
    run_id = execute(
        built,
        workload=workload,
        plugins_ref=DEMO_PLUGINS,
        plugins=plugins,
        db=db,
        policies=POLICY_NAMES,
        settings={"limit": limit, "concurrency": concurrency, "seed": options.seed, "warmup": 2},
        resume=False,
        progress=not options.no_progress,
        stderr=streams.err,
        otel_file=None if options.otel_file is None else Path(options.otel_file),
    )
    written = write_report(
        db, run_id, str(folder / "report.html"), "llm-always", streams.console, wide=streams.wide
    )
    print(f"report: {written.resolve() if written else '-'}", file=streams.out)
    print(f"results: {db.resolve()} (agent-lab report {db})", file=streams.out)
    return failed_trials(db, run_id, streams.err, max_failure_rate=options.max_failure_rate)


def run(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab run``: a workload through the chosen policies, into a results database."""
    from agent_lab.cli.providers import build_provider  # noqa: PLC0415 (the OpenAI SDK)
    from agent_lab.cli.trials import execute, failed_trials  # noqa: PLC0415 (numpy)

    db = Path(options.db)
    check_output_file(db, "--db", regular=True)
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(
        options.workload, skip_bad=options.skip_bad_lines, plugins=plugins, stderr=streams.err
    )
    plugins, plugins_ref = with_rules_file(plugins, options.plugins, options.rules, streams.err)
    built = build_provider(options, workload)
    run_id = execute(
        built,
        workload=workload,
        plugins_ref=plugins_ref,
        plugins=plugins,
        db=db,
        policies=options.policy or POLICY_NAMES,
        settings={
            "repeats": options.repeats,
            "seed": options.seed,
            "limit": options.limit,
            "warmup": options.warmup,
            "concurrency": options.concurrency,
            "rate_limit": options.rate_limit,
            "timeout": options.timeout,
        },
        resume=options.resume,
        progress=not options.no_progress,
        stderr=streams.err,
        otel_file=None if options.otel_file is None else Path(options.otel_file),
    )
    print(
        f"run {run_id} saved in {options.db}; see it with: agent-lab report {options.db}",
        file=streams.out,
    )
    return failed_trials(db, run_id, streams.err, max_failure_rate=options.max_failure_rate)


def sweep(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab sweep``: the policies at each setting of the rates, and the break-even."""
    from agent_lab.cli.sweeping import sweep as run_sweep  # noqa: PLC0415 (the OpenAI SDK)

    return run_sweep(options, streams)


def report(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab report``: a run's tables, and the HTML report with ``--html``."""
    from agent_lab.cli.results import write_report  # noqa: PLC0415 (numpy)

    written = write_report(
        Path(options.db),
        options.run,
        options.html,
        options.baseline,
        streams.console,
        as_json=options.json,
        wide=streams.wide,
    )
    if written is not None:
        print(f"report: {written.resolve()}", file=streams.err if options.json else streams.out)
    return 0


def compare(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab compare``: policies against a baseline, or two runs, paired by case."""
    from agent_lab.cli.history import compare_two_runs  # noqa: PLC0415 (numpy)
    from agent_lab.cli.results import write_report  # noqa: PLC0415 (numpy)

    if options.runs:
        if len(options.runs) != 2 or options.baseline or options.run:
            raise UsageError("compare DB RUN_A RUN_B takes two run ids, and no --baseline or --run")
        return compare_two_runs(options, streams)
    if not options.baseline:
        raise UsageError("compare needs --baseline POLICY, or two run ids")

    write_report(
        Path(options.db),
        options.run,
        None,
        options.baseline,
        streams.console,
        baseline_required=True,
        as_json=options.json,
        wide=streams.wide,
    )
    return 0


def runs(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab runs``: every run in a results database."""
    from agent_lab.cli.history import list_runs  # noqa: PLC0415 (numpy)

    return list_runs(options, streams)


def gate(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab gate``: exit 1 when a run moved past a limit against its baseline run."""
    from agent_lab.cli.gating import run_gate  # noqa: PLC0415 (numpy)

    return run_gate(options, streams)


def export(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab export``: runs and trials as Parquet or CSV files."""
    from agent_lab.cli.results import read_run  # noqa: PLC0415 (numpy)

    folder = Path(options.out)
    check_output_folder(folder, "--out")
    read_run(Path(options.db), options.run)  # an unknown run id is a usage error
    try:
        with Store(options.db, read_only=True) as store:
            paths = store.export(options.run, folder, fmt=options.format)
    except StoreError as problem:
        raise UsageError(str(problem)) from problem
    except OSError as problem:
        raise UsageError(f"--out {folder}: {problem.strerror or problem}") from problem
    for path in paths:
        print(f"wrote {path}", file=streams.out)
    return 0


def _summary_line(name: str, registry: EventRegistry) -> str:
    """``name (required, ...; optional: ...)``: what a request must hold, and what it may."""
    schema = thaw_json(registry.schema(name))
    schema = schema if isinstance(schema, dict) else {}
    raw, properties = schema.get("required"), schema.get("properties")
    required = [str(r) for r in raw] if isinstance(raw, list) else []
    optional = [p for p in properties if p not in required] if isinstance(properties, dict) else []
    shown = ", ".join(required) or "nothing required"
    return f"{name} ({shown}; optional: {', '.join(optional)})" if optional else f"{name} ({shown})"


def events(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab events``: each event of a plugin set, with its JSON Schema."""
    registry = plugin_registry(load_plugin_set(options.plugins), options.plugins)
    names = [definition.name for definition in registry]
    if options.summary:
        # An imported benchmark holds a thousand events: one line each, then the count.
        for definition in registry:
            print(printable(_summary_line(definition.name, registry)), file=streams.out)
        print(f"{len(names)} events", file=streams.out)
        return 0
    for definition in registry:
        print(printable(f"{definition.name}: {definition.description}"), file=streams.out)
        print(json.dumps(thaw_json(registry.schema(definition.name)), indent=2), file=streams.out)
    return 0


def providers(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab providers``: which providers there are, and whether each can run here."""
    # Only the local back end's module: describing providers need not load the OpenAI SDK.
    from agent_lab.providers.local import LOCAL_MODELS, local_available  # noqa: PLC0415

    local = "installed" if local_available() else "not installed (uv sync --extra local)"
    model = "configured" if os.environ.get("OPENAI_MODEL") else "needs --model"
    url, credentials = split_credentials(os.environ.get("OPENAI_BASE_URL"))
    endpoint = url or "the OpenAI API"
    if credentials:
        endpoint += "; the credentials in OPENAI_BASE_URL are ignored, never sent"
    described = {
        "local": f"embedded CPU model, {local}: {', '.join(LOCAL_MODELS)}",
        "openai": f"any OpenAI-compatible endpoint ({endpoint}), {model}",
        "simulated": "a sighted simulated model: answers only from what it is sent, asks for "
        "what it cannot see, errs as its --llm-profile says (figures labelled SIMULATED)",
        "oracle": "reads the answer key: a ceiling, not a model (figures labelled ORACLE)",
        "replay": "answers from a recorded cassette (--cassette FILE), offline",
    }
    if options.json:
        rows = [{"name": name, "description": text} for name, text in described.items()]
        print(json.dumps(rows, indent=2), file=streams.out)
        return 0
    for name, text in described.items():
        print(printable(f"{name:<10} {text}"), file=streams.out)
    return 0


def import_benchmark(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab import``: a public benchmark (SGD, BFCL) as a plugin folder and workloads."""
    folder, target = Path(options.folder), Path(options.out)
    if not folder.is_dir():
        raise UsageError(f"no folder {folder}")
    check_output_folder(target, "--out")
    importer = import_sgd if options.source == "sgd" else import_bfcl
    try:
        summary = importer(folder, target)
    except DatasetImportError as problem:
        raise UsageError(str(problem)) from problem
    out = streams.out
    print(printable(summary.summary()), file=out)
    print(f"what was converted or skipped, and why: {target / 'import-report.json'}", file=out)
    print(f"next: agent-lab run {target / summary.first_workload} --plugins {target}", file=out)
    return 0


def precision(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab precision``: how often the resolvers fill a value right, without an LLM."""
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(options.workload, skip_bad=False, plugins=plugins, stderr=streams.err)
    plugins, _ = with_rules_file(plugins, options.plugins, options.rules, streams.err)
    result = measure_precision(workload, plugins, examples=options.examples)
    logged = truth_is_logged(case.category for case in workload.cases)
    if options.json:
        figures = result.as_json() | ({"truth": LOGGED_TRUTH} if logged else {})
        print(json.dumps(figures, indent=2, sort_keys=True), file=streams.out)
        return 0
    table = Table(
        title=f"deterministic precision over {result.cases} cases expected to succeed "
        f"({result.resolver_errors} resolver errors)",
        caption=f"{LOGGED_TRUTH[0].upper()}{LOGGED_TRUTH[1:]}." if logged else None,
    )
    for column in ("kind", "source", "filled", "right", "precision", "95% CI"):
        table.add_column(column, justify="left" if column in ("kind", "source") else "right")
    for row in (*result.rows, result.overall):
        low, high = row.interval
        table.add_row(
            plain(row.kind),
            plain(row.source),
            str(row.filled),
            str(row.right),
            f"{row.precision:.1%}",
            f"[{low:.1%}, {high:.1%}]",
        )
    console = streams.console
    console.print(table)
    for wrong in result.wrong:
        console.print(
            plain(
                f"{wrong.case} {wrong.argument} ({wrong.kind}, {wrong.source}): filled "
                f"{_shown(wrong.filled)}, expected {_shown(wrong.expected)}: "
                f"{wrong.text[:100]}"
            )
        )
    return 0


def _shown(value: object) -> str:
    # A resolver may fill any integer: past 4300 digits Python writes none as text.
    try:
        return json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        if isinstance(value, int):
            return f"(an integer of about {round(value.bit_length() * math.log10(2))} digits)"
        return f"(a {type(value).__name__} that is not JSON)"


def routing(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab routing``: the plugin set's routing's precision and coverage, without an LLM."""
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(options.workload, skip_bad=False, plugins=plugins, stderr=streams.err)
    figures = measure_routing(
        workload,
        plugins,
        options.margins,
        name_shares=options.name_shares,
        min_terms=options.min_terms,
        split=options.split,
        mode=options.mode,
    )
    if options.json:
        rows = [f.as_json() for f in figures]
        document = {"mode": options.mode, "split": options.split, "figures": rows}
        print(json.dumps(document, indent=2), file=streams.out)
        return 0
    asked = (
        "(case, event) pairs" if options.mode == "one-event" else "cases whose event is not given"
    )
    table = Table(
        title=f"{options.mode} routing over {figures[0].cases} {asked} "
        f"(split {options.split}, at least {options.min_terms} shared words for the lexical router)"
    )
    for column in ("router", "margin", "name share", "routed", "right", "precision", "95% CI"):
        table.add_column(column, justify="right")
    table.add_column("coverage", justify="right")
    for row in figures:
        found = row.as_json()
        precision = "n/a" if row.precision is None else f"{row.precision:.1%}"
        table.add_row(
            row.router,
            "-" if row.margin is None else f"{row.margin:g}",
            "-" if row.name_share is None else f"{row.name_share:g}",
            str(row.routed),
            str(row.right),
            precision,
            f"[{found['low']:.1%}, {found['high']:.1%}]",
            f"{row.coverage:.1%}",
        )
    streams.console.print(table)
    return 0
