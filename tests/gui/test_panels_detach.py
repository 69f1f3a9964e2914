"""A panel's ``detach()`` leaves none of its callbacks subscribed to the project (it is called before a panel is
thrown away: the benchmark's runs, a panel rebuilt): afterwards the project's announcements never reach it."""

from __future__ import annotations

import pytest

from dpstudio.gui.panels.algorithm import AlgorithmPanel
from dpstudio.gui.panels.compare import ComparePanel
from dpstudio.gui.panels.watch import WatchPanel
from tests.gui.export_fixtures import table_project


def _bound_to(project, panel) -> list:
    """The project's subscribers that are the panel's: its bound methods, or callables it keeps (a lambda)."""
    kept = list(vars(panel).values())
    return [
        cb
        for cb, _fields in project._subscribers
        if getattr(cb, "__self__", None) is panel or any(cb is value for value in kept)
    ]


@pytest.mark.parametrize("kind", [AlgorithmPanel, WatchPanel, ComparePanel])
def test_detach_leaves_no_subscription_of_the_panel(qtbot, kind):
    project = table_project(n=200, steps=2)
    panel = kind(project)
    qtbot.addWidget(panel)
    assert _bound_to(project, panel)  # it follows the project
    panel.detach()
    assert _bound_to(project, panel) == []
    for field in ("run", "mode", "algorithm", "ledger", "data", "epsilon"):
        project.notify(field)  # nothing of the panel is called (it would be after its deletion)
