"""The Export panel's "leave out cells whose released count is 0" writes the sparse table the CLI writes."""

from __future__ import annotations

import csv
import json

from dpstudio.gui.panels.export import ExportPanel
from tests.gui.export_fixtures import run, table_project


def test_the_export_box_leaves_out_the_zero_cells(qtbot, tmp_path):
    p = table_project(n=150, steps=4)
    p.set_mode("release")
    run(p)
    w = ExportPanel(p)
    qtbot.addWidget(w)
    assert w.omit_zero.isEnabled()
    w.omit_zero.setChecked(True)
    paths = w.export_to(tmp_path, "sparse", confirm=False)
    rows = list(csv.reader(paths[0].open()))
    counts = [float(r[rows[0].index("count")]) for r in rows[1:]]
    assert all(c != 0 for c in counts)
    sidecar = json.loads(paths[1].read_text())
    assert sidecar["zero_cells_omitted"]["cells"] == p.result.counts.size >= len(counts)
    assert "leaves out the cells whose count is 0" in paths[2].read_text()
    assert sidecar["empty_partitions_kept"] is False and "not 0" in sidecar["rows"]
    # the re-run scripts write the table the same way
    assert "--omit-zero-cells" in paths[3].read_text()
    assert "omit_zero_cells=True" in paths[4].read_text()
