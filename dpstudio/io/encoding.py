"""A table plus its public domains -> the integer-coded arrays the DiffGen engine runs on.

``encode_table(frame, class_attribute, taxonomies, bounds, types=...)`` returns a ``DiffGenInput``:

- an attribute with a categorical taxonomy: each value is mapped to its taxonomy leaf (a value the
  taxonomy does not cover is an ``EncodingError`` naming the attribute, the values and the row count;
  rows are never dropped here);
- an attribute with a numeric taxonomy: numeric, bounds = the taxonomy's root interval (or ``bounds`` if
  given), public split grid = every interval end point strictly inside the bounds;
- an attribute with ``bounds`` and a categorical taxonomy whose leaves are numbers (ARX's age
  hierarchy): numeric, public split grid = the boundaries between its groups
  (``core.split_grid.taxonomy_cut_points``);
- the split grid serves DiffGen (its split points are chosen among the grid points inside the interval:
  the attribute's lattice is a ``core.split_grid.GridLattice``) and MAXGDDP (its candidates);
- an attribute with only ``bounds`` (lo, hi): numeric, DiffGen grows its intervals from the bounds on
  the lattice of its declared kind; values must satisfy lo <= x <= hi (the upper bound is inclusive);
- the class attribute: ``classes`` is its public, ordered domain (a declared input like a taxonomy; at
  least two values, compared as stripped text). A record whose class is outside it is an
  ``EncodingError``; a class no record holds stays in the release with its (noisy) cells. With
  ``classes=None`` the classes are the data's own values sorted as text: derived from the data, so not
  for a release (one record with a new value would add a class and its cells); the evaluation protocol
  and teaching runs use it.

Attributes in neither mapping are left out. A numeric attribute's kind is a public declaration, never read
from the values or the column's dtype: ``types[name]`` is "integer", "continuous" or
"continuous:RESOLUTION" (``core.lattice.NumericType``); without one the kind is a default from the public
bounds (whole-number bounds -> integer, otherwise continuous with the default resolution), and the
attribute's ``Lattice`` records whether it was declared and by which rule. A value that does not fit the
kind (30.5 for an integer attribute) is an ``EncodingError`` saying how to declare it otherwise; a
continuous value off the resolution simply lies in its lattice cell.
Error messages go to the data owner (they may quote private values); they are never written to a release.

Speed (this one encoder serves the CLI and the studio, ``model.runs.encode_table``): text columns are
factorized by pandas in blocks of ``BLOCK`` rows (a categorical column uses its codes), and only the
distinct values are mapped through the taxonomy and turned into class names, so a 1M-row table is coded in
well under a second and no single step holds the GIL for more than a few milliseconds (the studio's
window stays responsive while a worker thread codes the table). Error paths re-map the column the slow,
exact way so the messages are the taxonomy's own.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from ..core.lattice import INTEGER, Lattice, LatticeError
from ..core.split_grid import GridLattice, SplitGridError, taxonomy_cut_points
from ..core.taxonomy import Taxonomy, TaxonomyError

BLOCK = 1 << 16  # rows per pandas call: each call holds the GIL for about a millisecond


def factorize_column(col: pd.Series) -> tuple[np.ndarray, list]:
    """(codes, uniques) with ``uniques[codes[i]] == col[i]``; code -1 for a missing value (None/NaN).

    A categorical column gives its own codes; any other column is factorized in blocks of ``BLOCK`` rows
    (pandas hashing) and the few distinct values of each block are merged in a dict."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.cat.codes, dtype=np.int64), list(col.cat.categories)
    n = len(col)
    codes = np.empty(n, dtype=np.int64)
    index: dict = {}
    uniques: list = []
    for start in range(0, n, BLOCK):
        part = col.iloc[start : start + BLOCK]
        try:
            c, u = pd.factorize(part, use_na_sentinel=True)
        except TypeError:  # unhashable cells (lists): compare them by their text
            c, u = pd.factorize(
                part.map(lambda v: v if v is None or isinstance(v, float) else str(v)), use_na_sentinel=True
            )
        remap = np.empty(len(u) + 1, dtype=np.int64)
        remap[-1] = -1
        for j, v in enumerate(list(u)):
            k = index.get(v)
            if k is None:
                k = index[v] = len(uniques)
                uniques.append(v)
            remap[j] = k
        codes[start : start + len(c)] = remap[c]
    return codes, uniques


def _class_text(v) -> str:
    return str(int(v)) if isinstance(v, float) and float(v).is_integer() else str(v).strip()


