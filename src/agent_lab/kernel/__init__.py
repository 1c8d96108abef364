"""The event kernel, which knows no LLM: events, their registry, dispatch, and the tool layer.

``models.py`` holds the values (events, definitions, results, statuses);
``registry.py`` registers definitions and compiles their schemas;
``event_kernel.py`` dispatches an event through the pipeline (resolve,
classify, fall back, merge, validate, handle), built by the private
``_drive.py``, ``_filling.py``, ``_asking.py`` and ``_trace.py``;
``validation.py``, ``audit.py`` and ``merge.py`` are its stages;
``ledger.py`` says how each decision was made; ``reply.py`` says a result
in words; ``user_only.py`` knows the values only a user can give; and
``tools.py`` turns events into tool specs and results into tool answers
(K30). Plugin sets, the model port and the agents live on the floor above
(``agent_lab.agents``).

The seed's paths (``agent_lab.application.events.models``, ``.registry``,
``.kernel`` and ``agent_lab.application.tools``) re-export these modules.
"""
