"""Change notifications (Qt-free), the evented base of ``model.project.project.Project``: views subscribe to
named fields and hear of every change; a muted project (while a saved state is put back) announces
nothing until it is done."""

from __future__ import annotations

from dpstudio.model.project.vocabulary import FIELDS, Callback


class Notifier:
    """Subscribers per field, and the dirty flag (unsaved changes)."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[Callback, frozenset[str] | None]] = []
        self._muted = False
        self.dirty: bool = False
        #: grows with every change announced (muted or not), every part's change and every field set through
        #: the project (``project._Forward``): something computed from the project at one generation still
        #: holds while the generation is the same (the Algorithm panel's check before Run)
        self.generation = 0

    # -- notifications ------------------------------------------------------------------------------
    def subscribe(self, callback: Callback, *fields: str) -> Callback:
        """Call ``callback(field)`` when one of ``fields`` changes (all fields when none is given)."""
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown project field(s): {', '.join(sorted(unknown))}")
        self._subscribers.append((callback, frozenset(fields) if fields else None))
        return callback

    def unsubscribe(self, callback: Callback) -> None:
        """Stop calling ``callback``. Compared with ``==``, not ``is``: each ``panel._on_project`` is a new bound
        method object, equal to the one subscribed (same function, same panel) but never the same object, so a
        panel's ``detach()`` removed nothing and a deleted panel went on being called."""
        self._subscribers = [(cb, f) for cb, f in self._subscribers if cb != callback]

    def notify(self, field: str) -> None:
        self.generation += 1
        if self._muted:
            return
        for cb, fields in list(self._subscribers):
            if fields is None or field in fields:
                cb(field)

    def _changed(self, field: str, dirty: bool = True) -> None:
        self.notify(field)
        if dirty:
            self.set_dirty(True)

    def set_dirty(self, dirty: bool) -> None:
        if self.dirty != dirty:
            self.dirty = dirty
            self.notify("dirty")
