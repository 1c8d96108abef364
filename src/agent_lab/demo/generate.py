"""Writes the demo workload (``workload.jsonl``): natural utterances with their ground truth.

Run ``uv run python -m agent_lab.demo.generate`` to rewrite the shipped file;
a test checks that the shipped file is exactly what this produces.

Every case says which event is meant (``null`` when none is), the status a
correct assistant ends with, and, for ``success``, the exact arguments. The
expected values come from the templates' own slot values, never from the
resolvers, so the resolvers are checked against them. Categories (tags):

* ``complete``: plain code can read everything: expected ``success``.
* ``paraphrase``: the information is there, in words the resolvers do not
  read (or the router does not recognise): expected ``success``, which only
  an LLM can reach.
* ``missing``: the information is not in the words: expected
  ``missing_information`` (the assistant should ask).
* ``invalid``: readable, but outside what the event accepts: expected
  ``invalid_arguments``.
* ``out_of_domain``: no event fits: expected ``unknown_event``. A few use
  words the router keys on ("book", "play"), on purpose.
"""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

NOW = datetime(2026, 12, 1, 9, 0)  # a Tuesday, 09:00: the clock every case injects
WORKLOAD = Path(__file__).with_name("workload.jsonl")
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 10: "ten",
         12: "twelve", 15: "fifteen", 20: "twenty", 25: "twenty five", 30: "thirty", 45: "forty five"}  # fmt: skip
Case = tuple[str, str, str, Any]
"""(event, category, text, expected arguments or None)."""
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def _n(rng: random.Random, value: int) -> str:
    return WORDS[value] if value in WORDS and rng.random() < 0.4 else str(value)


def _weekday(name: str) -> date:
    ahead = (WEEKDAYS.index(name) - NOW.weekday()) % 7 or 7
    return NOW.date() + timedelta(days=ahead)


TIMES = [("5pm", "17:00"), ("7:30am", "07:30"), ("noon", "12:00"), ("18:45", "18:45"),
         ("9am", "09:00"), ("3:15 pm", "15:15"), ("8pm", "20:00"), ("10:30", "10:30")]  # fmt: skip


def timers(rng: random.Random) -> list[Case]:
    """Timer cases."""
    labels = ["pasta", "eggs", "tea", "laundry", "oven", "pizza", "bread", "rice"]
    out: list[Any] = []
    for minutes in (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 20, 25, 30, 35, 45, 50):
        label = rng.choice(labels)
        templates: list[tuple[str, dict[str, Any]]] = [
            ("set a timer for {m} minutes", {}),
            ("start a {m} minute timer", {}),
            ("{m} minute timer for the {label}", {"label": label}),
            ("set a timer for {m} minutes for my {label}", {"label": label}),
            ("count down {m} minutes", {}),
        ]  # fmt: skip
        said, extra = rng.choice(templates)
        text = said.format(m=_n(rng, minutes), label=label)
        out.append(("complete", text, {"duration_seconds": minutes * 60, **extra}))
    for seconds in (30, 45, 90):
        out.append(
            (
                "complete",
                f"set a timer for {_n(rng, seconds)} seconds",
                {"duration_seconds": seconds},
            )
        )
    for hours in (1, 2, 3):
        out.append(
            (
                "complete",
                f"set a timer for {hours} hour{'s' if hours > 1 else ''}",
                {"duration_seconds": hours * 3600},
            )
        )
    out += [
        ("complete", "set a timer for half an hour", {"duration_seconds": 1800}),
        ("complete", "start a timer for an hour and a half", {"duration_seconds": 5400}),
        ("complete", "set a timer for a quarter of an hour for the tea", {"duration_seconds": 900, "label": "tea"}),
        ("complete", "bread timer for 40 minutes", {"duration_seconds": 2400, "label": "bread"}),
        ("complete", "timer for 1.5 hours", {"duration_seconds": 5400}),
        ("complete", "set a timer for 6 minutes for the eggs", {"duration_seconds": 360, "label": "eggs"}),
        ("paraphrase", "set a timer for two and a half minutes", {"duration_seconds": 150}),
        ("paraphrase", "timer for 1h30 please", {"duration_seconds": 5400}),
        ("paraphrase", "set a timer for a quarter hour", {"duration_seconds": 900}),
        ("complete", "timer: three quarters of an hour", {"duration_seconds": 2700}),
        ("paraphrase", "set a timer for twenty minutes less five", {"duration_seconds": 900}),
        ("paraphrase", "set a timer for three and a half minutes for the eggs", {"duration_seconds": 210, "label": "eggs"}),
        ("paraphrase", "set a timer for one hundred and twenty seconds", {"duration_seconds": 120}),
        ("missing", "set a timer", None),
        ("missing", "start a timer for the pasta", None),
        ("missing", "I need a timer", None),
        ("missing", "can you set a timer for the eggs", None),
        ("missing", "timer please", None),
        ("missing", "start a countdown for the bread", None),
        ("invalid", "set a timer for 2 days", None),
        ("invalid", "set a timer for 3 days for the dough", None),
        ("invalid", "set a timer for 25 hours", None),
        ("invalid", "set a timer for 0 seconds", None),
        ("invalid", "start a timer for 48 hours", None),
    ]  # fmt: skip
    return [("set_timer", *case) for case in out]


