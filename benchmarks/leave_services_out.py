"""The schema-driven resolver's precision on SGD services left out, fold by fold.

    uv run python benchmarks/leave_services_out.py CORPORA_DIR [--out DIR] [--folds 5] [--seed 21]
    uv run python benchmarks/leave_services_out.py --imported [--out DIR] [--folds 5] [--seed 21]

CORPORA_DIR holds ``sgd/train`` and ``sgd/dev``. Both splits are imported
(``agent-lab import sgd``) into ``OUT/sgd-train`` and ``OUT/sgd-dev``; with
``--imported`` they are read from there as an earlier run left them, and no
corpus is needed. Their events and cases are pooled, and the services
partitioned into folds. A service goes with its whole domain (``Flights_1``,
``Flights_2`` and ``Flights_3`` together), so a held-out fold never shares a
domain's wording with the rest: a stricter split than service by service.
Domains are shuffled with ``--seed`` and dealt, largest first, to the fold
with the fewest cases so far, so the folds are deterministic and of similar
size.

The resolver (``SchemaResolver``) has no fitted parameter: its rules are
fixed code, so there is nothing to tune on the training folds, and each
held-out fold is scored by ``agent_lab.lab.stats.precision.measure_precision`` as
it stands. What a fold shows is how the rules fare on domains other than the
ones the rest of the folds hold. The services only dev has get a row of
their own: SGD train, where rules are written, never shows them.

For each variant (``payload``, ``utterance``), each fold and all folds
pooled: per kind of value, precision (Wilson 95%) over the values filled,
and coverage (the share of the truth's values the resolver filled at all).
Markdown goes to stdout and ``OUT/leave-services-out.md``, every figure to
``OUT/leave-services-out.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from agent_lab.agents.plugins import PluginSet
from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.lab.run.plugin_sets import load_plugins
from agent_lab.lab.stats.precision import (
    KindPrecision,
    PrecisionReport,
    WrongValue,
    measure_precision,
)
from agent_lab.lab.workload import Case, Workload, load_workload

SPLITS = ("train", "dev")
VARIANTS = ("payload", "utterance")
KINDS = ("boolean", "date", "enum", "free-form", "number", "time")
BAR = 0.98


def service_of(case: Case) -> str:
    """``Flights_3__SearchOnewayFlight`` -> ``Flights_3``."""
    return (case.event or "").split("__")[0]


def domain_of(service: str) -> str:
    """``Flights_3`` -> ``Flights``: the services of one domain share their wording."""
    head, _, number = service.rpartition("_")
    return head if head and number.isdigit() else service


def deal(sizes: dict[str, int], folds: int, seed: int) -> list[list[str]]:
    """Domains into ``folds`` groups of similar case counts, the same for the same seed."""
    order = sorted(sizes)
    random.Random(seed).shuffle(order)
    # Largest first (the shuffle breaks ties), each to the lightest fold so far.
    order.sort(key=lambda d: -sizes[d])
    groups: list[list[str]] = [[] for _ in range(folds)]
    weight = [0] * folds
    for domain in order:
        lightest = min(range(folds), key=lambda i: (weight[i], i))
        groups[lightest].append(domain)
        weight[lightest] += sizes[domain]
    return [sorted(group) for group in groups]


def split_folder(out: Path, split: str) -> Path:
    return out / f"sgd-{split}"


def imported(corpora: Path | None, out: Path) -> tuple[dict[str, PluginSet], dict[str, list[Case]]]:
    """Both splits imported: each split's events, and the cases of both per variant.

    ``corpora`` None: the splits already imported into ``out``, read as they are.
    Each case keeps its own split's events: the importer reads a slot's kind
    from the values the split's calls use, so a slot no train call fills is
    free-form in train and a time in dev (``Buses_1``'s ``leaving_time``).
    """
    plugins: dict[str, PluginSet] = {}
    cases: dict[str, list[Case]] = {v: [] for v in VARIANTS}
    for split in SPLITS:
        folder = split_folder(out, split)
        if corpora is not None:
            print(f"$ agent-lab import sgd {corpora / 'sgd' / split} --out {folder}", flush=True)
            import_sgd(corpora / "sgd" / split, folder)
        plugins[split] = load_plugins(str(folder))
        for variant in VARIANTS:
            for case in load_workload(folder / f"workload-{variant}.jsonl").cases:
                # Dialogue ids repeat across splits: the split keeps case ids apart.
                cases[variant].append(dataclasses.replace(case, id=f"{split}:{case.id}"))
    return plugins, cases


def split_of(case: Case) -> str:
    return case.id.split(":", 1)[0]


def measure(name: str, chosen: list[Case], plugins: dict[str, PluginSet]) -> PrecisionReport:
    """``measure_precision`` over cases of both splits, each against its split's events."""
    parts = [
        measure_precision(
            Workload(f"{name} {split}", tuple(c for c in chosen if split_of(c) == split)),
            plugins[split],
            examples=len(chosen) * 64,  # every wrong value, to say why below
        )
        for split in SPLITS
    ]
    rows: dict[tuple[str, str], KindPrecision] = {}
    for row in (row for part in parts for row in part.rows):
        key = row.kind, row.source
        known = rows.get(key)
        rows[key] = (
            row
            if known is None
            else dataclasses.replace(
                known,
                filled=known.filled + row.filled,
                right=known.right + row.right,
                expected=known.expected + row.expected,
                answered=known.answered + row.answered,
            )
        )
    return PrecisionReport(
        sum(p.cases for p in parts),
        tuple(rows[key] for key in sorted(rows)),
        tuple(w for p in parts for w in p.wrong),
        sum(p.resolver_errors for p in parts),
    )


def figure(row: KindPrecision | None) -> dict[str, Any] | None:
    if row is None:
        return None
    low, high = row.interval
    return {
        "filled": row.filled,
        "right": row.right,
        "precision": row.precision,
        "low": low,
        "high": high,
        "expected": row.expected,
        "coverage": row.coverage,
    }


def by_kind(report: PrecisionReport, source: str | None = None) -> dict[str, Any]:
    """Per kind over both sources, or over one (``payload``, ``text``)."""
    if source is None:
        return {kind: figure(report.by_kind().get(kind)) for kind in KINDS}
    rows = {row.kind: row for row in report.rows if row.source == source}
    return {kind: figure(rows.get(kind)) for kind in KINDS}


SOURCES = {"text": "read from the text", "all": "text and payload"}


def defaulted(wrong: WrongValue, cases: dict[str, Case], plugins: dict[str, PluginSet]) -> bool:
    """A value the call leaves out, equal to its property's ``default``."""
    if wrong.expected is not None:
        return False
    case = cases[wrong.case]
    schema = plugins[split_of(case)].registry().schema(case.event or "")
    prop: dict[str, Any] = dict(schema.get("properties", {}).get(wrong.argument, {}))
    return "default" in prop and bool(prop["default"] == wrong.filled)


def cell(f: dict[str, Any] | None) -> str:
    """``98.78% [98.1, 99.2] (1390; 49%)``: precision [Wilson 95%] (values filled; coverage)."""
    if f is None or (not f["expected"] and not f["filled"]):
        return "-"
    coverage = "n/a" if f["coverage"] is None else f"{f['coverage']:.0%}"
    if not f["filled"]:
        return f"- (0; {coverage})"
    mark = "" if f["precision"] >= BAR else " **<98%**"
    return (
        f"{f['precision']:.2%} [{f['low'] * 100:.1f}, {f['high'] * 100:.1f}] "
        f"({f['filled']}; {coverage}){mark}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("corpora", type=Path, nargs="?", help="holds sgd/train and sgd/dev")
    parser.add_argument("--out", type=Path, default=Path("experiments/leave-services-out"))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument(
        "--imported",
        action="store_true",
        help="no import: the splits an earlier run imported into --out (OUT/sgd-train, sgd-dev)",
    )
    options = parser.parse_args()
    out: Path = options.out
    if options.imported:
        if options.corpora is not None:
            parser.error("--imported reads --out alone: give no CORPORA_DIR")
        for split in SPLITS:
            if not (split_folder(out, split) / "events.json").is_file():
                parser.error(f"--imported: {split_folder(out, split)} holds no imported split")
    elif options.corpora is None:
        parser.error("CORPORA_DIR is required (unless --imported)")
    out.mkdir(parents=True, exist_ok=True)
    plugins, cases = imported(options.corpora, out)
    services = sorted({service_of(c) for c in cases["payload"]})
    where: dict[str, set[str]] = {}
    for case in cases["payload"]:
        where.setdefault(service_of(case), set()).add(split_of(case))
    splits = {s: "dev only" if found == {"dev"} else "train" for s, found in where.items()}
    sizes = Counter(domain_of(service_of(c)) for c in cases["payload"])
    groups = deal(dict(sizes), options.folds, options.seed)
    fold_of = {d: i for i, group in enumerate(groups, 1) for d in group}

    lines = [
        "Folds (seed " + str(options.seed) + "; a domain's services stay together; "
        "*italic*: a service only dev has):",
        "",
        "| fold | services | cases per variant |",
        "| --- | --- | ---: |",
    ]
    for index, group in enumerate(groups, 1):
        members = [s for s in services if domain_of(s) in group]
        shown = ", ".join(f"*{s}*" if splits[s] == "dev only" else s for s in members)
        lines.append(f"| {index} | {shown} | {sum(sizes[d] for d in group)} |")
    results: dict[str, Any] = {
        "seed": options.seed,
        "folds": [
            {"fold": i, "services": [s for s in services if domain_of(s) in g]}
            for i, g in enumerate(groups, 1)
        ],
        "dev_only_services": sorted(s for s in services if splits[s] == "dev only"),
        "variants": {},
    }
    for variant in VARIANTS:
        sets: list[tuple[str, list[Case]]] = [
            (
                f"fold {i}",
                [c for c in cases[variant] if fold_of[domain_of(service_of(c))] == i],
            )
            for i in range(1, options.folds + 1)
        ]
        sets.append(("pooled", cases[variant]))
        sets.append(
            (
                "services only dev has",
                [c for c in cases[variant] if splits[service_of(c)] != "train"],
            )
        )
        table = [
            "",
            f"{variant} variant, held out: precision [Wilson 95%] (values filled; coverage)",
            "",
            "| held out | values | " + " | ".join(KINDS) + " |",
            "| --- | --- | " + " | ".join("---:" for _ in KINDS) + " |",
        ]
        figures: dict[str, Any] = {}
        for name, chosen in sets:
            report = measure(f"{variant} {name}", chosen, plugins)
            by_id = {c.id: c for c in chosen}
            passed = [w for w in report.wrong if w.source == "payload"]
            figures[name] = {
                "cases": report.cases,
                "all": by_kind(report),
                "text": by_kind(report, "text"),
                "payload": by_kind(report, "payload"),
                # Per kind: payload values the call disagrees with, and of those, how many
                # equal the property's default where the call leaves the property out.
                "wrong_payload_values": {
                    kind: [
                        sum(w.kind == kind for w in passed),
                        sum(w.kind == kind and defaulted(w, by_id, plugins) for w in passed),
                    ]
                    for kind in KINDS
                },
            }
            sources = ("text", "all") if variant == "payload" else ("text",)
            table += [
                f"| {name} | {SOURCES[source]} | "
                + " | ".join(cell(figures[name][source][k]) for k in KINDS)
                + " |"
                for source in sources
            ]
        results["variants"][variant] = figures
        lines += table
        if variant == "payload":
            wrong, defaults = figures["pooled"]["wrong_payload_values"]["enum"]
            lines += [
                "",
                f"Of the {wrong} enum values given in the payload that the call disagrees with, "
                f"{defaults} equal the slot's default, which the annotated call leaves out.",
            ]
    text = "\n".join(lines) + "\n"
    (out / "leave-services-out.md").write_text(text, encoding="utf-8")
    (out / "leave-services-out.json").write_text(
        json.dumps(results, indent=1, sort_keys=True), encoding="utf-8"
    )
    print(text)


if __name__ == "__main__":
    main()
