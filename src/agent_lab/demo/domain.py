"""The demo assistant: eight events with schemas, deterministic resolvers, handlers and routes.

Resolvers read what plain code can read (digits and number words, units,
relative dates against the clock a case injects as ``context["now"]``) and
leave the rest missing, for the fallback. Handlers do no I/O: they return
what a real assistant would confirm.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from agent_lab.application.events.models import EventDefinition, Resolution
from agent_lab.application.plugins import PluginSet, Route
from agent_lab.resolvers.english import (
    NUMBER,
    find_duration_seconds,
    find_time,
    parse_now,
    relative_date,
    words_to_number,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.application.events.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["DEVICES", "EVENTS", "GENRES", "UNITS", "plugins"]

DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
TIME = {"type": "string", "pattern": r"^([01]\d|2[0-3]):[0-5]\d$"}
GENRES = ("jazz", "rock", "pop", "classical", "hip hop", "blues", "techno", "folk")
DEVICES = ("living room lights", "bedroom lights", "kitchen lights", "thermostat", "fan", "tv")
UNITS = {
    "length": {"m": ("meters", "meter", "metres", "m"), "km": ("kilometers", "kilometres", "km"),
               "mi": ("miles", "mile", "mi"), "ft": ("feet", "foot", "ft")},
    "weight": {"kg": ("kilograms", "kilos", "kg"), "lb": ("pounds", "pound", "lbs", "lb"),
               "g": ("grams", "gram", "g"), "oz": ("ounces", "ounce", "oz")},
    "temperature": {"c": ("celsius", "centigrade", "c"), "f": ("fahrenheit", "f")},
}  # fmt: skip
_UNIT_WORDS = {
    word: code for family in UNITS.values() for code, words in family.items() for word in words
}
_FACTORS = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "ft": 0.3048, "kg": 1.0, "lb": 0.45359237,
            "g": 0.001, "oz": 0.028349523125}  # fmt: skip


_UNIT_ALTERNATION = "|".join(sorted((w for w in _UNIT_WORDS if len(w) > 1), key=len, reverse=True))


def _now(event: Event) -> Any:
    return parse_now(event.context.get("now"))


# Timers -----------------------------------------------------------------------------

_LABEL = re.compile(
    r"\bfor (?:the |my )?([a-z]+(?: [a-z]+)?)\s*$|\b(?:the |my |a |an )?([a-z]+) timer\b", re.I
)
_NOT_LABELS = {"a", "an", "the", "my", "set", "start", "new", "one", "two", "three", "five", "ten", "minute", "hour", "second"}  # fmt: skip


def read_timer(event: Event) -> Resolution:
    """``set a 10 minute timer for the pasta`` -> 600 seconds, label ``pasta``."""
    arguments: JSONObject = {}
    seconds = find_duration_seconds(event.text)
    if seconds is not None:
        arguments["duration_seconds"] = seconds
    for match in _LABEL.finditer(event.text):
        label = (match.group(1) or match.group(2) or "").lower()
        if (
            label
            and label.split()[-1] not in _NOT_LABELS
            and not re.fullmatch(NUMBER, label.split()[0])
            and not re.search(r"\d|minutes?|hours?|seconds?", label)
        ):
            arguments["label"] = label
            break
    return Resolution(arguments)


def start_timer(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the countdown."""
    return {
        "started": True,
        "seconds": arguments["duration_seconds"],
        "label": arguments.get("label"),
    }


# Reminders --------------------------------------------------------------------------

_TASK = re.compile(
    r"remind me (?:to |that i need to |that i have to )(.+?)"
    r"(?=\s+(?:at|on|tomorrow|the day after tomorrow|today|tonight|in (?:\w+ ){1,2}(?:minutes?|hours?|days?)|next|this)\b|[.?!]?$)",
    re.I,
)


def read_reminder(event: Event) -> Resolution:
    """``remind me to call mom tomorrow at 5pm`` -> task, date, time (dates against context['now'])."""
    now = _now(event)
    arguments: JSONObject = {}
    task = _TASK.search(event.text)
    if task:
        arguments["task"] = task.group(1).strip()
    offset = re.search(rf"\bin ({NUMBER}) (minutes?|hours?)\b", event.text, re.I)
    if offset:
        seconds = find_duration_seconds(offset.group(0))
        if seconds:
            moment = now + timedelta(seconds=seconds)
            arguments["date"] = moment.date().isoformat()
            arguments["time"] = moment.strftime("%H:%M")
            return Resolution(arguments)
    day = relative_date(event.text, now)
    time = find_time(event.text)
    if time is not None:
        arguments["time"] = time
        arguments["date"] = (day or now.date()).isoformat()
    elif day is not None:
        arguments["date"] = day.isoformat()
    return Resolution(arguments)


