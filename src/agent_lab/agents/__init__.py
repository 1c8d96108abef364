"""The agents: routing, the fallback paths, prompts, tool choice, and the model port."""
