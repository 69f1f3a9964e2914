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

from pathlib import Path

from dpstudio.io.atomic import check_output_path


def export_refusal(project) -> str:
    """Why the project's last run cannot be exported, in words ("" when it can)."""
    p = project
    if p.teaching:
        return (
            "Teaching mode: nothing can be exported. Its noise is a seeded simulation and it may show "
            "true counts, so its output is not a release. Switch to release mode and run again to "
            "export (that run spends the budget)."
        )
    record = getattr(p, "record", None)
    if record is None:
        return "No release yet: run the algorithm in release mode first (Algorithm panel)."
    return record.export_refusal()


def release_paths(folder, name: str) -> list[Path]:
    """NAME.csv, NAME.json, NAME.report.html, NAME.command.sh, NAME.reproduce.py in ``folder`` (a trailing
    ``.csv`` on ``name`` is dropped; an empty name is "release")."""
    folder, name = Path(folder), _release_stem(name)
    return [folder / f"{name}{ext}" for ext in (".csv", ".json", ".report.html", ".command.sh", ".reproduce.py")]


def _release_stem(name: str) -> str:
    """The name the release files share: ``name`` without a trailing ``.csv``; "release" when empty."""
    name = name.strip() or "release"
    return name[:-4] if name.lower().endswith(".csv") else name


def free_release_name(folder, name: str) -> str:
    """``name`` when none of its files is in ``folder``, else the first of ``name_2``, ``name_3``, ... with
    none there (a second release beside the first is offered a name of its own; a trailing ``_k`` already
    on ``name`` counts on from there)."""
    name = _release_stem(name)
    if not any(p.exists() for p in release_paths(folder, name)):
        return name
    base, _, tail = name.rpartition("_")
    k = int(tail) if base and tail.isdigit() else 1
    stem = base if base and tail.isdigit() else name
    while True:
        k += 1
        candidate = f"{stem}_{k}"
        if not any(p.exists() for p in release_paths(folder, candidate)):
            return candidate


def check_release_paths(paths: list[Path]) -> None:
    """OutputPathError naming the first file that exists (or a folder that is missing or read-only)."""
    for p in paths:
        check_output_path(p, overwrite=False)


def write_export(
    project, folder, name: str = "release", expand_records: bool = False, omit_zero_cells: bool = False
) -> list[Path]:
    """Write the five files of the project's last release run (see the module docstring) and return their
    paths: ``RunRecord.write`` of the run's record, never the project's later state. ValueError with
    ``export_refusal``'s words when it cannot be exported; OutputPathError when a file exists or the folder
    is not writable (nothing written)."""
    from dpstudio.model.release.record import ALL_FILES

    reason = export_refusal(project)
    if reason:
        raise ValueError(reason)
    paths = release_paths(folder, name)
    check_release_paths(paths)
    return project.record.write(paths[0], ALL_FILES, expand_records=expand_records, omit_zero_cells=omit_zero_cells)
