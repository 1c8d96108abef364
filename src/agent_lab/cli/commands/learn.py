"""``agent-lab learn``: rules mined from logs, admitted on held-out calls, written for review."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.cli.checks import check_output_file, check_outputs_apart
from agent_lab.cli.loading import load_cases, load_plugin_set, plugin_registry
from agent_lab.cli.output import write_whole
from agent_lab.errors import UsageError
from agent_lab.lab.report.terminal import plain
from agent_lab.logs.record import LogError, LogFormat, LoggedRequest

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser
    from agent_lab.lab.learn.learning import Learned
    from agent_lab.strict_json import JSONObject

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``learn``: the logs, the split, the gate, and the rules file."""
    learn = add_parser(
        "learn",
        help="learn resolver rules from your logs, kept only where held-out calls prove them",
    )
    learn.add_argument("logs", nargs="*", help="log files (as agent-lab shadow reads them)")
    learn.add_argument("--out", help="write the rules file here (JSON, for review)")
    learn.add_argument(
        "--workload",
        help="also learn from a workload's cases (a JSONL file or a built-in name), "
        "as the requests an agent would have logged",
    )
    learn.add_argument(
        "--plugins",
        help="MODULE:ATTRIBUTE or a folder: your own resolvers for the tools they name; "
        "rules are learned for what they leave out (needed with --workload)",
    )
    learn.add_argument(
        "--explain", metavar="RULES", help="print a rules file as a table, and learn nothing"
    )
    learn.add_argument(
        "--format",
        choices=[str(f) for f in LogFormat],
        help="read every file in this format (default: detected per file)",
    )
    learn.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the rules read: its last user message, or every user "
        "message so far (default last)",
    )
    learn.add_argument(
        "--skip-bad-lines", action="store_true", help="count a line that cannot be used, go on"
    )
    learn.add_argument(
        "--holdout",
        type=checks.fraction,
        default=0.3,
        help="the share of conversations held out to admit and measure rules (default 0.3)",
    )
    learn.add_argument(
        "--split-by",
        choices=("conversation",),
        default="conversation",
        help="what the split keeps together (default conversation: its first two messages)",
    )
    learn.add_argument(
        "--min-precision",
        type=checks.fraction,
        default=0.99,
        help="the held-out precision a rule's group must clear at its Wilson lower bound "
        "(default 0.99)",
    )
    learn.add_argument(
        "--min-support",
        type=checks.positive_count,
        default=20,
        help="held-out conversations a group's rules must fire in before its bound counts "
        "(default 20)",
    )
    learn.add_argument("--seed", type=int, default=0, help="the split's seed (default 0)")
    learn.add_argument(
        "--across-tools",
        action="store_true",
        help="learn argument rules per parameter name over every tool, for tools the logs "
        "never showed (routes stay per tool)",
    )
    learn.add_argument("--html", help="also write an HTML page of the gain and the rules")
    learn.add_argument(
        "--json", action="store_true", help="print the gain and the rules file as JSON"
    )
    learn.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab learn LOGS... --out rules.json``, or ``--explain rules.json``."""
    from agent_lab.lab.learn.tables import rules_table  # noqa: PLC0415
    from agent_lab.resolvers.learned import load_rules  # noqa: PLC0415

    if options.explain is not None:
        if options.logs or options.workload is not None:
            raise UsageError("--explain prints a rules file: give it no logs or workload")
        if options.out is not None or options.html is not None:
            raise UsageError("--explain prints a rules file and writes nothing: no --out or --html")
        book = load_rules(options.explain)
        if options.json:
            print(json.dumps(book.as_json(), indent=2, ensure_ascii=False), file=streams.out)
        else:
            streams.console.print(rules_table(book))
        return 0
    if not options.logs and options.workload is None:
        raise UsageError("name the log files to learn from (or --workload, or --explain RULES)")
    if options.workload is not None and options.plugins is None:
        raise UsageError("--workload: name its events' plugin set with --plugins")
    if not 0 < options.holdout < 1:
        raise UsageError("--holdout: a share of conversations above 0 and below 1")
    if options.min_precision >= 1:
        raise UsageError("--min-precision: below 1 (a Wilson lower bound never reaches 1)")
    if options.out is None:
        raise UsageError("--out: where to write the rules file")
    out = Path(options.out)
    check_output_file(out, "--out")
    page = None if options.html is None else Path(options.html)
    if page is not None:
        check_output_file(page, "--html")
    read = [Path(name) for name in options.logs]
    if options.workload is not None and Path(options.workload).is_file():
        read.append(Path(options.workload))
    check_outputs_apart({"--out": out, "--html": page}, read)
    learned = _learned(options, streams)
    # The page first: when it cannot be written, no rules file is left behind either,
    # and when the rules file cannot, the page that describes it is taken back.
    if page is not None:
        from agent_lab.lab.learn.page import render_learn_page  # noqa: PLC0415 (jinja2)

        write_whole(
            page, "--html", lambda target: render_learn_page(target, learned, rules_file=out.name)
        )
    try:
        write_whole(out, "--out", lambda target: target.write_text(learned.rules.dumps()))
    except UsageError:
        if page is not None and page.is_file():
            page.unlink()
        raise
    if options.json:
        print(json.dumps(_document(learned), indent=2, ensure_ascii=False), file=streams.out)
        return 0
    from agent_lab.lab.learn.tables import gain_lines, gain_table  # noqa: PLC0415

    # Paths and logged names are shown as they are: no markup of theirs is obeyed.
    for line in gain_lines(learned):
        streams.console.print(plain(line), highlight=False)
    if learned.rules.rules:
        streams.console.print(gain_table(learned))
    streams.console.print(
        plain(
            f"Rules: {out} (review: agent-lab learn --explain {out}; measure on logs they never "
            f"saw: agent-lab shadow LOGS --rules {out})"
        ),
        highlight=False,
    )
    if page is not None:
        streams.console.print(plain(f"Page: {page}"), highlight=False)
    return 0


def _learned(options: argparse.Namespace, streams: Streams) -> Learned:
    from agent_lab.answering import Answerer  # noqa: PLC0415
    from agent_lab.lab.learn.examples import refused_tools  # noqa: PLC0415
    from agent_lab.lab.learn.learning import LearnSettings, digest, learn  # noqa: PLC0415
    from agent_lab.lab.learn.workloads import requests_of_workload  # noqa: PLC0415
    from agent_lab.logs.reader import read_logs  # noqa: PLC0415

    plugins = None
    if options.plugins is not None:
        plugins = load_plugin_set(options.plugins)
        plugin_registry(plugins, options.plugins)
    paths = [Path(name) for name in options.logs]
    for path in paths:
        if not path.is_file():
            raise UsageError(
                f"{path} is a folder: name the log files in it"
                if path.is_dir()
                else f"{path}: no such log file"
            )
    requests: list[LoggedRequest] = []
    left_out: Counter[str] = Counter()
    answerer = Answerer(plugins, read=options.read)
    for item in read_logs(
        paths,
        format=None if options.format is None else LogFormat(options.format),
        on_error="skip" if options.skip_bad_lines else "fail",
    ):
        # A line shadow cannot use (its tools refused, say) teaches nothing either: it is
        # counted as shadow counts it, or stops the command without --skip-bad-lines.
        if isinstance(item, LoggedRequest):
            skipped = refused_tools(item, answerer)
            if skipped is None:
                requests.append(item)
                continue
        else:
            skipped = item
        if not options.skip_bad_lines:
            raise LogError(skipped)
        left_out[str(skipped.reason)] += 1
    source: JSONObject = {}
    if left_out:
        source["left_out"] = dict(sorted(left_out.items()))
    if options.workload is not None and plugins is not None:
        workload = load_cases(options.workload, skip_bad=False, plugins=plugins, stderr=streams.err)
        requests += requests_of_workload(workload, plugins)
        source["workload"] = workload.name
        source["workload_sha256"] = workload.fingerprint()
    if options.plugins is not None:
        source["plugins"] = options.plugins
    if not requests:
        left = sum(left_out.values())
        raise UsageError(
            "the logs hold no request to learn from"
            + (f" ({left} line{'' if left == 1 else 's'} left out)" if left else "")
        )
    settings = LearnSettings(
        holdout=options.holdout,
        min_precision=options.min_precision,
        min_support=options.min_support,
        seed=options.seed,
        read=options.read,
        across_tools=options.across_tools,
    )
    if paths:
        source |= {"logs": [path.name for path in paths], "sha256": digest(list(map(str, paths)))}
    source |= {"requests": len(requests), "read": options.read}
    return learn(requests, settings, source=source, plugins=plugins)


def _document(learned: Learned) -> JSONObject:
    from agent_lab.log_replay.figures import rate  # noqa: PLC0415

    before, after = learned.gain.before, learned.gain.after
    return {
        "rules": learned.rules.as_json(),
        "held_out": {
            "calls": before.calls,
            "covered_before": rate(before.covered, before.calls),
            "covered_after": rate(after.covered, after.calls),
            "agreement_before": rate(before.agreed, before.covered),
            "agreement_after": rate(after.agreed, after.covered),
            "saved_requests": after.saved_requests - before.saved_requests,
            "most_conversations_per_group": learned.widest[1],
            "clean_conversations_needed": learned.needed,
        },
        "refused": {
            reason: sum(1 for r in learned.verdicts.refused if r.reason == reason)
            for reason in sorted({r.reason for r in learned.verdicts.refused})
        },
    }