def reminders(rng: random.Random) -> list[Case]:
    """Reminder cases (dates against NOW)."""
    tasks = ["call mom", "buy milk", "take the pills", "water the plants", "pay the rent",
             "send the invoice", "pick up the kids", "book the car service", "renew my passport",
             "call the landlord", "buy a birthday card", "check the mail", "charge the car"]  # fmt: skip
    out: list[Any] = []
    for task in tasks:
        said, time = rng.choice(TIMES)
        kind = rng.randrange(5)
        if kind == 0:
            out.append(
                (f"remind me to {task} tomorrow at {said}", {"date": "2026-12-02", "time": time})
            )
        elif kind == 1:
            out.append((f"remind me to {task} at {said}", {"date": "2026-12-01", "time": time}))
        elif kind == 2:
            hours = rng.choice([1, 2, 3, 4])
            moment = NOW + timedelta(hours=hours)
            out.append((f"remind me to {task} in {_n(rng, hours) if hours > 1 else 'an'} hour{'s' if hours > 1 else ''}",
                        {"date": moment.date().isoformat(), "time": moment.strftime("%H:%M")}))  # fmt: skip
        elif kind == 3:
            day = rng.choice(WEEKDAYS)
            out.append(
                (
                    f"remind me to {task} on {day} at {said}",
                    {"date": _weekday(day).isoformat(), "time": time},
                )
            )
        else:
            out.append(
                (
                    f"remind me to {task} the day after tomorrow at {said}",
                    {"date": "2026-12-03", "time": time},
                )
            )
    for task, minutes in (
        ("stretch", 20),
        ("check the oven", 45),
        ("move the car", 30),
        ("join the call", 15),
    ):
        moment = NOW + timedelta(minutes=minutes)
        out.append(
            (
                f"remind me to {task} in {_n(rng, minutes)} minutes",
                {"date": "2026-12-01", "time": moment.strftime("%H:%M")},
            )
        )
    for task, day, said, time in (("call the plumber", "friday", "10am", "10:00"), ("feed the cat", "saturday", "8:15am", "08:15"),
                                  ("submit the report", "monday", "4pm", "16:00"), ("buy flowers", "sunday", "11am", "11:00"),
                                  ("take out the trash", "thursday", "7pm", "19:00"), ("back up the laptop", "wednesday", "21:00", "21:00")):  # fmt: skip
        out.append(
            (
                f"remind me to {task} next {day} at {said}",
                {"date": _weekday(day).isoformat(), "time": time},
            )
        )
    cases: list[Any] = [("complete", text, {"task": text.split("remind me to ")[1].split(" tomorrow")[0].split(" at ")[0].split(" in ")[0].split(" on ")[0].split(" the day after")[0].split(" next ")[0], **args})
             for text, args in out]  # fmt: skip
    cases += [
        ("paraphrase", "remind me to call mom at six in the evening", {"task": "call mom", "date": "2026-12-01", "time": "18:00"}),
        ("paraphrase", "remind me to water the plants at eight tomorrow morning", {"task": "water the plants", "date": "2026-12-02", "time": "08:00"}),
        ("paraphrase", "remind me to pay the rent at quarter to five in the afternoon", {"task": "pay the rent", "date": "2026-12-01", "time": "16:45"}),
        ("paraphrase", "remind me to ring the bank at ten in the morning tomorrow", {"task": "ring the bank", "date": "2026-12-02", "time": "10:00"}),
        ("paraphrase", "remind me to take the pills at nine tonight", {"task": "take the pills", "date": "2026-12-01", "time": "21:00"}),
        ("complete", "remind me to leave for the airport at half past four on friday", {"task": "leave for the airport", "date": _weekday("friday").isoformat(), "time": "16:30"}),
        ("missing", "remind me to buy milk", None),
        ("missing", "remind me to call the dentist", None),
        ("missing", "set a reminder for tomorrow", None),
        ("missing", "remind me about the meeting", None),
        ("missing", "remind me to renew the insurance", None),
        ("missing", "remind me tomorrow", None),
    ]  # fmt: skip
    return [("set_reminder", *case) for case in cases]


