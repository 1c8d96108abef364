"""The options several commands share, and how a command adds its parser to the command line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.cli import checks

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]
    """``add_parser(name, **argparse_options)``: a command's parser, ``-v`` already on it."""

__all__ = [
    "DEFAULT_DB",
    "AddParser",
    "add_failure_option",
    "add_log_requests_option",
    "add_otel_option",
    "add_provider_options",
    "add_rules_option",
    "add_wide_option",
]

DEFAULT_DB = "agent-lab.sqlite"
"""The results database ``run`` and ``sweep`` write when not told."""


def add_provider_options(
    command: argparse.ArgumentParser,
    default: str,
    *,
    latency: tuple[float, float] = (600.0, 1500.0),
) -> None:
    """The LLM a command runs against: which provider, its model, server, prices and errors."""
    command.add_argument(
        "--provider",
        type=checks.provider_name,
        default=default,
        metavar="|".join(checks.PROVIDER_NAMES) + "|MODULE:ATTR",
        help=f"the LLM (default {default}); simulated answers only from what it is sent, "
        "oracle reads the answer key (a ceiling, not a model); MODULE:ATTR is a provider "
        "of your own (an instance, or a factory taking no argument)",
    )
    command.add_argument("--model", help="model name (local: smollm2 or gemma3; openai: any)")
    command.add_argument(
        "--base-url",
        metavar="URL",
        help="openai: the server's base URL, e.g. http://127.0.0.1:8000/v1 "
        "(default $OPENAI_BASE_URL, else OpenAI's)",
    )
    command.add_argument(
        "--api-key-env",
        metavar="NAME",
        default="OPENAI_API_KEY",
        help="openai: the environment variable that holds the key (default OPENAI_API_KEY)",
    )
    command.add_argument(
        "--structured-output",
        choices=("auto", "json_schema", "json_object", "tools", "prompted"),
        default="auto",
        help="openai: how the fallback asks for JSON that follows a schema; auto tries "
        "json_schema, then json_object (llama.cpp's server), tools, prompted, moving on "
        "when the server refuses or ignores one, and records the one used (default auto)",
    )
    command.add_argument(
        "--prices",
        metavar="FILE",
        help='openai/simulated: prices per model, {"MODEL": {"input_per_mtok": "0.15", '
        '"output_per_mtok": "0.6"}}, before genai-prices\' own',
    )
    command.add_argument("--cassette", help="replay: the cassette to answer from")
    command.add_argument(
        "--record", metavar="FILE", help="record every request and reply to this cassette"
    )
    command.add_argument(
        "--simulated-latency",
        metavar="MEDIAN_MS,P95_MS",
        type=checks.latency_pair,
        default=latency,
        help=f"simulated/oracle: the latency distribution (default {latency[0]:g},{latency[1]:g})",
    )
    command.add_argument(
        "--llm-profile",
        metavar="NAME|FILE",
        default="ideal",
        help="simulated/oracle: the error profile, built in (ideal, careful, typical, sloppy) "
        "or a JSON file; printed beside every figure (default ideal: no errors)",
    )
    command.add_argument(
        "--llm-error",
        action="append",
        metavar="KEY=RATE",
        help="simulated/oracle: override one rate of the profile, e.g. wrong_value=0.05 "
        "(repeatable)",
    )
    command.add_argument(
        "--seed",
        type=checks.count,
        default=0,
        help="seeds sampling and the simulated model (default 0)",
    )
    command.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_failure_option(command: argparse.ArgumentParser) -> None:
    """``--max-failure-rate``: how many failed LLM requests fail the command."""
    command.add_argument(
        "--max-failure-rate",
        type=checks.fraction,
        default=0.05,
        metavar="RATE",
        help="exit 1 when more than this share of the trials that asked the LLM failed "
        "for the provider's reasons (default 0.05)",
    )


def add_otel_option(command: argparse.ArgumentParser) -> None:
    """``--otel-file``: where a run's spans go."""
    command.add_argument(
        "--otel-file",
        metavar="FILE",
        help="write OpenTelemetry spans (one per trial's dispatch, one per LLM request, "
        "GenAI conventions) to FILE as OTLP/JSON lines; needs the otel extra. "
        "OTEL_EXPORTER_OTLP_ENDPOINT sends them to a collector too (default: no spans)",
    )


def add_log_requests_option(command: argparse.ArgumentParser) -> None:
    """``--log-requests``: every HTTP request sent, and its answer, as log lines."""
    command.add_argument(
        "--log-requests",
        metavar="FILE",
        help="openai: append every HTTP request sent (retries included) and the response or "
        "error it got to FILE, one JSON line each in the pairs log format, keys redacted; "
        "gzip-compressed when FILE ends in .gz (default: not logged)",
    )


def add_wide_option(command: argparse.ArgumentParser) -> None:
    """``--wide``: tables with every column."""
    command.add_argument(
        "--wide",
        action="store_true",
        help="every column, the HTML report's too, however wide (default: the tables fit "
        "the terminal, leaving out columns by priority and saying which)",
    )


def add_rules_option(command: argparse.ArgumentParser) -> None:
    """``--rules``: a learned rules file applied after each event's own resolver."""
    command.add_argument(
        "--rules",
        help="a rules file agent-lab learn wrote: applied after each event's own resolver",
    )
