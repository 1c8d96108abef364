"""The kernel, which knows no LLM: events (``events/``) and the tool layer (``tools.py``).

``events/`` holds the event models, the registry, validation, the merge of
resolved and fallback values, dispatch and its ledger; ``tools.py`` turns
events into tool specs and back. Plugin sets, the model seams and the agents
live on the floor above (``agent_lab.agents``).
"""
