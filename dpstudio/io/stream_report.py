"""A human-readable HTML report of a stream release, written from its sidecar (what ran is what is told).

What it holds: the guarantee, in the mechanism's terms and, for an event log, in people's terms; the
neighbouring relation; the parameters (mechanism, epsilon, window, horizon, grouping, the per-timestamp cap K
and the sensitivity); the budget store's charge; the ledger summarised by kind of spend (every spend is in the
sidecar); the error figures (the estimate from the release and the Laplace term alone, each with its note);
the mechanism recommended from public inputs; where the stream came from (public settings only). It never
holds a true count, an error against the truth, or how many events were dropped: its only input is the
sidecar, which carries none. A run on simulation noise is marked NOT A RELEASE.
"""

from __future__ import annotations

import html
from collections import Counter
from fractions import Fraction

from dpstudio.io.report import STYLE


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _num(x) -> str:
    if x is None:
        return "none"
    try:
        v = float(Fraction(x)) if isinstance(x, str) else float(x)
    except (TypeError, ValueError, ZeroDivisionError):
        return _e(x)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else f"{v:.4g}"


def _rows(pairs) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f"<table>{body}</table>"


#: the budget store's charge, in words (the sidecar's ``dataset_budget`` keys)
BUDGET_WORDS = {
    "dataset": "dataset",
    "charged": "epsilon charged by this release",
    "dataset_total": "the dataset's lifetime budget",
    "dataset_spent": "spent on the dataset so far, this release included",
    "dataset_remaining": "remaining on the dataset",
    "store": "budget store",
    "related": "charged to this dataset because",
    "note": "note",
}


#: where the stream came from (the sidecar's ``source`` keys), in words
SOURCE_WORDS = {
    "source": "kind of source",
    "file": "file",
    "user_column": "the person's column",
    "time_column": "the time's column",
    "time_format": "time written as",
    "time_origin": "number 0 is the date",
    "bucket": "bucket",
    "start": "first bucket",
    "end": "end of the range (excluded)",
    "buckets": "buckets",
    "per_bucket_cap": "events counted per person per bucket, at most",
    "guarantee_in_people": "the guarantee in people's terms",
}


def _source_value(key: str, value):
    return str(value).replace("-", " ") if key == "time_format" else value


def _budget_rows(budget: dict) -> list[tuple[str, str]]:
    """The charge as rows a person reads: named in words, exact fractions as decimals, no raw keys."""
    if not budget.get("tracked", True):
        return [("budget store", _e(budget.get("note") or "not tracked: this spend is recorded in no budget store"))]
    rows = []
    for key, value in budget.items():
        if key == "tracked" or value in (None, ""):
            continue
        shown = _num(value) if key in ("charged", "dataset_total", "dataset_spent", "dataset_remaining") else value
        rows.append((BUDGET_WORDS.get(key, key.replace("_", " ")), _e(shown)))
    return rows


def stream_report_html(side: dict, title: str = "dpstudio stream release report") -> str:
    """The report of the stream release described by ``side`` (``io.stream_release.release_sidecar``)."""
    p = side.get("parameters", {})
    src = side.get("source", {}) or {}
    out = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{_e(title)}</h1>"
    ]
    if side.get("not_a_release"):
        out.append(f"<p class='warn'>NOT A RELEASE: {_e('; '.join(side['not_a_release']))}</p>")
    else:
        out.append(f"<p class='ok'>{_e(side.get('guarantee', ''))}. Noise: {_e(side.get('noise', ''))}.</p>")
    summary = [f"<li><b>Guarantee:</b> {_e(side.get('guarantee', ''))}</li>"]
    if src.get("guarantee_in_people"):
        summary.append(f"<li><b>In people's terms:</b> {_e(src['guarantee_in_people'])}</li>")
    summary.append(f"<li><b>Neighbouring streams:</b> {_e(side.get('neighbouring', ''))}</li>")
    est = side.get("estimated_window_error")
    summary.append(
        "<li><b>Expected squared error of one published window:</b> "
        + (f"about {_num(est)} (estimated from the release)" if est is not None else "no estimate")
        + f"<br><span class='small'>{_e(side.get('estimated_window_error_note', ''))}</span></li>"
    )
    rec = side.get("recommendation")
    if rec:
        summary.append(f"<li><b>Recommended from public inputs:</b> {_e(rec.get('reason', ''))}</li>")
    out.append("<ul class='summary'>" + "".join(summary) + "</ul>")

    grouping = p.get("grouping", {})
    out.append("<h2>Parameters</h2>")
    out.append(
        _rows(
            [
                ("mechanism", _e(f"{p.get('mechanism', '')}: {p.get('mechanism_description', '')}")),
                ("epsilon", _num(p.get("epsilon"))),
                ("window w", _num(p.get("window"))),
                (
                    "horizon T",
                    f"{_num(p.get('horizon'))} ({'declared' if p.get('horizon_declared') else 'the stream length'})",
                ),
                ("grouping", _e(", ".join(f"{k} {v}" for k, v in grouping.items()))),
                ("per-timestamp cap K", _num(p.get("per_timestamp_cap", 1))),
                ("sensitivity", _num(p.get("sensitivity", 1))),
                *[(k, _e(v)) for k, v in p.items() if k in ("sampling_ratio", "asm_budget", "predictor")],
            ]
        )
    )
    budget = side.get("dataset_budget") or {}
    if budget:
        out.append("<h2>Budget</h2>")
        out.append(_rows(_budget_rows(budget)))

    ledger = side.get("ledger", {}) or {}
    entries = ledger.get("entries", []) or []
    kinds = Counter(
        (e.get("mechanism", ""), _num(e.get("epsilon")), _num(e.get("sensitivity")), _num(e.get("scale")))
        for e in entries
    )
    out.append("<h2>Ledger</h2>")
    out.append(
        f"<p>{len(entries)} spends, epsilon spent {_num(ledger.get('spent'))} of {_num(ledger.get('total'))}; "
        "every spend, as an exact fraction, is in the sidecar (JSON).</p>"
    )
    out.append(
        "<table><tr><th>spends</th><th>mechanism</th><th>epsilon each</th><th>sensitivity</th><th>scale</th></tr>"
        + "".join(
            f"<tr><td class='n'>{n}</td><td>{_e(m)}</td><td class='n'>{eps}</td><td class='n'>{s}</td>"
            f"<td class='n'>{b}</td></tr>"
            for (m, eps, s, b), n in kinds.most_common(12)
        )
        + "</table>"
    )

    out.append("<h2>Error figures</h2>")
    out.append(
        _rows(
            [
                ("expected squared error of one window, estimated from the release", _num(est)),
                (
                    "the Laplace noise term alone (expected, from public inputs)",
                    _num(side.get("expected_window_laplace_error")),
                ),
                (
                    "the published figure is the Laplace term only",
                    "yes" if side.get("laplace_term_only") else "no",
                ),
                ("note on the Laplace term", _e(side.get("error_note", ""))),
            ]
        )
    )
    out.append("<h2>Source (public settings)</h2>")
    out.append(_rows([(SOURCE_WORDS.get(k, k.replace("_", " ")), _e(_source_value(k, v))) for k, v in src.items()]))
    win = side.get("windows", {})
    out.append(
        f"<h2>Released</h2><p>{_num(win.get('count'))} windows, ending at t = {_num(win.get('first'))} to "
        f"{_num(win.get('last'))}; post-processing: {_e('; '.join(side.get('post_processing', [])))}.</p>"
    )
    out.append("</body></html>")
    return "\n".join(out)


__all__ = ["stream_report_html"]
