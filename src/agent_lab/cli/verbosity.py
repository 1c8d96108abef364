"""``-v`` and ``-vv``: the ``agent_lab`` logger's lines on stderr, in a command or a worker."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, TextIO

from agent_lab.lab.report.terminal import printable

if TYPE_CHECKING:
    from collections.abc import Generator

__all__ = ["PrintableFormatter", "log_for_life", "logging_to"]

_FORMAT = "agent-lab: %(levelname)s %(name)s: %(message)s"


class PrintableFormatter(logging.Formatter):
    """Log lines whose control characters are shown, never obeyed by the terminal.

    A log line may quote a server (an error's text) or a model (its name):
    escape sequences in them would recolour, retitle or rewrite the terminal.
    """

    def format(self, record: logging.LogRecord) -> str:
        """The formatted line, through ``printable``."""
        return printable(super().format(record))


def _handler(err: TextIO) -> logging.Handler:
    handler = logging.StreamHandler(err)
    handler.setFormatter(PrintableFormatter(_FORMAT))
    return handler


def _level(verbosity: int) -> int:
    return logging.INFO if verbosity == 1 else logging.DEBUG


@contextlib.contextmanager
def logging_to(err: TextIO, verbosity: int) -> Generator[None]:
    """``-v`` (INFO) or ``-vv`` (DEBUG) lines on ``err`` while the block runs; none for 0."""
    # The handler is the command's only, so that in-process callers (the tests) do not
    # pile handlers up.
    if verbosity <= 0:
        yield
        return
    logger = logging.getLogger("agent_lab")
    handler = _handler(err)
    before = logger.level
    logger.setLevel(_level(verbosity))
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before)


def log_for_life(err: TextIO, verbosity: int) -> None:
    """``-v`` or ``-vv`` lines on ``err`` until the process ends: a gateway worker's set-up.

    A worker uvicorn spawns starts without the command's handler; it is given
    the same one, once however often this is called.
    """
    logger = logging.getLogger("agent_lab")
    if verbosity <= 0 or any(isinstance(h.formatter, PrintableFormatter) for h in logger.handlers):
        return
    logger.setLevel(_level(verbosity))
    logger.addHandler(_handler(err))
