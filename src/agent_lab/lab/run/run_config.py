"""What decides a run's trials: its configuration, the fields a resumed one changed, its sample."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, cast

from agent_lab.errors import ConfigChange

if TYPE_CHECKING:
    from agent_lab.log_replay.case import Case
    from agent_lab.strict_json import JSONObject

__all__ = ["RunConfig", "differences", "stratified_sample"]


def _no_settings() -> JSONObject:
    return {}


def differences(stored: JSONObject, current: JSONObject) -> list[ConfigChange]:
    """Each field whose value differs between a stored run's configuration and this one.

    ``current`` is compared as the store would hold it: through JSON, where a
    tuple (``policies``) is a list, so that an unchanged field is never named.
    A field that holds an object is compared key by key, each named by its own.
    """
    return _differences(stored, json.loads(json.dumps(current)))


def _differences(stored: JSONObject, current: JSONObject) -> list[ConfigChange]:
    found: list[ConfigChange] = []
    for key in sorted(set(stored) | set(current)):
        old, new = stored.get(key), current.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            found += _differences(cast("JSONObject", old), cast("JSONObject", new))
        elif old != new:
            found.append(ConfigChange(setting=key, was=_shown(old), now=_shown(new)))
    return found


def _shown(value: object) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True, slots=True, kw_only=True)
class RunConfig:
    """Everything that decides a run's trials; its hash guards resuming a run."""

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
    provider_settings: JSONObject = field(default_factory=_no_settings)
    """What else about the provider shapes a figure: a simulated model's profile and latency,
    a server's structured-output mode, a price file."""
    workload_hash: str = ""
    """``Workload.fingerprint()``: the cases' content, not only their file's name."""
    sweep: JSONObject = field(default_factory=_no_settings)
    """For a run that is one point of a sweep: the sweep's id and the point's rates."""

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