def check_classes(classes) -> tuple[str, ...]:
    """A declared class domain as stripped texts, in the given order: at least two, no blank, no repeat."""
    out = tuple(_class_text(c) for c in classes)
    if any(not c for c in out):
        raise EncodingError("the public classes include an empty value")
    twice = sorted({c for c in out if out.count(c) > 1})
    if twice:
        raise EncodingError(f"the public classes name {', '.join(map(repr, twice))} more than once")
    if len(out) < 2:
        raise EncodingError(f"a classification release needs at least two public classes, got {len(out)}")
    return out


def _map_categorical(name: str, col: pd.Series, tax: Taxonomy, weights: np.ndarray | None = None) -> np.ndarray:
    """Leaf ids of a column through a categorical taxonomy, mapping only its distinct values. ``weights``
    (records per row): the error message counts records (its rows are repeated that often)."""
    codes, uniques = factorize_column(col)
    if uniques:
        per_unique = np.asarray(
            tax.map_values(np.asarray(uniques + [None], dtype=object)[:-1]).leaf_ids, dtype=np.int64
        )
    else:
        per_unique = np.zeros(0, dtype=np.int64)
    seen = np.bincount(codes + 1, minlength=len(uniques) + 1)  # seen[0]: missing values
    if seen[0] or (per_unique[seen[1:] > 0] < 0).any():
        values = col.to_numpy()
        if weights is not None:  # the uncovered rows, once per record they stand for
            bad = (codes < 0) | (np.append(per_unique, -1)[codes] < 0)
            values = np.repeat(values[bad], weights[bad])
        return tax.map_values_strict(values)  # raises with the taxonomy's own message
    return per_unique[codes] if len(codes) else np.zeros(0, dtype=np.int64)


class EncodingError(ValueError):
    """The table does not fit its declared domains (one line, meant for the data owner)."""


