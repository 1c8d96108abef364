"""Running a workload's trials from the command line, and what the exit code says of them."""

from __future__ import annotations

import asyncio
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from agent_lab.agents.port import FailureReason
from agent_lab.cli.flags import said
from agent_lab.cli.tracing import tracing_for
from agent_lab.errors import ConfigMismatchError, StoreError, UsageError
from agent_lab.lab.report.terminal import printable
from agent_lab.lab.results.store import Store
from agent_lab.lab.run.metering import MeteredProvider
from agent_lab.lab.run.policies import make_policy
from agent_lab.lab.run.runner import RunConfig, Runner
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.providers.cassette import RecordingProvider
from agent_lab.providers.openai_compat import OpenAIProvider

if TYPE_CHECKING:
    from collections.abc import Generator, Sequence
    from pathlib import Path
    from typing import TextIO

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.cli.providers import BuiltProvider
    from agent_lab.lab.workload import Workload
    from agent_lab.otel import Tracing
    from agent_lab.providers import RequestLog

__all__ = ["execute", "failed_trials"]


def open_store(db: Path) -> Store:
    """The results database for writing; a foreign or unreadable one is a usage error."""
    try:
        return Store(db)
    except StoreError as err:
        raise UsageError(str(err)) from err


def execute(
    built: BuiltProvider,
    *,
    workload: Workload,
    plugins_ref: str,
    plugins: PluginSet,
    db: Path,
    policies: Sequence[str],
    settings: dict[str, Any],
    resume: bool,
    progress: bool,
    stderr: TextIO,
    otel_file: Path | None = None,
) -> str:
    """Run every trial into ``db``; return the run id. Ctrl-C keeps what ended.

    With ``otel_file`` (or an OTLP endpoint in the environment), each trial is a
    dispatch span and each provider call a child span. The provider's request log
    (``--log-requests``), if any, is closed as the run ends.
    """
    config = _run_config(
        built, workload=workload, plugins_ref=plugins_ref, policies=policies, settings=settings
    )
    offload = _plugin_pool(config)
    with (
        _closing_request_log(built.request_log, stderr),
        open_store(db) as store,
        tracing_for(otel_file, stderr) as tracing,
        _shut_down_after(offload),
    ):
        runner = _runner(
            built,
            store=store,
            workload=workload,
            plugins=plugins,
            policies=policies,
            config=config,
            offload=offload,
            tracing=tracing,
            progress=progress,
            stderr=stderr,
        )
        try:
            run_id = runner.prepare(resume=resume)
        except (ConfigMismatchError, StoreError) as err:
            raise UsageError(said(err)) from err
        try:
            asyncio.run(runner.run(run_id))
            _warn_of_stalls(runner.stalls, stderr)
        except KeyboardInterrupt:
            print(
                f"interrupted: {store.count(run_id)} trials are saved; continue with --resume",
                file=stderr,
            )
            raise
        except StoreError as err:
            # The store failed while the run was on (locked too long, a full disk).
            raise UsageError(f"{err}; continue with --resume") from err
        finally:
            _record_format(store, run_id, built, stderr)
    return run_id


def _run_config(
    built: BuiltProvider,
    *,
    workload: Workload,
    plugins_ref: str,
    policies: Sequence[str],
    settings: dict[str, Any],
) -> RunConfig:
    """What the run is of, as its provenance records it."""
    return RunConfig(
        workload=workload.name,
        plugins=plugins_ref,
        policies=tuple(policies),
        provider=built.name,
        model=built.model,
        provider_settings=built.settings,
        workload_hash=workload.fingerprint(),
        **settings,
    )


def _plugin_pool(config: RunConfig) -> ThreadPoolExecutor | None:
    """The worker threads plugin code runs in under a trial timeout; none without one."""
    # With a trial timeout, plugin code runs in worker threads: a resolver or handler that
    # blocks then cannot stall the event loop, so the timeout holds and other trials'
    # latencies are their own. Timed-out calls keep their thread until they return, hence
    # a pool larger than the concurrency. Without a timeout, no thread hop is paid.
    return (
        None
        if config.timeout is None
        else ThreadPoolExecutor(
            max_workers=max(32, 4 * config.concurrency), thread_name_prefix="agent-lab-plugin"
        )
    )


def _runner(
    built: BuiltProvider,
    *,
    store: Store,
    workload: Workload,
    plugins: PluginSet,
    policies: Sequence[str],
    config: RunConfig,
    offload: ThreadPoolExecutor | None,
    tracing: Tracing | None,
    progress: bool,
    stderr: TextIO,
) -> Runner:
    """The runner of every policy, its provider traced (when asked) and metered."""
    traced = built.provider if tracing is None else tracing.provider(built.provider)
    provider = MeteredProvider(traced)
    return Runner(
        store,
        workload,
        plugins,
        {name: make_policy(name, plugins, provider, offload=offload) for name in policies},
        config,
        simulated=built.simulated,
        # Progress is for a person watching: on standard error, and only when it is a
        # terminal, so that output piped to a file (--json) holds nothing else.
        progress=progress and is_terminal(stderr),
        progress_to=stderr,
        closing=(built.provider,),
        setup=(built.provider,),
        tracing=tracing,
    )


