"""A human-readable HTML report of a release: parameters, ledger, data-independent error, guarantees.

What it holds: the algorithm and its parameters, the privacy guarantee (epsilon spent, pure DP), the
neighbouring relation (add/remove one record), the noise source, every ledger entry, the post-processing in
the order applied, and error figures that depend only on public inputs (the split of epsilon, the tree
shape, the noise scales): analytic variances and expected range-query errors. It never holds a true count,
an error measured against the truth, or a count of dropped rows: the inputs are the run's result (which
carries none) and its ledger. A run on simulation noise is marked "NOT A RELEASE".

The split of epsilon and the expected errors describe the split that ran, taken from the run itself (one
source of truth): a table run's plan is rebuilt (in ``dpstudio.model.release.report_facts``) from the engine
parameters in ``result.params`` (the explicit fractions a custom split or ``--count-share`` set included),
an interval tree's is ``result.plan``.

``public_inputs`` (the studio's ``Project.public_inputs_record()``) adds where each public input came from
and the user's confirmation of any input derived from the data.

The page opens with a summary a non-expert can read: what was released, the guarantee in one sentence,
the budget used and what remains on this dataset (the budget store's charge), the expected error in plain
words, and two inline SVG charts (the split of epsilon; the expected error by query size); the technical
tables follow. Numbers print as decimals (exact fractions stay in the sidecar). What io cannot compute
without the model layer (the planned split, its error figures, the error by query size) is handed in as
:class:`ReportFacts`, built by ``dpstudio.model.release.report_facts.report_facts(result, budget)``.

``report_html(result, ledger, params=None, title=..., files=None, public_inputs=None, facts=None) -> str``;
``write_report(path, ...)`` writes it atomically and refuses to overwrite (``OutputPathError``).
"""

from __future__ import annotations

import datetime as _dt
import html
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from dpstudio.algorithms.pidentity import is_pidentity
from dpstudio.core.budget import NEIGHBOURING
from dpstudio.io.atomic import atomic_write
from dpstudio.io.plain_numbers import written_out
from dpstudio.io.report_svg import bars_svg, curve_svg

STYLE = """
body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#202020;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.warn{background:#f0a020;padding:.5em;font-weight:bold}
.ok{background:#e3f3e8;padding:.5em}.small{color:#555;font-size:.9em}
.summary{border:1px solid #9cc;padding:.2em 1em;margin:1em 0;background:#f6fbfb}.summary li{margin:.3em 0}
"""


@dataclass(frozen=True)
class ReportFacts:
    """What the report shows that io does not compute (all data-independent; see the module docstring).

    ``split``: (part, epsilon) of the planned split of a table run (the technical tables); ``figures``:
    (label, value, how) expected-error figures of that split; ``error_by_size``: (query size, root-mean-
    square error) in ``size_unit``, computed as ``error_how`` says; ``budget``: the sidecar's
    ``dataset_budget`` entry (the budget store's charge, or why nothing was charged)."""

    split: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    error_by_size: list = field(default_factory=list)
    size_unit: str = ""
    error_how: str = ""
    budget: dict | None = None
    csv_note: str = ""  # how the CSV writes the cells (e.g. zero cells left out)
    missing: dict | None = None  # the sidecar's ``missing`` rule (io.release.missing_rule): never how many rows


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _plain(v):
    """A parameter value for display: fractions (and "p/q" strings) as decimals, lists element by element."""
    if isinstance(v, Fraction):
        return _num(v)
    if isinstance(v, str) and v.count("/") == 1:
        try:
            return _num(Fraction(v))
        except (ValueError, ZeroDivisionError):
            return v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(str(_plain(x)) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_plain(x)}" for k, x in v.items()) + "}"
    return v


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
    if 1e-12 <= abs(v) < 1e-4:  # "0.0000524052", not "5.24052e-05" (a per-level epsilon of a deep tree)
        return written_out(v, 6)
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


def is_histogram(result) -> bool:
    """Whether ``result`` is an interval-tree histogram's (else a DiffGen-family table's)."""
    return hasattr(result, "plan") and hasattr(result.plan, "tree")


