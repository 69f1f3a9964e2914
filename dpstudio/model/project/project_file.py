"""The project file (Qt-free): the saved form of a project (versioned JSON: public inputs, settings, the
last release's ledger; never the raw data, true counts or recorded events), reading and checking it, and
putting a saved state back."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from dpstudio.core.budget import Ledger, check_epsilon
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.provenance import Provenance
from dpstudio.model.project.vocabulary import (
    DEFAULT_MISSING_TOKEN,
    DROP_MISSING,
    FIELDS,
    FILE_FORMAT,
    FILE_SUFFIX,
    MISSING_CHOICES,
    MODES,
    ROLES,
    SCHEMA_VERSION,
    TEACHING,
    TYPES,
    ProjectError,
    file_sha256,
    taxonomy_from_dict,
    taxonomy_to_dict,
)


# -- persistence ---------------------------------------------------------------------------------------
def to_dict(project, relative_to: Path | None = None) -> dict:
    """The saved form: no raw data, no events, no true counts."""
    data_path = None
    data_rel = None
    if project.data_path is not None:
        data_path = str(Path(project.data_path).resolve())
        if relative_to is not None:
            try:
                data_rel = os.path.relpath(data_path, Path(relative_to).resolve())
            except ValueError:  # another drive on Windows
                data_rel = None
    return {
        "format": FILE_FORMAT,
        "schema_version": SCHEMA_VERSION,
        "data": {
            "path": data_path,
            "relative_path": data_rel,
            "sha256": project.data_hash,
            "columns": list(project.columns),
            "missing": project.missing,
            "missing_token": project.missing_token,
            "dataset_name": project.dataset_name,
            "encoding": project.data_encoding,
        },
        "attributes": {
            c: {
                "role": project.roles.get(c),
                "type": project.types.get(c),
                "bounds": list(project.bounds[c]) if c in project.bounds else None,
                **({"numeric_type": project.numeric_types[c]} if c in project.numeric_types else {}),
            }
            for c in project.columns
        },
        "classes": None if project.classes is None else list(project.classes),
        "taxonomies": {a: taxonomy_to_dict(t) for a, t in project.taxonomies.items()},
        "taxonomy_sources": dict(project.taxonomy_sources),
        "provenance": {k: p.to_dict() for k, p in project.provenance.items()},
        "algorithm": {"name": project.algorithm, "params": project.params},
        "epsilon": str(project.epsilon),
        "mode": project.mode,
        "seed": project.seed,
        "release_ledger": None if project.release_ledger is None else project.release_ledger.to_dict(),
    }


def save(project, path: str | os.PathLike) -> Path:
    """Write the project as JSON (atomically; overwriting the same project file is allowed)."""
    from dpstudio.io.atomic import atomic_write

    path = Path(path)
    if path.suffix != FILE_SUFFIX:
        path = path.with_name(path.name + FILE_SUFFIX)
    text = json.dumps(project.to_dict(relative_to=path.parent), indent=2, allow_nan=False)
    atomic_write(path, text, overwrite=True)
    project.path = path
    project.notify("path")
    project.set_dirty(False)
    return path


def read_file(path: str | os.PathLike) -> dict:
    """Parse and check a project file; ProjectError names the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProjectError(f"{path}: no such project file") from None
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not a dpstudio project (not UTF-8 text)") from None
    except OSError as exc:
        raise ProjectError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"{path}: not a dpstudio project (JSON error on line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
        raise ProjectError(f"{path}: not a dpstudio project file")
    version = data.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION or version < 1:
        raise ProjectError(
            f"{path}: project schema version {version!r} is not supported "
            f"(this dpstudio reads version {SCHEMA_VERSION})"
        )
    return data


def resolve_data_path(project, data: dict, project_path: Path) -> Path | None:
    """Where the saved data file is now: the saved absolute path, else relative to the project file."""
    d = data.get("data") or {}
    for candidate in (d.get("path"), d.get("relative_path")):
        if not candidate:
            continue
        p = Path(candidate)
        if not p.is_absolute():
            p = project_path.parent / p
        if p.is_file():
            return p
    return Path(d["path"]) if d.get("path") else None


def saved_encoding(data: dict) -> str:
    """The text encoding a saved project's data file is read with (projects saved before it was
    recorded: UTF-8)."""
    enc = (data.get("data") or {}).get("encoding")
    return str(enc) if enc else "utf-8"


