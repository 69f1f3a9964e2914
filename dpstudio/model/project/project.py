"""The project a studio window edits: Qt-free state with change notifications, saved as versioned JSON.

A ``Project`` holds everything a release depends on *except the raw data*: where the data file is (and a
SHA-256 of its bytes, so reopening notices when it changed), each attribute's role and type, the public
class values (``classes``, declared like a taxonomy; None until declared), the public numeric bounds, the
declared kind of numeric attributes (``numeric_types``: "integer", "continuous" or "continuous:RESOLUTION";
undeclared ones get the default from their bounds when a run codes the table), the missing-value choice, a taxonomy per attribute, the algorithm and its parameters, the
budget epsilon, the mode (release or teaching), the budget ledger, and (in memory only) the events recorded
by the last run.

Views subscribe with ``project.subscribe(callback, *fields)``; every setter that changes something calls
``callback(field)`` for the subscribers of that field (or of all fields) and marks the project dirty. Views
write back through the setters, never by poking attributes, so every change is announced.

Privacy facts this module keeps:

- Release runs go through the release service (``model.release``): ``release_question(eps)`` is the
  question the user answers, ``start_run(answer)`` charges the persistent budget store
  (``dpstudio.io.budget_store``, the one the CLI charges too) for the run's epsilon, then hands out secure
  noise and a fresh ledger of epsilon (``release_ledger``, the last release's ledger, saved). The store is
  the only truth about what was spent: a second release in the same project is a normal path when the
  dataset's lifetime total leaves room. The store knows the data by the fingerprint of its records as loaded
  (not the file's bytes), and loosely under trivial edits (``BudgetStore.related``); the project's
  ``account`` (``model.release.account.BudgetAccount``) says what is left.
- A release run needs the declared class domain (``classes``); a record with another class is an input
  error, never a new class. Changing which attribute is the class clears the declaration.
- Teaching mode draws seeded simulation noise and gets a fresh ledger for every run: nothing it produces
  is a release (``can_export`` is False).
- The saved file never holds the raw data, true counts or recorded events (those may carry true counts in
  teaching mode).
- Every public input (taxonomy, bounds, type, class values) has a ``Provenance`` (``model/project/provenance.py``):
  inputs taken from the data stay "derived from the data: not private" through edits until the user
  confirms them (``confirm_public``); ``unconfirmed_inputs()`` names those a release would depend on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpstudio.algorithms import registry
from dpstudio.core.budget import Ledger, check_epsilon
from dpstudio.core.taxonomy import Taxonomy, TaxonomyError
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.provenance import Provenance
from dpstudio.model.release.account import AccountError, BudgetAccount, DatasetBudgetInfo
from dpstudio.model.release.question import ReleaseQuestion
from dpstudio.model.release.service import ReleaseRefused, ReleaseService, RunSetup

SCHEMA_VERSION = 1
FILE_FORMAT = "dpstudio-project"
FILE_SUFFIX = ".dpstudio"

# attribute roles
QUASI_IDENTIFIER = "quasi-identifier"
CLASS = "class"
IGNORE = "ignore"
ROLES = (QUASI_IDENTIFIER, CLASS, IGNORE)

# attribute types
CATEGORICAL = "categorical"
NUMERIC = "numeric"
TYPES = (CATEGORICAL, NUMERIC)

# missing-value choice
DROP_MISSING = "drop"
KEEP_MISSING = "keep"
MISSING_CHOICES = (DROP_MISSING, KEEP_MISSING)
#: how a missing answer is written when it is kept as a category: the file's own token ('?' in UCI and ARX
#: files and in the CLI), the value every taxonomy must then cover
DEFAULT_MISSING_TOKEN = "?"
#: a column read as numbers with at most this many distinct whole numbers (in 0..99), each seen on average at
#: least CODE_REPEATS times, is proposed as codes
CODE_LIMIT = 12
CODE_REPEATS = 20


def pd_unique_small(column, limit: int):
    """The distinct non-missing values of a numeric ``column`` if there are at most ``limit`` of them, else
    None (stops counting early on a long column)."""
    import numpy as np

    x = column.to_numpy(dtype=float, na_value=np.nan)
    x = x[~np.isnan(x)]
    head = np.unique(x[:100_000])
    if head.size > limit:
        return None
    u = np.unique(x)
    if u.size > limit or u.size == 0 or x.size < CODE_REPEATS * u.size:  # codes repeat; a short column says little
        return None
    return u.tolist()


# modes
TEACHING = "teaching"
RELEASE = "release"
MODES = (TEACHING, RELEASE)

#: every field a subscriber may ask for; "data" covers path, hash, dataset, columns
FIELDS = (
    "data",
    "roles",
    "types",
    "bounds",
    "classes",
    "missing",
    "taxonomies",
    "algorithm",
    "epsilon",
    "mode",
    "ledger",
    "run",
    "dirty",
    "path",
    "provenance",
)

Callback = Callable[[str], None]


class ProjectError(ValueError):
    """A project file or a project setting is invalid; the message says which and why."""


def file_sha256(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes (streams; fine on large files)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------------
# taxonomy <-> plain dict (self-contained so project files do not depend on a text format's quirks)
DRAWN_HERE = "drawn here"
EDITED_HERE = "edited here"


def edited_provenance(old: Provenance | None) -> Provenance:
    """The provenance of a tree changed in the studio's editor: "drawn here" for a new tree, "edited here, from
    ideo.csv" for an imported one (said once however often it is edited); derived and confirmed stay."""
    if old is None:
        return Provenance(DRAWN_HERE)
    if old.source.startswith((DRAWN_HERE, EDITED_HERE)):
        return old
    return Provenance(f"{EDITED_HERE}, from {old.source}", old.derived, old.confirmed)


def merged_provenance(old: Provenance, name: str) -> Provenance:
    """A tree made here with an imported file merged in: "drawn here; merged with ideo.csv" (derived and
    confirmed stay: the values it held are still in it, the file's are public)."""
    base = old.source.split("; merged with ")[0]
    return Provenance(f"{base}; merged with {name}", old.derived, old.confirmed)


def authored_here(prov: Provenance | None) -> bool:
    """Whether a tree was drawn or edited in the studio (work an import must not replace without asking)."""
    return prov is not None and prov.source.startswith((DRAWN_HERE, EDITED_HERE))


def taxonomy_to_dict(tax: Taxonomy) -> dict:
    d: dict[str, Any] = {
        "attribute": tax.attribute,
        "kind": tax.kind,
        "labels": list(tax.labels),
        "parents": [int(p) for p in tax.parents],
    }
    if tax.is_numeric:
        d["lo"] = [float(x) for x in tax.lo]
        d["hi"] = [float(x) for x in tax.hi]
    return d


