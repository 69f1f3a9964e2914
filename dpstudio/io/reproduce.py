"""Reproducible releases: the `dpstudio release` / `dpstudio histogram` command that re-runs a release's
settings with fresh noise (as DP Wizard exports notebooks). The Python script written beside it uses the
Python API instead (``model.rerun_script``).

``release_command(settings)`` returns ``(command, notes)``: the argument list of ``dpstudio`` (public inputs
written to files in ``$TAX``); ``shell_script`` wraps it with those files embedded (taxonomies as JSON, the
class values, histogram edges), so the script stands alone. The settings are
public inputs and parameters only: the data file's path (not its contents), the class and its declared
values, the taxonomies, bounds and numeric kinds, the algorithm, epsilon and the engine's options. No count,
no row of data and no error against the truth is ever written. A re-run spends epsilon again and is
charged to the budget store like any ``dpstudio release`` (same dataset name); its noise is new.

What the command line cannot say is returned as ``notes`` (and written at the top of the script): a
custom split of epsilon dragged in the studio, whose explicit fractions have no CLI option. Kept missing values
are passed with the project's token (``--missing-token``), the value the studio's run used.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from dpstudio.algorithms.registry import lookup
from dpstudio.io.taxonomy_formats import format_json

if TYPE_CHECKING:
    from dpstudio.algorithms.diffgen import DiffGenParams
    from dpstudio.algorithms.interval_trees import IntervalTreeParams


@dataclass
class ReleaseSettings:
    """A release's public inputs and the engine parameters it ran with (``result.params``).

    Tables: ``class_attribute``, ``classes``, ``taxonomies`` (attribute -> Taxonomy, in release order),
    ``bounds`` (attribute -> (lo, hi)), ``types`` (attribute -> "integer" / "continuous[:R]"),
    ``automatic_steps`` (h was chosen from epsilon), ``n_numeric``. Histograms: ``column`` and ``edges``.
    ``missing``: "drop" or "keep" (kept cells written as ``missing_token``); ``dataset_name``: the budget store's name for the data."""

    data: str
    params: DiffGenParams | IntervalTreeParams
    class_attribute: str | None = None
    classes: list = field(default_factory=list)
    taxonomies: dict = field(default_factory=dict)
    bounds: dict = field(default_factory=dict)
    types: dict = field(default_factory=dict)
    automatic_steps: bool = False
    n_numeric: int = 0
    column: str | None = None
    edges: tuple | None = None
    missing: str = "drop"
    missing_token: str = "?"
    dataset_name: str | None = None
    expand_records: bool = False  # how the export wrote the table: the re-run writes it the same way
    omit_zero_cells: bool = False
    #: the budget store the release was charged to (its path, or "none" when tracking was off): the re-run is
    #: charged there too, never to another store where the data would look new
    budget_store: str | None = None
    #: the interpreter that wrote the script (``sys.executable``): the re-run starts dpstudio with it, from
    #: any folder and without the project's environment on PATH
    python: str | None = None

    @property
    def is_histogram(self) -> bool:
        return hasattr(self.params, "noise_root")


def _number(x) -> str:
    v = float(x)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def _default_split(params, n_numeric: int) -> bool:
    """Whether the table engine's explicit fractions give the split its preset gives without them."""
    from dataclasses import replace

    from dpstudio.algorithms.diffgen import plan_budget

    plain = replace(params, selection_fractions=None, split_fraction=None, level_fractions=None)
    a, b = plan_budget(params, n_numeric), plan_budget(plain, n_numeric)
    return (list(a.step_epsilons), a.split_total, a.count_epsilon, a.level_weights) == (
        list(b.step_epsilons),
        b.split_total,
        b.count_epsilon,
        b.level_weights,
    )