def apply_dict(
    project, data: dict, dataset: Any = None, data_path: Path | None = None, project_path: Path | None = None
) -> list[str]:
    """Replace the state with a saved one. ``dataset`` is the data file loaded again by the caller
    (None if it could not be found). Returns warnings for the user (data changed, missing...)."""
    warnings: list[str] = []
    d = data.get("data") or {}
    saved_hash = d.get("sha256")
    project._muted = True
    try:
        project._reset_state()
        if dataset is not None:
            file_hash = file_sha256(data_path) if data_path is not None and Path(data_path).is_file() else None
            project.set_data(dataset, data_path, file_hash, encoding=project.saved_encoding(data))
            if saved_hash and file_hash and file_hash != saved_hash:
                warnings.append(
                    f"the data file {data_path} changed since the project was saved "
                    "(its SHA-256 differs); check roles, taxonomies and bounds"
                )
        else:
            project.data_path = Path(d["path"]) if d.get("path") else None
            project.data_hash = saved_hash
            project.data_encoding = project.saved_encoding(data)
            project.columns = list(d.get("columns") or [])
            if project.data_path is not None:
                warnings.append(f"the data file {project.data_path} was not found: open it again from the Data panel")
        missing = d.get("missing", DROP_MISSING)
        project.missing = missing if missing in MISSING_CHOICES else DROP_MISSING
        token = str(d.get("missing_token") or DEFAULT_MISSING_TOKEN).strip()
        project.missing_token = token or DEFAULT_MISSING_TOKEN
        project.dataset_name = str(d["dataset_name"]) if d.get("dataset_name") else None
        for c, a in (data.get("attributes") or {}).items():
            if c not in project.columns:
                warnings.append(f"the saved attribute {c} is not in the data")
                continue
            if a.get("role") in ROLES:
                project.roles[c] = a["role"]
            if a.get("type") in TYPES:
                project.types[c] = a["type"]
                if callable(getattr(project.dataset, "set_type", None)):  # the data read as declared
                    try:
                        project.dataset.set_type(c, a["type"])
                    except Exception as exc:  # a changed data file; keep going with a warning
                        warnings.append(f"{c}: {exc}")
            if a.get("numeric_type") is not None:
                project.numeric_types[c] = str(a["numeric_type"])
            b = a.get("bounds")
            if b is not None:
                lo, hi = float(b[0]), float(b[1])
                if not lo < hi:
                    raise ProjectError(f"saved bounds of {c} are not ordered ({lo:g} >= {hi:g})")
                project.bounds[c] = (lo, hi)
        classes = data.get("classes")
        if classes is not None:
            if not isinstance(classes, list):
                raise ProjectError("saved classes must be a list of class values")
            project.set_classes([str(c) for c in classes])
        for attr, t in (data.get("taxonomies") or {}).items():
            project.taxonomies[attr] = taxonomy_from_dict(t)
            project.taxonomies[attr].attribute = attr
        project.taxonomy_sources = dict(data.get("taxonomy_sources") or {})
        for k, d in (data.get("provenance") or {}).items():
            if isinstance(d, dict):
                project.provenance[str(k)] = Provenance.from_dict(d)
        for attr, src in project.taxonomy_sources.items():  # files saved before provenance was kept
            if src == pv.DERIVED_NOTE and pv.key(pv.TAXONOMY, attr) not in (data.get("provenance") or {}):
                project.provenance[pv.key(pv.TAXONOMY, attr)] = Provenance(pv.FLAT_FROM_DATA, True)
        alg = data.get("algorithm") or {}
        project.algorithm = alg.get("name") or project.algorithm
        project.params = dict(alg.get("params") or {})
        try:
            project.epsilon = check_epsilon(data.get("epsilon", "1"))
        except ValueError as exc:
            raise ProjectError(f"saved epsilon: {exc}") from None
        mode = data.get("mode", TEACHING)
        project.mode = mode if mode in MODES else TEACHING
        project.seed = int(data.get("seed", project.seed))
        led = data.get("release_ledger")
        if led is not None:
            try:
                project.release_ledger = Ledger.from_dict(led)
            except (KeyError, ValueError, TypeError) as exc:
                raise ProjectError(f"saved ledger is invalid: {exc}") from None
            project._ledger_hash = saved_hash
        project.path = None if project_path is None else Path(project_path)
        project.dirty = False
    finally:
        project._muted = False
    for f in FIELDS:
        project.notify(f)
    return warnings
