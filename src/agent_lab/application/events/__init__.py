"""The seed's path for the event kernel (``agent_lab.kernel``)."""
