"""Writing a finished release (Qt-free): the files the Export panel and the Python API write, from the run's
snapshot (``model.release.snapshot``), never from the project's later state.

``export_refusal(project)`` says why the last run cannot be exported ("" when it can): a teaching run, no run,
simulation noise, inputs not recorded, or inputs derived from the data and unconfirmed at Run (for good:
confirming them later does not change what ran). ``release_paths(folder, name)`` names the five files;
``write_export(project, folder, name)`` writes them atomically, all five or none, never over an existing file:

- ``NAME.csv`` and ``NAME.json``: the released table or histogram and its sidecar (public inputs with their
  provenance at Run, the budget store's charge without the fingerprint);
- ``NAME.report.html``: the report, with the run's ledger;
- ``NAME.command.sh`` and ``NAME.reproduce.py``: the equivalent ``dpstudio`` command and a Python script
  (through ``dpstudio.api``) that re-run the release's settings with fresh noise, charged to the store again.

Nothing here spends budget or draws noise: the spend was settled by the release service when the run began.
No exact count is written: the files hold the released (noisy) values and public inputs only.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from dpstudio.io.atomic import check_output_path
from dpstudio.io.report import is_histogram

NOT_RECORDED = "The inputs of the last run were not recorded: run again to export."


def export_refusal(project) -> str:
    """Why the project's last run cannot be exported, in words ("" when it can)."""
    p = project
    if p.teaching:
        return (
            "Teaching mode: nothing can be exported. Its noise is a seeded simulation and it may show "
            "true counts, so its output is not a release. Switch to release mode and run again to "
            "export (that run spends the budget)."
        )
    if getattr(p, "result", None) is None:
        return "No release yet: run the algorithm in release mode first (Algorithm panel)."
    if p.run_teaching is not False:
        return "The last run was not a release-mode run: run again in release mode."
    noise = getattr(p.result, "noise", None)
    is_release = getattr(p.result, "is_release", None)
    if is_release is False or (noise is not None and not getattr(noise, "is_secure", False)):
        return "The last run used simulation noise: it is not a release."
    snapshot = getattr(p, "run_snapshot", None)
    if snapshot is None:
        return NOT_RECORDED
    refusal = snapshot.export_refusal()
    if refusal:
        return f"Not exported: {refusal}."
    return "" if p.can_export else "The last run cannot be exported: run again in release mode."


def release_paths(folder, name: str) -> list[Path]:
    """NAME.csv, NAME.json, NAME.report.html, NAME.command.sh, NAME.reproduce.py in ``folder`` (a trailing
    ``.csv`` on ``name`` is dropped; an empty name is "release")."""
    folder = Path(folder)
    name = name.strip() or "release"
    if name.lower().endswith(".csv"):
        name = name[:-4]
    return [folder / f"{name}{ext}" for ext in (".csv", ".json", ".report.html", ".command.sh", ".reproduce.py")]


def check_release_paths(paths: list[Path]) -> None:
    """OutputPathError naming the first file that exists (or a folder that is missing or read-only)."""
    for p in paths:
        check_output_path(p, overwrite=False)


def write_export(
    project, folder, name: str = "release", expand_records: bool = False, omit_zero_cells: bool = False
) -> list[Path]:
    """Write the five files of the project's last release run (see the module docstring) and return their
    paths. ValueError with ``export_refusal``'s words when it cannot be exported; OutputPathError when a file
    exists or the folder is not writable (nothing written)."""
    reason = export_refusal(project)
    if reason:
        raise ValueError(reason)
    paths = release_paths(folder, name)
    check_release_paths(paths)
    csv_path, _json_path, html_path, sh_path, py_path = paths
    snapshot = project.run_snapshot  # what ran, with the provenance its inputs had then
    public_inputs = [dict(x) for x in snapshot.public_inputs]
    r = project.result
    from dpstudio.io.release import missing_rule

    extra = {
        "public_inputs": public_inputs,
        "dataset_budget": project.run_budget,  # the charge, no fingerprint
        "missing": missing_rule(snapshot.missing, snapshot.missing_token),  # the rule, never how many rows
    }
    from dpstudio.io.report import report_html
    from dpstudio.io.reproduce import shell_script
    from dpstudio.model.release.report_facts import report_facts
    from dpstudio.model.release.rerun_script import python_script
    from dpstudio.model.release.settings import release_settings

    # the report and the re-run scripts are rendered first and written with the CSV and the sidecar: all five
    # or none
    rerun = f"{csv_path.stem}.rerun.csv"
    facts = replace(report_facts(r, project.run_budget), missing=extra["missing"])
    if omit_zero_cells and not is_histogram(r) and not expand_records:
        facts = replace(facts, csv_note=f"{csv_path.name} leaves out the cells whose count is 0 (the sidecar says so).")
    also = {
        html_path: report_html(
            r,
            project.run_ledger,
            params=dict(snapshot.params),
            files=[p.name for p in paths],
            public_inputs=public_inputs,
            facts=facts,
        ),
        sh_path: shell_script(
            replace(
                release_settings(snapshot, r, project.run_budget, project.run_store, sys.executable),
                expand_records=expand_records,
                omit_zero_cells=omit_zero_cells,
            ),
            rerun,
        ),
        py_path: python_script(
            snapshot,
            rerun,
            project.run_budget,
            expand_records=expand_records,
            omit_zero_cells=omit_zero_cells,
            store=project.run_store,
            python=sys.executable,
        ),
    }
    if is_histogram(r):
        from dpstudio.io.histogram_release import write_histogram_release

        written = write_histogram_release(csv_path, r, project.run_ledger, edges=r.params.edges, extra=extra, also=also)
    else:
        from dpstudio.io.release import write_release

        written = write_release(
            r, csv_path, expand_records=expand_records, extra=extra, also=also, omit_zero_cells=omit_zero_cells
        )
    return [Path(written[0]), Path(written[1]), html_path, sh_path, py_path]
