"""The runner: each (case, policy, repeat) one trial, run concurrently, stored once (L8, L9)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, cast

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from agent_lab.agents.port import prepare
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import ConfigMismatchError
from agent_lab.kernel.ledger import usage_json
from agent_lab.lab.results.records import LabReason, TrialRecord
from agent_lab.lab.results.rows import encode_trial
from agent_lab.lab.results.store import Store, StoreError
from agent_lab.lab.run.environment import environment
from agent_lab.lab.run.metering import counting
from agent_lab.lab.run.run_config import RunConfig, differences, stratified_sample
from agent_lab.lab.run.trial_records import PolicyFailure, trial_record

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from agent_lab.agents.decision import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.lab.results.rows import TrialRow
    from agent_lab.lab.run.policies import Policy
    from agent_lab.lab.workload import Workload
    from agent_lab.log_replay.case import Case
    from agent_lab.otel.tracing import Tracing
    from agent_lab.strict_json import JSONObject

__all__ = ["ConfigMismatchError", "RunConfig", "Runner", "stratified_sample"]

_log = logging.getLogger(__name__)


STALL_S = 0.25
"""A blocked event loop this long or longer is reported (``Runner.stalls``)."""
_STALL_PROBE_S = 0.05


@dataclass(frozen=True, slots=True)
class _Trial:
    case: Case
    policy: str
    repeat: int
    warmup: bool


class _Flow:
    """One call of ``Runner.run``: the trials not started, the rows not written, the counts."""

    def __init__(self, run_id: str, pending: list[_Trial], *, before: int) -> None:
        self.run_id = run_id
        self.before = before
        """Trials the store held when the call began."""
        self.trials: asyncio.Queue[_Trial] = asyncio.Queue()
        for trial in pending:
            self.trials.put_nowait(trial)
        self.rows: asyncio.Queue[TrialRow | None] = asyncio.Queue()
        self.done = 0
        """Trials written so far by this call."""
        self.written = 0
        self.bar: Progress | None = None
        self.task: Any = None


class _RateLimiter:
    def __init__(self, per_second: float | None, clock: Clock) -> None:
        self.interval_ns = round(1e9 / per_second) if per_second else 0
        self.next_at = 0
        self.clock = clock
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval_ns:
            return
        async with self.lock:
            now = self.clock.monotonic_ns()
            delay = self.next_at - now
            self.next_at = max(now, self.next_at) + self.interval_ns
        if delay > 0:
            await asyncio.sleep(delay / 1e9)


class Runner:
    """Runs a workload's trials through policies into a store.

    Args:
        store: Where trials go.
        workload: The cases.
        plugins: The plugin set (recorded in the run's environment).
        policies: Policy name to a built ``Policy``.
        config: The run's configuration (its hash guards ``--resume``).
        simulated: Whether the provider is simulated (the report labels it).
        progress: Show a progress bar with rate and ETA on ``progress_to`` (standard
            error by default): never on the stream the results are printed to.
        clock: Measures trial latency and paces the rate limit.
        batch: Trials committed together at most.
        closing: Objects whose ``aclose()`` is awaited when the run ends
            (providers that keep connections open in the run's event loop).
        setup: Providers whose one-time set-up (``prepare()``, e.g. finding the
            structured-output format a server takes) runs before the first trial;
            its requests are stored in the run's metadata (``setup``), never in a trial.
        tracing: Put each trial in an OpenTelemetry dispatch span (the ``otel``
            extra); its provider calls are child spans when the policies' provider
            is ``tracing.provider(...)``.
    """

    def __init__(
        self,
        store: Store,
        workload: Workload,
        plugins: PluginSet,
        policies: dict[str, Policy],
        config: RunConfig,
        *,
        simulated: bool = False,
        progress: bool = True,
        progress_to: TextIO | None = None,
        clock: Clock | None = None,
        batch: int = 256,
        closing: Sequence[object] = (),
        setup: Sequence[object] = (),
        tracing: Tracing | None = None,
    ) -> None:
        self.store = store
        self.workload = workload
        self.plugins = plugins
        self.policies = policies
        self.config = config
        self.simulated = simulated
        self.progress = progress
        self.progress_to = progress_to
        self.clock = clock if clock is not None else SystemClock()
        self.batch = batch
        self.closing = tuple(closing)
        self.setup = tuple(setup)
        self.stalls: list[float] = []
        """Seconds the event loop was blocked, each time it was blocked ``STALL_S`` or more."""
        self.tracing = tracing

    def _trials(self) -> list[_Trial]:
        cases = self.workload.cases
        if self.config.limit is not None:
            cases = stratified_sample(cases, self.config.limit, self.config.seed)
        trials = [
            _Trial(case, policy, repeat, warmup=False)
            for repeat in range(self.config.repeats)
            for case in cases
            for policy in self.config.policies
        ]
        warm = [
            _Trial(case, policy, -1 - index, warmup=True)
            for policy in self.config.policies
            for index, case in enumerate(cases[: self.config.warmup])
        ]
        # Interleave policies in a seeded order, so that drift over time hits them alike.
        random.Random(self.config.seed).shuffle(trials)  # noqa: S311
        return warm + trials

    def prepare(self, *, resume: bool) -> str:
        """Start a run, or find the unfinished one to resume; returns its id.

        Raises:
            ConfigMismatchError: Resuming a run whose configuration differs.
            StoreError: ``resume`` with no unfinished run.
        """
        config_hash = self.config.fingerprint()
        if resume:
            unfinished = self.store.unfinished_run()
            if unfinished is None:
                raise StoreError(f"{self.store.path} has no unfinished run to resume")
            if unfinished.config_hash != config_hash:
                changed = differences(unfinished.config, cast("JSONObject", asdict(self.config)))
                raise ConfigMismatchError(unfinished.run_id, changed)
            return unfinished.run_id
        run_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
        self.store.start_run(
            run_id,
            config=asdict(self.config),
            config_hash=config_hash,
            environment=environment(self.plugins, self.config.provider, self.config.model),
            workload=self.config.workload,
            plugins=self.config.plugins,
            provider=self.config.provider,
            model=self.config.model,
            simulated=self.simulated,
        )
        return run_id

    async def run(self, run_id: str) -> int:
        """Run every trial the store does not hold yet; returns how many were written."""
        done = self.store.done(run_id)
        pending = [t for t in self._trials() if (t.case.id, t.policy, t.repeat) not in done]
        flow = _Flow(run_id, pending, before=len(done))
        # No more workers than trials to run: each one costs memory, and idle ones nothing else.
        count = max(1, min(self.config.concurrency, len(pending)))
        _log.info(
            "run %s: %d trials to run, %d already stored, %d at once",
            run_id, len(pending), flow.before, count,
        )  # fmt: skip
        total = flow.before + len(pending)
        if self.progress:
            flow.bar, flow.task = self._start_bar(total, flow.before)
        if pending:
            await self._prepare(run_id)
        await self._drive(flow, count)
        if self.store.count(run_id) >= total:
            self.store.finish_run(run_id)
        return flow.written

    def _start_bar(self, total: int, completed: int) -> tuple[Progress, Any]:
        bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[cyan]{task.fields[rate]}"),
            TimeRemainingColumn(),
            transient=False,
            console=Console(file=self.progress_to or sys.stderr),
        )
        bar.start()
        return bar, bar.add_task("trials", total=total, completed=completed, rate="")

    async def _drive(self, flow: _Flow, count: int) -> None:
        """``count`` workers and the writer, until every trial is written or the writer fails."""
        started = self.clock.monotonic_ns()
        updater: asyncio.Task[None] | None = None
        watcher: asyncio.Task[None] | None = None
        writer = asyncio.create_task(self._write(flow))
        try:
            limiter = _RateLimiter(self.config.rate_limit, self.clock)
            workers = [asyncio.create_task(self._work(flow, limiter)) for _ in range(count)]
            if flow.bar is not None:
                updater = asyncio.create_task(self._rates(flow.bar, flow.task, flow, started))
            watcher = asyncio.create_task(self._watch_stalls())
            await asyncio.gather(*workers)
        finally:
            await flow.rows.put(None)
            try:
                # The writer may fail (a store locked past its patience): what follows
                # must still run, and its error still reach the caller.
                await writer
            finally:
                await self._wind_down(
                    flow.run_id,
                    (updater, watcher),
                    bar=flow.bar,
                    task=flow.task,
                    completed=flow.before + flow.done,
                )

    async def _work(self, flow: _Flow, limiter: _RateLimiter) -> None:
        """One worker: trials one after another, each encoded for the writer as it ends."""
        while True:
            try:
                trial = flow.trials.get_nowait()
            except asyncio.QueueEmpty:
                return
            await limiter.wait()
            record = await self._one(trial)
            if _log.isEnabledFor(logging.DEBUG):
                _log.debug(
                    "case %s, %s, repeat %d: %s (%s), %d LLM call(s), %.1f ms",
                    record.case_id, record.policy, record.repeat, record.status,
                    record.reason, record.llm_calls, record.latency_ns / 1e6,
                )  # fmt: skip
            # Encoded now, not by the writer: rows of text and numbers are nothing for the
            # garbage collector to trace, where records waiting with their ledgers (a dozen
            # containers each) set off full collections: 1.0-1.9 s of bench_runner.py's
            # simulated run (24,060 trials: 40-80 us a trial), now 0.02 s (gc.callbacks).
            await flow.rows.put(encode_trial(flow.run_id, record))
            if flow.rows.qsize() >= self.batch:
                # Trials that never wait (a model simulated at zero latency) would all run
                # before the writer's first turn, every row held until the end: a full batch
                # lets the writer in.
                await asyncio.sleep(0)

    async def _write(self, flow: _Flow) -> None:
        """Commit whatever has ended by the time the previous commit is done.

        One trial at a time when they trickle in, big batches under load.
        """
        finished = False
        while not finished:
            first = await flow.rows.get()
            if first is None:
                return
            chunk = [first]
            while len(chunk) < self.batch:
                try:
                    item = flow.rows.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if item is None:
                    finished = True
                    break
                chunk.append(item)
            try:
                flow.written += self.store.add_rows(chunk)
            except StoreError:
                # Nothing more can be stored: start no trial whose result would be lost.
                while not flow.trials.empty():
                    flow.trials.get_nowait()
                raise
            flow.done += len(chunk)
            if flow.bar is not None:
                flow.bar.update(flow.task, completed=flow.before + flow.done)

    async def _wind_down(
        self,
        run_id: str,
        helpers: tuple[asyncio.Task[None] | None, ...],
        *,
        bar: Progress | None,
        task: Any,
        completed: int,
    ) -> None:
        """Stop the bar and the watchers, record the loop's stalls, close the providers."""
        for helper in helpers:
            if helper is not None:
                helper.cancel()
        if self.stalls:
            _log.warning("the event loop was blocked %d time(s)", len(self.stalls))
            with contextlib.suppress(StoreError):
                self.store.add_provenance(
                    run_id,
                    {
                        "loop_stalls": {
                            "count": len(self.stalls),
                            "longest_s": round(max(self.stalls), 3),
                            "total_s": round(sum(self.stalls), 3),
                        }
                    },
                )
        if bar is not None:
            bar.update(task, completed=completed)
            bar.stop()
        for resource in self.closing:
            close = getattr(resource, "aclose", None)
            if close is not None:
                await close()

    async def _prepare(self, run_id: str) -> None:
        # One-time costs happen before timing, and are charged to no trial: at any
        # concurrency, a counted trial sends exactly its own requests.
        for resource in self.setup:
            found = await prepare(resource)
            if found is None:
                continue
            usage = found.usage
            _log.info(
                "set-up: %d request(s)%s", usage.requests, f": {found.note}" if found.note else ""
            )
            self.store.add_provenance(
                run_id,
                {"setup": {**usage_json(usage), "failed": usage.failed, "note": found.note}},
            )

    async def _watch_stalls(self) -> None:
        # Code that does not await (a blocking call in a provider, a busy loop) holds every
        # trial: their latencies then include the wait. Nothing can undo that, but the run
        # says so (``stalls``, stored as ``loop_stalls``) rather than report it as theirs.
        while True:
            before = self.clock.monotonic_ns()
            await asyncio.sleep(_STALL_PROBE_S)
            late = (self.clock.monotonic_ns() - before) / 1e9 - _STALL_PROBE_S
            if late >= STALL_S:
                self.stalls.append(late)

    async def _rates(self, bar: Progress, task: Any, flow: _Flow, started: int) -> None:
        while True:
            await asyncio.sleep(0.5)
            elapsed = (self.clock.monotonic_ns() - started) / 1e9
            bar.update(task, rate=f"{flow.done / elapsed:,.1f} trials/s" if elapsed else "")

    async def _attempt(self, policy: Policy, case: Case) -> Decision | PolicyFailure:
        """The policy's reply, with up to ``retries`` more tries when it raises or times out."""
        failure: PolicyFailure | None = None
        timeout = self.config.timeout
        for _ in range(max(0, self.config.retries) + 1):
            try:
                if timeout is None:
                    return await policy.run(case)
                began = self.clock.monotonic_ns()
                reply = await asyncio.wait_for(policy.run(case), timeout)
                if self.clock.monotonic_ns() - began <= timeout * 1e9:
                    return reply
                # Code that blocks the event loop cannot be cancelled: the reply came,
                # but past the time allowed, and the trial is over time all the same.
                message = f"trial took longer than {timeout} s (the event loop was blocked)"
                failure = PolicyFailure(LabReason.TIMEOUT, message)
            except TimeoutError:
                message = f"trial took longer than {timeout} s"
                failure = PolicyFailure(LabReason.TIMEOUT, message)
            except Exception as err:  # noqa: BLE001 - a failing trial is recorded, not fatal
                failure = PolicyFailure(LabReason.POLICY_ERROR, f"{type(err).__name__}: {err}")
        assert failure is not None  # the loop ran at least once
        return failure

    async def _traced(self, trial: _Trial, tracing: Tracing) -> Decision | PolicyFailure:
        case = trial.case
        attributes = {
            "agent_lab.policy": trial.policy,
            "agent_lab.case_id": case.id,
            "agent_lab.repeat": trial.repeat,
        }
        with tracing.dispatch_span(case.event if case.event_given else None, attributes) as span:
            outcome = await self._attempt(self.policies[trial.policy], case)
            if isinstance(outcome, PolicyFailure):
                tracing.fail(span, str(outcome.reason))
            else:
                tracing.record(span, outcome)
        return outcome

    async def _one(self, trial: _Trial) -> TrialRecord:
        case = trial.case
        started = self.clock.monotonic_ns()
        with counting() as sent:
            if self.tracing is None:
                outcome = await self._attempt(self.policies[trial.policy], case)
            else:
                outcome = await self._traced(trial, self.tracing)
        latency = self.clock.monotonic_ns() - started
        return trial_record(
            case,
            policy=trial.policy,
            repeat=trial.repeat,
            warmup=trial.warmup,
            outcome=outcome,
            latency_ns=latency,
            sent=sent,
        )