def _noise(result):
    if is_histogram(result):
        return bool(result.is_release), str(result.noise_label)
    noise = getattr(result, "noise", None)
    return bool(getattr(noise, "is_secure", False)), str(getattr(noise, "label", "unknown"))


#: the studio's planned figures that a table run itself decides (the engine gives unneeded budget to the counts
#: and may choose the levels' shares): shown from the ledger instead, as spent
PLANNED_ONLY = ("budget_split", "count_epsilon", "level_epsilons")
_COUNT_LEVEL = re.compile(r"^counts: level (\d+)\b")


def spent_levels(ledger) -> list[tuple[int, Fraction]]:
    """(level, epsilon) of each count level the ledger paid for, in level order (DiffGen with consistency)."""
    out: dict[int, Fraction] = {}
    for e in getattr(ledger, "entries", ()) or ():
        m = _COUNT_LEVEL.match(str(getattr(e, "step", "")))
        if m:
            out[int(m.group(1))] = out.get(int(m.group(1)), Fraction(0)) + Fraction(e.epsilon)
    return sorted(out.items())


def _parameters(result, params: dict | None, ledger=None) -> list[tuple[str, str]]:
    """The engine's parameters as the run used them, the studio's own settings it does not hold, and the
    figures the run decided (count epsilon, per-level epsilons) as the ledger records them."""
    p = getattr(result, "params", None)
    d = {}
    if p is not None and hasattr(p, "to_dict"):
        d = p.to_dict()
    elif p is not None and hasattr(p, "__dataclass_fields__"):
        d = {k: getattr(p, k) for k in p.__dataclass_fields__}
    skip = ("budget_split",) if is_histogram(result) else PLANNED_ONLY  # a tree's levels run as planned
    for k, v in (params or {}).items():
        if k not in d and k not in skip:
            d[k] = v
    d.pop("edges", None)
    if getattr(result, "count_epsilon", None) is not None and not is_histogram(result):
        d["count epsilon, as spent (ledger)"] = result.count_epsilon
        levels = spent_levels(ledger if ledger is not None else getattr(result, "ledger", None))
        if levels:  # every level in full (a long list is not abbreviated here)
            d["epsilon per count level, as spent (ledger)"] = ", ".join(f"{lv}: {_num(e)}" for lv, e in levels)
    return [
        (k, _plain(v) if not isinstance(v, (list, tuple)) or len(v) < 12 else f"{len(v)} values") for k, v in d.items()
    ]


def _error_section(result, facts: ReportFacts) -> str:
    parts = []
    if facts.split and not is_histogram(result):
        parts.append(
            "<p>Split of epsilon planned before the run (exact shares, summing to the total) and the "
            "errors it implies. The engine gives any budget a step did not need (fewer split points, an "
            "early stop, a shallower tree) to the counts, so the ledger above, not this plan, is what "
            "was spent; the figures after this plan are the run's own.</p>"
        )
        parts.append(_table(["share", "epsilon"], facts.split, numeric_cols=(1,)))
        parts.append(_table(["quantity", "value", "how"], facts.figures, numeric_cols=(1,)))
    if is_histogram(result):
        tp = result.plan
        pid = is_pidentity(tp)
        if pid:
            s = tp.strategy_summary()
            shape = [
                ("weighted sums of bins (extra rows)", tp.n_rows),
                ("weights' resolution", tp.resolution),
                ("noise scale of each weighted sum", tp.row_scale),
                ("budget of a bin's own count: min", s["bin_budget"]["min"]),
                ("budget of a bin's own count: max", s["bin_budget"]["max"]),
                ("most any record's bin is charged, over all rows (at most epsilon)", s["max_path_sum"]),
            ]
        else:
            shape = [("tree nodes", tp.tree.n_nodes)]
            if tp.branching:
                shape.append(("branching", tp.branching))
            shape.append(("noised nodes on the longest path (sensitivity)", tp.sensitivity))
        rows = [
            ("bins", tp.tree.n_bins),
            *shape,
            ("expected all-range MSE, consistent release", tp.expected_consistent_mse),
            ("expected all-range RMSE, consistent release", math.sqrt(tp.expected_consistent_mse)),
        ]
        if not pid:
            rows.append(("expected all-range MSE, raw tree (canonical cover)", tp.expected_raw_mse))
        parts.append(
            f"<p>Analytic errors of this {'strategy' if pid else 'tree'} and these noise scales (uniformly random "
            "ranges [l, r]; exact discrete-Laplace variances; independent of the data):</p>"
        )
        parts.append(_table(["quantity", "value"], rows, numeric_cols=(1,)))
        if not pid:
            summ = tp.budget_summary()
            lv = [(d["depth"], d["nodes"], d.get("min"), d.get("max"), d.get("note", "")) for d in summ["per_level"]]
            parts.append(
                _table(["depth", "noised nodes", "min epsilon", "max epsilon", "note"], lv, numeric_cols=(0, 1, 2, 3))
            )
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
            rows += [
                ("released cells", int(getattr(result, "n_cells", v.size))),
                ("analytic variance per cell: min", float(v.min())),
                ("analytic variance per cell: mean", float(v.mean())),
                ("analytic variance per cell: max", float(v.max())),
            ]
        elif var is None:
            rows.append(("analytic variance per cell", "not computed for this tree"))
        parts.append("<p>Analytic (data-independent) variance of each released cell before rounding and clamping:</p>")
        parts.append(_table(["quantity", "value"], rows, numeric_cols=(1,)))
    return "\n".join(parts)


