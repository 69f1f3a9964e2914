"""The Data panel's preview on a 1,000,000-row table: model creation, adopting the data, and scrolling.

Data: the bundled Adult training sample resampled with replacement to --rows rows (15 columns, some
missing cells injected so the missing-value paths are exercised). Measured, median of --repeats runs:

- ``model``: ``DataFrameModel.set_frame`` alone (one ``to_numpy`` + ``isna`` per column);
- ``adopt``: ``Project.set_data`` + the whole Data panel refresh (preview, attribute table with distinct
  counts, missing report) - what the user waits for after the file is read;
- ``scroll``: jumping the preview to 50 positions spread over the table, each followed by a repaint of
  the viewport (every visible cell formatted through ``data()``); reported per jump, next to a repaint at
  the same position (what painting alone costs on this machine).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_preview.py [--rows 1000000] [--repeats 5]
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

import numpy as np  # noqa: E402
from PySide6 import QtWidgets  # noqa: E402


def big_frame(rows: int, seed: int = 0):
    from dpstudio.io.adult import load_bundled_adult

    train, _ = load_bundled_adult()
    rng = np.random.default_rng(seed)
    frame = train.iloc[rng.integers(0, len(train), size=rows)].reset_index(drop=True)
    holes = rng.integers(0, rows, size=rows // 100)
    frame.loc[holes, "workclass"] = np.nan
    return frame


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from dpstudio.gui.panels.data import DataPanel
    from dpstudio.gui.widgets.dataframe_model import DataFrameModel
    from dpstudio.model.project.project import Project

    t0 = time.perf_counter()
    frame = big_frame(args.rows)
    print(f"table: {len(frame):,} rows x {len(frame.columns)} columns (built in {time.perf_counter() - t0:.1f} s)")

    model_times, adopt_times, jump_times, paint_times = [], [], [], []
    for _ in range(args.repeats):
        model = DataFrameModel()
        t = time.perf_counter()
        model.set_frame(frame)
        model_times.append(time.perf_counter() - t)

        panel = DataPanel(Project())
        panel.resize(1200, 800)
        panel.show()
        app.processEvents()
        t = time.perf_counter()
        panel.project.set_data(frame, None)
        app.processEvents()
        adopt_times.append(time.perf_counter() - t)
        assert panel.preview_model.rowCount() == len(frame)

        view = panel.preview
        bar = view.verticalScrollBar()
        positions = np.linspace(0, bar.maximum(), 50).astype(int)
        t = time.perf_counter()
        for pos in positions:
            bar.setValue(int(pos))
            view.viewport().repaint()
        jump_times.append((time.perf_counter() - t) / len(positions))
        t = time.perf_counter()
        for _ in range(20):
            view.viewport().repaint()
        paint_times.append((time.perf_counter() - t) / 20)
        panel.close()
        panel.deleteLater()
        app.processEvents()

    ms = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms"  # noqa: E731
    print(f"DataFrameModel.set_frame ({args.rows:,} rows): median {ms(model_times)} over {args.repeats} runs")
    print(f"adopt data + Data panel refresh:      median {ms(adopt_times)}")
    print(f"scroll jump + viewport repaint:       median {ms(jump_times)} per jump (50 jumps per run)")
    print(f"repaint without scrolling (baseline):  median {ms(paint_times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
