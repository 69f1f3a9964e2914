"""``NAME.reproduce.py``: a Python script, written with a release, that re-runs its settings through the Python
API (``dpstudio.api``; docs/api.md) with fresh noise.

The script holds public inputs only, taken from the run's snapshot (``model.release.snapshot``): the data
file's path (not its contents), the class and its declared values, the taxonomies (as JSON), bounds and numeric
kinds, the missing-value choice, the algorithm, its parameters (the drawn split of epsilon included) and
epsilon, and each input's provenance (its source; an input derived from the data is declared derived and
confirmed again with the words the data owner used). No count, no row of data.

Running it asks the release service's question through the API, prints it, and spends epsilon again: it is
charged to the budget store like any release (the same dataset name). Each run writes new files
(``NAME.rerun``, then ``NAME.rerun-2``, ...) unless an output is named on its command line.
"""

from __future__ import annotations

from dpstudio.io.taxonomy_formats import format_json
from dpstudio.model.project import provenance as pv


def _plain(value):
    """Parameters as Python literals the script can hold (Fractions as exact strings)."""
    from fractions import Fraction

    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _declarations(snapshot) -> list[str]:
    """The API calls that declare the snapshot's public inputs, with their provenance."""
    s = snapshot
    record = {x.get("key"): x for x in s.public_inputs}

    def why(key: str) -> tuple[str, str | None]:
        """(source, confirmation wording when the input was derived and confirmed)."""
        x = record.get(key) or {}
        src = str(x.get("source") or "declared for the original release")
        return src, (x.get("confirmed") or None) if x.get("derived") else None

    lines = []

    def declared(call: str, key: str) -> None:
        src, confirmed = why(key)
        if confirmed:
            lines.append(f"{call[:-1]}, why={src!r}, derived=True)")
            lines.append(f"study.confirm_public({key!r}, {confirmed!r})")
        else:
            lines.append(f"{call[:-1]}, why={src!r})")

    used = []
    if s.class_attribute is not None:
        used.append(s.class_attribute)
        values = list(s.classes or ())
        declared(f"study.declare_class({s.class_attribute!r}, {values!r})", pv.key(pv.CLASSES, s.class_attribute))
    for a in s.quasi_identifiers:
        used.append(a)
        if a in s.numeric:
            if a not in s.bounds:
                continue
            lo, hi = s.bounds[a]
            kind = s.numeric_types.get(a)
            kind_arg = f", kind={kind!r}" if kind else ""
            declared(f"study.declare_bounds({a!r}, {lo!r}, {hi!r}{kind_arg})", pv.key(pv.BOUNDS, a))
            if a in s.taxonomies:  # a numeric attribute's split grid
                lines.append(f"study.project.set_taxonomy({a!r}, taxonomy({a!r}), {why(pv.key(pv.TAXONOMY, a))[0]!r})")
        elif a in s.taxonomies:
            declared(f"study.declare_taxonomy({a!r}, taxonomy({a!r}))", pv.key(pv.TAXONOMY, a))
    lines.append(f"study.use_only({', '.join(repr(a) for a in used)})")
    if s.missing == "keep":
        lines.append(f"study.keep_missing(True, token={s.missing_token!r})")
    else:
        lines.append("study.keep_missing(False)")
    return lines


def python_script(
    snapshot,
    out_name: str,
    budget: dict | None = None,
    expand_records: bool = False,
    omit_zero_cells: bool = False,
    store: str | None = None,
    python: str | None = None,
) -> str:
    """The script's text (see the module docstring); ``out_name`` is its default output (``NAME.rerun.csv``),
    ``budget`` the run's budget store record (its dataset name), ``store`` the store the release was charged
    to (a path, or "none"), ``python`` the interpreter that wrote it (its first line)."""
    s = snapshot
    run_with = python or "python3"
    name = (budget or {}).get("dataset") or s.dataset_name
    stem = out_name[:-4] if out_name.lower().endswith(".csv") else out_name
    taxonomies = {a: format_json(t, indent=None) for a, t in s.taxonomies.items()}
    params = _plain(dict(s.params))
    header = [
        f"Re-runs a dpstudio release's settings ({s.algorithm}, epsilon {float(s.epsilon):g}) through the Python API",
        "(dpstudio.api, docs/api.md): the same public inputs and parameters, fresh noise. It spends epsilon again,",
        "charged to the budget store like any release. It holds public inputs only (no data, no count).",
        "",
        f"    {run_with} NAME.reproduce.py [DATA [OUT.csv]]",
        "",
        f"It is charged to the budget store the release was charged to ({store or 'the default store'}).",
        "",
        f"Without OUT, each run writes new files: {stem}.csv (and .json, .report.html, .command.sh, .reproduce.py),",
        f"then {stem}-2.csv, ...",
    ]
    lines = [
        f"#!{run_with}",
        '"""' + "\n".join(header) + '\n"""',
        "import sys",
        "from pathlib import Path",
        "",
        "from dpstudio import api",
        "from dpstudio.io.taxonomy_formats import parse_json",
        "",
        f"DATA = sys.argv[1] if len(sys.argv) > 1 else {s.data_path or 'DATA.csv'!r}",
        f"OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else api.free_name(Path.cwd(), {stem!r})",
        f"TAXONOMIES = {taxonomies!r}",
        f"PARAMS = {params!r}",
        "",
        "",
        "def taxonomy(attribute):",
        "    return parse_json(TAXONOMIES[attribute], attribute)",
        "",
        "",
        f"study = api.open_table(DATA, store={store!r}, dataset_name={name!r})",
        *_declarations(s),
        f"study.choose({s.algorithm!r}, **PARAMS)",
        f"question = study.question({str(s.epsilon)!r})",
        "if question.refusal:  # nothing to ask: say why, spend nothing",
        "    sys.exit(f'not released: {question.refusal}')",
        "print(question.text(), file=sys.stderr)",
        "release = study.release(question)",
        "paths = release.export(OUT.parent, OUT.name"
        + (", expand_records=True" if expand_records else "")
        + (", omit_zero_cells=True" if omit_zero_cells and not expand_records else "")
        + ")",
        "print('wrote ' + ', '.join(str(p) for p in paths))",
        "",
    ]
    return "\n".join(lines)


__all__ = ["python_script"]
