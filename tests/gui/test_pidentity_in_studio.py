"""p-Identity (the CLI's usual automatic histogram choice) through the studio: chosen in the Algorithm panel,
run in both modes, watched, compared (analytic against Monte-Carlo) and exported, with every tab fitting at
1280x800 (issue 24 item 8)."""

from __future__ import annotations

import json
import os

import numpy as np
from PySide6 import QtWidgets

from dpstudio.model.compare import comparison as cmp
from dpstudio.model.project.project import RELEASE
from tests.gui.layout_check import problems
from tests.gui.test_newcomer_path import make_ready_like_the_demo
from tests.gui.test_run_epsilon import Answer

SHOTS = os.environ.get("DPSTUDIO_SHOTS")


def _shot(window, name: str) -> None:
    if SHOTS:
        window.grab().save(os.path.join(SHOTS, f"{name}.png"))


def _every_tab(qtbot, window, mode: str) -> list[str]:
    """What is cut or squashed on each tab; the window keeps 1280x800."""
    found = []
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(30)
        found += [f"{mode}, {window.tabs.tabText(i)}: {x}" for x in problems(window)]
        assert (window.width(), window.height()) == (1280, 800), f"{window.tabs.tabText(i)}: the window resized"
        _shot(window, f"pidentity-{mode}-{window.tabs.tabText(i).lower()}")
    return found


def _run(qtbot, window, algorithm, done):
    algorithm.run_button.click()
    qtbot.waitUntil(lambda: done() and not window.runner.busy, timeout=300000)


def test_pidentity_runs_watches_compares_and_exports_in_both_modes(qtbot, window, tmp_path):
    window.resize(1280, 800)
    p = window.project
    window.panels["Data"].open_sample()
    qtbot.waitUntil(lambda: p.frame is not None, timeout=120000)
    make_ready_like_the_demo(window)
    algorithm = window.show_panel("Algorithm")
    algorithm.set_algorithm("pidentity")
    assert algorithm.bar.locked
    qtbot.wait(50)
    _shot(window, "pidentity-algorithm")
    _run(qtbot, window, algorithm, lambda: p.result is not None)
    plan = p.result.plan
    assert plan.algorithm == "pidentity"
    found = _every_tab(qtbot, window, "teaching")

    # Compare: leaf-only and least squares, analytic against Monte-Carlo within its standard error
    compare = window.show_panel("Compare")
    assert set(compare.curves.values) == {cmp.LEAF_ONLY, cmp.LEAST_SQUARES}
    mc = cmp.histogram_monte_carlo(plan, runs=400, seed=3)
    for m in (cmp.LEAF_ONLY, cmp.LEAST_SQUARES):
        lo, hi = mc.bands[m]
        assert np.all((compare.curves.values[m] >= lo * 0.97) & (compare.curves.values[m] <= hi * 1.03)), m
    assert np.all(compare.curves.values[cmp.LEAST_SQUARES][-3:] < compare.curves.values[cmp.LEAF_ONLY][-3:])
    # the recommendation agrees with the Algorithm panel's all-range figures (0.71 times a flat histogram's)
    assert f"Recommended for export: {cmp.LEAST_SQUARES}" in compare.verdict.text()

    window.set_mode(RELEASE)
    window.show_panel("Algorithm")
    algorithm.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    _run(qtbot, window, algorithm, lambda: p.can_export)
    found += _every_tab(qtbot, window, "release")
    assert not found, "\n".join(found)
    paths = window.panels["Export"].export_to(tmp_path, "release", confirm=False)
    side = json.loads(next(x for x in paths if str(x).endswith(".json")).read_text())
    assert side["algorithm"] == "pidentity"
    assert [(e["step"], e["epsilon"]) for e in side["ledger"]["entries"]] == [("p-Identity strategy", "1")]
    html = next(x for x in paths if str(x).endswith(".html")).read_text()
    assert "weighted sums of bins" in html and "p-Identity" in html
