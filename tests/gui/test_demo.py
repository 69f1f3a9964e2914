"""The demo drives the whole workflow on the bundled sample and saves one PNG per panel."""

from __future__ import annotations

import io

import pytest
from PySide6 import QtGui

from dpstudio.gui.demo import Demo, bundled_taxonomy_folder


@pytest.mark.slow
def test_demo_runs_every_step_and_saves_screenshots(qapp, tmp_path, _budget_store):
    if bundled_taxonomy_folder() is None:
        pytest.skip("dpstudio/resources/taxonomies/adult is not there")
    out = io.StringIO()
    demo = Demo(qapp, tmp_path / "shots", out, steps=3, monte_carlo_runs=1)
    try:
        code = demo.run()
        project = demo.window.project
        # the release run spent the whole budget once, with secure noise, and could be exported
        assert project.mode == "release" and project.can_export
        assert project.release_ledger.spent == project.epsilon
        assert len(demo.exported) == 5  # CSV, sidecar, report, command, Python script
    finally:
        demo.close()
    text = out.getvalue()
    assert code == 0, text
    assert demo.failures == []
    names = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert names == [
        "01_data.png",
        "02_taxonomy.png",
        "03_algorithm.png",
        "04_watch.png",
        "05_compare.png",
        "06_watch_release.png",
        "07_export.png",
    ]
    for name in names:
        img = QtGui.QImage(str(tmp_path / "shots" / name))
        assert not img.isNull() and img.width() >= 800
    assert "every step worked" in text
    assert not any(p.exists() for p in demo.exported)  # the temporary release folder was removed
    assert not _budget_store.exists()  # the release was charged to the demo's own throwaway budget store


def test_demo_window_takes_the_size_asked_for(qapp, monkeypatch):
    from dpstudio.gui import demo as demo_module

    seen = {}
    monkeypatch.setattr(
        demo_module.Demo, "run", lambda self: seen.setdefault("size", self.window.size().toTuple()) and 0
    )
    assert demo_module.run_demo(qapp, None, size=(1280, 800)) == 0
    assert seen["size"] == (1280, 800)


def test_demo_reports_a_missing_panel(qapp, tmp_path, monkeypatch):
    from dpstudio.gui import main_window

    monkeypatch.setattr(
        main_window,
        "PANELS",
        {"Data": ("data", "DataPanel"), "Taxonomy": ("taxonomy", "TaxonomyPanel"), "Algorithm": ("no_such_panel", "X")},
    )
    out = io.StringIO()
    demo = Demo(qapp, None, out)
    try:
        code = demo.run()
    finally:
        demo.close()
    assert code == 1
    assert any("Algorithm panel is not available" in f for f in demo.failures)
    assert "[ok] 1. Data" in out.getvalue() and "[ok] 2. Taxonomy" in out.getvalue()


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["gui", "/no/such/file.csv"], "no such file"),
        (["gui", "--screenshots", "/tmp/x"], "--screenshots needs --demo"),
        (["gui", "--demo", "data.csv"], "leave out DATA"),
        (["gui", "--size", "1280x800"], "--size needs --demo"),
        (["gui", "--demo", "--size", "300x200"], "at least 640x480"),
        (["gui", "--demo", "--size", "wide"], "WIDTHxHEIGHT"),
    ],
)
def test_cli_gui_bad_arguments(capsys, argv, needle):
    from dpstudio.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