def parse_bounds(text: str) -> tuple[float, float]:
    """'LO:HI' -> (lo, hi) with lo < hi, both finite."""
    parts = str(text).split(":")
    if len(parts) != 2:
        raise EncodingError(f"bounds must look like LO:HI, got {text!r}")
    try:
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError:
        raise EncodingError(f"bounds must be numbers LO:HI, got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise EncodingError(f"bounds need finite LO < HI, got {text!r}")
    return lo, hi


def _records(mask: np.ndarray, weights: np.ndarray | None) -> int:
    """How many records the rows in ``mask`` stand for (for the data owner's error messages)."""
    return int(mask.sum()) if weights is None else int(weights[mask].sum())


def _numeric_values(frame: pd.DataFrame, name: str, weights: np.ndarray | None = None) -> np.ndarray:
    col = frame[name]
    x = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(x)
    if bad.any():
        raw = col[bad]
        examples = ", ".join(repr(v) for v in pd.unique(raw.astype(str))[:5])
        raise EncodingError(
            f"attribute {name!r} is numeric but {_records(bad, weights)} rows hold missing or "
            f"non-numeric values ({examples})"
        )
    return x


def _check_bounds(name: str, x: np.ndarray, lo: float, hi: float, weights: np.ndarray | None = None) -> None:
    out = (x < lo) | (x > hi)
    if out.any():
        n = _records(out, weights)
        raise EncodingError(
            f"attribute {name!r}: {n} row{'s' if n != 1 else ''} with values outside the public bounds "
            f"[{lo:g}, {hi:g}] (from {x[out].min():g} to {x[out].max():g}); widen the bounds"
        )


def numeric_lattice(name: str, lo: float, hi: float, declaration=None) -> Lattice:
    """The public lattice of a numeric attribute from its bounds and declared type (None: the default)."""
    try:
        return Lattice.for_bounds(lo, hi, declaration)
    except LatticeError as exc:
        raise EncodingError(f"attribute {name!r}: {exc}") from None


def encode_table(
    frame: pd.DataFrame,
    class_attribute: str,
    taxonomies: dict | None = None,
    bounds: dict | None = None,
    info: dict | None = None,
    classes=None,
    types: dict | None = None,
    grid_sources: dict | None = None,
    weights: np.ndarray | None = None,
) -> DiffGenInput:
    """Code ``frame`` for the engine. See the module docstring for the rules. ``classes``: the public class
    domain (None: the data's values, not for a release). ``types``: attribute -> declared numeric type
    ("integer" | "continuous" | "continuous:RESOLUTION"). ``grid_sources``: attribute -> where its
    taxonomy (and so its split grid) came from, for the sidecar. ``weights``: records per row when ``frame``
    holds a data engine's group-by counts (``dpstudio.io.engines``); kept in the input and used in the
    messages' counts."""
    if weights is not None:
        weights = np.asarray(weights, dtype=np.int64)
    declared = None if classes is None else check_classes(classes)
    taxonomies = dict(taxonomies or {})
    bounds = dict(bounds or {})
    types = dict(types or {})
    if len(frame) == 0:
        raise EncodingError("the table is empty (no rows)")
    if class_attribute not in frame.columns:
        raise EncodingError(
            f"class attribute {class_attribute!r} is not a column of the table "
            f"(columns: {', '.join(map(str, frame.columns))})"
        )
    for name in types:
        if name not in bounds and not (name in taxonomies and taxonomies[name].is_numeric):
            raise EncodingError(
                f"a type is declared for {name!r}, which is not a numeric attribute of the "
                "release (give it bounds or a numeric taxonomy)"
            )
    for name in list(taxonomies) + list(bounds):
        if name not in frame.columns:
            raise EncodingError(f"attribute {name!r} is not a column of the table")
        if name == class_attribute:
            raise EncodingError(f"{name!r} is the class attribute; it cannot also be a quasi-identifier")
    cls = frame[class_attribute]
    if cls.isna().any():
        raise EncodingError(
            f"class attribute {class_attribute!r} has {_records(cls.isna().to_numpy(), weights)} rows with a "
            "missing value"
        )
    codes, uniques = factorize_column(cls)
    texts = [_class_text(v) for v in uniques]
    if declared is not None:
        outside = sorted({t for t in texts} - set(declared))
        if outside:
            is_outside = np.asarray([t in outside for t in texts] + [False], dtype=bool)
            n = _records(is_outside[codes], weights)
            shown = ", ".join(map(repr, outside[:5])) + (", ..." if len(outside) > 5 else "")
            raise EncodingError(
                f"class attribute {class_attribute!r}: {n} row{'s' if n != 1 else ''} hold "
                f"{'a value' if len(outside) == 1 else 'values'} outside the public classes "
                f"({shown}); declare every class or remove those rows"
            )
    classes = list(declared) if declared is not None else sorted(set(texts))
    if len(classes) < 2:
        raise EncodingError(
            f"class attribute {class_attribute!r} has only one value ({classes[0]!r}); "
            "a classification release needs at least two"
        )
    position = {c: i for i, c in enumerate(classes)}
    y = np.asarray([position[t] for t in texts], dtype=np.int64)[codes]

    attrs: list[CategoricalAttribute | NumericAttribute] = []
    names = [c for c in frame.columns if c in taxonomies or c in bounds]
    for name in names:
        tax: Taxonomy | None = taxonomies.get(name)
        if tax is not None and not tax.is_numeric and name not in bounds:
            try:
                leaf_ids = _map_categorical(name, frame[name], tax, weights)
            except TaxonomyError as exc:
                msg = str(exc)
                if tax.attribute != name:
                    msg = msg.replace(f"attribute {tax.attribute or '(unnamed)'!r}", f"attribute {name!r}", 1)
                raise EncodingError(msg) from None
            attrs.append(CategoricalAttribute(name, tax, np.asarray(leaf_ids, dtype=np.int64)))
            continue
        x = _numeric_values(frame, name, weights)
        grid = None
        if name in bounds:
            lo, hi = bounds[name]
        else:  # a name without bounds has a numeric taxonomy (``names``): its root gives them
            assert tax is not None
            lo, hi = float(tax.lo[0]), float(tax.hi[0])
        if tax is not None:
            try:
                ends = taxonomy_cut_points(tax)
            except SplitGridError as exc:
                raise EncodingError(str(exc)) from None
            grid = ends[(ends > lo) & (ends < hi)]
        _check_bounds(name, x, lo, hi, weights)
        base = numeric_lattice(name, float(lo), float(hi), types.get(name))
        lattice: Lattice | GridLattice = base
        try:
            base.check_values(name, x)
        except LatticeError as exc:
            raise EncodingError(str(exc)) from None
        if grid is not None:
            source = (grid_sources or {}).get(name) or f"the cut points of the taxonomy of {name}"
            lattice = GridLattice(base, tuple(grid), source)
        attrs.append(NumericAttribute(name, x, float(lo), float(hi), grid, lattice.kind == INTEGER, lattice))
    data = DiffGenInput(tuple(attrs), class_attribute, tuple(classes), y, dict(info or {}), weights)
    try:
        return data.validate()
    except ValueError as exc:
        raise EncodingError(str(exc)) from None
