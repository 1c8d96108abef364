"""Writing a file the user named: whole or not at all, and a failure as one line."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["write_whole"]


def write_whole(target: Path, what: str, render: Callable[[Path], object]) -> Path:
    """``render(path)`` writes the file; it reaches ``target`` whole, or not at all.

    A regular file (or a new one) is drawn beside ``target`` under a hidden
    name and renamed over it: a full disk leaves the old file as it was, and
    no half-written one. A device or a pipe (``/dev/stdout``) cannot be
    renamed over: the file is drawn in a scratch folder, then streamed to it.

    Raises:
        UsageError: The file could not be written (``what`` names the option).
    """
    try:
        real = target.resolve()
        if real.exists() and not real.is_file():
            with tempfile.TemporaryDirectory(prefix="agent-lab-") as scratch:
                drawn = Path(scratch) / real.name
                render(drawn)
                with drawn.open("rb") as source, real.open("wb") as sink:
                    shutil.copyfileobj(source, sink)
            return target
        partial = real.with_name(f".{real.name}.{secrets.token_hex(4)}.part")
        try:
            render(partial)
            partial.replace(real)
        finally:
            partial.unlink(missing_ok=True)
    except OSError as err:
        raise UsageError(f"{what} {target}: {err.strerror or err}") from err
    return target
