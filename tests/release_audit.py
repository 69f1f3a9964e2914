"""End-to-end privacy audit of the CLI release writers on issue 8's four leaks (shared by
tests/test_release_audit.py and benchmarks/audit_issue8.py).

Each ``Scenario`` is a neighbouring pair, D and D' = D + one record (same public inputs), a CLI command and
the distinguishing event the issue's auditor used. ``run_once`` runs ``dpstudio ...`` in-process on one
input (secure noise, epsilon 1, ``--overwrite`` into one folder) and returns what a reader of the release
sees: the exit status, the CSV, the sidecar, stdout and stderr. ``audit`` runs a scenario n times on each
input, counts the event and gives the Clopper-Pearson lower bound on ln(P_D'(E) / P_D(E)) (each one-sided
bound at level ``alpha``; valid with probability >= 1 - 2 alpha). A run that is refused (exit 2: an input
error, nothing written) is not a release and holds no event.

Options that an older checkout does not know (``--classes``, ``--type``, ``--budget-store``) are left out
when the parser lacks them, so the same scenarios run on fc3f713 (before the fix) and after it. The
budget store is ``none`` (experiments on made-up data, never released).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tests.audit_bounds import loss_lower_bound

ALPHA = 1e-3  # per one-sided Clopper-Pearson bound (the audit)


@dataclass
class RunOutput:
    code: int
    rows: list = field(default_factory=list)  # the CSV, header first ([] when refused)
    sidecar: dict = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""


@dataclass(frozen=True)
class Scenario:
    """A neighbouring pair and its distinguishing event. ``options``: (option, value) pairs after the
    input and output options; ``event(out)`` is evaluated on successful runs only."""

    name: str
    item: int  # the item number
    command: str  # "release" | "histogram"
    header: tuple
    rows: tuple  # D's records
    added: tuple  # the record D' adds
    options: tuple
    event: Callable[[RunOutput], bool]
    event_text: str


@cache
def known_options(command: str) -> frozenset:
    """The option strings ``dpstudio COMMAND`` accepts in the checkout being audited."""
    from dpstudio.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return frozenset(sub.choices[command]._option_string_actions)


def write_inputs(folder: Path, sc: Scenario) -> tuple[Path, Path]:
    """D and D' as CSV files in ``folder`` (same file name in two subfolders: the same public inputs)."""
    paths = []
    for tag, rows in (("d", sc.rows), ("d2", sc.rows + (sc.added,))):
        sub = folder / tag
        sub.mkdir(parents=True, exist_ok=True)
        with open(sub / "data.csv", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(sc.header)
            w.writerows(rows)
        paths.append(sub / "data.csv")
    return paths[0], paths[1]


def argv_for(sc: Scenario, data: Path, out: Path) -> list[str]:
    known = known_options(sc.command)
    argv = [sc.command, "--data", str(data)]
    for opt, value in sc.options:
        if opt in known:
            argv += [opt] if value is None else [opt, str(value)]
    if "--budget-store" in known:
        argv += ["--budget-store", "none"]
    return argv + ["--out", str(out), "--overwrite"]


def run_once(sc: Scenario, data: Path) -> RunOutput:
    """One in-process ``dpstudio`` run on ``data``; outputs go beside it (overwritten run after run)."""
    from dpstudio.cli import main

    out = data.parent / "out.csv"
    for p in (out, out.with_suffix(".json")):
        p.unlink(missing_ok=True)
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv_for(sc, data, out))
    res = RunOutput(code, stdout=stdout.getvalue(), stderr=stderr.getvalue())
    if code == 0:
        res.rows = list(csv.reader(io.StringIO(out.read_text())))
        res.sidecar = json.loads(out.with_suffix(".json").read_text())
    else:
        assert not out.exists() and not out.with_suffix(".json").exists(), "a refused run wrote output"
    return res


@dataclass
class AuditResult:
    scenario: str
    runs: int  # per input
    hits_d: int
    hits_d2: int
    refused_d: int
    refused_d2: int
    bound: float  # lower confidence bound on ln(P_D'(E) / P_D(E))

    def line(self) -> str:
        b = "-inf (no event on D')" if self.bound == -math.inf else f"{self.bound:.2f}"
        ref = f"; refused (exit 2) D {self.refused_d}, D' {self.refused_d2}" if self.refused_d + self.refused_d2 else ""
        return f"{self.scenario}: n = {self.runs} per input, event on D {self.hits_d}, on D' {self.hits_d2}{ref}; eps >= {b}"


def audit(sc: Scenario, folder: Path, n: int, alpha: float = ALPHA) -> AuditResult:
    d, d2 = write_inputs(folder, sc)
    counts = {}
    for tag, path in (("d", d), ("d2", d2)):
        hits = refused = 0
        for _ in range(n):
            out = run_once(sc, path)
            if out.code != 0:
                refused += 1
            elif sc.event(out):
                hits += 1
        counts[tag] = (hits, refused)
    (h1, r1), (h2, r2) = counts["d"], counts["d2"]
    return AuditResult(sc.name, n, h1, h2, r1, r2, loss_lower_bound(h2, n, h1, n, alpha))


