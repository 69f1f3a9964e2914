"""A part's own change events (Qt-free), as each of napari's ``ViewerModel`` parts owns its ``events``: the part
declares the fields it announces and emits them; ``Project`` connects every part's changes to its own
subscribers and to the reactions between parts (``model.project.project``). A part never notifies through the
project."""

from __future__ import annotations

from collections.abc import Callable

#: ``listener(field, dirty)``: ``field`` changed (None: only the unsaved state); ``dirty``: the change is unsaved
Listener = Callable[[str | None, bool], None]


class Changes:
    """The fields a part announces and its listeners."""

    def __init__(self, *fields: str) -> None:
        self.fields = frozenset(fields)
        self._listeners: list[Listener] = []

    def connect(self, listener: Listener) -> Listener:
        self._listeners.append(listener)
        return listener

    def disconnect(self, listener: Listener) -> None:
        """Stop calling ``listener`` (compared with ``==``: a bound method is a new object at each lookup)."""
        self._listeners = [cb for cb in self._listeners if cb != listener]

    def emit(self, field: str | None, dirty: bool = True) -> None:
        """``field`` changed (a field this part declared; ValueError otherwise); ``dirty``: unsaved."""
        if field is not None and field not in self.fields:
            raise ValueError(f"{field!r} is not a field this part announces ({', '.join(sorted(self.fields))})")
        for listener in list(self._listeners):
            listener(field, dirty)

    def unsaved(self) -> None:
        """Something the project file holds changed without a field to announce."""
        self.emit(None)

    def fresh(self) -> Changes:
        """The same fields, no listeners (a copied part's own changes)."""
        return Changes(*self.fields)
