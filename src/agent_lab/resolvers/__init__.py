"""Deterministic resolvers any plugin can use: schema-driven, and readers of English."""