def _post_processing(result) -> list[str]:
    """The post-processing steps in words: a table run's steps (step: method), a histogram's order of steps
    and its note; never a Python dict."""
    pp = getattr(result, "post_processing", None)
    if isinstance(pp, dict):
        steps = [str(x) for x in pp.get("order", [])]
        return steps + ([str(pp["note"])] if pp.get("note") else [])
    out = []
    for x in pp or []:
        if isinstance(x, dict) and "step" in x:
            method = str(x.get("method", "")).replace("_", " ")
            out.append(f"{x['step']}: {method}" if method else str(x["step"]))
        else:
            out.append(str(x))
    return out


def _what_was_released(result) -> str:
    if is_histogram(result):
        return f"a histogram of {result.plan.tree.n_bins} bins: one noisy count per bin"
    parts = int(result.leaf_values.shape[0])
    classes = [str(c) for c in result.classes]
    attrs = ", ".join(str(a) for a in result.attributes)
    return (
        f"a table of noisy counts: {parts} groups of records (each a combination of generalized values of "
        f"{attrs}) x {len(classes)} classes of {result.class_name} ({', '.join(classes)}), "
        f"{parts * len(classes)} counts in all"
    )


def _budget_words(budget: dict | None, ledger) -> str:
    spent, total = _num(ledger.spent), _num(ledger.total)
    if budget and budget.get("tracked"):
        return (
            f"This release used epsilon = {_num(Fraction(budget['charged']))} of the lifetime budget of "
            f"dataset {_e(budget.get('dataset'))} ({_num(Fraction(budget['dataset_total']))}); "
            f"{_num(Fraction(budget['dataset_spent']))} has been spent on it so far, "
            f"<b>{_num(Fraction(budget['dataset_remaining']))} remains</b> for further releases."
        )
    if budget:
        return (
            f"This run spent epsilon = {spent} of its budget of {total}. The budget store did not charge "
            f"it: {_e(budget.get('note', 'not tracked'))}."
        )
    return f"This run spent epsilon = {spent} of its budget of {total}."


def _lifetime_rows(budget: dict | None) -> list[tuple[str, str]]:
    """The Guarantee table's rows on the dataset's lifetime budget (the budget store's charge)."""
    if not budget or not budget.get("tracked"):
        return [("dataset's lifetime budget", "not tracked: " + str((budget or {}).get("note", "no budget store")))]
    return [
        (
            f"dataset {budget.get('dataset')}'s lifetime budget",
            f"{_num(Fraction(budget['dataset_total']))} (spent so far: {_num(Fraction(budget['dataset_spent']))}; "
            f"remaining: {_num(Fraction(budget['dataset_remaining']))})",
        )
    ]


