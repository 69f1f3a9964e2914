"""Projects with a finished run (table or histogram, teaching or release) for the Export/report tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

import dpstudio.core.taxonomy_generators as tg
from dpstudio.model.project.project import Project
from dpstudio.model.release.session import make_job


def table_project(
    n=300, seed=0, algorithm="diffgen_consistency", steps=3, project: Project | None = None, path=None
) -> Project:
    """A small table with public inputs, in ``project`` (default a new one); ``path`` names its data file."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 90, n).astype(float),
            "sex": rng.choice(["Male", "Female"], n),
            "work": rng.choice(["A", "B", "C"], n),
            "income": rng.choice(["<=50K", ">50K"], n),
        }
    )
    p = Project() if project is None else project
    p.set_data(df, path, types={"age": "numeric", "sex": "categorical", "work": "categorical", "income": "categorical"})
    p.set_bounds("age", 17, 90)
    p.set_taxonomy("age", tg.numeric_equal_width(17, 90, 2, 3, "age"))
    p.set_taxonomy("sex", tg.flat_categorical(["Male", "Female"], "sex"))
    p.set_taxonomy("work", tg.flat_categorical(["A", "B", "C"], "work"))
    p.set_classes(["<=50K", ">50K"])  # typed by the owner: a public input
    p.set_algorithm(algorithm, {"steps": steps})
    return p


def histogram_data_project(n_rows=2000, bins=32, seed=0, algorithm="hb") -> Project:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(17, 90, n_rows).astype(float), "income": rng.choice(["a", "b"], n_rows)})
    p = Project()
    p.set_data(df, None, types={"age": "numeric", "income": "categorical"})
    p.set_bounds("age", 17, 90)
    p.set_algorithm(algorithm, {"bins": bins, "branching": 4})
    return p


def run(project: Project) -> Project:
    """Run as the Algorithm panel does: the snapshot at Run, the release question answered Yes."""
    from dpstudio.model.release.snapshot import snapshot_of

    snapshot = snapshot_of(project)
    job, setup = make_job(project, answer=None if project.teaching else project.release_question())
    events = list(job())
    project.record_run(events, setup.ledger, setup.teaching, snapshot=snapshot)
    return project


def release_and_export(qtbot, project: Project, out, name: str):
    """A release-mode run, then the Export panel's files written to the new folder ``out`` (no question):
    their paths (CSV, sidecar, report, command script, Python script)."""
    from dpstudio.gui.panels.export import ExportPanel

    project.set_mode("release")
    run(project)
    out.mkdir()
    panel = ExportPanel(project)
    qtbot.addWidget(panel)
    return panel.export_to(out, name, confirm=False)
