"""Issue 24 items 4 and 5, as the last real-window walk found them: a message stayed after its cause was gone
(the sample's budget refusal on the teaching Anonymize tab; "no taxonomy" after the tree was made), and the
panels moved by 14-20 px when a panel's own error line appeared (beside Run; on the Anonymize tab)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6 import QtWidgets

from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.model.project.project import CLASS, QUASI_IDENTIFIER, RELEASE, TEACHING
from tests.gui.test_run_epsilon import click_run


def _open(qtbot, window, tmp_path):
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east"], 400),
            "plan": rng.choice(["basic", "plus"], 400),
            "churn": rng.choice(["yes", "no"], 400),
        }
    )
    df.to_csv(tmp_path / "clients.csv", index=False)
    window.panels["Data"].open_file(tmp_path / "clients.csv")
    qtbot.waitUntil(lambda: window.project.frame is not None, timeout=60000)
    p = window.project
    p.set_role("region", QUASI_IDENTIFIER)
    p.set_role("plan", QUASI_IDENTIFIER)
    p.set_role("churn", CLASS)
    return p


def flat(attribute: str, values) -> Taxonomy:
    """A one-level tree: * over the values."""
    return Taxonomy(Node("*", [Node(v) for v in values]), attribute)


def _y(widget) -> int:
    return widget.mapTo(widget.window(), widget.rect().topLeft()).y()


def test_a_refusal_goes_when_its_cause_does_and_moves_nothing(qtbot, window, tmp_path):
    window.resize(1280, 800)
    p = _open(qtbot, window, tmp_path)
    algorithm = window.show_panel("Algorithm")
    qtbot.wait(30)
    before = {w: _y(w) for w in (algorithm.run_button, algorithm.mode_label, algorithm.split_box)}
    click_run(None, algorithm)
    qtbot.wait(30)
    assert window.message_is_error and "taxonomy" in window.message_label.text()
    n = len(algorithm.checklist.problems)
    assert algorithm.eps_error.text().startswith(f"Not ready: {n} problem")
    assert {w: _y(w) for w in before} == before  # the refusal line took no new room

    # one cause fixed: the count beside Run follows, and the window's error (about the old inputs) goes
    p.set_taxonomy("region", flat("region", ["north", "south", "east"]))
    assert not window.message_is_error and window.message_label.text() == ""
    assert algorithm.eps_error.text().startswith(f"Not ready: {len(algorithm.checklist.problems)} problem")
    assert len(algorithm.checklist.problems) < n
    p.set_taxonomy("plan", flat("plan", ["basic", "plus"]))
    assert algorithm.checklist.problems == [] and algorithm.eps_error.text() == ""


def test_a_mode_change_clears_an_error_but_not_a_confirmation(qtbot, window, tmp_path):
    p = _open(qtbot, window, tmp_path)
    p.set_mode(RELEASE)
    window.show_error("dataset 'clients': a release of epsilon 1 does not fit its lifetime budget")
    p.set_mode(TEACHING)
    assert window.message_label.text() == "" and not window.message_is_error
    window.show_info("exported to /tmp/out")
    p.set_mode(RELEASE)
    assert window.message_label.text() == "exported to /tmp/out"


def test_the_anonymize_error_line_moves_nothing_and_goes_with_its_cause(qtbot, window, tmp_path):
    window.resize(1280, 800)
    p = _open(qtbot, window, tmp_path)
    anonymize = window.show_panel("Anonymize")
    qtbot.wait(30)
    y = _y(anonymize.tabs)
    anonymize.show_error("choose at least one quasi-identifier with a taxonomy " * 4)
    qtbot.wait(30)
    assert anonymize.error.isVisible() and _y(anonymize.tabs) == y
    assert anonymize.error.toolTip().startswith("choose at least one")  # all of it, the line being cut
    p.set_taxonomy("region", flat("region", ["north", "south", "east"]))
    assert anonymize.last_error == "" and not anonymize.error.isVisible() and _y(anonymize.tabs) == y


def test_error_lines_are_one_line_high_whatever_their_length(qtbot):
    from dpstudio.gui.widgets.elided_label import ErrorLine

    line = ErrorLine()
    qtbot.addWidget(line)
    short = line.sizeHint().height()
    line.setText("a long message " * 40)
    assert line.sizeHint().height() == short and line.minimumSizeHint().height() == short
    assert isinstance(line, QtWidgets.QLabel) and not line.wordWrap()


def test_run_stays_put_when_the_mode_changes(qtbot, window, tmp_path):
    """The real window: Run moved up by a line on a switch to release mode (its words fit one line)."""
    p = _open(qtbot, window, tmp_path)
    algorithm = window.show_panel("Algorithm")
    for width in (1280, 1360, 1600):  # at 1360 the teaching words wrapped where the release words did not
        window.resize(width, 800)
        qtbot.wait(30)
        y = _y(algorithm.run_button)
        assert algorithm.mode_label.toolTip() == algorithm.mode_label.text()  # one line; all of it in the tooltip
        p.set_mode(RELEASE)
        qtbot.wait(30)
        assert _y(algorithm.run_button) == y, width
        p.set_mode(TEACHING)
        qtbot.wait(30)
        assert _y(algorithm.run_button) == y, width


def test_the_columns_stay_put_when_the_algorithm_changes(qtbot, window):
    """The walk: the Privacy budget column moved from x=571 to 432 when p-Identity was chosen."""
    window.resize(1280, 800)
    algorithm = window.show_panel("Algorithm")
    seen = set()
    for name in ("diffgen_consistency", "pidentity", "maxgddp", "hb", "diffgen"):
        algorithm.set_algorithm(name)
        qtbot.wait(30)
        seen.add((_x(algorithm.eps_edit), _x(algorithm.checklist)))
    assert len(seen) == 1, seen


def _x(widget) -> int:
    return widget.mapTo(widget.window(), widget.rect().topLeft()).x()
