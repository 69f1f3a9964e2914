"""Recorded events of the studio's own h = 10 DiffGen-with-consistency runs on the bundled Adult sample
(the demo's workflow), made once per test session: {mode: (events, total epsilon)}."""

from __future__ import annotations

import io
from functools import lru_cache


@lru_cache(maxsize=1)
def sample_runs(steps: int = 10) -> dict:
    from PySide6 import QtWidgets

    from dpstudio.gui.demo import Demo
    from dpstudio.model.project.project import RELEASE, TEACHING

    demo = Demo(QtWidgets.QApplication.instance(), screenshots=None, out=io.StringIO(), steps=steps)
    try:
        demo.load_data()
        demo.import_taxonomies()
        out = {}
        for mode in (TEACHING, RELEASE):
            demo.run_algorithm(mode)
            p = demo.window.project
            out[mode] = (list(p.events), float(p.run_ledger.total))
        return out
    finally:
        demo.close()
