"""Deterministic-first inside the agent frameworks: a wrapper around the model each already has."""