CITIES = ["Oslo", "Paris", "Tokyo", "Berlin", "Madrid", "New York", "Lisbon", "Rome", "Bergen", "Cairo", "Sydney", "Chicago"]  # fmt: skip


def weather(rng: random.Random) -> list[Case]:
    """Weather cases."""
    out: list[Any] = []
    for city in CITIES + CITIES[:8]:
        kind = rng.randrange(5)
        if kind == 0:
            out.append(("complete", f"what's the weather in {city}", {"city": city}))
        elif kind == 1:
            out.append(("complete", f"weather in {city} tomorrow", {"city": city, "day_offset": 1}))
        elif kind == 2:
            day = rng.choice(WEEKDAYS)
            out.append(
                (
                    "complete",
                    f"what's the forecast for {city} on {day}",
                    {"city": city, "day_offset": (_weekday(day) - NOW.date()).days},
                )
            )
        elif kind == 3:
            out.append(
                ("complete", f"will it rain in {city} today", {"city": city, "day_offset": 0})
            )
        else:
            days = rng.choice([2, 3, 4, 5])
            out.append(
                (
                    "complete",
                    f"weather forecast for {city} in {_n(rng, days)} days",
                    {"city": city, "day_offset": days},
                )
            )
    for city, days in (
        ("Oslo", 3),
        ("Tokyo", 2),
        ("Madrid", 6),
        ("Rome", 4),
        ("Berlin", 5),
        ("Cairo", 1),
    ):
        out.append(
            (
                "complete",
                f"is it going to snow in {city} in {_n(rng, days)} days",
                {"city": city, "day_offset": days},
            )
        )
    for city in ("Lisbon", "Chicago", "Bergen", "Sydney", "Paris", "New York"):
        out.append(
            (
                "complete",
                f"do I need an umbrella in {city} tomorrow",
                {"city": city, "day_offset": 1},
            )
        )
    out += [
        ("paraphrase", "do I need an umbrella in the French capital tomorrow", {"city": "Paris", "day_offset": 1}),
        ("paraphrase", "what's the weather doing in the Big Apple today", {"city": "New York", "day_offset": 0}),
        ("paraphrase", "forecast for the capital of Norway tomorrow", {"city": "Oslo", "day_offset": 1}),
        ("paraphrase", "will it rain in the Japanese capital today", {"city": "Tokyo", "day_offset": 0}),
        ("paraphrase", "weather in the Eternal City tomorrow", {"city": "Rome", "day_offset": 1}),
        ("paraphrase", "is it sunny in the German capital today", {"city": "Berlin", "day_offset": 0}),
        ("missing", "what's the weather like", None),
        ("missing", "will it rain tomorrow", None),
        ("missing", "what's the forecast for the weekend", None),
        ("missing", "do I need an umbrella today", None),
        ("missing", "is it going to be sunny on friday", None),
        ("invalid", "weather forecast for Paris in 10 days", None),
        ("invalid", "what's the weather in Oslo in 14 days", None),
        ("invalid", "will it rain in Berlin in 9 days", None),
        ("invalid", "forecast for Tokyo in twelve days", None),
    ]  # fmt: skip
    return [("get_weather", *case) for case in out]


