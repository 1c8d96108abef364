"""The event kernel: models, registry, validation, merge and dispatch."""
