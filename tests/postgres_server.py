"""A PostgreSQL server of the tests' own: a throwaway cluster on loopback, stopped at the end.

It runs the binaries of the PostgreSQL installed here (``initdb`` and
``pg_ctl``: on ``PATH``, under ``AGENT_LAB_POSTGRES_BIN``, or where Debian's
``postgresql`` package puts them), in a temporary folder, with its own port
and socket. The tests stop and start it to see what a gateway does while its
database is down. PostgreSQL refuses to run as root: as root, the server
runs as the ``postgres`` user the package creates.

Where no server can be run, tests that need one skip, saying what they need;
where ``AGENT_LAB_REQUIRE_POSTGRES`` is set (CI, which installs the package),
they fail instead.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.process import free_port

__all__ = ["PostgresServer", "postgres_binaries"]

_DEBIAN = "usr/lib/postgresql/*/bin"
"""Where Debian's packages keep the server's programs, off PATH."""


def postgres_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or ``None``."""
    given = os.environ.get("AGENT_LAB_POSTGRES_BIN")
    if given:
        return Path(given)
    found = shutil.which("pg_ctl")
    if found is not None and shutil.which("initdb") is not None:
        return Path(found).parent
    versions = sorted(Path("/").glob(_DEBIAN), key=lambda path: int(path.parent.name))
    return versions[-1] if versions else None


def need_postgres() -> tuple[Path, Any]:
    """The binaries' folder and psycopg, or the test is skipped (failed under CI's demand)."""
    required = bool(os.environ.get("AGENT_LAB_REQUIRE_POSTGRES"))
    binaries = postgres_binaries()
    reason = None
    if binaries is None:
        reason = "needs a PostgreSQL server installed (initdb and pg_ctl; Debian: postgresql)"
    elif os.geteuid() == 0 and not _has_user("postgres"):
        reason = "PostgreSQL refuses to run as root, and there is no postgres user to run it as"
    if reason is not None:
        if required:
            pytest.fail(reason)
        pytest.skip(reason)
    assert binaries is not None
    try:
        import psycopg
    except ModuleNotFoundError:
        if required:
            raise
        pytest.skip("needs psycopg, from the postgres extra: uv sync --extra postgres")
    return binaries, psycopg


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


class PostgresServer:
    """A cluster in a folder of its own, listening on 127.0.0.1 only, trusting local users.

    ``durable``: PostgreSQL's own defaults (fsync on), for a benchmark; the tests
    turn fsync off (see ``start``).
    """

    def __init__(self, binaries: Path, *, durable: bool = False) -> None:
        self._binaries = binaries
        self._durable = durable
        self._folder = Path(tempfile.mkdtemp(prefix="agent-lab-pg-"))
        self._data = self._folder / "data"
        self.port = free_port()
        self._user: int | None = None
        if os.geteuid() == 0:
            self._user = pwd.getpwnam("postgres").pw_uid
            os.chown(self._folder, self._user, -1)
        self._run("initdb", "-D", str(self._data), "-U", "agent_lab", "--auth=trust", "-E", "UTF8")

    @property
    def address(self) -> str:
        """The ``postgres`` database's URL."""
        return self.database("postgres")

    def database(self, name: str) -> str:
        """The URL of database ``name`` on this server."""
        return f"postgresql://agent_lab@127.0.0.1:{self.port}/{name}"

    def new_database(self) -> str:
        """A database of its own for one test: its URL."""
        import psycopg
        from psycopg import sql

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.address, autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.database(name)

    def _run(self, program: str, *argv: str) -> None:
        subprocess.run(
            [str(self._binaries / program), *argv],
            check=True,
            capture_output=True,
            user=self._user,
            cwd=self._folder,
        )

    def start(self) -> None:
        """Start the server and wait until it accepts connections.

        Without fsync: what is committed reaches the operating system, which outlives a
        server stopped as by a crash (``immediate``), the only crash the tests make.
        """
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self._folder}"
        if not self._durable:
            options += " -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl", "-D", str(self._data), "-o", options, "-l", str(self._folder / "log"),
            "-w", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` ends sessions cleanly, ``immediate`` as a crash would."""
        self._run("pg_ctl", "-D", str(self._data), "-m", mode, "-w", "stop")

    def close(self) -> None:
        """Stop it if it runs, and remove its folder."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop("immediate")
        shutil.rmtree(self._folder, ignore_errors=True)
