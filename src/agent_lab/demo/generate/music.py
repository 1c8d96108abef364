"""``play_music`` cases: songs, artists, playlists and genres."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "play_music"
MISSING: tuple[str, ...] = (
    "play some music",
    "play something",
    "play a song",
    "can you play music",
    "play something on shuffle",
    "play my playlist",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = ()
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Music cases that state every value (complete or paraphrased)."""
    songs = [("Hello", "Adele"), ("Yesterday", "The Beatles"), ("Imagine", "John Lennon"), ("Halo", "Beyonce"),
             ("Thriller", "Michael Jackson"), ("Jolene", "Dolly Parton"), ("Wonderwall", "Oasis")]  # fmt: skip
    artists = [
        "Queen",
        "Adele",
        "Coldplay",
        "Radiohead",
        "Madonna",
        "Abba",
        "Nirvana",
        "Shakira",
        "Metallica",
        "Prince",
    ]
    playlists = ["workout", "focus", "road trip", "sunday morning"]
    out: list[Any] = []
    for song, artist in songs:
        out.append(
            (
                "complete",
                f"play {song} by {artist}",
                {"query": f"{song} by {artist}", "kind": "song"},
            )
        )
    for artist in artists:
        if rng.random() < 0.4:
            out.append(
                (
                    "complete",
                    f"play some {artist} on shuffle",
                    {"query": artist, "kind": "artist", "shuffle": True},
                )
            )
        else:
            out.append(("complete", f"play music by {artist}", {"query": artist, "kind": "artist"}))
    for genre in ("jazz", "rock", "classical", "blues", "techno", "folk"):
        out.append(("complete", f"play some {genre}", {"query": genre, "kind": "genre"}))
    for playlist in playlists:
        out.append(
            ("complete", f"play my {playlist} playlist", {"query": playlist, "kind": "playlist"})
        )
    out += [
        ("complete", "play my running playlist on shuffle", {"query": "running", "kind": "playlist", "shuffle": True}),
        ("complete", "play some pop", {"query": "pop", "kind": "genre"}),
        ("paraphrase", "I'd like to hear something from Coldplay", {"query": "Coldplay", "kind": "artist"}),
        ("paraphrase", "put on some jazz music", {"query": "jazz", "kind": "genre"}),
        ("paraphrase", "could you put on a bit of classical music", {"query": "classical", "kind": "genre"}),
        ("paraphrase", "I'm in the mood for Queen", {"query": "Queen", "kind": "artist"}),
        ("paraphrase", "let's hear Imagine by John Lennon", {"query": "Imagine by John Lennon", "kind": "song"}),
    ]  # fmt: skip
    return out
