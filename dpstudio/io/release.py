"""Writing a DiffGen-family release: the generalized table (CSV) and its JSON sidecar.

CSV: one row per leaf partition x class: the released label of every attribute (a taxonomy label or an
interval ``[lo,hi)``), the class and the released ``count``; or, with ``expand_records``, one row per
released record (rows repeated ``count`` times, no count column). Text cells beginning with = + - @ are
neutralised (``atomic.neutralise_cell``). Both files are written atomically, and neither is written if
either path is taken (unless ``overwrite``).

Sidecar (``OUT.json``): format, algorithm and parameters, the ledger (every spend), the neighbouring
relation, noise source, post-processing in the order applied (consistency, then rounding, then clamping),
data-independent error estimates (analytic variance of every released cell before rounding/clamping),
and the released ``cut``: per attribute ``{"leaf_to_label": {raw leaf value: label}}`` or
``{"intervals": [[lo, hi, label], ...], "closed_top": true}``, so anyone can generalize another table
(``generalize_table``) to the same cut. Each numeric attribute's entry in ``attributes`` carries its public
``lattice``: kind, resolution, whether the kind was declared or a default (and by which rule), and that
its split points lie on lo + k * resolution (MAXGDDP: on the public ``grid`` listed there, and its source). No true count, and no count of dropped rows, is ever written.

A release needs secure noise (``require_secure``); a run on simulation noise is written only when the
caller says ``simulation=True``, and its sidecar then says ``"not_a_release": true`` with the seed. Its CSV
carries the mark too, so a copy or an excerpt of it cannot pass for a release: a first column
``not_a_release`` whose every row says why ("simulation noise, seed 3"). ``mark_not_a_release`` adds it
(the histogram writer uses it as well); readers drop that column.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.budget import NEIGHBOURING
from ..core.noise import require_secure
from .atomic import atomic_write_many, check_output_path, neutralise_cell

FORMAT = "dpstudio.diffgen-release/1"
NOT_A_RELEASE_COLUMN = "not_a_release"


def mark_not_a_release(csv_text: str, reason: str) -> str:
    """``csv_text`` with a first column ``not_a_release`` holding ``reason`` on every row."""
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([reason])
    cell = buf.getvalue()
    lines = csv_text.splitlines()
    out = [f"{NOT_A_RELEASE_COLUMN},{lines[0]}"] + [f"{cell},{line}" for line in lines[1:]]
    return "\n".join(out) + "\n"


def sidecar_path(out_csv) -> Path:
    """OUT.csv -> OUT.json (any other name gets .json appended)."""
    p = Path(out_csv)
    return p.with_suffix(".json") if p.suffix.lower() == ".csv" else p.with_name(p.name + ".json")


def release_frame(result, neutralise: bool = False) -> pd.DataFrame:
    """The release as a DataFrame: attributes, class, count (one row per leaf partition x class)."""
    K = len(result.classes)
    P = int(result.leaf_values.shape[0])
    fix = neutralise_cell if neutralise else (lambda v: v)
    data = {}
    for name, labels, col in zip(result.attributes, result.value_labels, range(len(result.attributes))):
        names = np.asarray([fix(str(x)) for x in labels], dtype=object)
        data[name] = np.repeat(names[result.leaf_values[:, col]], K)
    data[result.class_name] = np.tile(np.asarray([fix(str(c)) for c in result.classes], dtype=object), P)
    data["count"] = np.asarray(result.counts).reshape(-1)
    frame = pd.DataFrame(data)
    if neutralise:
        frame.columns = [fix(str(c)) for c in frame.columns]
    return frame


def _csv_text(result, expand_records: bool, omit_zero_cells: bool = False) -> str:
    frame = release_frame(result, neutralise=True)
    if omit_zero_cells and not expand_records:
        frame = frame.loc[np.asarray(result.counts).reshape(-1) != 0]
    if expand_records:
        counts = np.asarray(result.counts).reshape(-1)
        reps = np.maximum(np.round(counts), 0).astype(np.int64)
        frame = frame.iloc[np.repeat(np.arange(len(frame)), reps)].drop(columns=frame.columns[-1])
    return frame.to_csv(index=False, lineterminator="\n")


def _json_safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def sidecar(result, simulation: bool = False, extra: dict | None = None, expand_records: bool = False) -> dict:
    """The sidecar dictionary (see the module docstring)."""
    noise = result.noise
    K = len(result.classes)
    P = int(result.leaf_values.shape[0])
    var = result.variances
    errors = {
        "what": "analytic variance of each released cell's estimate before rounding and clamping; "
        "data-independent (depends only on the tree, the budget and the noise scales)",
        "count_epsilon": float(result.count_epsilon),
        "count_sensitivity": result.sensitivity_counts,
        "noise": "discrete Laplace (integer), variance 2p/(1-p)^2 with p = exp(-1/scale)",
        "cell_order": "leaf partitions in CSV order, classes within each partition",
    }
    if var is None:
        errors["per_cell_variance"] = None
        errors["note"] = "not computed (seed 000's rule on a tree over 2,000 nodes)"
    else:
        per_cell = np.repeat(np.asarray(var, dtype=float), K)
        # 6 significant digits: a variance is an estimate, and large releases keep a readable sidecar
        errors["per_cell_variance"] = [_json_safe(float(f"{v:.6g}")) for v in per_cell.tolist()]
        errors["min"] = float(per_cell.min()) if per_cell.size else None
        errors["max"] = float(per_cell.max()) if per_cell.size else None
        errors["mean"] = float(per_cell.mean()) if per_cell.size else None
    attributes = []
    for name, kind in zip(result.attributes, result.kinds):
        entry = {"name": name, "kind": kind}
        if kind == "numeric":
            iv = result.cut[name]["intervals"]
            entry["public_bounds"] = [iv[0][0], iv[-1][1]] if iv else None
            domains = getattr(result, "numeric_domains", None) or {}
            if name in domains:
                entry["lattice"] = domains[name]
        attributes.append(entry)
    d = {
        "format": FORMAT,
        "algorithm": result.params.algorithm,
        "parameters": result.params.to_dict(),
        "not_a_release": bool(not noise.is_secure),
        "noise": noise.label,
        "neighbouring": NEIGHBOURING,
        "privacy": f"{float(result.ledger.spent):g}-differential privacy (pure), {NEIGHBOURING}",
        "ledger": result.ledger.to_dict(),
        "class_attribute": result.class_name,
        "classes": list(result.classes),
        "attributes": attributes,
        "rows": "one per released record" if expand_records else "one per leaf partition x class",
        "leaf_partitions": P,
        "cells": P * K,
        "empty_partitions_kept": True,
        "specializations": list(result.winners),
        "steps_done": result.steps_done,
        "stopped_early": result.stopped_early,
        "post_processing": list(result.post_processing),
        "error_estimates": errors,
        "cut": result.cut,
    }
    if not noise.is_secure:
        d["seed"] = getattr(noise, "seed", None)
        d["warning"] = "simulation noise (numpy): NOT A RELEASE; for teaching and testing only"
    if extra:
        d.update(extra)
    return d


def missing_rule(choice: str, token: str = "?") -> dict:
    """The sidecar's statement of what was done with missing values: the rule only (data-independent; how
    many rows it concerned is data and is never written)."""
    if choice == "drop":
        return {
            "rule": "drop",
            "words": "rows with a missing value in a released column were left out",
        }
    return {"rule": "category", "token": token, "words": f"a missing value is kept as the value {token!r}"}


def write_release(
    result,
    out_csv,
    overwrite: bool = False,
    expand_records: bool = False,
    simulation: bool = False,
    extra: dict | None = None,
    also: dict | None = None,
    omit_zero_cells: bool = False,
) -> tuple[Path, Path]:
    """Write OUT.csv and OUT.json atomically; returns their paths. ``also`` (path -> text, e.g. the HTML
    report) is written in the same all-or-nothing step. ``omit_zero_cells``: a large sparse release leaves
    out the rows whose released count is 0 (post-processing of released values); the sidecar says so and
    gives the number of cells, every one recoverable from the released cut (a leaf partition x class absent
    from the CSV has count 0).

    Raises NotSecureNoiseError for a simulation run unless ``simulation=True`` (then marked not a release),
    OutputPathError if a path exists (and not ``overwrite``) or cannot be written.
    """
    if not simulation:
        require_secure(result.noise)
    elif result.noise.is_secure:
        simulation = False
    csv_path = Path(out_csv)
    json_path = sidecar_path(csv_path)
    check_output_path(csv_path, overwrite)
    check_output_path(json_path, overwrite)
    text = _csv_text(result, expand_records, omit_zero_cells)
    if simulation:
        text = mark_not_a_release(text, f"simulation noise, seed {getattr(result.noise, 'seed', None)}")
    extra = dict(extra or {})
    if omit_zero_cells and not expand_records:
        extra["rows"] = "one per leaf partition x class whose released count is not 0"
        extra["empty_partitions_kept"] = False
        extra["zero_cells_omitted"] = {
            "omitted": True,
            "cells": int(np.asarray(result.counts).size),
            "how": "rows whose released count is 0 are left out; every leaf partition x class of the cut that "
            "has no row has count 0",
        }
    meta = json.dumps(sidecar(result, simulation, extra, expand_records), indent=1, allow_nan=False)
    atomic_write_many({csv_path: text, json_path: meta + "\n", **(also or {})}, overwrite=overwrite)
    return csv_path, json_path


def generalize_table(frame: pd.DataFrame, cut: dict) -> pd.DataFrame:
    """Generalize the attributes named in ``cut`` (a sidecar's ``cut``) to their released labels.

    Categorical: raw value (as text, stripped) -> label; values the cut does not know become NaN.
    Numeric: the interval holding the value (the last interval includes its upper bound); values outside
    the intervals become NaN. Other columns are copied unchanged.
    """
    out = frame.copy()
    for name, spec in cut.items():
        if name not in out.columns:
            continue
        col = out[name]
        if "leaf_to_label" in spec:
            mapping = spec["leaf_to_label"]
            text = col.map(
                lambda v: (
                    str(int(v))
                    if isinstance(v, float) and float(v).is_integer()
                    else (None if pd.isna(v) else str(v).strip())
                )
            )
            out[name] = text.map(mapping)
        else:
            iv = spec["intervals"]
            los = np.array([a for a, _, _ in iv], dtype=float)
            his = np.array([b for _, b, _ in iv], dtype=float)
            labels = np.array([lab for _, _, lab in iv], dtype=object)
            x = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
            pos = np.searchsorted(los, x, side="right") - 1
            safe = np.clip(pos, 0, len(los) - 1)
            inside = (pos >= 0) & (
                (x < his[safe]) | ((x == his[safe]) & (safe == len(los) - 1) & bool(spec.get("closed_top", False)))
            )
            generalized = labels[safe]  # a new object array: values outside every interval become None
            generalized[~inside] = None
            out[name] = generalized
    return out
