"""The seed's name for the kernel, kept so that its paths resolve (``agent_lab.kernel``).

``application.events.models``, ``application.events.registry``,
``application.events.kernel`` and ``application.tools`` re-export
``kernel.models``, ``kernel.registry``, ``kernel.event_kernel`` and
``kernel.tools``; nothing inside the package imports them.
"""
