"""One module per ``agent-lab`` command, each holding its options and its handler.

``COMMANDS`` lists them in the order ``agent-lab --help`` shows them, and the
parser builds itself from it. A handler is ``(options, streams) -> exit code``.

Building the parser imports every command's module, so each keeps at its top
only what is cheap. What costs a second or more and only some commands need is
imported when the handler runs: building a provider (``cli.providers``: the
OpenAI SDK, about 2 s), running and reading results (``cli.trials``,
``cli.results``, ``lab.stats``: numpy, about 0.4 s) and drawing the report
(matplotlib, about 1.5 s, inside ``cli.results.write_report``). So
``agent-lab --help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent_lab.cli.commands import (
    compare,
    demo,
    events,
    export,
    gate,
    import_,
    learn,
    precision,
    providers,
    report,
    routing,
    run,
    runs,
    serve,
    shadow,
    sweep,
)

if TYPE_CHECKING:
    from agent_lab.cli.options import AddParser

__all__ = ["COMMANDS", "Command"]


class Command(Protocol):
    """A command's module: ``add_command`` adds its parser, its options and its handler."""

    def add_command(self, add_parser: AddParser) -> None:
        """Add the command to the command line through ``add_parser``."""
        ...


COMMANDS: tuple[Command, ...] = (
    demo,
    run,
    sweep,
    report,
    compare,
    gate,
    runs,
    export,
    events,
    providers,
    import_,
    precision,
    routing,
    shadow,
    learn,
    serve,
)
"""Every command, in the order ``agent-lab --help`` lists them."""