def calendar(rng: random.Random) -> list[Case]:
    """Calendar cases."""
    titles = ["dentist appointment", "team meeting", "haircut", "lunch with Sara", "project review",
              "yoga class", "call with the bank", "parent teacher meeting", "doctor appointment", "budget meeting",
              "tennis match", "guitar lesson", "catch up with Maria"]  # fmt: skip
    out: list[Any] = []
    for title in titles:
        said, time = rng.choice(TIMES)
        kind = rng.randrange(4)
        if kind == 0:
            out.append(
                (
                    "complete",
                    f"schedule a {title} tomorrow at {said}",
                    {"title": title, "date": "2026-12-02", "time": time},
                )
            )
        elif kind == 1:
            day = rng.choice(WEEKDAYS)
            out.append(
                (
                    "complete",
                    f"book a {title} on {day} at {said}",
                    {"title": title, "date": _weekday(day).isoformat(), "time": time},
                )
            )
        elif kind == 2:
            day, minutes = rng.choice(WEEKDAYS), rng.choice([30, 45, 60, 90])
            out.append(("complete", f"schedule a {title} next {day} at {said} for {minutes} minutes",
                        {"title": title, "date": _weekday(day).isoformat(), "time": time, "duration_minutes": minutes}))  # fmt: skip
        else:
            out.append(
                (
                    "complete",
                    f"put a {title} in my calendar for today at {said}",
                    {"title": title, "date": "2026-12-01", "time": time},
                )
            )
    for title, days, said, time in (("design workshop", 3, "2pm", "14:00"), ("quarterly review", 5, "11am", "11:00"),
                                    ("gym session", 2, "6:30am", "06:30"), ("piano lesson", 4, "17:00", "17:00"),
                                    ("coffee with Tom", 6, "10am", "10:00"), ("vet appointment", 3, "9:45am", "09:45")):  # fmt: skip
        day = NOW.date() + timedelta(days=days)
        out.append(
            (
                "complete",
                f"schedule a {title} in {_n(rng, days)} days at {said}",
                {"title": title, "date": day.isoformat(), "time": time},
            )
        )
    out += [
        ("complete", "book a team meeting tomorrow at 14:30 for an hour", {"title": "team meeting", "date": "2026-12-02", "time": "14:30", "duration_minutes": 60}),
        ("complete", "schedule a standup tomorrow at 9:15am for 15 minutes", {"title": "standup", "date": "2026-12-02", "time": "09:15", "duration_minutes": 15}),
        ("paraphrase", "schedule a dentist appointment tomorrow at a quarter past three in the afternoon", {"title": "dentist appointment", "date": "2026-12-02", "time": "15:15"}),
        ("paraphrase", "book a haircut on friday at ten in the morning", {"title": "haircut", "date": _weekday("friday").isoformat(), "time": "10:00"}),
        ("paraphrase", "schedule lunch with Sara tomorrow at one in the afternoon", {"title": "lunch with Sara", "date": "2026-12-02", "time": "13:00"}),
        ("paraphrase", "put a yoga class in my calendar for tomorrow at seven in the evening", {"title": "yoga class", "date": "2026-12-02", "time": "19:00"}),
        ("paraphrase", "schedule a project review on monday at eleven in the morning", {"title": "project review", "date": _weekday("monday").isoformat(), "time": "11:00"}),
        ("missing", "schedule a haircut", None),
        ("missing", "book a meeting with the team", None),
        ("missing", "schedule a dentist appointment for tomorrow", None),
        ("missing", "put a call with the bank in my calendar", None),
        ("missing", "schedule a review on friday", None),
        ("invalid", "schedule a workshop tomorrow at 9am for 10 hours", None),
        ("invalid", "book a quick sync tomorrow at 10am for 2 minutes", None),
        ("invalid", "schedule an offsite on friday at 8am for 12 hours", None),
        ("invalid", "book a call tomorrow at 4pm for 3 minutes", None),
    ]  # fmt: skip
    return [("create_event", *case) for case in out]