def _error_words(facts: ReportFacts) -> str:
    pts = facts.error_by_size
    if not pts:
        return (
            "The expected error of each released count is in the tables below (data-independent; no "
            "curve by query size for this release)."
        )
    k1, e1 = pts[0]
    text = (
        f"A released count is typically off from the true count by about &plusmn;{e1:.3g} (root-mean-"
        f"square error, before rounding); about 19 counts in 20 are within &plusmn;{2 * e1:.3g}."
    )
    if len(pts) > 1:
        k, e = pts[-1]
        text += (
            f" A count over {_num(k)} {_e(facts.size_unit)} is typically off by about &plusmn;{e:.3g} "
            "(the chart below shows the sizes in between)."
        )
    return text + (
        " Counts much larger than the error are useful; counts about as small as the error are mostly noise."
    )


def spent_by_step(ledger, max_bars: int = 12) -> list[tuple[str, float]]:
    """(what, epsilon charged) in ledger order: each spend, a parallel block as one item charged its largest
    branch (the ledger's own composition, so the items sum to ``ledger.spent``); with more than ``max_bars``
    items, summed by mechanism instead."""
    items: list[list] = []  # [label, mechanism, charge]
    blocks: dict = {}
    for e in ledger.entries:
        if e.group is None:
            items.append([e.step, e.mechanism, Fraction(e.epsilon)])
            continue
        key = (e.group, e.block)
        if key not in blocks:
            blocks[key] = {"item": [e.group, e.mechanism, Fraction(0)], "branches": {}}
            items.append(blocks[key]["item"])
        b = blocks[key]
        branch = e.branch if e.branch is not None else id(e)
        b["branches"][branch] = b["branches"].get(branch, Fraction(0)) + Fraction(e.epsilon)
        b["item"][2] = max(b["branches"].values())
    if len(items) <= max_bars:
        return [(label, float(c)) for label, _, c in items]
    by_mechanism: dict = {}
    for _, mechanism, c in items:
        name = mechanism.split(" (")[0]
        by_mechanism[name] = by_mechanism.get(name, Fraction(0)) + c
    return [(name, float(c)) for name, c in by_mechanism.items()]


def _summary(result, ledger, facts: ReportFacts, secure: bool) -> list[str]:
    eps = float(ledger.spent)
    if secure:
        guarantee = (
            f"Whether or not any one record is in the data changes the probability of any outcome of "
            f"this release by at most a factor of e<sup>&epsilon;</sup> = {math.exp(eps):.3g} "
            f"(&epsilon; = {_num(eps)}, pure differential privacy; neighbouring tables: "
            f"{_e(NEIGHBOURING)})."
        )
    else:
        guarantee = (
            "None: this run used seeded simulation noise, which anyone can reproduce. It is NOT A "
            "RELEASE and must not be published."
        )
    out = [
        "<div class='summary'><h2>Summary</h2><ul>",
        f"<li><b>What was released:</b> {_e(_what_was_released(result))}.</li>",
        f"<li><b>The guarantee:</b> {guarantee}</li>",
        f"<li><b>Budget:</b> {_budget_words(facts.budget, ledger)}</li>",
        f"<li><b>Expected error:</b> {_error_words(facts)}</li></ul>",
    ]
    if ledger.entries:
        out.append(bars_svg(spent_by_step(ledger), f"where epsilon = {_num(ledger.spent)} was spent (the ledger)"))
    if facts.error_by_size:
        out.append(
            curve_svg(facts.error_by_size, "expected error by query size", facts.size_unit, "typical error (RMSE)")
        )
        out.append(f"<p class='small'>{_e(facts.error_how)}; data-independent.</p>")
    out.append("</div>")
    return out


