"""Log replay: what deterministic-first would have done with the requests an agent logged."""
