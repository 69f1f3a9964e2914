"""A subscriber is removed by the same callable it subscribed with: a bound method is a new object at each
lookup (``panel._on_project is panel._on_project`` is False), so removal compares with ``==`` (same function,
same object). Compared with ``is``, every panel's ``detach()`` removed nothing: a second benchmark run in one
process called a deleted Watch panel and failed on its deleted button."""

from __future__ import annotations

from dpstudio.model.project.changes import Changes
from dpstudio.model.project.project import Project


class _Listener:
    def __init__(self) -> None:
        self.heard: list = []

    def on_field(self, *args) -> None:
        self.heard.append(args)


def test_a_bound_method_is_unsubscribed_by_another_lookup_of_it_and_only_its_own_objects_is():
    project = Project()
    mine, other = _Listener(), _Listener()
    project.subscribe(mine.on_field, "run")
    project.subscribe(other.on_field, "run")
    assert mine.on_field is not mine.on_field  # the reason: a new bound method each time
    project.unsubscribe(mine.on_field)
    project.notify("run")
    assert mine.heard == [] and other.heard == [("run",)]
    heard = []

    def plain(field):
        heard.append(field)

    project.subscribe(plain, "run")
    project.unsubscribe(plain)
    project.notify("run")
    assert heard == [] and len(other.heard) == 2


def test_a_parts_listener_is_disconnected_by_another_lookup_of_it():
    changes = Changes("run")
    mine, other = _Listener(), _Listener()
    changes.connect(mine.on_field)
    changes.connect(other.on_field)
    changes.disconnect(mine.on_field)
    changes.emit("run", dirty=False)
    assert mine.heard == [] and other.heard == [("run", False)]
