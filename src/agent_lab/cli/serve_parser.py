"""``agent-lab serve``'s options: the upstream, the mode, the store, the limits, the trust."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.cli import checks, serving

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_serve"]


def add_serve(add_parser: AddParser) -> None:
    """Add ``serve`` to the command line."""
    serve = add_parser(
        "serve",
        help="an OpenAI-compatible gateway in front of your model: shadow, or answer locally",
    )
    serve.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the base URL your assistant calls today",
    )
    serve.add_argument(
        "--mode",
        choices=("shadow", "enforce"),
        default="shadow",
        help="shadow: forward everything, store the decision beside the answer; enforce: "
        "answer covered requests for trusted tools locally (default shadow)",
    )
    serve.add_argument(
        "--plugins", help="MODULE:ATTRIBUTE or a folder: your own resolvers for your tools"
    )
    serve.add_argument(
        "--rules", help="a rules file agent-lab learn wrote: the schema-driven resolver applies it"
    )
    serve.add_argument(
        "--db",
        default="gateway.sqlite",
        help="the store: every finished request and its decision (default gateway.sqlite); "
        "agent-lab shadow reads it",
    )
    serve.add_argument(
        "--no-store", action="store_true", help="store nothing (spans and metrics only)"
    )
    serve.add_argument(
        "--enforce",
        action="append",
        metavar="TOOL",
        help="enforce: a tool trusted to be answered locally (repeat for several)",
    )
    serve.add_argument(
        "--min-agreement",
        type=checks.fraction,
        help="enforce: also trust a tool whose shadow agreement in the store clears this at "
        "its interval's lower bound (e.g. 0.99)",
    )
    _serving_options(serve)
    serve.set_defaults(handler=serving.serve_command)


def _serving_options(serve: argparse.ArgumentParser) -> None:
    """Where it listens, the keys, and the limits."""
    serve.add_argument("--host", default="127.0.0.1", help="bind here (default 127.0.0.1)")
    serve.add_argument("--port", type=checks.port, default=8080, help="(default 8080)")
    serve.add_argument(
        "--workers", type=checks.positive_count, default=1, help="processes (default 1)"
    )
    serve.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="require clients to send the key this variable holds (then it is not forwarded)",
    )
    serve.add_argument(
        "--upstream-key-env",
        metavar="NAME",
        help="send the upstream the key this variable holds (default: the client's own)",
    )
    serve.add_argument(
        "--max-body-bytes",
        type=checks.positive_count,
        default=8 << 20,
        help="refuse larger request bodies with 413 (default 8 MiB)",
    )
    serve.add_argument(
        "--max-upstream-body-bytes",
        type=checks.positive_count,
        default=64 << 20,
        help="answer 502 for a larger non-streamed upstream answer, read no further "
        "(default 64 MiB)",
    )
    serve.add_argument(
        "--upstream-timeout",
        type=checks.positive_seconds,
        default=600.0,
        help="seconds a forwarded request may take, whole (default 600)",
    )
    serve.add_argument(
        "--max-in-flight",
        type=checks.positive_count,
        default=512,
        help="requests served at once per process; more get 429 with Retry-After (default 512)",
    )
    serve.add_argument(
        "--body-timeout",
        type=checks.positive_seconds,
        default=10.0,
        help="seconds a client has to send a request's whole body; later, 408 and the "
        "connection closed (default 10)",
    )
    serve.add_argument(
        "--pass-cors",
        action="store_true",
        help="relay the upstream's access-control-* headers (by default the gateway drops them, "
        "as it drops its cookies)",
    )
    serve.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the resolvers read (default last)",
    )
