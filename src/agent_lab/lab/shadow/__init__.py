"""``agent-lab shadow`` and ``import logs``: log replay run over log files, its tables and page."""
