"""The application layer: the event kernel, the tool layer and (later) the agents."""
