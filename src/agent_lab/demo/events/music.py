"""``play_music``: a song, an artist, a playlist or a genre, maybe on shuffle."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import closed_object
from agent_lab.kernel.models import EventDefinition, Resolution

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "GENRES", "ROUTE", "play", "read_music"]

GENRES = ("jazz", "rock", "pop", "classical", "hip hop", "blues", "techno", "folk")
"""The genres the resolver knows by name."""
_SONG = re.compile(
    r"\bplay (?:the song )?[\"']?(?P<song>[A-Z][\w' ]+?)[\"']? by (?P<artist>[A-Z][\w' ]+?)(?: on shuffle)?$"
)
_ARTIST = re.compile(
    r"\bplay (?:some |music by |songs by |something by )(?P<artist>[A-Z][\w' ]+?)(?: on shuffle)?$"
)
_PLAYLIST = re.compile(r"\bplay (?:my |the )?(?P<name>(?!my\b)[\w ]+?) playlist\b", re.I)


def read_music(event: Event) -> Resolution:
    """``play Hello by Adele`` -> song; ``play some Queen`` -> artist; ``play some jazz`` -> genre."""
    text = event.text.strip().rstrip(".!")
    arguments: JSONObject = {}
    genre = re.search(r"\bplay (?:some )?(" + "|".join(GENRES) + r")\b", text, re.I)
    playlist = _PLAYLIST.search(text)
    song = _SONG.search(text)
    artist = _ARTIST.search(text)
    if genre:
        arguments["query"], arguments["kind"] = genre.group(1).lower(), "genre"
    elif playlist:
        arguments["query"], arguments["kind"] = playlist.group("name").lower(), "playlist"
    elif song:
        arguments["query"], arguments["kind"] = (
            f"{song.group('song')} by {song.group('artist')}",
            "song",
        )
    elif artist:
        arguments["query"], arguments["kind"] = artist.group("artist"), "artist"
    if re.search(r"\bshuffle\b", text, re.I):
        arguments["shuffle"] = not re.search(r"\b(?:no|without|don't) shuffl", text, re.I)
    return Resolution(arguments)


def play(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms playback."""
    return {
        "playing": arguments["query"],
        "kind": arguments["kind"],
        "shuffle": arguments.get("shuffle", False),
    }


EVENT = EventDefinition(
    "play_music",
    description="Play a song, an artist, a playlist or a genre.",
    parameters=closed_object(
        {
            "query": {"type": "string", "minLength": 1},
            "kind": {"enum": ["song", "artist", "playlist", "genre"]},
            "shuffle": {"type": "boolean"},
        },
        required=["query", "kind"],
    ),
    resolver=read_music,
    handler=play,
)
ROUTE = Route("play_music", patterns=(r"\bplay\b", r"\bplaylist\b"), keywords=("music", "song"))
