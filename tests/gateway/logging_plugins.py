"""The demo plugin set, from a module that logs on the gateway's request logger when imported.

Each worker of ``agent-lab serve --workers N`` imports it: its line on stderr, with the
worker's process id, shows that ``-v`` reached that worker.
"""

from __future__ import annotations

import logging
import os

from agent_lab.demo import plugins

__all__ = ["plugins"]

logging.getLogger("agent_lab.gateway.requests").info("imported in process %d \x1b[2J", os.getpid())