def _table_args(s: ReleaseSettings, notes: list) -> list[str]:
    p = cast("DiffGenParams", s.params)  # a table release (not ``is_histogram``)
    args = ["release", "--data", "$DATA", "--class", str(s.class_attribute), "--classes-file", "$TAX/classes.txt"]
    for i, a in enumerate(s.taxonomies):
        args += ["--taxonomy", f"{a}=$TAX/taxonomy{i}.json"]
    for a, (lo, hi) in s.bounds.items():
        args += ["--bounds", f"{a}={_number(lo)}:{_number(hi)}"]
    for a, t in s.types.items():
        args += ["--type", f"{a}={t}"]
    args += ["--algorithm", p.algorithm, "--epsilon", str(p.epsilon)]
    if not s.automatic_steps:
        args += ["--steps", str(int(p.steps))]
    args += ["--score", p.score, "--score-scope", p.score_scope, "--grid-bins", str(int(p.grid_bins))]
    spec = lookup(p.algorithm)
    if spec.accepts("numeric_grid"):
        args += ["--numeric-grid", p.numeric_grid, "--fanout", _number(p.fanout)]
    if spec.accepts("node_budget"):
        args += [
            "--consistency",
            p.consistency,
            "--node-budget",
            p.node_budget,
            "--post-processing",
            "projection" if p.tree_projection else "clamp",
        ]
    if p.count_fraction is not None:
        args += ["--count-share", str(p.count_fraction)]
    elif spec.accepts("tree_fraction") and p.selection_fractions is None:
        args += ["--tree-fraction", str(p.tree_fraction)]
    if not p.clamp_negative:
        args.append("--no-clamp")
    if not p.round_counts:
        args.append("--no-round")
    if any(x is not None for x in (p.selection_fractions, p.split_fraction, p.level_fractions)) and not _default_split(
        p, s.n_numeric
    ):
        notes.append(
            "the release used a custom split of epsilon (drawn in the studio) that no command-line "
            "option sets: this command runs the algorithm's default split"
        )
    if s.missing != "drop":  # kept as a category, written as the project's token (as the studio ran it)
        args += ["--missing", "category", "--missing-token", s.missing_token]
    if s.expand_records:
        args.append("--expand-records")
    elif s.omit_zero_cells:
        args.append("--omit-zero-cells")
    return args


def _histogram_args(s: ReleaseSettings, notes: list) -> list[str]:
    p = cast("IntervalTreeParams", s.params)  # ``is_histogram``
    args = [
        "histogram",
        "--data",
        "$DATA",
        "--column",
        str(s.column),
        "--edges",
        "@$TAX/edges.txt",
        "--algorithm",
        p.algorithm,
        "--epsilon",
        str(p.epsilon),
    ]
    if p.branching is not None:
        args += ["--branching", str(int(p.branching))]
    if lookup(p.algorithm).accepts("shape") and p.shape != "regular":
        args += ["--shape", p.shape]
    if not p.noise_root:
        args.append("--no-root")
    if s.missing == "drop":
        args.append("--drop-missing")
    if p.published != "whole":
        args += ["--published", p.published.replace("_", "-")]
    if p.round_counts:
        args.append("--round")
    if p.clamp_negative:
        args.append("--clamp")
    if p.level_fractions is not None and len(set(p.level_fractions)) > 1:
        notes.append(
            "the release used a custom split of epsilon over the tree levels (drawn in the studio) "
            "that no command-line option sets: this command splits it equally"
        )
    return args


def release_command(s: ReleaseSettings) -> tuple[list[str], list[str]]:
    """(arguments of ``dpstudio``, notes on what they cannot reproduce); ``$DATA``, ``$OUT`` and ``$TAX``
    stand for the data file, the output CSV and the folder of the embedded public-input files."""
    notes: list[str] = []
    args = _histogram_args(s, notes) if s.is_histogram else _table_args(s, notes)
    args += ["--out", "$OUT"]
    if s.dataset_name:
        args += ["--dataset-name", s.dataset_name]
    if s.budget_store:
        args += ["--budget-store", s.budget_store]
    return args, notes


