"""The seed's path for ``agent_lab.kernel.event_kernel``: all it exports, under its old name."""

from agent_lab.kernel.event_kernel import *  # noqa: F403
from agent_lab.kernel.event_kernel import __all__  # noqa: F401 -- the same names, said to be public here