def messages(rng: random.Random) -> list[Case]:
    """Message cases."""
    names = ["Anna", "Bob", "Carla", "Dave", "Eve", "Frank", "Grace", "Hugo", "Ines", "Jonas"]
    bodies = ["I'm running late", "dinner is ready", "the meeting moved to 3", "see you at the station",
              "happy birthday", "call me when you land", "the keys are under the mat", "I'll bring the wine"]  # fmt: skip
    verbs = [("text {n} that {b}", "sms"), ("email {n}: {b}", "email"), ("message {n} saying {b}", "chat"),
             ("tell {n} that {b}", "chat"), ("text {n}: {b}", "sms"), ("email {n} that {b}", "email")]  # fmt: skip
    out: list[Any] = []
    for index in range(40):
        name, body = names[index % len(names)], rng.choice(bodies)
        template, channel = verbs[index % len(verbs)]
        out.append(
            (
                "complete",
                template.format(n=name, b=body),
                {"to": name, "body": body, "channel": channel},
            )
        )
    out += [
        ("paraphrase", "let Carla know I'll be late", {"to": "Carla", "body": "I'll be late"}),
        ("paraphrase", "let Bob know that dinner is ready", {"to": "Bob", "body": "dinner is ready"}),
        ("paraphrase", "let Grace know the package arrived", {"to": "Grace", "body": "the package arrived"}),
        ("paraphrase", "send a quick text to Hugo, just say thanks", {"to": "Hugo", "body": "thanks", "channel": "sms"}),
        ("paraphrase", "drop Ines an email that the invoice is paid", {"to": "Ines", "body": "the invoice is paid", "channel": "email"}),
        ("missing", "send a message to Dave", None),
        ("missing", "text Anna", None),
        ("missing", "send an email to Frank", None),
        ("missing", "message Jonas", None),
        ("missing", "send a text", None),
        ("invalid", "fax Carla that the contract is signed", None),
        ("invalid", "whatsapp Bob that I'm outside", None),
        ("invalid", "fax Eve that the forms are ready", None),
        ("invalid", "whatsapp Anna that dinner is ready", None),
    ]  # fmt: skip
    return [("send_message", *case) for case in out]


def music(rng: random.Random) -> list[Case]:
    """Music cases."""
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
        ("missing", "play some music", None),
        ("missing", "play something", None),
        ("missing", "play a song", None),
        ("missing", "can you play music", None),
        ("missing", "play something on shuffle", None),
        ("missing", "play my playlist", None),
    ]  # fmt: skip
    return [("play_music", *case) for case in out]