def taxonomy_from_dict(d: dict) -> Taxonomy:
    try:
        labels, parents = d["labels"], d["parents"]
    except (KeyError, TypeError):
        raise ProjectError("a saved taxonomy lacks 'labels' or 'parents'") from None
    if len(labels) != len(parents):
        raise ProjectError("a saved taxonomy has different numbers of labels and parents")
    try:
        return Taxonomy.from_parents(labels, parents, d.get("attribute", ""), d.get("lo"), d.get("hi"))
    except (TaxonomyError, IndexError, TypeError, ValueError) as exc:
        raise ProjectError(f"saved taxonomy of {d.get('attribute', '?')!r} is invalid: {exc}") from None


# ---------------------------------------------------------------------------------------------------

#: the question a release asks (kept under its earlier name for callers of ``release_confirmation``)
ReleaseConfirmation = ReleaseQuestion


#: one token per load of data, unique in the process: a release question is bound to the load it was asked on
_LOADS = itertools.count(1)


class Project:
    """Application state of one studio window. See the module docstring."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[Callback, frozenset[str] | None]] = []
        self._muted = False
        self._reset_state()

    def _reset_state(self) -> None:
        self.path: Path | None = None  # where the project file lives
        self.data_path: Path | None = None
        self.data_hash: str | None = None
        self.data_encoding: str = "utf-8"  # text encoding the CSV/TSV data file is read with (saved)
        self.dataset: Any = None  # runtime only: a dpstudio.io.datasets.Dataset (or anything with .frame)
        self.columns: list[str] = []
        self.roles: dict[str, str] = {}
        self.types: dict[str, str] = {}
        self.bounds: dict[str, tuple[float, float]] = {}
        self.numeric_types: dict[str, str] = {}  # numeric attribute -> declared kind (a public input)
        self.classes: list[str] | None = None  # public class values of the class attribute, in release order
        self.missing: str = DROP_MISSING
        self.missing_token: str = DEFAULT_MISSING_TOKEN
        self.taxonomies: dict[str, Taxonomy] = {}
        self.taxonomy_sources: dict[str, str] = {}  # attribute -> where its taxonomy came from (display)
        self.provenance: dict[str, Provenance] = {}  # "kind:attribute" -> where that public input came from
        self.algorithm: str = "diffgen_consistency"
        self.params: dict[str, Any] = {}
        self.epsilon: Fraction = Fraction(1)
        self.mode: str = TEACHING
        self.seed: int = 2026
        self.release_ledger: Ledger | None = None  # the last release run's ledger (saved)
        # the held-out test file last scored (Compare, Anonymize's side by side): the next scoring's default;
        # other records, never released, not saved
        self.test_path: Path | None = None
        self.record: Any = None  # model.release.record.RunRecord of the last run (memory only)
        store = getattr(getattr(self, "account", None), "store", None)  # where the store is outlives a reset
        self.account = BudgetAccount(self.dataset_print, lambda: self.data_path, lambda: self.has_data)
        self.account.store = store
        self.run_budget: dict | None = None  # the budget store's record of the last release run (sidecar)
        self.run_store: str | None = None  # the store the last release was charged to (path, or "none")
        self._loaded: list[Any] | None = None  # (shallow copy of the frame as loaded, its DatasetPrint or None)
        self.load_token = next(_LOADS)  # changes with every load of data (``question_binding``)
        self.previous_declarations: Any = None  # model.declarations.Declarations of the file opened before
        self.release_in_progress = ""  # while a release run goes on: what it spent, in words ("" otherwise)
        self.dirty: bool = False

    def reset(self) -> None:
        """Start a new, empty project (subscribers hear about every field)."""
        self._reset_state()
        for f in FIELDS:
            self.notify(f)

    # -- notifications ------------------------------------------------------------------------------
    def subscribe(self, callback: Callback, *fields: str) -> Callback:
        """Call ``callback(field)`` when one of ``fields`` changes (all fields when none is given)."""
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown project field(s): {', '.join(sorted(unknown))}")
        self._subscribers.append((callback, frozenset(fields) if fields else None))
        return callback

    def unsubscribe(self, callback: Callback) -> None:
        self._subscribers = [(cb, f) for cb, f in self._subscribers if cb is not callback]

    def notify(self, field: str) -> None:
        if self._muted:
            return
        for cb, fields in list(self._subscribers):
            if fields is None or field in fields:
                cb(field)

    def _changed(self, field: str, dirty: bool = True) -> None:
        self.notify(field)
        if dirty:
            self.set_dirty(True)

    def set_dirty(self, dirty: bool) -> None:
        if self.dirty != dirty:
            self.dirty = dirty
            self.notify("dirty")

    # -- data -------------------------------------------------------------------------------------------
    def set_data(
        self,
        dataset: Any,
        path: str | os.PathLike | None,
        file_hash: str | None = None,
        types: dict[str, str] | None = None,
        encoding: str | None = None,
    ) -> None:
        """Adopt a loaded dataset (``encoding``: the text encoding it was read with, saved with the project
        so that reopening reads the file the same way; None keeps the current one). Roles default to quasi-identifier, except a last column that looks like a
        class (few distinct values) which becomes the class; settings of columns that still exist are kept.

        ``types`` (column -> "categorical"/"numeric") defaults to ``dataset.types`` if it has one, else
        numeric for numeric pandas dtypes.
        """
        frame = getattr(dataset, "frame", dataset)  # None: a table read through an engine (io.engine_table)
        columns = [str(c) for c in (frame.columns if frame is not None else dataset.columns)]
        declared = types is not None
        if types is None:
            types = dict(getattr(dataset, "types", {}) or {})
        for c in columns:
            if c not in types:
                kind = getattr(frame[c].dtype, "kind", "O")
                types[c] = NUMERIC if kind in "iuf" else CATEGORICAL
        old_roles = self.roles
        old_class = self.class_attribute
        if path is None or self.data_path is None or Path(path) != self.data_path:
            self.account.forget_data()  # a name given to other data does not carry over
        if self.dataset is not None and (None if path is None else Path(path)) != self.data_path:
            # declarations belong to the data they were made for: kept aside, re-applied only when asked
            from dpstudio.model.project.declarations import Declarations

            label = self.data_path.name if self.data_path is not None else "the previous data"
            stash = Declarations.capture(self, label)
            self.previous_declarations = stash if stash.count() else None
            self.taxonomies, self.taxonomy_sources, self.bounds, self.numeric_types = {}, {}, {}, {}
            self.classes, self.provenance = None, {}
        old = self.dataset
        self.dataset = dataset
        if old is not None and old is not dataset and callable(getattr(old, "close", None)):
            old.close()  # a table read through an engine holds its connection until replaced
        self.data_path = None if path is None else Path(path)
        self.test_path = None  # a held-out file of other records belongs with its data
        if encoding is not None:
            self.data_encoding = str(encoding)
        if file_hash is None:
            file_hash = getattr(dataset, "sha256", None)
        if file_hash is None and path is not None and Path(path).is_file():
            file_hash = file_sha256(path)
        self.data_hash = file_hash
        self.columns = columns
        self.types = {c: (types[c] if types[c] in TYPES else CATEGORICAL) for c in columns}
        self.roles = {c: old_roles.get(c, QUASI_IDENTIFIER) for c in columns}
        if CLASS not in self.roles.values() and columns:
            guess = columns[-1]
            self.roles[guess] = CLASS
        self.bounds = {c: b for c, b in self.bounds.items() if c in columns}
        self.numeric_types = {c: t for c, t in self.numeric_types.items() if c in columns}
        if self.classes is not None and self.class_attribute != old_class:
            self.classes = None
        self.taxonomies = {c: t for c, t in self.taxonomies.items() if c in columns}
        for c in columns:
            self.provenance[pv.key(pv.TYPE, c)] = Provenance(
                "declared" if declared else pv.TYPE_FROM_DATA, derived=not declared
            )
        if not declared and frame is not None:
            self._propose_codes(frame)
        if self.release_ledger is not None and file_hash != self._ledger_hash:
            self.release_ledger = None  # the last release's ledger belongs to the data it was spent on
        self._ledger_hash = file_hash
        # the records as loaded (set_type later rewrites columns in place): the budget store's key
        self._loaded = [None if frame is None else frame.copy(deep=False), getattr(dataset, "records_print", None)]
        self.load_token = next(_LOADS)
        self.clear_run(notify=False)
        for f in ("data", "roles", "types", "bounds", "classes", "taxonomies", "ledger", "run", "provenance"):
            self.notify(f)
        self.set_dirty(True)

    _ledger_hash: str | None = None

    def _propose_codes(self, frame) -> None:
        """Columns read as numbers that hold at most CODE_LIMIT distinct whole numbers in 0..99, each repeated
        (CODE_REPEATS rows per value on average; survey answers coded 1..12, say) are proposed as categorical, with the reason, for the data owner to confirm with
        the other guessed types; a count or a measurement has more values."""
        for c in self.columns:
            if self.types.get(c) != NUMERIC:
                continue
            values = pd_unique_small(frame[c], CODE_LIMIT)
            if values is None or not all(float(v).is_integer() and 0 <= v <= 99 for v in values):
                continue
            set_type = getattr(self.dataset, "set_type", None)
            if callable(set_type):
                set_type(c, CATEGORICAL)
            self.types[c] = CATEGORICAL
            self.provenance[pv.key(pv.TYPE, c)] = Provenance(
                f"guessed from the data: {len(values)} distinct whole numbers, read as codes (categorical); "
                "choose numeric if they are quantities",
                derived=True,
            )

    def reapply_declarations(self) -> tuple[list[str], list[str]]:
        """Re-apply the declarations made for the previously opened file (``model.declarations``), each
        recorded as re-applied by the user; (inputs re-applied, inputs skipped with why)."""
        stash = self.previous_declarations
        if stash is None:
            raise ProjectError("there are no declarations of a previous file to re-apply")
        target = self.data_path.name if self.data_path is not None else "this data"
        done, skipped = stash.apply(self, target)
        self.previous_declarations = None
        self._changed("provenance")
        return done, skipped

    @property
    def frame(self):
        """The pandas frame of the loaded data, or None (no data, or a table read through an engine: its
        records are not in memory; ``has_data`` tells the two apart)."""
        if self.dataset is None:
            return None
        return getattr(self.dataset, "frame", self.dataset)

    @property
    def has_data(self) -> bool:
        return self.dataset is not None

    @property
    def n_rows(self) -> int:
        """Records in the loaded table (private: for the data owner's eyes only); 0 without data."""
        if self.dataset is None:
            return 0
        frame = self.frame
        return len(self.dataset) if frame is None else len(frame)

    @property
    def engine_table(self):
        """The loaded table when it is read through an engine (``io.engine_table.EngineTable``), else None."""
        return self.dataset if self.dataset is not None and self.frame is None else None

    def set_role(self, attribute: str, role: str) -> None:
        self._check_attribute(attribute)
        if role not in ROLES:
            raise ProjectError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
        if self.roles.get(attribute) == role:
            return
        old_class = self.class_attribute
        if role == CLASS:  # one class attribute: the previous one becomes a quasi-identifier
            for c, r in self.roles.items():
                if r == CLASS:
                    self.roles[c] = QUASI_IDENTIFIER
        self.roles[attribute] = role
        self._changed("roles")
        if self.classes is not None and self.class_attribute != old_class:
            self.classes = None  # the declaration belonged to the previous class attribute
            if old_class is not None:
                self.provenance.pop(pv.key(pv.CLASSES, old_class), None)
            self._changed("classes")

    def set_type(self, attribute: str, kind: str, source: str = "chosen by you") -> None:
        """Set a column's type (numeric or categorical): a public declaration, recorded with ``source``."""
        self._check_attribute(attribute)
        if kind not in TYPES:
            raise ProjectError(f"type must be one of {', '.join(TYPES)}, got {kind!r}")
        if self.types.get(attribute) == kind:
            if self.provenance_of(pv.key(pv.TYPE, attribute)).derived:  # choosing it by hand declares it
                self._set_provenance(pv.key(pv.TYPE, attribute), Provenance(source))
            return
        if kind == NUMERIC and self.has_data:
            import pandas as pd

            values, counts = self.value_counts(attribute)
            parsed = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy()
            bad = [(v, int(n)) for v, n, x in zip(values, counts, parsed) if x != x]
            if bad:
                sample = ", ".join(repr(v) for v, _ in sorted(bad, key=lambda t: -t[1])[:5])
                raise ProjectError(
                    f"{attribute} cannot be numeric: {sum(n for _, n in bad)} value(s) are not "
                    f"numbers (for example {sample})"
                )
        set_type = getattr(self.dataset, "set_type", None)
        if callable(set_type):
            set_type(attribute, kind)
        self.types[attribute] = kind
        self.provenance[pv.key(pv.TYPE, attribute)] = Provenance(source)
        if kind == CATEGORICAL:
            self.bounds.pop(attribute, None)
            self.numeric_types.pop(attribute, None)
            self.provenance.pop(pv.key(pv.KIND, attribute), None)
        self._changed("types")

    def set_numeric_type(
        self, attribute: str, declaration: str | None, source: str = "chosen by you", derived: bool = False
    ) -> None:
        """Declare a numeric attribute's kind: "integer", "continuous" or "continuous:RESOLUTION" (public
        knowledge; ``derived`` when read from the values, see ``propose_numeric_type``); None removes the
        declaration (the run then uses the default from the public bounds: whole numbers -> integer, else
        continuous)."""
        from dpstudio.core.lattice import LatticeError, NumericType

        self._check_attribute(attribute)
        k = pv.key(pv.KIND, attribute)
        if declaration is None:
            self.provenance.pop(k, None)
            if self.numeric_types.pop(attribute, None) is not None:
                self._changed("types")
                self.notify("provenance")
            return
        if self.types.get(attribute) != NUMERIC:
            raise ProjectError(f"{attribute} is categorical: only numeric attributes are integer or continuous")
        try:
            text = str(NumericType.parse(declaration))
        except LatticeError as exc:
            raise ProjectError(f"type of {attribute}: {exc}") from None
        prov = Provenance(source, derived)
        if self.numeric_types.get(attribute) == text and self.provenance.get(k) == prov:
            return
        self.numeric_types[attribute] = text
        self.provenance[k] = prov
        self._changed("types")
        self.notify("provenance")

    def _numeric_summary(self, attribute: str, what: str) -> tuple[float, float, bool] | None:
        """(least, largest, all whole) of a numeric attribute's values, None without numbers, for a proposal
        from the data (its distinct values decide; a table read through an engine answers from its counts or,
        for a column with very many values, SQL aggregates); ProjectError without data or for a categorical
        attribute ("only numeric attributes {what}")."""
        import pandas as pd

        from dpstudio.io.datasets import value_range

        if not self.has_data:
            raise ProjectError("open data first")
        self._check_attribute(attribute)
        if self.types.get(attribute) != NUMERIC:
            raise ProjectError(f"{attribute} is categorical: only numeric attributes {what}")
        if self.engine_table is not None:
            return self.engine_table.numeric_summary(attribute)
        distinct = self.value_counts(attribute)[0]
        return value_range(pd.to_numeric(pd.Series(distinct, dtype=object), errors="coerce").dropna())

    def propose_numeric_type(self, attribute: str) -> str:
        """The kind read from the values (all whole numbers: integer, else continuous), marked "derived
        from the data: not private" until confirmed: one record with 30.5 would change it."""
        summary = self._numeric_summary(attribute, "are integer or continuous")
        kind = "integer" if summary is None or summary[2] else "continuous"
        self.set_numeric_type(attribute, kind, pv.KIND_FROM_DATA, derived=True)
        return kind

    def default_numeric_type(self, attribute: str) -> str | None:
        """The kind a run uses for an undeclared numeric attribute, from its public bounds only
        ("integer" or "continuous:RESOLUTION"; None without bounds)."""
        from dpstudio.core.lattice import Lattice, LatticeError, NumericType

        if attribute not in self.bounds:
            return None
        try:
            lat = Lattice.for_bounds(*self.bounds[attribute])
        except LatticeError:
            return None
        return str(NumericType(lat.kind, None if lat.kind == "integer" else lat.resolution))

    def set_bounds(self, attribute: str, lo, hi, source: str = "typed by you", derived: bool = False) -> None:
        """Public bounds [lo, hi) of a numeric attribute (public knowledge; ``derived`` when taken from the
        data, see ``propose_bounds``)."""
        self._check_attribute(attribute)
        try:
            lo_f, hi_f = float(lo), float(hi)
        except (TypeError, ValueError):
            raise ProjectError(f"bounds of {attribute} must be numbers, got {lo!r} and {hi!r}") from None
        if not (math.isfinite(lo_f) and math.isfinite(hi_f)):
            raise ProjectError(f"bounds of {attribute} must be finite numbers")
        if lo_f >= hi_f:
            raise ProjectError(
                f"bounds of {attribute}: the lower bound {lo_f:g} must be below the upper bound {hi_f:g}"
            )
        if self.types.get(attribute) != NUMERIC:
            raise ProjectError(f"{attribute} is categorical: only numeric attributes have bounds")
        if self.bounds.get(attribute) == (lo_f, hi_f) and not derived:
            return
        self.bounds[attribute] = (lo_f, hi_f)
        self.provenance[pv.key(pv.BOUNDS, attribute)] = Provenance(source, derived)
        self._changed("bounds")
        self.notify("provenance")

    def propose_bounds(self, attribute: str) -> tuple[float, float]:
        """Bounds from the data: [floor(min), floor(max) + 1), marked "derived from the data: not private"."""
        import numpy as np

        summary = self._numeric_summary(attribute, "have bounds")
        if summary is None:
            raise ProjectError(f"{attribute} has no numbers to propose bounds from")
        lo, hi = float(np.floor(summary[0])), float(np.floor(summary[1]) + 1)
        self.set_bounds(attribute, lo, hi, pv.BOUNDS_FROM_DATA, derived=True)
        return lo, hi

    def clear_bounds(self, attribute: str) -> None:
        if self.bounds.pop(attribute, None) is not None:
            self.provenance.pop(pv.key(pv.BOUNDS, attribute), None)
            self._changed("bounds")

    def set_classes(self, values, source: str = "typed by you", derived: bool = False, edit: bool = False) -> None:
        """Declare the public class values of the class attribute, in release order (None: undeclared).
        Public input like a taxonomy: at least two, stripped, none repeated. Provenance as for taxonomies:
        ``derived`` marks values taken from the data (``propose_classes``); ``edit`` (a change typed over a
        declaration) keeps the mark and confirmation the values had; otherwise they are a public input
        from ``source``."""
        if values is not None:
            from dpstudio.io.encoding import EncodingError, check_classes

            try:
                values = list(check_classes(values))
            except EncodingError as exc:
                raise ProjectError(str(exc)) from None
        k = pv.key(pv.CLASSES, self.class_attribute or "")  # no class attribute yet: nothing will ever read it
        old = self.provenance.get(k)
        if values is None:
            self.provenance.pop(k, None)
        elif derived:
            self.provenance[k] = Provenance(source, True)
        elif not (edit and old is not None):
            self.provenance[k] = Provenance(source)
        if values == self.classes and self.provenance.get(k) == old:
            return
        self.classes = values
        self._changed("classes")
        self.notify("provenance")

    def propose_classes(self) -> list[str]:
        """The class values present in the data (sorted), marked "derived from the data: not private" until
        confirmed: a record with a rare class would add it to every release."""
        from dpstudio.io.encoding import _class_text

        cls = self.class_attribute
        if not self.has_data or cls is None:
            raise ProjectError("open data and choose the class attribute first")
        values = sorted({_class_text(v) for v in self.value_counts(cls)[0]})
        self.set_classes(values, pv.CLASSES_FROM_DATA, derived=True)
        return list(values)

    def set_missing(self, choice: str) -> None:
        if choice not in MISSING_CHOICES:
            raise ProjectError(f"missing-value choice must be 'drop' or 'keep', got {choice!r}")
        if choice == self.missing:
            return
        self.missing = choice
        self._changed("missing")

    def set_missing_token(self, token: str) -> None:
        """The value a kept missing cell takes (a public declaration: how the file writes a missing answer,
        '?' by default); every taxonomy of a categorical quasi-identifier with missing cells must cover it."""
        token = str(token if token is not None else "").strip()
        if not token or "\n" in token or "\r" in token:
            raise ProjectError("the missing-value token must be a non-empty value on one line, e.g. '?'")
        if token == self.missing_token:
            return
        self.missing_token = token
        self._changed("missing")

    def missing_rows(self, attribute: str) -> int:
        """How many rows miss a value of ``attribute`` (private: for the data owner's coverage check only);
        cached per data frame and column dtype like ``value_counts``, since every badge refresh asks."""
        frame = self.frame
        if frame is not None:
            col = frame[attribute]
            cache = self.__dict__.setdefault("_missing_cache", {})
            entry = cache.get(attribute)
            if entry is None or entry[0] is not frame or entry[1] != str(col.dtype):
                entry = (frame, str(col.dtype), int(col.isna().sum()))
                cache[attribute] = entry
            return entry[2]
        per_column = getattr(self.dataset, "missing_per_column", None)  # a table read through an engine
        counts = per_column() if callable(per_column) else {}
        return int((counts or {}).get(attribute, 0))

    def attributes(self, role: str) -> list[str]:
        """Columns with the given role, in column order."""
        return [c for c in self.columns if self.roles.get(c) == role]

    @property
    def class_attribute(self) -> str | None:
        found = self.attributes(CLASS)
        return found[0] if found else None

    # -- taxonomies ----------------------------------------------------------------------------------
    def set_taxonomy(
        self, attribute: str, taxonomy: Taxonomy | None, source: str = "", derived: bool = False, edit: bool = False
    ) -> None:
        """Set (or with None, remove) the taxonomy of ``attribute``.

        Provenance: ``derived`` marks a tree taken from the data; ``edit`` (a change made in the editor)
        keeps the mark and confirmation the tree had; otherwise the tree replaces the old one as a public
        input from ``source`` (a file, a generator over public bounds)."""
        self._check_attribute(attribute)
        k = pv.key(pv.TAXONOMY, attribute)
        if taxonomy is None:
            if self.taxonomies.pop(attribute, None) is None:
                return
            self.taxonomy_sources.pop(attribute, None)
            self.provenance.pop(k, None)
        else:
            taxonomy.attribute = attribute
            self.taxonomies[attribute] = taxonomy
            if derived:
                self.provenance[k] = Provenance(source, True)
            elif edit:  # changed in the editor: the credit says so, the mark and confirmation stay
                self.provenance[k] = edited_provenance(self.provenance.get(k))
            else:
                self.provenance[k] = Provenance(source or "set here")
            if source:
                self.taxonomy_sources[attribute] = self.provenance[k].source
        self._changed("taxonomies")
        self.notify("provenance")

    # -- provenance of public inputs --------------------------------------------------------------------
    def provenance_of(self, input_key: str) -> Provenance:
        """Where the input came from. Undeclared class values count as derived (a teaching run reads them
        from the data); an undeclared numeric kind is the default from the public bounds."""
        found = self.provenance.get(input_key)
        if found is not None:
            return found
        kind, _, attr = input_key.partition(":")
        if kind == pv.CLASSES:
            return Provenance(pv.CLASSES_UNDECLARED if self.classes is None else "declared", self.classes is None)
        if kind == pv.KIND:
            if attr in self.numeric_types:
                return Provenance("declared")
            return Provenance(f"default from the bounds: {self.default_numeric_type(attr) or 'no bounds yet'}")
        return Provenance("not recorded")

    def input_is_set(self, input_key: str) -> bool:
        """Whether the public input ``input_key`` has a value yet (bounds, a taxonomy, a numeric kind or its
        bounds to default from); types always have one."""
        kind, _, attr = input_key.partition(":")
        if kind == pv.BOUNDS:
            return attr in self.bounds
        if kind == pv.TAXONOMY:
            return attr in self.taxonomies
        if kind == pv.KIND:
            return attr in self.numeric_types or attr in self.bounds
        return True

    def _set_provenance(self, input_key: str, prov: Provenance) -> None:
        self.provenance[input_key] = prov
        self._changed("provenance")

    def restore_provenance(self, input_key: str, prov: Provenance | None) -> None:
        """Put back a provenance the input had (the taxonomy editor's undo and redo, a merge's credit);
        None removes it."""
        kind, _, attr = input_key.partition(":")
        if prov is None:
            if self.provenance.pop(input_key, None) is not None:
                self._changed("provenance")
            return
        if kind == pv.TAXONOMY and attr in self.taxonomies:
            self.taxonomy_sources[attr] = prov.source  # the line the Taxonomy panel shows says the same
        self._set_provenance(input_key, prov)

    def mark_derived(self, input_key: str, source: str) -> None:
        """The input now holds values taken from the data: derived, any earlier confirmation void. A tree
        drawn or edited here keeps saying so ("drawn here; values added from the data ...")."""
        old = self.provenance.get(input_key)
        if authored_here(old) and old is not None and source not in old.source:
            source = f"{old.source.split('; ')[0]}; {source}"
        self._set_provenance(input_key, Provenance(source, True))

    def confirm_public(self, input_key: str, wording: str) -> None:
        """The user's deliberate statement that a derived input is public knowledge (recorded verbatim)."""
        wording = " ".join(str(wording or "").split())
        if not wording:
            raise ProjectError(f"say why the {pv.describe(input_key)} is public knowledge")
        prov = self.provenance_of(input_key)
        if not prov.derived:
            raise ProjectError(f"the {pv.describe(input_key)} was not derived from the data: nothing to confirm")
        self._set_provenance(input_key, Provenance(prov.source, True, wording))

    def release_inputs(self) -> list[str]:
        """Keys of the public inputs the current algorithm's release depends on (bin edges: the bounds
        they divide; split grids: the numeric taxonomy they come from)."""
        if self.algorithm in registry.HISTOGRAM_ALGORITHMS:
            attr = (self.params or {}).get("attribute") or self.histogram_attribute()
            return [] if attr is None else [pv.key(pv.TYPE, attr), pv.key(pv.BOUNDS, attr)]
        out = []
        for a in self.attributes(QUASI_IDENTIFIER):
            out.append(pv.key(pv.TYPE, a))
            if self.types.get(a) == NUMERIC:
                out.append(pv.key(pv.BOUNDS, a))
                out.append(pv.key(pv.KIND, a))
            if a in self.taxonomies:
                out.append(pv.key(pv.TAXONOMY, a))
        if self.class_attribute is not None:
            out.append(pv.key(pv.CLASSES, self.class_attribute))
        return out

    def histogram_attribute(self) -> str | None:
        """The attribute a histogram bins when none is named: the first numeric quasi-identifier with bounds."""
        found = [a for a in self.attributes(QUASI_IDENTIFIER) if self.types.get(a) == NUMERIC and a in self.bounds]
        return found[0] if found else None

    def release_columns(self) -> list[str]:
        """The columns a release run of the current algorithm reads (and drops rows on, when missing values
        are dropped): the histogram's attribute, or the quasi-identifiers and the class."""
        if self.algorithm in registry.HISTOGRAM_ALGORITHMS:
            attr = (self.params or {}).get("attribute") or self.histogram_attribute()
            return [attr] if attr else []
        cls = self.class_attribute
        return self.attributes(QUASI_IDENTIFIER) + ([cls] if cls else [])

    def unconfirmed_inputs(self) -> list[str]:
        """The release's inputs derived from the data and not confirmed public knowledge (export refuses)."""
        return [k for k in self.release_inputs() if self.provenance_of(k).unconfirmed]

    def public_inputs_record(self) -> list[dict]:
        """For the sidecar and the report: each input of the release, where it came from, any confirmation."""
        return [{"input": pv.describe(k), "key": k, **self.provenance_of(k).to_dict()} for k in self.release_inputs()]

    def uncovered_values(self, attribute: str, limit: int | None = None) -> tuple[list, int]:
        """Data values of ``attribute`` that its taxonomy does not cover: (values, rows affected).

        Values are ordered most frequent first (``Taxonomy.map_values``). Missing cells are not counted here
        (the missing-value choice deals with them). ([], 0) when there is no data or no taxonomy. The
        values are private: they are shown to the data owner only, never released.
        """
        found = self.uncovered(attribute)
        values = [v for v, _ in found]
        rows = int(sum(c for _, c in found))
        return (values if limit is None else values[:limit]), rows

    def value_counts(self, attribute: str):
        """(distinct values, their row counts) of ``attribute``, missing left out; cached per data frame
        and column dtype, so checking coverage after each taxonomy edit maps only the distinct values. A table
        read through an engine answers from the counts it read when it was opened."""
        frame = self.frame
        if frame is None:
            return self.dataset.value_counts(attribute)
        col = frame[attribute]
        cache = self.__dict__.setdefault("_vc_cache", {})
        entry = cache.get(attribute)
        # the frame object itself (not its id, which a new frame may reuse) and the dtype must match
        if entry is None or entry[0] is not frame or entry[1] != str(col.dtype):
            vc = col.value_counts(dropna=True, sort=False)
            entry = (frame, str(col.dtype), (vc.index.to_numpy(), vc.to_numpy().astype("int64")))
            cache[attribute] = entry
        return entry[2]

    def uncovered(self, attribute: str) -> tuple[tuple[Any, int], ...]:
        """((value, rows), ...) not covered by the taxonomy of ``attribute``, most frequent first; with missing
        values kept, the missing-value token too when the column has missing cells (exactly what the run
        checks)."""
        tax = self.taxonomies.get(attribute)
        if tax is None or not self.has_data or attribute not in self.columns:
            return ()
        values, counts = self.value_counts(attribute)
        leaf_ids = tax.map_values(values).leaf_ids
        bad = [
            (v.item() if hasattr(v, "item") else v, int(c)) for v, c, leaf in zip(values, counts, leaf_ids) if leaf < 0
        ]
        if self.missing == KEEP_MISSING and self.types.get(attribute) != NUMERIC:
            # kept missing cells become the declared token: the run checks it like any value
            n_missing = self.missing_rows(attribute)
            if n_missing and tax.map_values([self.missing_token]).leaf_ids[0] < 0:
                bad.append((self.missing_token, n_missing))
        bad.sort(key=lambda t: (-t[1], str(t[0])))
        return tuple(bad)

    # -- algorithm, budget, mode -------------------------------------------------------------------
    def set_algorithm(self, name: str, params: dict | None = None) -> None:
        if not name:
            raise ProjectError("choose an algorithm")
        params = dict(self.params if params is None else params)
        if name == self.algorithm and params == self.params:
            return
        self.algorithm = name
        self.params = params
        self._changed("algorithm")

    def set_param(self, key: str, value) -> None:
        if self.params.get(key) == value and key in self.params:
            return
        self.params[key] = value
        self._changed("algorithm")

    def set_epsilon(self, value) -> None:
        """Parse and set the budget; raises ValueError with a specific message (see check_epsilon)."""
        eps = check_epsilon(value)
        if eps == self.epsilon:
            return
        self.epsilon = eps
        self._changed("epsilon")

    def set_seed(self, seed: int) -> None:
        seed = int(seed)
        if seed != self.seed:
            self.seed = seed
            self._changed("mode")

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ProjectError(f"mode must be 'release' or 'teaching', got {mode!r}")
        if mode == self.mode:
            return
        self.mode = mode
        self.clear_run(notify=False)  # a teaching run must not be shown or exported as a release
        self.notify("run")
        self._changed("mode")

    @property
    def teaching(self) -> bool:
        return self.mode == TEACHING

    @property
    def ledger(self) -> Ledger | None:
        """The ledger to display: the last release run's in release mode, else the last teaching run's."""
        if self.mode == RELEASE:
            return self.release_ledger
        return self.run_ledger

    # -- the persistent per-dataset budget ----------------------------------------------------------
    def dataset_print(self):
        """The ``DatasetPrint`` of the records as loaded (computed once per load: ~0.7 s a million rows)."""
        if self._loaded is None:
            return None
        if self._loaded[1] is None and self._loaded[0] is None:  # an engine table opened without its print
            self._loaded[1] = self.dataset.fingerprint()
        elif self._loaded[1] is None:
            from dpstudio.io.dataset_fingerprint import table_print

            self._loaded[1] = table_print(self._loaded[0])
        return self._loaded[1]

    # the account's settings, under the names the project file and callers use
    budget_store = property(lambda self: self.account.store, lambda self, v: setattr(self.account, "store", v))
    dataset_name = property(lambda self: self.account.name, lambda self, v: setattr(self.account, "name", v))
    dataset_total = property(lambda self: self.account.total, lambda self, v: setattr(self.account, "total", v))

    def _default_dataset_name(self) -> str:
        return self.account.default_name()

    def _account(self, action: Callable[[], DatasetBudgetInfo]) -> DatasetBudgetInfo:
        try:
            return action()
        except AccountError as exc:
            raise ProjectError(str(exc)) from None

    def dataset_budget(self) -> DatasetBudgetInfo:
        """What the budget store holds for the loaded data now: name, lifetime total, spent, remaining,
        tracked (``BudgetAccount.info``). Raises ProjectError when no data is loaded or the store cannot be
        read."""
        return self._account(self.account.info)

    def set_dataset_name(self, name) -> DatasetBudgetInfo:
        """Name the loaded data in the budget store (saved in the project file); see ``BudgetAccount.rename``."""
        before = self.account.name
        info = self._account(lambda: self.account.rename(name))
        if self.account.name != before:
            self.set_dirty(True)
        self.notify("ledger")
        return info

    def set_dataset_total(self, total) -> DatasetBudgetInfo:
        """Set the loaded data's lifetime budget deliberately (not below what was spent on it)."""
        info = self._account(lambda: self.account.set_total(total))
        self.notify("ledger")
        return info

    def set_new_dataset(self, new: bool) -> DatasetBudgetInfo:
        """Declare the loaded records other people than the known dataset they match loosely (or take that
        declaration back): their releases then get a budget of their own."""
        self.account.new_dataset = bool(new)
        self.notify("ledger")
        return self.dataset_budget()

    def release_question(self, epsilon=None) -> ReleaseQuestion:
        """The question a release-mode run asks before it spends ``epsilon`` (default: the project's), from
        the release service: the dataset's name, lifetime budget and what was spent on it come from the
        persistent budget store (every project and command on the same records). ``refusal`` is non-empty
        when the run would be refused (no data, undeclared classes, epsilon beyond what the figures show or
        more than what remains on the dataset, an unusable store): nothing is to be asked then."""
        from dpstudio.model.release.question import epsilon_refusal

        eps = check_epsilon(self.epsilon if epsilon is None else epsilon)
        refusal = ""
        if not self.has_data:
            refusal = "no data is loaded: open a file in the Data panel"
        elif self.algorithm in registry.TABLE_ALGORITHMS and self.classes is None and self.class_attribute is not None:
            refusal = (
                f"the class values of {self.class_attribute} are not declared: a release lists exactly the "
                "public classes; declare them in the Data panel (Class values)"
            )
        if refusal or epsilon_refusal(eps):
            return ReleaseQuestion(
                self._default_dataset_name(),
                None if self.data_path is None else str(self.data_path),
                eps,
                eps,
                Fraction(0),
                Fraction(0),
                refusal or epsilon_refusal(eps),
            )
        what = f"studio {self.algorithm} on {self.data_path.name if self.data_path is not None else 'data'}"
        request = self.account.request(eps, what)
        request.binding = self.question_binding()
        question = ReleaseService().question(request)
        if not question.refusal and self.missing == DROP_MISSING:
            from dpstudio.model.project.missing import drop_note, missing_summary

            note = drop_note(missing_summary(self, self.release_columns()))
            if note:
                question = replace(question, notes=(*question.notes, note))
        return question

    release_confirmation = release_question

    def question_binding(self) -> str:
        """What a release question is about: the load of data it was asked on (``load_token``, new at every
        load, unique in the process) and every input a run would use (the saved form: public inputs with their
        provenance, algorithm, parameters, epsilon). A question answered for another project, or before the
        data or an input changed, starts no run: nothing is spent."""
        inputs = {k: v for k, v in self.to_dict().items() if k not in ("mode", "seed", "release_ledger")}
        text = json.dumps([self.load_token, inputs], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def start_run(self, answer: ReleaseQuestion | None = None) -> RunSetup:
        """Noise and ledger for a new run in the current mode.

        Teaching: ``SimulationNoise(seed)`` and a fresh ledger of ``epsilon`` (re-run freely).
        Release: ``answer`` is the ``release_question`` the user said Yes to; the release service charges the
        budget store for its epsilon, then hands out ``SecureNoise`` and a fresh ledger (kept as
        ``release_ledger``). ProjectError (nothing spent) when there is no answer, the question was a
        refusal, or the store refuses the charge.
        """
        if self.mode == TEACHING:
            return ReleaseService.simulate(self.epsilon, self.seed)
        if answer is None:
            raise ProjectError("a release run needs its question answered first (release_question): nothing was spent")
        if answer.request is not None and answer.request.binding != self.question_binding():
            raise ProjectError(
                f"this question was asked about other data or other inputs (dataset {answer.dataset!r}), not "
                "about what would run now: ask again; nothing was spent"
            )
        if answer.epsilon != self.epsilon:
            raise ProjectError(
                f"the question answered was for epsilon {float(answer.epsilon):g}, the project's is "
                f"{float(self.epsilon):g}: ask again; nothing was spent"
            )
        try:
            setup = ReleaseService().begin(answer, True)
        except ReleaseRefused as exc:
            raise ProjectError(str(exc)) from None
        # no notify here: a studio run calls this on its worker thread; ``record_run`` announces the
        # spend on the GUI thread when the run ends
        self.account.total = None
        self.release_in_progress = (
            f"epsilon {float(setup.epsilon):g} on dataset {(setup.budget or {}).get('dataset') or answer.dataset!r}"
        )
        self.release_ledger = setup.ledger
        self._ledger_hash = self.data_hash
        self.run_budget = setup.budget
        self.run_store = setup.store
        return setup

    def record_run(
        self,
        events: list,
        ledger: Ledger,
        teaching: bool,
        result: Any = None,
        snapshot: Any = None,
        budget: dict | None = None,
        store: str | None = None,
    ) -> None:
        """Keep the record of a finished (or cancelled) run (``model.release.record.RunRecord``: its events,
        in memory only, its result, its ledger and the snapshot of the inputs it ran with; the export
        describes it). ``budget`` and ``store``: the budget store's charge and where it was made (default:
        those ``start_run`` kept for a release run)."""
        from dpstudio.model.release.record import RunRecord

        self.release_in_progress = ""
        if result is None:
            from dpstudio.core.events import RunFinished

            result = next((ev.result for ev in reversed(events) if isinstance(ev, RunFinished)), None)
        if not teaching:
            budget = self.run_budget if budget is None else budget
            store = self.run_store if store is None else store
        self.record = RunRecord(result, ledger, snapshot, teaching, budget, store, tuple(events))
        self.notify("run")
        self.notify("ledger")
        self.set_dirty(True)

    def clear_run(self, notify: bool = True) -> None:
        self.record = None
        if notify:
            self.notify("run")
            self.notify("ledger")

    # the last run's parts, read from its record
    @property
    def events(self) -> list:
        return [] if self.record is None else list(self.record.events)

    @property
    def result(self) -> Any:
        return None if self.record is None else self.record.result

    @property
    def run_ledger(self) -> Ledger | None:
        return None if self.record is None else self.record.ledger

    @property
    def run_teaching(self) -> bool | None:
        return None if self.record is None else self.record.teaching

    @property
    def run_snapshot(self) -> Any:
        return None if self.record is None else self.record.snapshot

    @property
    def can_export(self) -> bool:
        """True only for a finished release-mode run (secure noise, budget spent in the release ledger) whose
        snapshot allows it (its inputs were public or confirmed when it ran)."""
        return self.mode == RELEASE and self.record is not None and not self.record.export_refusal()

    # -- persistence ---------------------------------------------------------------------------------------
    def to_dict(self, relative_to: Path | None = None) -> dict:
        """The saved form: no raw data, no events, no true counts."""
        data_path = None
        data_rel = None
        if self.data_path is not None:
            data_path = str(Path(self.data_path).resolve())
            if relative_to is not None:
                try:
                    data_rel = os.path.relpath(data_path, Path(relative_to).resolve())
                except ValueError:  # another drive on Windows
                    data_rel = None
        return {
            "format": FILE_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "data": {
                "path": data_path,
                "relative_path": data_rel,
                "sha256": self.data_hash,
                "columns": list(self.columns),
                "missing": self.missing,
                "missing_token": self.missing_token,
                "dataset_name": self.dataset_name,
                "encoding": self.data_encoding,
            },
            "attributes": {
                c: {
                    "role": self.roles.get(c),
                    "type": self.types.get(c),
                    "bounds": list(self.bounds[c]) if c in self.bounds else None,
                    **({"numeric_type": self.numeric_types[c]} if c in self.numeric_types else {}),
                }
                for c in self.columns
            },
            "classes": None if self.classes is None else list(self.classes),
            "taxonomies": {a: taxonomy_to_dict(t) for a, t in self.taxonomies.items()},
            "taxonomy_sources": dict(self.taxonomy_sources),
            "provenance": {k: p.to_dict() for k, p in self.provenance.items()},
            "algorithm": {"name": self.algorithm, "params": self.params},
            "epsilon": str(self.epsilon),
            "mode": self.mode,
            "seed": self.seed,
            "release_ledger": None if self.release_ledger is None else self.release_ledger.to_dict(),
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the project as JSON (atomically; overwriting the same project file is allowed)."""
        from dpstudio.io.atomic import atomic_write

        path = Path(path)
        if path.suffix != FILE_SUFFIX:
            path = path.with_name(path.name + FILE_SUFFIX)
        text = json.dumps(self.to_dict(relative_to=path.parent), indent=2, allow_nan=False)
        atomic_write(path, text, overwrite=True)
        self.path = path
        self.notify("path")
        self.set_dirty(False)
        return path

    @classmethod
    def read_file(cls, path: str | os.PathLike) -> dict:
        """Parse and check a project file; ProjectError names the problem."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ProjectError(f"{path}: no such project file") from None
        except UnicodeDecodeError:
            raise ProjectError(f"{path}: not a dpstudio project (not UTF-8 text)") from None
        except OSError as exc:
            raise ProjectError(f"{path}: cannot read ({exc.strerror})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProjectError(f"{path}: not a dpstudio project (JSON error on line {exc.lineno}: {exc.msg})") from None
        if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
            raise ProjectError(f"{path}: not a dpstudio project file")
        version = data.get("schema_version")
        if not isinstance(version, int) or version > SCHEMA_VERSION or version < 1:
            raise ProjectError(
                f"{path}: project schema version {version!r} is not supported "
                f"(this dpstudio reads version {SCHEMA_VERSION})"
            )
        return data

    def resolve_data_path(self, data: dict, project_path: Path) -> Path | None:
        """Where the saved data file is now: the saved absolute path, else relative to the project file."""
        d = data.get("data") or {}
        for candidate in (d.get("path"), d.get("relative_path")):
            if not candidate:
                continue
            p = Path(candidate)
            if not p.is_absolute():
                p = project_path.parent / p
            if p.is_file():
                return p
        return Path(d["path"]) if d.get("path") else None

    @staticmethod
    def saved_encoding(data: dict) -> str:
        """The text encoding a saved project's data file is read with (projects saved before it was
        recorded: UTF-8)."""
        enc = (data.get("data") or {}).get("encoding")
        return str(enc) if enc else "utf-8"

    def apply_dict(
        self, data: dict, dataset: Any = None, data_path: Path | None = None, project_path: Path | None = None
    ) -> list[str]:
        """Replace the state with a saved one. ``dataset`` is the data file loaded again by the caller
        (None if it could not be found). Returns warnings for the user (data changed, missing...)."""
        warnings: list[str] = []
        d = data.get("data") or {}
        saved_hash = d.get("sha256")
        self._muted = True
        try:
            self._reset_state()
            if dataset is not None:
                file_hash = file_sha256(data_path) if data_path is not None and Path(data_path).is_file() else None
                self.set_data(dataset, data_path, file_hash, encoding=self.saved_encoding(data))
                if saved_hash and file_hash and file_hash != saved_hash:
                    warnings.append(
                        f"the data file {data_path} changed since the project was saved "
                        "(its SHA-256 differs); check roles, taxonomies and bounds"
                    )
            else:
                self.data_path = Path(d["path"]) if d.get("path") else None
                self.data_hash = saved_hash
                self.data_encoding = self.saved_encoding(data)
                self.columns = list(d.get("columns") or [])
                if self.data_path is not None:
                    warnings.append(f"the data file {self.data_path} was not found: open it again from the Data panel")
            missing = d.get("missing", DROP_MISSING)
            self.missing = missing if missing in MISSING_CHOICES else DROP_MISSING
            token = str(d.get("missing_token") or DEFAULT_MISSING_TOKEN).strip()
            self.missing_token = token or DEFAULT_MISSING_TOKEN
            self.dataset_name = str(d["dataset_name"]) if d.get("dataset_name") else None
            for c, a in (data.get("attributes") or {}).items():
                if c not in self.columns:
                    warnings.append(f"the saved attribute {c} is not in the data")
                    continue
                if a.get("role") in ROLES:
                    self.roles[c] = a["role"]
                if a.get("type") in TYPES:
                    self.types[c] = a["type"]
                    if callable(getattr(self.dataset, "set_type", None)):  # the data read as declared
                        try:
                            self.dataset.set_type(c, a["type"])
                        except Exception as exc:  # a changed data file; keep going with a warning
                            warnings.append(f"{c}: {exc}")
                if a.get("numeric_type") is not None:
                    self.numeric_types[c] = str(a["numeric_type"])
                b = a.get("bounds")
                if b is not None:
                    lo, hi = float(b[0]), float(b[1])
                    if not lo < hi:
                        raise ProjectError(f"saved bounds of {c} are not ordered ({lo:g} >= {hi:g})")
                    self.bounds[c] = (lo, hi)
            classes = data.get("classes")
            if classes is not None:
                if not isinstance(classes, list):
                    raise ProjectError("saved classes must be a list of class values")
                self.set_classes([str(c) for c in classes])
            for attr, t in (data.get("taxonomies") or {}).items():
                self.taxonomies[attr] = taxonomy_from_dict(t)
                self.taxonomies[attr].attribute = attr
            self.taxonomy_sources = dict(data.get("taxonomy_sources") or {})
            for k, d in (data.get("provenance") or {}).items():
                if isinstance(d, dict):
                    self.provenance[str(k)] = Provenance.from_dict(d)
            for attr, src in self.taxonomy_sources.items():  # files saved before provenance was kept
                if src == pv.DERIVED_NOTE and pv.key(pv.TAXONOMY, attr) not in (data.get("provenance") or {}):
                    self.provenance[pv.key(pv.TAXONOMY, attr)] = Provenance(pv.FLAT_FROM_DATA, True)
            alg = data.get("algorithm") or {}
            self.algorithm = alg.get("name") or self.algorithm
            self.params = dict(alg.get("params") or {})
            try:
                self.epsilon = check_epsilon(data.get("epsilon", "1"))
            except ValueError as exc:
                raise ProjectError(f"saved epsilon: {exc}") from None
            mode = data.get("mode", TEACHING)
            self.mode = mode if mode in MODES else TEACHING
            self.seed = int(data.get("seed", self.seed))
            led = data.get("release_ledger")
            if led is not None:
                try:
                    self.release_ledger = Ledger.from_dict(led)
                except (KeyError, ValueError, TypeError) as exc:
                    raise ProjectError(f"saved ledger is invalid: {exc}") from None
                self._ledger_hash = saved_hash
            self.path = None if project_path is None else Path(project_path)
            self.dirty = False
        finally:
            self._muted = False
        for f in FIELDS:
            self.notify(f)
        return warnings

    # -- helpers ---------------------------------------------------------------------------------------------
    def _check_attribute(self, attribute: str) -> None:
        if attribute not in self.columns:
            raise ProjectError(f"{attribute!r} is not an attribute of the loaded data")
