"""The demo's plugin set with one resolver rule removed: the timer's, for the gate's test."""

from __future__ import annotations

import dataclasses

from agent_lab.agents.plugins import PluginSet
from agent_lab.demo import plugins as demo

plugins = PluginSet(
    name="tests.cli.weakened_demo:plugins",
    definitions=tuple(
        dataclasses.replace(d, resolver=None) if d.name == "set_timer" else d
        for d in demo.definitions
    ),
    routes=demo.routes,
)
"""Every demo event as it is, except ``set_timer``, whose resolver is gone."""