def conversions(rng: random.Random) -> list[Case]:
    """Unit conversion cases."""
    said = {"km": ["kilometers", "km"], "mi": ["miles"], "kg": ["kilograms", "kg", "kilos"], "lb": ["pounds"],
            "c": ["celsius"], "f": ["fahrenheit"], "m": ["meters"], "ft": ["feet"], "g": ["grams"], "oz": ["ounces"]}  # fmt: skip
    pairs = [("km", "mi"), ("mi", "km"), ("kg", "lb"), ("lb", "kg"), ("c", "f"), ("f", "c"), ("m", "ft"), ("ft", "m"),
             ("g", "oz"), ("oz", "g")]  # fmt: skip
    out: list[Any] = []
    for index in range(45):
        source, target = pairs[index % len(pairs)]
        value: int | float = rng.choice([1, 2, 3, 5, 10, 12, 20, 25, 42, 100, 2.5, 0.5])
        words_from, words_to = rng.choice(said[source]), rng.choice(said[target])
        template = ["convert {v} {f} to {t}", "how many {t} is {v} {f}", "what is {v} {f} in {t}"][
            index % 3
        ]
        if template.startswith("how many") and source in ("c", "f"):
            template = "convert {v} {f} to {t}"
        out.append(
            (
                "complete",
                template.format(v=value, f=words_from, t=words_to),
                {"value": value, "from_unit": source, "to_unit": target},
            )
        )
    out += [
        ("paraphrase", "I weigh 150 pounds, what's that in kilos", {"value": 150, "from_unit": "lb", "to_unit": "kg"}),
        ("paraphrase", "it's 30 degrees celsius here, what's that for an American", {"value": 30, "from_unit": "c", "to_unit": "f"}),
        ("paraphrase", "a 10k run is how many miles", {"value": 10, "from_unit": "km", "to_unit": "mi"}),
        ("paraphrase", "my suitcase is 23 kilos, is that under 50 pounds", {"value": 23, "from_unit": "kg", "to_unit": "lb"}),
        ("paraphrase", "the recipe says 200 grams of flour, how much is that in ounces", {"value": 200, "from_unit": "g", "to_unit": "oz"}),
        ("missing", "convert to miles", None),
        ("missing", "how many kilometers", None),
        ("missing", "convert kilograms to pounds", None),
        ("missing", "convert this to fahrenheit", None),
        ("missing", "can you convert some units for me", None),
        ("invalid", "convert 5 km to kg", None),
        ("invalid", "convert 10 pounds to celsius", None),
        ("invalid", "convert 3 miles to grams", None),
        ("invalid", "convert 20 fahrenheit to feet", None),
    ]  # fmt: skip
    return [("convert_units", *case) for case in out]


def devices(rng: random.Random) -> list[Case]:
    """Smart-home cases."""
    named = {"living room lights": "living room lights", "bedroom lights": "bedroom lights",
             "kitchen lights": "kitchen lights", "fan": "fan", "tv": "tv", "heating": "thermostat"}  # fmt: skip
    out: list[Any] = []
    for index, (words, device) in enumerate(list(named.items()) * 4):
        action = ("on", "off")[index % 2]
        template = ["turn {a} the {d}", "switch {a} the {d}", "please turn the {d} {a}"][index % 3]
        out.append(
            ("complete", template.format(a=action, d=words), {"device": device, "action": action})
        )
    for level in (18, 19, 20, 21, 22, 23):
        out.append(
            (
                "complete",
                f"set the thermostat to {_n(rng, level)}",
                {"device": "thermostat", "action": "set", "value": level},
            )
        )
    for level in (25, 50, 75):
        out.append(
            (
                "complete",
                f"set the fan to {level}",
                {"device": "fan", "action": "set", "value": level},
            )
        )
    out += [
        ("paraphrase", "it's too dark in the living room", {"device": "living room lights", "action": "on"}),
        ("paraphrase", "it's too cold in here, warm it up to 23 degrees", {"device": "thermostat", "action": "set", "value": 23}),
        ("paraphrase", "it's too bright in the kitchen", {"device": "kitchen lights", "action": "off"}),
        ("paraphrase", "it's too hot, can you get some air moving", {"device": "fan", "action": "on"}),
        ("paraphrase", "kill the lights in the bedroom", {"device": "bedroom lights", "action": "off"}),
        ("missing", "turn on the lights", None),
        ("missing", "switch it off", None),
        ("missing", "turn the lights off", None),
        ("missing", "switch on the lights please", None),
        ("missing", "turn everything off", None),
        ("missing", "switch the lights on", None),
        ("missing", "switch it on", None),
        ("invalid", "set the thermostat to 95", None),
        ("invalid", "set the thermostat to 5", None),
        ("invalid", "set the fan to 150", None),
        ("invalid", "set the heating to 40", None),
    ]  # fmt: skip
    return [("control_device", *case) for case in out]


