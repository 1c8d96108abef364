"""An agent's own logs, read: the LLM requests it sent and what each model answered."""