def input_files(s: ReleaseSettings) -> dict[str, str]:
    """{file name in $TAX: text}: the public inputs the command reads."""
    if s.is_histogram:
        return {"edges.txt": "\n".join(repr(float(e)) for e in s.edges or ()) + "\n"}
    files = {"classes.txt": "".join(f"{c}\n" for c in s.classes)}
    for i, tax in enumerate(s.taxonomies.values()):
        files[f"taxonomy{i}.json"] = format_json(tax, indent=None) + "\n"
    return files


def _header(s: ReleaseSettings, notes: list, comment: str) -> list[str]:
    what = "dpstudio histogram" if s.is_histogram else "dpstudio release"
    lines = [
        f"Re-runs this release's settings with `{what}`: the same public inputs and parameters, fresh",
        f"noise. It spends epsilon = {s.params.epsilon} again, charged to the budget store like any release.",
        "It holds public inputs only (no data, no count). Arguments: [DATA [OUT.csv]] (without OUT, each run",
        "writes a new file: NAME.rerun.csv, then NAME.rerun-2.csv, ...).",
    ]
    lines += [f"NOTE: {n}." for n in notes]
    return [f"{comment} {ln}" for ln in lines]


def _python_command(s: ReleaseSettings) -> str:
    """How the script starts dpstudio: the interpreter that wrote it (``python -m dpstudio``), else the
    ``dpstudio`` on PATH."""
    return f"{shlex.quote(s.python)} -m dpstudio" if s.python else "dpstudio"


def shell_script(s: ReleaseSettings, out_name: str) -> str:
    """A POSIX shell script: the public-input files (here-documents) and the ``dpstudio`` command line."""
    args, notes = release_command(s)
    return script_text(_header(s, notes, "#"), s.data, out_name, input_files(s), args, _python_command(s))


def script_text(header: list[str], data, out_name: str, files: dict[str, str], args: list[str], python: str) -> str:
    """The re-run shell script of any release: ``header`` (comment lines), DATA and OUT from the arguments
    (a new OUT name on every run), the public-input ``files`` as here-documents in $TAX, then ``args``
    (``$DATA``, ``$OUT`` and ``$TAX`` expanded, everything else literal) run by ``python`` or $DPSTUDIO."""
    lines = [
        "#!/bin/sh",
        *header,
        f"# DPSTUDIO=path/to/dpstudio picks the program (default: {python}).",
        "set -eu",
        f'DATA="${{1:-{data}}}"',
        f'OUT="${{2:-{out_name}}}"',
        "if [ $# -lt 2 ]; then  # a new output name on every run: OUT, then OUT-2, OUT-3, ...",
        '    stem="${OUT%.csv}"; n=1',
        '    while [ -e "$OUT" ] || [ -e "${OUT%.csv}.json" ]; do n=$((n + 1)); OUT="$stem-$n.csv"; done',
        "fi",
        'TAX="$(mktemp -d)"',
        "trap 'rm -rf \"$TAX\"' EXIT",
    ]
    for name, text in files.items():
        marker = "DPSTUDIO_END_OF_FILE"
        lines += [f"cat > \"$TAX/{name}\" <<'{marker}'", text.rstrip("\n"), marker]

    def quoted(a: str) -> str:
        # keep $DATA, $OUT, $TAX expandable, everything else literal
        for var in ("$DATA", "$OUT", "$TAX"):
            if var in a:
                head, _, tail = a.partition(var)
                return (shlex.quote(head) if head else "") + f'"{var}"' + (quoted(tail) if tail else "")
        return shlex.quote(a)

    lines += [
        'if [ -n "${DPSTUDIO:-}" ]; then set -- "$DPSTUDIO"; else set -- ' + python + "; fi",
    ]
    words = [quoted(a) for a in args]
    command = [f'"$@" {words[0]}']
    for w in words[1:]:  # one option (and its value) per line
        if w.startswith("--"):
            command.append(w)
        else:
            command[-1] += f" {w}"
    lines.append(" \\\n    ".join(command))
    return "\n".join(lines) + "\n"