def _warn_of_stalls(stalls: Sequence[float], stderr: TextIO) -> None:
    """Say that latencies include waits for code that blocked the event loop, if any did."""
    if stalls:
        print(
            f"agent-lab: the event loop was blocked {len(stalls)} time(s), the "
            f"longest {max(stalls):.1f} s, by code that does not await (a "
            "provider's, or a plugin's without --timeout): latencies measured "
            "meanwhile include the wait",
            file=stderr,
        )


@contextmanager
def _closing_request_log(request_log: RequestLog | None, stderr: TextIO) -> Generator[None]:
    """Close the request log when the run ends; lines it lost fail the command, as spans do."""
    if request_log is None:
        yield
        return
    try:
        yield
    finally:
        request_log.close()
    if request_log.error is not None:
        # The run is stored; the requests asked for are not all logged: say it, exit 2.
        raise UsageError(
            f"--log-requests {request_log.path}: {request_log.lost} request(s) could not "
            f"be logged ({request_log.error}); the run's trials are stored"
        )
    print(printable(f"requests: {request_log.path} ({request_log.written} logged)"), file=stderr)


@contextmanager
def _shut_down_after(pool: ThreadPoolExecutor | None) -> Generator[None]:
    try:
        yield
    finally:
        if pool is not None:
            # Calls a timeout gave up on are not waited for: their results go nowhere.
            pool.shutdown(wait=False, cancel_futures=True)


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal a person watches (a closed or odd stream is not)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _record_format(store: Store, run_id: str, built: BuiltProvider, stderr: TextIO) -> None:
    # What --structured-output auto settled on is known only now: stored with the
    # run's provenance and said, so that a run against a new server shows it.
    inner = (
        built.provider.inner if isinstance(built.provider, RecordingProvider) else built.provider
    )
    if not isinstance(inner, OpenAIProvider):
        return
    note = inner.structured_output_note
    try:
        store.add_provenance(
            run_id,
            {
                "structured_output_used": inner.structured_output_used,
                "structured_output_note": note,
            },
        )
    except StoreError as err:
        # Said, not raised: this runs as the run ends, and must not hide why it ended.
        print(
            printable(f"agent-lab: the structured-output mode was not stored: {err}"), file=stderr
        )
    if note is not None:
        print(printable(f"structured output: {note}"), file=stderr)


PROVIDER_REASONS = frozenset({*(r.value for r in FailureReason), "fallback_error"})
"""Failures of the provider (transport, server, cassette, engine), not of the model's reply:
invalid JSON or a raw/parsed mismatch is a figure of the model, and stays one."""


def failed_trials(
    db: Path, run_id: str, stderr: TextIO, *, max_failure_rate: float | None = None
) -> int:
    """Exit code 1 when trials failed to run, or too many LLM requests failed; else 0.

    Every failure is summed up on ``stderr``: the count per reason and the
    first server message for each (stored redacted and cut), so that a run
    against a server that refuses every request never ends in silence.
    """
    with Store(db, read_only=True) as store:
        trials = store.trials(run_id, include_warmup=False)
    code = 0
    failed = [t for t in trials if t.status is TrialStatus.ERROR]
    if failed:
        print(
            printable(
                f"agent-lab: {len(failed)} trial(s) failed to run (first: {failed[0].error})"
            ),
            file=stderr,
        )
        code = 1
    asked = [t for t in trials if t.llm_calls > 0]
    provider_failed = [
        t
        for t in asked
        if t.status is TrialStatus.FALLBACK_FAILED and str(t.reason) in PROVIDER_REASONS
    ]
    if provider_failed:
        reasons = Counter(str(t.reason) for t in provider_failed)
        print(
            f"agent-lab: {len(provider_failed)} of {len(asked)} trials that asked the LLM "
            "failed for the provider's reasons:",
            file=stderr,
        )
        for reason, count in reasons.most_common():
            first = next(t for t in provider_failed if str(t.reason) == reason)
            said = f": {first.failure}" if first.failure else ""
            # A server's own words, stored as it sent them: shown, never obeyed.
            print(printable(f"  {reason} x{count}{said}"), file=stderr)
        rate = len(provider_failed) / len(asked)
        if max_failure_rate is not None and rate > max_failure_rate:
            print(
                f"agent-lab: {rate:.1%} failed, more than --max-failure-rate "
                f"{max_failure_rate:g}: the figures would measure the failures",
                file=stderr,
            )
            code = 1
    return code
