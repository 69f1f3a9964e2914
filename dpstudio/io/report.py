"""A human-readable HTML report of a release: parameters, ledger, data-independent error, guarantees.

What it holds: the algorithm and its parameters, the privacy guarantee (epsilon spent, pure DP), the
neighbouring relation (add/remove one record), the noise source, every ledger entry, the post-processing in
the order applied, and error figures that depend only on public inputs (the split of epsilon, the tree
shape, the noise scales): analytic variances and expected range-query errors. It never holds a true count,
an error measured against the truth, or a count of dropped rows: the inputs are the run's result (which
carries none) and its ledger. A run on simulation noise is marked "NOT A RELEASE".

The split of epsilon and the expected errors describe the split that ran, taken from the run itself (one
source of truth): a table run's plan is rebuilt from the engine parameters in ``result.params`` (the
explicit fractions a custom split or ``--count-share`` set included), an interval tree's is
``result.plan``.

``public_inputs`` (the studio's ``Project.public_inputs_record()``) adds where each public input came from
and the user's confirmation of any input derived from the data.

``report_html(result, ledger, params=None, title=..., files=None, public_inputs=None) -> str``;
``write_report(path, ...)`` writes it atomically and refuses to overwrite (``OutputPathError``).
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from pathlib import Path

import numpy as np

from dpstudio.core.budget import NEIGHBOURING
from dpstudio.io.atomic import atomic_write

STYLE = """
body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#202020;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.warn{background:#f0a020;padding:.5em;font-weight:bold}
.ok{background:#e3f3e8;padding:.5em}.small{color:#555;font-size:.9em}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _num(x) -> str:
    if x is None:
        return ""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return _e(x)
    if not math.isfinite(v):
        return "not noised" if v == math.inf else _e(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.6g}"


def _table(header, rows, numeric_cols=()) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for r in rows:
        cells = []
        for i, v in enumerate(r):
            cls = ' class="n"' if i in numeric_cols else ""
            cells.append(f"<td{cls}>{_num(v) if i in numeric_cols else _e(v)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _is_histogram(result) -> bool:
    return hasattr(result, "plan") and hasattr(result.plan, "tree")


def _noise(result):
    if _is_histogram(result):
        return bool(result.is_release), str(result.noise_label)
    noise = getattr(result, "noise", None)
    return bool(getattr(noise, "is_secure", False)), str(getattr(noise, "label", "unknown"))


def _parameters(result, params: dict | None) -> list[tuple[str, str]]:
    p = getattr(result, "params", None)
    d = {}
    if p is not None and hasattr(p, "to_dict"):
        d = p.to_dict()
    elif p is not None and hasattr(p, "__dataclass_fields__"):
        d = {k: getattr(p, k) for k in p.__dataclass_fields__}
    for k, v in (params or {}).items():
        if k not in d and k not in ("budget_split",):
            d[k] = v
    d.pop("edges", None)
    return [(k, v if not isinstance(v, (list, tuple)) or len(v) < 12 else f"{len(v)} values")
            for k, v in d.items()]


def run_plan(result):
    """(plan, figure parameters) of a DiffGen-family run, rebuilt from the engine parameters it ran with;
    (None, None) for an interval-tree run (its plan is ``result.plan``)."""
    from dpstudio.model.budget_plan import table_plan

    if _is_histogram(result) or not hasattr(getattr(result, "params", None), "steps"):
        return None, None
    n_numeric = sum(1 for k in getattr(result, "kinds", ()) if k == "numeric")
    return table_plan(result.params, n_numeric), {"steps": int(result.params.steps),
                                                  "numeric_attributes": n_numeric}


def _error_section(result) -> str:
    parts = []
    plan, fig_params = run_plan(result)
    if plan is not None:
        from dpstudio.model.budget_plan import expected_error

        parts.append("<p>Split of epsilon planned before the run (exact shares, summing to the total) and the "
                     "errors it implies. The engine gives any budget a step did not need (fewer split points, an "
                     "early stop, a shallower tree) to the counts, so the ledger above, not this plan, is what "
                     "was spent; the figures after this plan are the run's own.</p>")
        parts.append(_table(["share", "epsilon"], [(n, float(s)) for n, s in zip(plan.names, plan.shares)],
                            numeric_cols=(1,)))
        figs = expected_error(plan, fig_params)
        parts.append(_table(["quantity", "value", "how"], [(f.label, f.value, f.explanation) for f in figs],
                            numeric_cols=(1,)))
    if _is_histogram(result):
        tp = result.plan
        rows = [("bins", tp.tree.n_bins), ("tree nodes", tp.tree.n_nodes),
                ("noised nodes on the longest path (sensitivity)", tp.sensitivity),
                ("expected all-range MSE, consistent release", tp.expected_consistent_mse),
                ("expected all-range RMSE, consistent release", math.sqrt(tp.expected_consistent_mse)),
                ("expected all-range MSE, raw tree (canonical cover)", tp.expected_raw_mse)]
        if tp.branching:
            rows.insert(2, ("branching", tp.branching))
        parts.append("<p>Analytic errors of this tree and these noise scales (uniformly random ranges "
                     "[l, r]; exact discrete-Laplace variances; independent of the data):</p>")
        parts.append(_table(["quantity", "value"], rows, numeric_cols=(1,)))
        summ = tp.budget_summary()
        lv = [(d["depth"], d["nodes"], d.get("min"), d.get("max"), d.get("note", "")) for d in summ["per_level"]]
        parts.append(_table(["depth", "noised nodes", "min epsilon", "max epsilon", "note"], lv,
                            numeric_cols=(0, 1, 2, 3)))
        for n in tp.notes:
            parts.append(f"<p class='small'>{_e(n)}</p>")
    else:
        var = getattr(result, "variances", None)
        ce = getattr(result, "count_epsilon", None)
        rows = []
        if ce is not None:
            rows.append(("count budget eps_c", float(ce)))
        sens = getattr(result, "sensitivity_counts", None)
        if sens is not None:
            rows.append(("sensitivity of the counts", sens))
        if var is not None and np.size(var):
            v = np.asarray(var, dtype=float)
            rows += [("released cells", int(getattr(result, "n_cells", v.size))),
                     ("analytic variance per cell: min", float(v.min())),
                     ("analytic variance per cell: mean", float(v.mean())),
                     ("analytic variance per cell: max", float(v.max()))]
        elif var is None:
            rows.append(("analytic variance per cell", "not computed for this tree"))
        parts.append("<p>Analytic (data-independent) variance of each released cell before rounding and "
                     "clamping:</p>")
        parts.append(_table(["quantity", "value"], rows, numeric_cols=(1,)))
    return "\n".join(parts)


def _post_processing(result) -> list[str]:
    pp = getattr(result, "post_processing", None)
    if isinstance(pp, dict):
        return [f"{k}: {v}" for k, v in pp.items()]
    if pp:
        return [str(x) for x in pp]
    return []


def report_html(result, ledger, params: dict | None = None, title: str = "dpstudio release report",
                files: list | None = None, public_inputs: list | None = None) -> str:
    """The report as one self-contained HTML page (see the module docstring)."""
    secure, noise_label = _noise(result)
    algo = getattr(getattr(result, "params", None), "algorithm", "")
    spent = float(ledger.spent)
    total = float(ledger.total)
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
           f"<style>{STYLE}</style></head><body>", f"<h1>{_e(title)}</h1>"]
    if not secure:
        out.append("<p class='warn'>NOT A RELEASE: simulation noise (" + _e(noise_label) + "). For teaching and "
                   "testing only.</p>")
    else:
        out.append(f"<p class='ok'>{_num(spent)}-differential privacy (pure). Neighbouring datasets: "
                   f"{_e(NEIGHBOURING)}. Noise: {_e(noise_label)}.</p>")
    out.append(f"<p class='small'>Generated {_e(_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))}"
               f" by dpstudio.</p>")
    if files:
        out.append("<p>Files: " + ", ".join(f"<code>{_e(Path(f).name)}</code>" for f in files) + "</p>")

    out.append("<h2>Guarantee</h2>")
    out.append(_table(["", ""], [
        ("algorithm", algo),
        ("epsilon spent", f"{_num(spent)} of a budget of {_num(total)}"),
        ("neighbouring relation", NEIGHBOURING),
        ("noise", noise_label),
        ("composition", "sequential (sum) across steps; parallel (max) inside groups of disjoint records"),
    ]))
    out.append("<h2>Parameters</h2>")
    out.append(_table(["parameter", "value"], _parameters(result, params)))

    if public_inputs:
        out.append("<h2>Public inputs</h2>")
        out.append("<p>The release's domain: where each input came from. An input derived from the data is "
                   "published only with the data owner's confirmation that it is public knowledge.</p>")
        out.append(_table(["input", "source", "derived from the data", "confirmation"],
                          [(d["input"], d["source"], "yes" if d["derived"] else "no", d.get("confirmed") or "")
                           for d in public_inputs]))
    out.append("<h2>Budget ledger</h2>")
    out.append("<p>Every spend, in order, recorded before the noisy value it paid for was shown or written.</p>")
    rows = [(e.step, e.mechanism, float(e.epsilon), e.sensitivity, e.scale, e.group or "", e.note)
            for e in ledger.entries]
    out.append(_table(["step", "mechanism", "epsilon", "sensitivity", "noise scale", "parallel group", "note"],
                      rows, numeric_cols=(2, 3, 4)))
    out.append(f"<p>Total spent: <b>{_num(spent)}</b> (exact: {_e(ledger.spent)}); remaining "
               f"{_num(float(ledger.remaining))}.</p>")

    out.append("<h2>Expected error (data-independent)</h2>")
    out.append(_error_section(result))

    out.append("<h2>Post-processing</h2>")
    pp = _post_processing(result)
    out.append("<p>Post-processing costs no budget. Applied in this order: consistency first, then any "
               "rounding or clamping.</p>")
    out.append("<ol>" + "".join(f"<li>{_e(x)}</li>" for x in pp) + "</ol>" if pp else "<p>None.</p>")
    out.append("<h2>What this report does not contain</h2><p>No true count, no error measured against the "
               "true data, no count of dropped rows: every figure above depends only on public inputs "
               "(epsilon, its split, the taxonomies or bins, the tree shape) and the released values.</p>")
    out.append("</body></html>")
    return "\n".join(out)


def write_report(path, result, ledger, params: dict | None = None, overwrite: bool = False,
                 title: str = "dpstudio release report", files: list | None = None,
                 public_inputs: list | None = None) -> Path:
    """Write ``report_html(...)`` atomically; OutputPathError if ``path`` exists and not ``overwrite``."""
    return atomic_write(path, report_html(result, ledger, params, title, files, public_inputs),
                        overwrite=overwrite)