def report_html(
    result,
    ledger,
    params: dict | None = None,
    title: str = "dpstudio release report",
    files: list | None = None,
    public_inputs: list | None = None,
    facts: ReportFacts | None = None,
) -> str:
    """The report as one self-contained HTML page (see the module docstring)."""
    facts = facts or ReportFacts()
    secure, noise_label = _noise(result)
    algo = getattr(getattr(result, "params", None), "algorithm", "")
    spent = float(ledger.spent)
    out = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
    ]
    if not secure:
        out.append(
            "<p class='warn'>NOT A RELEASE: simulation noise (" + _e(noise_label) + "). For teaching and "
            "testing only.</p>"
        )
    else:
        out.append(
            f"<p class='ok'>{_num(spent)}-differential privacy (pure). Neighbouring datasets: "
            f"{_e(NEIGHBOURING)}. Noise: {_e(noise_label)}.</p>"
        )
    out.append(
        f"<p class='small'>Generated {_e(_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))}"
        f" by dpstudio.</p>"
    )
    if files:
        out.append("<p>Files: " + ", ".join(f"<code>{_e(Path(f).name)}</code>" for f in files) + "</p>")
    if not is_histogram(result) and getattr(result, "counts", None) is not None:
        counts = np.asarray(result.counts)
        out.append(
            f"<p>Size: the released table has {counts.size:,} cells (leaf partitions x classes), "
            f"{int(np.count_nonzero(counts)):,} of them with a count other than 0."
            + (f" {_e(facts.csv_note)}" if facts is not None and facts.csv_note else "")
            + "</p>"
        )
    out += _summary(result, ledger, facts, secure)

    out.append("<h2>Guarantee</h2>")
    out.append(
        _table(
            ["", ""],
            [
                ("algorithm", algo),
                ("epsilon spent by this release", _num(spent)),
                *_lifetime_rows(facts.budget),
                ("neighbouring relation", NEIGHBOURING),
                ("noise", noise_label),
                ("composition", "sequential (sum) across steps; parallel (max) inside groups of disjoint records"),
            ],
        )
    )
    out.append("<h2>Parameters</h2>")
    out.append(_table(["parameter", "value"], _parameters(result, params, ledger)))

    if public_inputs:
        out.append("<h2>Public inputs</h2>")
        out.append(
            "<p>The release's domain: where each input came from. An input derived from the data is "
            "published only with the data owner's confirmation that it is public knowledge.</p>"
        )
        out.append(
            _table(
                ["input", "source", "derived from the data", "confirmation"],
                [
                    (d["input"], d["source"], "yes" if d["derived"] else "no", d.get("confirmed") or "")
                    for d in public_inputs
                ],
            )
        )
    out.append("<h2>Budget ledger</h2>")
    out.append("<p>Every spend, in order, recorded before the noisy value it paid for was shown or written.</p>")
    rows = [
        (e.step, e.mechanism, float(e.epsilon), e.sensitivity, e.scale, e.group or "", e.note) for e in ledger.entries
    ]
    out.append(
        _table(
            ["step", "mechanism", "epsilon", "sensitivity", "noise scale", "parallel group", "note"],
            rows,
            numeric_cols=(2, 3, 4),
        )
    )
    out.append(
        f"<p>Total spent: <b>{_num(spent)}</b> (exact fractions: in the sidecar); remaining "
        f"{_num(float(ledger.remaining))}.</p>"
    )

    out.append("<h2>Expected error (data-independent)</h2>")
    out.append(_error_section(result, facts))

    out.append("<h2>Post-processing</h2>")
    pp = _post_processing(result)
    out.append(
        "<p>Post-processing costs no budget. Applied in this order: consistency first, then any "
        "rounding or clamping.</p>"
    )
    out.append("<ol>" + "".join(f"<li>{_e(x)}</li>" for x in pp) + "</ol>" if pp else "<p>None.</p>")
    if facts.missing:
        out.append(f"<p>Missing values: {_e(facts.missing.get('words', ''))}.</p>")
    if is_histogram(result):
        from dpstudio.io.histogram_release import counts_note

        out.append(f"<p>{_e(counts_note(result.post_processing).capitalize())}.</p>")
    out.append(
        "<h2>What this report does not contain</h2><p>No true count, no error measured against the "
        "true data, no count of dropped rows: every figure above depends only on public inputs "
        "(epsilon, its split, the taxonomies or bins, the tree shape) and the released values.</p>"
    )
    out.append("</body></html>")
    return "\n".join(out)


def write_report(
    path,
    result,
    ledger,
    params: dict | None = None,
    overwrite: bool = False,
    title: str = "dpstudio release report",
    files: list | None = None,
    public_inputs: list | None = None,
    facts: ReportFacts | None = None,
) -> Path:
    """Write ``report_html(...)`` atomically; OutputPathError if ``path`` exists and not ``overwrite``."""
    return atomic_write(
        path, report_html(result, ledger, params, title, files, public_inputs, facts), overwrite=overwrite
    )
