"""The application layer: the event kernel, plugin sets, the LLM seams and the agents."""
