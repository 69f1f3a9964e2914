"""Running a CLI release writer and reading back everything it produced (shared by the neighbouring-input
and the no-exact-count tests).

``run_writer(folder, argv)`` runs ``dpstudio ARGV`` with ``folder`` as the working directory (so paths in
the sidecar are the same relative names for two inputs) and returns an ``Outputs``: the CSV as rows, the
sidecar, the HTML report if one was asked for, stdout and stderr.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from dpstudio.cli import main


@dataclass
class Outputs:
    rows: list  # the CSV, header first
    sidecar: dict
    report: str | None
    stdout: str
    stderr: str
    texts: dict  # artefact name -> its full text (CSV, JSON, HTML, stdout, stderr)


def run_writer(folder: Path, argv: list, out: str = "out.csv", report: str | None = None) -> Outputs:
    """Run ``dpstudio argv`` in ``folder`` (exit 0 asserted) and read back its outputs. Each folder has its
    own budget store, so each input is a first release on its own data (the store's refusals and
    near-duplicate warnings are tested in test_cli_budget.py)."""
    argv = [argv[0], "--budget-store", folder / "budget.sqlite", *argv[1:]]
    stdout, stderr = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main([str(a) for a in argv])
    finally:
        os.chdir(cwd)
    assert code == 0, stderr.getvalue()
    csv_text = (folder / out).read_text()
    json_text = (folder / out).with_suffix(".json").read_text()
    html = (folder / report).read_text() if report else None
    texts = {"csv": csv_text, "json": json_text, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}
    if html is not None:
        texts["html"] = html
    return Outputs(
        list(csv.reader(io.StringIO(csv_text))),
        json.loads(json_text),
        html,
        stdout.getvalue(),
        stderr.getvalue(),
        texts,
    )


def without(d: dict, fields) -> dict:
    """A copy of ``d`` without the (dotted: "error_estimates.min") ``fields``."""
    out = json.loads(json.dumps(d))
    for f in fields:
        *parents, last = f.split(".")
        node = out
        for p in parents:
            node = node.get(p, {})
        node.pop(last, None)
    return out


def report_structure(html: str) -> list:
    """The report's headings and table headers, in order (what does not depend on the values)."""
    return re.findall(r"<h[12]>[^<]*</h[12]>|<tr>(?:<th>[^<]*</th>)+</tr>", html)


def integers_in(text: str) -> set:
    """Every whole number written in ``text`` (digit runs not inside a longer number)."""
    return {int(m) for m in re.findall(r"(?<![\d.])\d+(?![\d])", text)}


def assert_no_exact_counts(outputs: Outputs, counts: dict, noisy_column: str = "count") -> None:
    """None of ``counts`` ({what: exact number}) appears in any artefact; the CSV's noisy column is left out
    (a noisy count may equal a true one by chance)."""
    header = outputs.rows[0]
    keep = [i for i, h in enumerate(header) if h != noisy_column]
    csv_keys = "\n".join(",".join(r[i] for i in keep if i < len(r)) for r in outputs.rows)
    texts = {**outputs.texts, "csv": csv_keys}
    for name, text in texts.items():
        found = integers_in(text)
        leaked = {what: n for what, n in counts.items() if n in found}
        assert not leaked, f"{name} holds exact counts {leaked}"


def owner_notes(stderr: str) -> tuple[list[str], str]:
    """(the 'note: ' lines, the rest of stderr): the notes tell the data owner rounded figures of their data
    (the share of rows left out for a missing value); they are the console's only lines that may differ between
    neighbouring tables, and never hold a count."""
    lines = stderr.splitlines()
    notes = [x for x in lines if x.startswith("note: ")]
    return notes, "".join(f"{x}\n" for x in lines if not x.startswith("note: "))