def save_reminder(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the reminder."""
    return {"saved": True, "when": f"{arguments['date']}T{arguments['time']}"}


# Weather ------------------------------------------------------------------------------

_CITY = re.compile(r"\b(?:in|for|at|over) ((?:[A-Z][a-z]+)(?: [A-Z][a-z]+)?)")


def read_weather(event: Event) -> Resolution:
    """``weather in Oslo tomorrow`` -> city, day_offset 1."""
    now = _now(event)
    arguments: JSONObject = {}
    city = _CITY.search(event.text)
    if city and city.group(1) not in (
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ):
        arguments["city"] = city.group(1)
    day = relative_date(event.text, now)
    if day is not None:
        arguments["day_offset"] = (day - now.date()).days
    return Resolution(arguments)


def forecast(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """A made-up but deterministic forecast."""
    city = str(arguments["city"])
    return {"city": city, "day_offset": arguments.get("day_offset", 0), "high_c": 5 + len(city) % 7}


# Calendar -------------------------------------------------------------------------------

_TITLE = re.compile(
    r"(?:schedule|add|book|put|create)(?: me)? (?:a |an |the |my )?(.+?)"
    r"(?=\s+(?:on|for|at|tomorrow|today|tonight|in \w+ days?|next|this)\b|[.?!]?$)",
    re.I,
)
_EVENT_LENGTH = re.compile(rf"\bfor ({NUMBER}|an|a) (minutes?|hours?)\b", re.I)


def read_calendar(event: Event) -> Resolution:
    """``schedule a dentist appointment next monday at 10am for 45 minutes``."""
    now = _now(event)
    arguments: JSONObject = {}
    title = _TITLE.search(event.text)
    if title:
        words = re.sub(
            r"\s+(?:in|on)\s+(?:my|the)\s+calendar$", "", title.group(1).strip(), flags=re.I
        )
        arguments["title"] = words
    day = relative_date(event.text, now)
    if day is not None:
        arguments["date"] = day.isoformat()
    time = find_time(event.text)
    if time is not None:
        arguments["time"] = time
    length = _EVENT_LENGTH.search(event.text)
    if length:
        seconds = find_duration_seconds(length.group(0).removeprefix("for "))
        if seconds:
            arguments["duration_minutes"] = seconds // 60
    return Resolution(arguments)


def add_to_calendar(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the calendar entry."""
    return {
        "created": True,
        "title": arguments["title"],
        "start": f"{arguments['date']}T{arguments['time']}",
    }


# Messages ---------------------------------------------------------------------------------

_MESSAGE = re.compile(
    r"^(?:please )?(?P<verb>text|sms|email|e-mail|message|tell|fax|whatsapp)\s+"
    r"(?P<to>[A-Z][a-z]+)(?:\s+(?:that|saying|to say)|:)\s+(?P<body>.+?)[.!]?$",
)
_CHANNELS = {"text": "sms", "sms": "sms", "email": "email", "e-mail": "email", "message": "chat",
             "tell": "chat", "fax": "fax", "whatsapp": "whatsapp"}  # fmt: skip
_RECIPIENT = re.compile(
    r"^(?:please )?(?:text|sms|email|message|tell|send (?:a message|a text|an email) to)\s+([A-Z][a-z]+)\b"
)


def read_message(event: Event) -> Resolution:
    """``text Anna that I'm running late`` -> to Anna, body, channel sms."""
    arguments: JSONObject = {}
    match = _MESSAGE.search(event.text)
    if match:
        arguments["to"] = match.group("to")
        arguments["body"] = match.group("body")
        arguments["channel"] = _CHANNELS[match.group("verb").lower()]
        return Resolution(arguments)
    recipient = _RECIPIENT.search(event.text)
    if recipient:
        arguments["to"] = recipient.group(1)
    return Resolution(arguments)


def send(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the message."""
    return {"sent": True, "to": arguments["to"], "channel": arguments.get("channel", "chat")}


# Music ---------------------------------------------------------------------------------------

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


# Unit conversion ------------------------------------------------------------------------------

_CONVERT = re.compile(
    rf"(?P<value>-?{NUMBER})\s*(?:degrees\s+)?(?P<from>[a-z]+)\s+(?:to|in|into)\s+(?:degrees\s+)?(?P<to>[a-z]+)\b",
    re.I,
)
_HOW_MANY = re.compile(
    rf"how many (?P<to>[a-z]+) (?:is|are|in) (?P<value>-?{NUMBER})\s*(?P<from>[a-z]+)\b", re.I
)


def read_conversion(event: Event) -> Resolution:
    """``convert 5 km to miles``, ``how many pounds is 3 kg``, ``20 celsius in fahrenheit``."""
    arguments: JSONObject = {}
    match = _CONVERT.search(event.text) or _HOW_MANY.search(event.text)
    if match:
        value = words_to_number(match.group("value"))
        source = _UNIT_WORDS.get(match.group("from").lower())
        target = _UNIT_WORDS.get(match.group("to").lower())
        if value is not None and source and target:
            arguments["value"] = int(value) if value == int(value) else value
            arguments["from_unit"] = source
            arguments["to_unit"] = target
    return Resolution(arguments)


def convert(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Converts, for real."""
    value = float(arguments["value"])  # type: ignore[arg-type]
    source, target = str(arguments["from_unit"]), str(arguments["to_unit"])
    if source in _FACTORS:
        result = value * _FACTORS[source] / _FACTORS[target]
    else:
        celsius = value if source == "c" else (value - 32) * 5 / 9
        result = celsius if target == "c" else celsius * 9 / 5 + 32
    return {"value": round(result, 4), "unit": target}


# Smart home ----------------------------------------------------------------------------------------

_DEVICE_WORDS = {
    "living room lights": r"living ?room (?:lights?|lamps?)|lights? in the living ?room",
    "bedroom lights": r"bedroom (?:lights?|lamps?)|lights? in the bedroom",
    "kitchen lights": r"kitchen (?:lights?|lamps?)|lights? in the kitchen",
    "thermostat": r"thermostat|heating",
    "fan": r"\bfan\b",
    "tv": r"\btv\b|\btelevision\b",
}


def read_device(event: Event) -> Resolution:
    """``turn off the kitchen lights``, ``set the thermostat to 21``."""
    text = event.text.lower()
    arguments: JSONObject = {}
    for device, pattern in _DEVICE_WORDS.items():
        if re.search(pattern, text):
            arguments["device"] = device
            break
    if re.search(r"\b(?:turn|switch|put) (?:\w+ )*?on\b|\bon the\b", text) and "set" not in text:
        arguments["action"] = "on"
    if re.search(r"\b(?:turn|switch|shut) (?:\w+ )*?off\b", text):
        arguments["action"] = "off"
    level = re.search(rf"\b(?:set|turn|put) .*?\bto ({NUMBER})\b", text)
    if level:
        value = words_to_number(level.group(1))
        if value is not None:
            arguments["action"] = "set"
            arguments["value"] = int(value) if value == int(value) else value
    return Resolution(arguments)


def operate(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the device change."""
    return {"device": arguments["device"], "state": arguments.get("value", arguments["action"])}


EVENTS = (
    EventDefinition(
        "set_timer",
        description="Start a countdown timer.",
        parameters={
            "type": "object",
            "properties": {
                "duration_seconds": {"type": "integer", "minimum": 1, "maximum": 86400},
                "label": {"type": "string", "minLength": 1, "maxLength": 40},
            },
            "required": ["duration_seconds"],
            "additionalProperties": False,
        },
        resolver=read_timer,
        handler=start_timer,
    ),
    EventDefinition(
        "set_reminder",
        description="Remind the user of a task at a date and time.",
        parameters={
            "type": "object",
            "properties": {"task": {"type": "string", "minLength": 1}, "date": DATE, "time": TIME},
            "required": ["task", "date", "time"],
            "additionalProperties": False,
        },
        resolver=read_reminder,
        handler=save_reminder,
    ),
    EventDefinition(
        "get_weather",
        description="Weather forecast for a city, today (day_offset 0) or up to 6 days ahead.",
        parameters={
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "day_offset": {"type": "integer", "minimum": 0, "maximum": 6},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
        resolver=read_weather,
        handler=forecast,
    ),
    EventDefinition(
        "create_event",
        description="Add an event to the calendar.",
        parameters={
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "date": DATE,
                "time": TIME,
                "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480},
            },
            "required": ["title", "date", "time"],
            "additionalProperties": False,
        },
        resolver=read_calendar,
        handler=add_to_calendar,
    ),
    EventDefinition(
        "send_message",
        description="Send a message to a contact by sms, email or chat.",
        parameters={
            "type": "object",
            "properties": {
                "to": {"type": "string", "minLength": 1},
                "body": {"type": "string", "minLength": 1},
                "channel": {"enum": ["sms", "email", "chat"]},
            },
            "required": ["to", "body"],
            "additionalProperties": False,
        },
        resolver=read_message,
        handler=send,
    ),
    EventDefinition(
        "play_music",
        description="Play a song, an artist, a playlist or a genre.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "kind": {"enum": ["song", "artist", "playlist", "genre"]},
                "shuffle": {"type": "boolean"},
            },
            "required": ["query", "kind"],
            "additionalProperties": False,
        },
        resolver=read_music,
        handler=play,
    ),
    EventDefinition(
        "convert_units",
        description="Convert a length, a weight or a temperature between units.",
        parameters={
            "type": "object",
            "properties": {
                "value": {"type": "number"},
                "from_unit": {"enum": [code for family in UNITS.values() for code in family]},
                "to_unit": {"enum": [code for family in UNITS.values() for code in family]},
            },
            "required": ["value", "from_unit", "to_unit"],
            "additionalProperties": False,
            "anyOf": [
                {
                    "properties": {
                        "from_unit": {"enum": list(codes)},
                        "to_unit": {"enum": list(codes)},
                    }
                }
                for codes in UNITS.values()
            ],
        },
        resolver=read_conversion,
        handler=convert,
    ),
    EventDefinition(
        "control_device",
        description="Turn a smart-home device on or off, or set its level.",
        parameters={
            "type": "object",
            "properties": {
                "device": {"enum": list(DEVICES)},
                "action": {"enum": ["on", "off", "set"]},
                "value": {"type": "number"},
            },
            "required": ["device", "action"],
            "additionalProperties": False,
            "if": {"properties": {"device": {"const": "thermostat"}}, "required": ["device"]},
            "then": {"properties": {"value": {"minimum": 10, "maximum": 30}}},
            "else": {"properties": {"value": {"minimum": 0, "maximum": 100}}},
        },
        resolver=read_device,
        handler=operate,
    ),
)

ROUTES = (
    Route("set_timer", patterns=(r"\btimer\b", r"\bcount ?down\b")),
    Route("set_reminder", patterns=(r"\bremind(?:er)?\b", r"^remind me\b")),
    Route("get_weather", patterns=(r"\bweather\b", r"\bforecast\b"), keywords=("rain", "sunny", "snow", "umbrella")),
    Route("create_event", patterns=(r"\b(?:schedule|calendar|appointment|meeting)\b",), keywords=("book",)),
    Route(
        "send_message",
        patterns=(
            r"^(?:please )?(?:text|sms|email|e-mail|message|fax|whatsapp)\b",
            r"^(?:please )?(?:text|sms|email|e-mail|message|fax|whatsapp|tell) [A-Z][a-z]+(?::| that\b| saying\b)",
            r"^(?:please )?tell (?!me\b)[A-Z]",
            r"\bsend (?:a |an )?(?:message|text|email)\b",
            r"^let [A-Z][a-z]+ know\b",
        ),
    ),
    Route("play_music", patterns=(r"\bplay\b", r"\bplaylist\b"), keywords=("music", "song")),
    Route(
        "convert_units",
        patterns=(
            r"\bconvert\b",
            rf"\bhow many (?:{_UNIT_ALTERNATION})\b",
            rf"\b[\d.]+\s*(?:degrees )?(?:{_UNIT_ALTERNATION}) (?:in|to|into) (?:degrees )?(?:{_UNIT_ALTERNATION})\b",
        ),
    ),
    Route(
        "control_device",
        patterns=(r"\b(?:turn|switch|shut) (?:\w+ )*?(?:on|off)\b", r"\bthermostat\b", r"\blights?\b", r"\btoo (?:dark|bright|hot|cold)\b"),
        keywords=("fan", "tv", "heating"),
    ),
)  # fmt: skip

plugins = PluginSet(name="agent_lab.demo:plugins", definitions=EVENTS, routes=ROUTES)
"""The demo's plugin set: ``--plugins agent_lab.demo:plugins``."""
