"""The seed's path for ``agent_lab.kernel.models``: everything it exports, under its old name."""

from agent_lab.kernel.models import *  # noqa: F403
from agent_lab.kernel.models import __all__  # noqa: F401 -- the same names, said to be public here
