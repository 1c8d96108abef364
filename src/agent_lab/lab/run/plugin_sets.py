"""Setting a run up: plugin sets by reference, and the imported-folder format (``events.json``)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab._input_files import MAX_EVENTS_BYTES, read_input
from agent_lab.agents.plugins import PluginSet
from agent_lab.errors import PluginLoadError, StrictJSONError
from agent_lab.kernel.models import EventDefinition
from agent_lab.kernel.registry import MAX_SCHEMA_DEPTH
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

__all__ = ["MAX_EVENTS_BYTES", "PluginLoadError", "import_user_module", "load_plugins"]


def _from_folder(folder: Path) -> PluginSet:
    path = folder / "events.json"
    try:
        # Strictly: a repeated key or NaN in a schema is a broken plugin, not a guess.
        data: Any = loads(
            read_input(path, what="events.json", max_bytes=MAX_EVENTS_BYTES),
            max_bytes=MAX_EVENTS_BYTES,
            max_depth=MAX_SCHEMA_DEPTH + 4,
        )
        reference = data.get("reference_date")
        now = datetime.fromisoformat(reference) if isinstance(reference, str) else None
        events: object = data["events"]
    except (OSError, StrictJSONError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise PluginLoadError(
            f"{folder}: not an imported plugin folder ({type(err).__name__}: {err})"
        ) from err
    if not isinstance(events, list):
        raise PluginLoadError(f"{folder}: not an imported plugin folder ('events' must be a list)")
    definitions: list[EventDefinition] = []
    for index, event in enumerate(cast("list[Any]", events)):
        try:
            definitions.append(
                EventDefinition(
                    str(event["name"]),
                    description=str(event.get("description", "")),
                    parameters=event["parameters"],
                    resolver=SchemaResolver(event["parameters"], reference=now),
                )
            )
        except Exception as err:
            # The schema-driven resolver reads the schema at once: a broken one shows here.
            raise PluginLoadError(
                f"{path}: event {index} is broken ({type(err).__name__}: {err})"
            ) from err
    return PluginSet(name=str(folder), definitions=tuple(definitions))


def import_user_module(module_name: str) -> ModuleType:
    """The module, as Python finds it, else from the current folder or a file path.

    ``agent-lab`` runs as a console script, whose ``sys.path`` does not hold
    the folder it was started in (``python -m`` and ``python script.py``
    do): a user's ``my_events.py`` beside them would not be found. So a
    module that is not found is looked for in the current folder too, and a
    reference may name a file (``plugins/my_events.py:plugins``). Plugin sets
    and providers of the user's own are found alike.
    """
    if module_name.endswith(".py"):
        path = Path(module_name).resolve()
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise PluginLoadError(f"no Python file at {module_name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        top = module_name.partition(".")[0]
        here = str(Path.cwd())
        if err.name != top or here in sys.path:
            raise
    sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path.remove(here)


def load_plugins(reference: str) -> PluginSet:
    """Load a plugin set from ``package.module:attribute``, or from an imported folder.

    The module is found as Python finds it, else in the current folder; it
    may also be named by its file (``plugins/my_events.py:plugins``).

    A folder written by ``agent-lab import`` holds ``events.json``: its events
    get the schema-driven resolver (``SchemaResolver``) and no routes.

    The attribute may be a ``PluginSet``, or a sequence of ``EventDefinition``
    (then without routes).

    Raises:
        PluginLoadError: The reference is malformed, the module does not
            import, or the attribute is not a plugin set.
    """
    folder = Path(reference)
    if folder.is_dir():
        return _from_folder(folder)
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise PluginLoadError(
            f"{reference!r}: expected MODULE:ATTRIBUTE, e.g. agent_lab.demo:plugins"
        )
    try:
        module = import_user_module(module_name)
    except Exception as err:
        raise PluginLoadError(
            f"{reference!r}: cannot import {module_name}: {type(err).__name__}: {err}"
        ) from err
    try:
        value: object = getattr(module, attribute)
    except AttributeError as err:
        raise PluginLoadError(
            f"{reference!r}: {module_name} has no attribute {attribute!r}"
        ) from err
    kind = type(value).__name__
    if isinstance(value, PluginSet):
        return value
    if isinstance(value, list | tuple):
        items: Sequence[object] = cast("Sequence[object]", value)
        if all(isinstance(item, EventDefinition) for item in items):
            definitions = cast("Sequence[EventDefinition]", items)
            return PluginSet(name=reference, definitions=tuple(definitions))
    raise PluginLoadError(f"{reference!r} is a {kind}, not a PluginSet")
