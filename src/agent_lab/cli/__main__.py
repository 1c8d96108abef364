"""``python -m agent_lab.cli``: the same as the ``agent-lab`` command."""

from agent_lab.cli import main

main()
