"""The ``agent-lab`` command (L13): ``main()`` exits with the code ``run()`` returns.

``run(argv, stdout=..., stderr=...)`` runs in-process, as the tests call it.
Exit codes: 0 ok, 1 a failed run, 2 bad usage or input (an ``InputError``), 130 interrupted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

from agent_lab.cli.flags import said
from agent_lab.cli.loading import Streams
from agent_lab.cli.parser import build_parser
from agent_lab.cli.verbosity import logging_to
from agent_lab.errors import InputError
from agent_lab.lab.report.terminal import printable

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "run"]


def run(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed run, 2 bad usage)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    try:
        # argparse prints help and usage errors itself: send them to our streams.
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            options = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 0
    wide = bool(getattr(options, "wide", False))
    streams = Streams(
        out=out, err=err, console=Console(file=out, width=_width(out, wide=wide)), wide=wide
    )
    try:
        with logging_to(err, int(getattr(options, "verbose", 0))):
            return options.handler(options, streams)
    except InputError as problem:
        # Whatever the user supplied wrongly, on the command line or in a file it names.
        print(printable(f"agent-lab: {said(problem)}"), file=err)
        return 2
    except KeyboardInterrupt:
        return 130


_FILE_WIDTH = 160
"""Table width written to a file or a pipe, where no terminal says how wide it is."""


def _width(out: TextIO, *, wide: bool) -> int:
    if wide:
        return 100_000  # as wide as the widest table: nothing is squeezed or left out
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if out.isatty():
            return shutil.get_terminal_size().columns
    except (AttributeError, ValueError, OSError):
        pass
    return _FILE_WIDTH


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
