"""Reading the README and the docs pages as the tests run them: fenced blocks, markers, commands.

A page's fenced blocks are read in order, each with its language, its
``title="..."`` (a file the page tells the reader to write) and the marker
comment on the line before it, if any:

* ``<!-- test: not run, WHY -->`` before a shell block: its commands are
  parsed by the real parser, not run (a 3-minute model, a real endpoint);
  unmarked, every command is ``agent-lab ...`` or ``python FILE.py`` for a
  file the page wrote, and runs;
* ``<!-- test: prints -->`` before a text block: what the page's previous
  Python block printed (``...`` matches anything);
* ``<!-- test: valid against FILE -->`` before a JSON block: it validates
  against the JSON Schema ``docs/FILE``.
* ``<!-- test: synopsis -->`` before a text block: each ``agent-lab
  COMMAND [--option]...`` line names a command and options the parser takes.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO_ROOT

__all__ = [
    "PAGES",
    "PYTHON",
    "SHELL",
    "Block",
    "Command",
    "Link",
    "anchors",
    "blocks",
    "commands",
    "links",
    "page_id",
]

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
"""Every page a reader may follow: the README and the site's pages."""
PYTHON = frozenset({"python", "py", "pycon"})
SHELL = frozenset({"sh", "bash", "shell", "console"})

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_MARKER = re.compile(r"^\s*<!--\s*test:\s*(?P<marker>.*?)\s*-->\s*$")
_TITLE = re.compile(r"""title=["'](?P<title>[^"']+)["']""")
_SEPARATORS = frozenset({"&&", "||", ";", "|"})
_UV_OPTIONS_WITH_VALUE = frozenset({"--group", "--extra", "--with", "--python", "--directory"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int
    """The fence's line number, 1-based."""
    language: str
    title: str | None
    """The file the page tells the reader to write with this block's text."""
    marker: str | None
    """The ``<!-- test: ... -->`` comment on the line before the fence, without its frame."""
    text: str

    @property
    def where(self) -> str:
        """``page:line``, for failure messages."""
        return f"{self.page.relative_to(REPO_ROOT)}:{self.line}"


def page_id(page: Path) -> str:
    """A page's name as a test id: its path in the repository."""
    return str(page.relative_to(REPO_ROOT))


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks in order (indented ones, under list items, included)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"].strip()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end][len(indent) :] if lines[end].startswith(indent) else lines[end])
            end += 1
        previous = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marker = _MARKER.match(previous)
        title = _TITLE.search(info)
        found.append(
            Block(
                page=page,
                line=index + 1,
                language=info.split()[0].lower() if info.split() else "",
                title=title["title"] if title else None,
                marker=marker["marker"] if marker else None,
                text="\n".join(body) + "\n",
            )
        )
        index = end + 1
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One command of a shell block, as a reader would type it."""

    words: tuple[str, ...]
    """The command's words, environment assignments and ``uv run`` left out."""
    line: str
    """The line it came from, for failure messages."""

    @property
    def agent_lab(self) -> tuple[str, ...] | None:
        """The arguments given to ``agent-lab``, or ``None`` for another program."""
        if self.words[:1] == ("agent-lab",):
            return self.words[1:]
        if self.words[:3] in {("python", "-m", "agent_lab"), ("python3", "-m", "agent_lab")}:
            return self.words[3:]
        return None

    @property
    def script(self) -> str | None:
        """The file ``python FILE.py`` runs, or ``None`` for another command."""
        if len(self.words) == 2 and self.words[0] in {"python", "python3"}:
            return self.words[1] if self.words[1].endswith(".py") else None
        return None


def _program(words: list[str]) -> list[str]:
    """The words from the program on: ``KEY=value`` and ``uv run [OPTIONS]`` dropped."""
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        words = words[1:]
    if words[:2] == ["uv", "run"]:
        words = words[2:]
        while words and words[0].startswith("-"):
            words = words[2:] if words[0] in _UV_OPTIONS_WITH_VALUE else words[1:]
    return words


def commands(block: Block) -> list[Command]:
    """The commands a shell block holds: continuation lines joined, comments and prompts dropped.

    In a ``console`` block only the lines after a ``$`` prompt are commands;
    the others are what they print.
    """
    lines = block.text.replace("\\\n", " ").splitlines()
    if block.language == "console":
        lines = [line.strip()[2:] for line in lines if line.strip().startswith("$ ")]
    found: list[Command] = []
    for line in lines:
        words: list[str] = []
        for word in [*shlex.split(line, comments=True), "&&"]:
            if word in _SEPARATORS:
                program = _program(words)
                if program:
                    found.append(Command(words=tuple(program), line=line.strip()))
                words = []
            else:
                words.append(word)
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class Link:
    """One Markdown link or image of a page, outside its code."""

    page: Path
    line: int
    target: str
    """What the link points at, as written: ``other.md#anchor``, ``#anchor``, ``image.png``."""

    @property
    def where(self) -> str:
        """``page:line``, for failure messages."""
        return f"{self.page.relative_to(REPO_ROOT)}:{self.line}"


_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"(`+).+?\1")
_HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*#*\s*$")


def _prose(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks, each with its 1-based number."""
    kept: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is None and opening is not None:
            fence = opening["fence"]
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            kept.append((number, line))
    return kept


def links(page: Path) -> list[Link]:
    """Every link and image of the page, code spans and fenced blocks left out."""
    return [
        Link(page=page, line=number, target=found["target"])
        for number, line in _prose(page)
        for found in _LINK.finditer(_CODE_SPAN.sub("", line))
    ]


def _slug(heading: str) -> str:
    """A heading's anchor as MkDocs' table of contents makes it (Python-Markdown's ``slugify``)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """The anchors of the page's headings."""
    return {_slug(found["text"]) for _, line in _prose(page) if (found := _HEADING.match(line))}
