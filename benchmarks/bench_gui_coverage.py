"""Coverage badges of the Taxonomy panel on a 1,000,000-row table (8 categorical Adult attributes).

Data: the bundled Adult training sample resampled to --rows rows; taxonomies: dpstudio/resources/taxonomies/adult.
Measured, median of --repeats runs (each on a fresh project, so the first figure includes counting the
distinct values of every attribute):

- ``import``: ``TaxonomyPanel.import_folder`` (read 8 files, hand them to the project, compute 8 badges);
- ``edit``: one editor change (add a leaf, then undo it) with the badges recomputed - what the user waits
  for after each edit;
- ``all badges``: every badge recomputed with the distinct values already counted.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_coverage.py [--rows 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from PySide6 import QtWidgets  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from bench_gui_preview import big_frame

    from dpstudio.gui.panels.taxonomy import TaxonomyPanel
    from dpstudio.model.project.project import Project
    from dpstudio.resources import resource

    frame = big_frame(args.rows)
    folder = resource("taxonomies", "adult")
    imports, edits, badges = [], [], []
    for _ in range(args.repeats):
        project = Project()
        project.set_data(frame.copy(deep=False), None)
        panel = TaxonomyPanel(project)
        panel.show()
        app.processEvents()
        t = time.perf_counter()
        done = panel.import_folder(folder)
        imports.append(time.perf_counter() - t)
        ed = panel.select_attribute("workclass")
        t = time.perf_counter()
        ed.add_child((), "Other")
        ed.undo()
        edits.append((time.perf_counter() - t) / 2)
        t = time.perf_counter()
        panel._coverage.clear()
        panel._refresh_badges()
        badges.append(time.perf_counter() - t)
        panel.close()
        panel.deleteLater()
        app.processEvents()
    ms = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms"  # noqa: E731
    print(f"{len(frame):,} rows; taxonomies for {', '.join(done)}")
    print(f"import folder + badges (first count):  median {ms(imports)} over {args.repeats} runs")
    print(f"one edit + badges:                     median {ms(edits)}")
    print(f"all badges again (values counted):     median {ms(badges)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