# -- events ----------------------------------------------------------------------------------------------
def root_split(out: RunOutput, attribute: str = "x") -> float:
    """The released root split point of a numeric attribute (the first interval's upper end in the cut)."""
    iv = out.sidecar["cut"][attribute]["intervals"]
    return iv[0][1] if len(iv) > 1 else math.nan


def reachable_below(s: float, hi: float) -> bool:
    """Could the pre-fix draw lo + (hi - lo) * k / 2^53 on [0, hi) have produced the double ``s``?"""
    k = round(s / hi * 2.0**53)
    return any(0 <= j < 2**53 and hi * (j / 2.0**53) == s for j in range(k - 3, k + 4))


def split_bits_event(out: RunOutput) -> bool:
    """Item 1: a root split point below 5.4 that a draw on [0, 5.4) cannot produce."""
    s = root_split(out)
    return s < 5.4 and not reachable_below(s, 5.4)


def class_event(out: RunOutput) -> bool:
    """Item 2: the release lists the class C (the class of the added record)."""
    return "C" in out.sidecar.get("classes", []) or any(row[-2:-1] == ["C"] for row in out.rows[1:])


def fractional_split_event(out: RunOutput) -> bool:
    """Item 3: a released split point of age that is not a whole number."""
    iv = out.sidecar["cut"]["age"]["intervals"]
    return any(not float(lo).is_integer() for lo, _, _ in iv[1:])


def dropped_count_event(out: RunOutput) -> bool:
    """Item 4: a count of dropped rows on the console or in the sidecar."""
    import re

    side = json.dumps(out.sidecar)
    return (
        bool(re.search(r"dropped\D{0,12}\d", out.stdout + out.stderr))
        or "rows_dropped" in side
        or bool(re.search(r"dropped\D{0,12}\d", side))
    )


# -- the scenarios -------------------------------------------------------------------------------
def _common(algorithm: str, classes: str = "A,B", steps: int = 1) -> tuple:
    return (
        ("--class", "Y"),
        ("--classes", classes),
        ("--algorithm", algorithm),
        ("--epsilon", "1"),
        ("--steps", steps),
    )


def split_bits(type_: str | None, algorithm: str = "diffgen") -> Scenario:
    """Item 1: bounds x = 0:10, D = {5.4, 7.25}, D' = D + {2.5}; ``type_`` the declared kind of x."""
    opts = (("--bounds", "x=0:10"),) + ((("--type", f"x={type_}"),) if type_ else ()) + _common(algorithm)
    return Scenario(
        f"item 1 split-point bits, {algorithm}, x {type_ or 'undeclared'}",
        1,
        "release",
        ("x", "Y"),
        ((5.4, "A"), (7.25, "B")),
        (2.5, "A"),
        opts,
        split_bits_event,
        split_bits_event.__doc__,
    )


def new_class(algorithm: str, classes: str = "A,B") -> Scenario:
    """Item 2: D' adds a record of class C."""
    return Scenario(
        f"item 2 class domain, {algorithm}, --classes {classes}",
        2,
        "release",
        ("x", "Y"),
        ((3, "A"), (7, "B"), (4, "A")),
        (5, "C"),
        (("--bounds", "x=0:10"),) + _common(algorithm, classes),
        class_event,
        class_event.__doc__,
    )


AGES = ((25, "A"), (38, "B"), (52, "A"), (61, "B"), (44, "A"))


def fractional_age(algorithm: str, type_: str | None) -> Scenario:
    """Item 3: whole-number ages, D' adds age 30.5."""
    opts = (("--bounds", "age=17:91"),) + ((("--type", f"age={type_}"),) if type_ else ()) + _common(algorithm)
    return Scenario(
        f"item 3 integer/continuous, {algorithm}, age {type_ or 'undeclared'}",
        3,
        "release",
        ("age", "Y"),
        AGES,
        (30.5, "A"),
        opts,
        fractional_split_event,
        fractional_split_event.__doc__,
    )


def dropped_rows_release(algorithm: str = "diffgen") -> Scenario:
    """Item 4 (release): D' adds a record with a missing x (dropped by default)."""
    return Scenario(
        f"item 4 dropped rows, release {algorithm}",
        4,
        "release",
        ("x", "Y"),
        ((3, "A"), (7, "B"), (4, "A")),
        ("?", "A"),
        (("--bounds", "x=0:10"),) + _common(algorithm),
        dropped_count_event,
        dropped_count_event.__doc__,
    )


def dropped_rows_histogram(algorithm: str = "hb") -> Scenario:
    """Item 4 (histogram --drop-missing): D' adds a record with a missing x."""
    return Scenario(
        f"item 4 dropped rows, histogram {algorithm} --drop-missing",
        4,
        "histogram",
        ("x", "Y"),
        ((3, "A"), (7, "B"), (4, "A")),
        ("?", "A"),
        (
            ("--column", "x"),
            ("--edges", "0:11:1"),
            ("--drop-missing", None),
            ("--algorithm", algorithm),
            ("--epsilon", "1"),
        ),
        dropped_count_event,
        dropped_count_event.__doc__,
    )
