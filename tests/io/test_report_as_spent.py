"""The report's parameters are what ran: the count budget and the per-level budgets a diffgen-consistent run
decided (after the studio planned an equal split of the levels) are read from the ledger, and the planned
equal split is not shown as if it had run."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from dpstudio.io.report import report_html, spent_levels
from tests.gui.export_fixtures import run, table_project


def _parameter_rows(html_text: str) -> dict:
    table = html_text.split("<th>parameter</th>", 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td[^>]*>(.*?)</td>\s*<td[^>]*>(.*?)</td>", table, flags=re.S)
    return {k.strip(): v.strip() for k, v in cells}


def test_count_and_level_budgets_in_the_report_are_the_ledgers():
    p = table_project(n=400, steps=4)
    p.set_mode("release")
    run(p)
    r, ledger = p.result, p.run_ledger
    planned = (p.params or {}).get("level_epsilons")
    rows = _parameter_rows(report_html(r, ledger, params=dict(p.params or {}) | {"level_epsilons": ["1/50"] * 5}))
    counts = [e for e in ledger.entries if e.step.startswith("counts")]
    assert Fraction(r.count_epsilon) == sum(Fraction(e.epsilon) for e in counts)
    assert float(rows["count epsilon, as spent (ledger)"]) == pytest.approx(float(r.count_epsilon), rel=1e-5)
    levels = spent_levels(ledger)
    assert levels and sum(e for _, e in levels) == Fraction(r.count_epsilon)
    shown = dict(item.split(": ") for item in rows["epsilon per count level, as spent (ledger)"].split(", "))
    assert {int(k): float(v) for k, v in shown.items()} == pytest.approx({lv: float(e) for lv, e in levels}, rel=1e-5)
    assert "level_epsilons" not in rows and "count_epsilon" not in rows  # the plan's stand-ins, not what ran
    assert planned is None or rows.get("level_epsilons") is None