OUT_OF_DOMAIN = [
    "tell me a joke", "what's the capital of France", "who won the football game last night",
    "order a large pepperoni pizza", "how do I make pancakes", "translate good morning into Spanish",
    "what's 17 times 23", "find a good sushi restaurant nearby", "how tall is the Eiffel Tower",
    "recommend a good book", "what's the meaning of life", "how do I get to the train station",
    "call a taxi", "what's my bank balance", "read me the news", "how old is the universe",
    "write a poem about autumn", "what does photosynthesis mean", "who painted the Mona Lisa",
    "is a tomato a fruit", "how do I reset my router", "what's the best way to learn Spanish",
    "give me a recipe for lasagna", "how many people live in Japan", "what time zone is Chicago in",
    "explain quantum computing simply", "what's a good name for a cat", "help me with my homework",
    "spell necessary", "how do you say thank you in Japanese", "flip a coin", "roll a dice",
    "what's the square root of 144", "track my package", "find my phone", "what's on TV tonight",
    "book a flight to Rome", "book a table for two at an Italian place", "play chess with me",
    "can you play a game with me", "who is the president of France", "do you have feelings",
    "what's the population of Oslo", "what year did the Berlin wall fall", "open the garage door app",
    "what's the tallest mountain in Europe", "suggest a gift for my sister", "how many calories are in an apple",
    "summarize this article for me", "what's the difference between a virus and bacteria", "sing me a song",
    "what's the weather on Mars", "how far is the moon", "check my email", "what should I cook tonight",
]  # fmt: skip


def cases() -> list[dict[str, Any]]:
    """Every case of the demo workload, in a fixed order."""
    rng = random.Random(2026)
    rows: list[dict[str, Any]] = []
    counters: dict[str, int] = {}
    seen: set[str] = set()
    for maker in (timers, reminders, weather, calendar, messages, music, conversions, devices):
        for event, category, text, arguments in maker(rng):
            if text in seen:
                continue  # random templates can repeat an utterance; each text is one case
            seen.add(text)
            key = f"{event}-{category}"
            counters[key] = counters.get(key, 0) + 1
            status = {"complete": "success", "paraphrase": "success", "missing": "missing_information",
                      "invalid": "invalid_arguments"}[category]  # fmt: skip
            rows.append({
                "id": f"{key}-{counters[key]:03d}",
                "event": event,
                "text": text,
                "payload": {},
                "context": {"now": NOW.isoformat(timespec="minutes")},
                "expected": {"status": status, "arguments": arguments if status == "success" else None},
                "tags": [category, event],
            })  # fmt: skip
    for index, text in enumerate(OUT_OF_DOMAIN, start=1):
        rows.append({
            "id": f"out_of_domain-{index:03d}",
            "event": None,
            "text": text,
            "payload": {},
            "context": {"now": NOW.isoformat(timespec="minutes")},
            "expected": {"status": "unknown_event", "arguments": None},
            "tags": ["out_of_domain"],
        })  # fmt: skip
    return rows


def render() -> str:
    """The workload file's exact text."""
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in cases())


if __name__ == "__main__":
    WORKLOAD.write_text(render(), encoding="utf-8")
    counts: dict[str, int] = {}
    for row in cases():
        counts[row["tags"][0]] = counts.get(row["tags"][0], 0) + 1
    print(f"wrote {WORKLOAD} ({sum(counts.values())} cases): {counts}")
