"""Histogram release files: a CSV of bins with the released counts and a JSON sidecar, written atomically.

CSV columns: ``bin`` (1-based), ``lo`` and ``hi`` (the public edges, when known) or ``category`` (an
ordinal column's public categories, neutralised against spreadsheet formulas), ``count`` (the released
value: by default a whole non-negative count, consistent across the tree's levels; on request the
least-squares estimate, then rounding/clamping if asked); an output that is not a release (simulation
noise, bin edges derived from the data) has a first column ``not_a_release`` whose every row says why, so
the CSV on its own cannot pass for a release. The sidecar (``OUT.json`` beside
``OUT.csv``) holds the algorithm, tree shape, per-node budget summary, the ledger, the post-processing in
order, and the analytic, data-independent error: ``expected_all_range_mse`` is the expected squared error
of a uniformly random range [l, r] answered from the released consistent estimate (before any
rounding/clamping). True counts and errors measured against them are never written.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from pathlib import Path

import numpy as np

from dpstudio.algorithms.interval_trees import ALGORITHMS, IntervalTreeResult
from dpstudio.algorithms.pidentity import PIdentityPlan
from dpstudio.core.budget import NEIGHBOURING, Ledger
from dpstudio.core.taxonomy import number_text
from dpstudio.io.atomic import atomic_write_many, check_output_path, neutralise_cell
from dpstudio.io.release import mark_not_a_release

FORMAT = "dpstudio-histogram/1"


def sidecar_path(out_csv) -> Path:
    return Path(out_csv).with_suffix(".json")


def check_release_paths(out_csv, overwrite: bool = False) -> tuple[Path, Path]:
    """Check both output paths before any work (OutputPathError otherwise)."""
    return check_output_path(out_csv, overwrite), check_output_path(sidecar_path(out_csv), overwrite)


def _fmt(x: float) -> str:
    if float(x).is_integer():
        return str(int(x))
    return format(float(x), ".10g")


def _csv_cell(text: str) -> str:
    text = str(neutralise_cell(str(text)))
    if any(ch in text for ch in ',"\n\r'):
        text = '"' + text.replace('"', '""') + '"'
    return text


def release_csv(result: IntervalTreeResult, edges=None, labels=None) -> str:
    """``bin,lo,hi,count`` with edges, ``bin,category,count`` with category labels, else ``bin,count``."""
    if edges is not None:
        lines = ["bin,lo,hi,count"]
    elif labels is not None:
        lines = ["bin,category,count"]
    else:
        lines = ["bin,count"]
    for i, c in enumerate(result.released):
        if edges is not None:
            lines.append(f"{i + 1},{number_text(edges[i])},{number_text(edges[i + 1])},{_fmt(c)}")
        elif labels is not None:
            lines.append(f"{i + 1},{_csv_cell(labels[i])},{_fmt(c)}")
        else:
            lines.append(f"{i + 1},{_fmt(c)}")
    return "\n".join(lines) + "\n"


def counts_note(post_processing: dict) -> str:
    """What the released counts are, in words: whole non-negative consistent counts (the default), or the
    least-squares estimates, rounded and clamped if asked."""
    if post_processing.get("published", "least_squares") == "whole":
        return (
            "the released counts are whole numbers, never negative, consistent with every level of the tree "
            "and summing to the published total (the default): the least-squares estimates projected "
            "family by family from the root down, then rounded by largest remainder; the real-valued "
            "least-squares estimates are published only on request (--published least-squares)"
        )
    rounded, clamped = bool(post_processing.get("rounded")), bool(post_processing.get("clamped"))
    if not rounded and not clamped:
        return (
            "the released counts are the least-squares estimates, asked for (--published least-squares), "
            "neither rounded nor clamped: decimals that may be negative, unbiased and consistent"
        )
    done = " and ".join(
        w for w, on in (("rounded to whole numbers", rounded), ("negatives clamped to 0", clamped)) if on
    )
    return f"the released counts are the least-squares estimates, then {done} (asked for)"


def release_sidecar(
    result: IntervalTreeResult,
    ledger: Ledger,
    domain: dict | None = None,
    not_a_release: list[str] | None = None,
    extra: dict | None = None,
) -> dict:
    plan = result.plan
    params = result.params
    reasons = list(not_a_release or [])
    if not result.is_release:
        reasons.insert(0, f"simulation noise ({result.noise_label})")
    mse = plan.expected_consistent_mse
    if isinstance(plan, PIdentityPlan):
        structure = {
            "strategy": plan.strategy_summary(),
            "privacy": (
                "every record lies in one bin j; bin j's count gets discrete Laplace noise of "
                "scale 1/e_j, weighted sum k (weight M[k, j] <= resolution) gets scale "
                "row_scale >= resolution/epsilon, and e_j + sum_k M[k, j]/row_scale is at most "
                f"epsilon for every bin (max {plan.strategy_summary()['max_path_sum']:.12g})"
            ),
        }
        raw = {}
    else:
        tree = plan.tree.describe()
        tree.update(
            {
                "branching": plan.branching,
                "root_noised": bool(plan.noised[0]),
                "split_rule": "near-equal contiguous children, larger first",
            }
        )
        structure = {
            "privacy": (
                "every record lies in one bin, so it changes the counts on one root-to-leaf "
                "path; each noised node x gets discrete Laplace noise of scale 1/eps_x and every "
                f"path sums to at most epsilon ({plan.budget_summary()['max_path_sum']:.12g})"
            ),
            "tree": tree,
            "budgets": plan.budget_summary(),
        }
        raw = {"expected_raw_tree_all_range_mse": plan.expected_raw_mse}
    return {
        **(extra or {}),
        "format": FORMAT,
        "release": not reasons,
        "not_a_release": reasons or None,
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "algorithm": params.algorithm,
        "algorithm_description": ALGORITHMS[params.algorithm],
        "epsilon": str(params.checked_epsilon()),
        "neighbouring": NEIGHBOURING,
        "noise": result.noise_label,
        **structure,
        "notes": plan.notes,
        "ledger": ledger.to_dict(),
        "post_processing": result.post_processing,
        "counts_note": counts_note(result.post_processing),
        "expected_all_range_mse": mse,
        "expected_all_range_rmse": math.sqrt(mse),
        **raw,
        "error_note": (
            "analytic and data-independent: expected squared error of a uniformly random range "
            "[l, r] of the n bins (n(n+1)/2 ranges), with the exact variance of the discrete "
            "Laplace noise; 'raw tree' = the noisy tree before consistency, answered by canonical "
            "covers"
        ),
        "domain": domain or {},
        "n_bins": int(plan.tree.n_bins),
    }


def write_histogram_release(
    out_csv,
    result: IntervalTreeResult,
    ledger: Ledger,
    edges=None,
    domain: dict | None = None,
    not_a_release: list[str] | None = None,
    overwrite: bool = False,
    labels=None,
    extra: dict | None = None,
    also: dict | None = None,
) -> tuple[Path, Path]:
    """Write OUT.csv and OUT.json atomically (every path checked before any is written); ``extra``
    adds keys to the sidecar (the studio: ``public_inputs``, ``dataset_budget``); ``also`` (path -> text,
    e.g. the HTML report) is written in the same all-or-nothing step."""
    if edges is not None and len(edges) != result.released.size + 1:
        raise ValueError("edges must have one more entry than there are bins")
    if labels is not None and len(labels) != result.released.size:
        raise ValueError("labels must have one entry per bin")
    side = release_sidecar(result, ledger, domain, not_a_release, extra)
    csv_path, json_path = Path(out_csv), sidecar_path(out_csv)
    text = release_csv(result, edges, labels)
    if side["not_a_release"]:
        text = mark_not_a_release(text, "; ".join(side["not_a_release"]))
    atomic_write_many(
        {csv_path: text, json_path: json.dumps(side, indent=2, default=_json_default) + "\n", **(also or {})}, overwrite
    )
    return csv_path, json_path


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"cannot serialise {type(o).__name__}")
