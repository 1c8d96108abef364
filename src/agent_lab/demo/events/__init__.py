"""The demo's events, one module each: its schema, resolver, handler and route side by side."""
