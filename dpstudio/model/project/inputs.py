"""The public inputs of a project (Qt-free): each attribute's role and type, the bounds and kinds of numeric
attributes, the class values, the missing-value choice, the taxonomies, and the provenance of each input
(where it came from; derived from the data until confirmed public knowledge). A release depends on nothing
else the data owner declares."""

from __future__ import annotations

import math
from typing import Any

from dpstudio.algorithms import registry
from dpstudio.core.taxonomy import Taxonomy
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.changes import Changes
from dpstudio.model.project.provenance import Provenance
from dpstudio.model.project.vocabulary import (
    CATEGORICAL,
    CLASS,
    CODE_LIMIT,
    DEFAULT_MISSING_TOKEN,
    DROP_MISSING,
    KEEP_MISSING,
    MISSING_CHOICES,
    NUMERIC,
    QUASI_IDENTIFIER,
    ROLES,
    TYPES,
    ProjectError,
    authored_here,
    edited_provenance,
    pd_unique_small,
)


class PublicInputs:
    """The declarations a release depends on, with their provenance; setters announce each change."""

    def __init__(self, owner) -> None:
        self.owner = owner  # the Project this part belongs to: the other parts are read through it
        self.changes = Changes(
            "roles", "types", "bounds", "classes", "missing", "taxonomies", "provenance"
        )  # what this part announces (``model.project.changes``)
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

    def _propose_codes(self, frame) -> None:
        """Columns read as numbers that hold at most CODE_LIMIT distinct whole numbers in 0..99, each repeated
        (CODE_REPEATS rows per value on average; survey answers coded 1..12, say) are proposed as categorical, with the reason, for the data owner to confirm with
        the other guessed types; a count or a measurement has more values."""
        for c in self.owner.columns:
            if self.types.get(c) != NUMERIC:
                continue
            values = pd_unique_small(frame[c], CODE_LIMIT)
            if values is None or not all(float(v).is_integer() and 0 <= v <= 99 for v in values):
                continue
            set_type = getattr(self.owner.dataset, "set_type", None)
            if callable(set_type):
                set_type(c, CATEGORICAL)
            self.types[c] = CATEGORICAL
            self.provenance[pv.key(pv.TYPE, c)] = Provenance(
                f"guessed from the data: {len(values)} distinct whole numbers, read as codes (categorical); "
                "choose numeric if they are quantities",
                derived=True,
            )

    def set_role(self, attribute: str, role: str) -> None:
        self.owner._check_attribute(attribute)
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
        self.changes.emit("roles")
        if self.classes is not None and self.class_attribute != old_class:
            self.classes = None  # the declaration belonged to the previous class attribute
            if old_class is not None:
                self.provenance.pop(pv.key(pv.CLASSES, old_class), None)
            self.changes.emit("classes")

    def set_type(self, attribute: str, kind: str, source: str = "chosen by you") -> None:
        """Set a column's type (numeric or categorical): a public declaration, recorded with ``source``."""
        self.owner._check_attribute(attribute)
        if kind not in TYPES:
            raise ProjectError(f"type must be one of {', '.join(TYPES)}, got {kind!r}")
        if self.types.get(attribute) == kind:
            if self.provenance_of(pv.key(pv.TYPE, attribute)).derived:  # choosing it by hand declares it
                self._set_provenance(pv.key(pv.TYPE, attribute), Provenance(source))
            return
        if kind == NUMERIC and self.owner.has_data:
            import pandas as pd

            values, counts = self.owner.value_counts(attribute)
            parsed = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy()
            bad = [(v, int(n)) for v, n, x in zip(values, counts, parsed) if x != x]
            if bad:
                sample = ", ".join(repr(v) for v, _ in sorted(bad, key=lambda t: -t[1])[:5])
                raise ProjectError(
                    f"{attribute} cannot be numeric: {sum(n for _, n in bad)} value(s) are not "
                    f"numbers (for example {sample})"
                )
        set_type = getattr(self.owner.dataset, "set_type", None)
        if callable(set_type):
            set_type(attribute, kind)
        self.types[attribute] = kind
        self.provenance[pv.key(pv.TYPE, attribute)] = Provenance(source)
        if kind == CATEGORICAL:
            self.bounds.pop(attribute, None)
            self.numeric_types.pop(attribute, None)
            self.provenance.pop(pv.key(pv.KIND, attribute), None)
        self.changes.emit("types")

    def set_numeric_type(
        self, attribute: str, declaration: str | None, source: str = "chosen by you", derived: bool = False
    ) -> None:
        """Declare a numeric attribute's kind: "integer", "continuous" or "continuous:RESOLUTION" (public
        knowledge; ``derived`` when read from the values, see ``propose_numeric_type``); None removes the
        declaration (the run then uses the default from the public bounds: whole numbers -> integer, else
        continuous)."""
        from dpstudio.core.lattice import LatticeError, NumericType

        self.owner._check_attribute(attribute)
        k = pv.key(pv.KIND, attribute)
        if declaration is None:
            self.provenance.pop(k, None)
            if self.numeric_types.pop(attribute, None) is not None:
                self.changes.emit("types")
                self.changes.emit("provenance", dirty=False)
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
        self.changes.emit("types")
        self.changes.emit("provenance", dirty=False)

    def _numeric_summary(self, attribute: str, what: str) -> tuple[float, float, bool] | None:
        """(least, largest, all whole) of a numeric attribute's values, None without numbers, for a proposal
        from the data (its distinct values decide; a table read through an engine answers from its counts or,
        for a column with very many values, SQL aggregates); ProjectError without data or for a categorical
        attribute ("only numeric attributes {what}")."""
        import pandas as pd

        from dpstudio.io.datasets import value_range

        if not self.owner.has_data:
            raise ProjectError("open data first")
        self.owner._check_attribute(attribute)
        if self.types.get(attribute) != NUMERIC:
            raise ProjectError(f"{attribute} is categorical: only numeric attributes {what}")
        if self.owner.engine_table is not None:
            return self.owner.engine_table.numeric_summary(attribute)
        distinct = self.owner.value_counts(attribute)[0]
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
        self.owner._check_attribute(attribute)
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
        self.changes.emit("bounds")
        self.changes.emit("provenance", dirty=False)

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
            self.changes.emit("bounds")

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
        self.changes.emit("classes")
        self.changes.emit("provenance", dirty=False)

    def propose_classes(self) -> list[str]:
        """The class values present in the data (sorted), marked "derived from the data: not private" until
        confirmed: a record with a rare class would add it to every release."""
        from dpstudio.io.encoding import _class_text

        cls = self.class_attribute
        if not self.owner.has_data or cls is None:
            raise ProjectError("open data and choose the class attribute first")
        values = sorted({_class_text(v) for v in self.owner.value_counts(cls)[0]})
        self.set_classes(values, pv.CLASSES_FROM_DATA, derived=True)
        return list(values)

    def set_missing(self, choice: str) -> None:
        if choice not in MISSING_CHOICES:
            raise ProjectError(f"missing-value choice must be 'drop' or 'keep', got {choice!r}")
        if choice == self.missing:
            return
        self.missing = choice
        self.changes.emit("missing")

    def set_missing_token(self, token: str) -> None:
        """The value a kept missing cell takes (a public declaration: how the file writes a missing answer,
        '?' by default); every taxonomy of a categorical quasi-identifier with missing cells must cover it."""
        token = str(token if token is not None else "").strip()
        if not token or "\n" in token or "\r" in token:
            raise ProjectError("the missing-value token must be a non-empty value on one line, e.g. '?'")
        if token == self.missing_token:
            return
        self.missing_token = token
        self.changes.emit("missing")

    def attributes(self, role: str) -> list[str]:
        """Columns with the given role, in column order."""
        return [c for c in self.owner.columns if self.roles.get(c) == role]

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
        self.owner._check_attribute(attribute)
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
        self.changes.emit("taxonomies")
        self.changes.emit("provenance", dirty=False)

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
        self.changes.emit("provenance")

    def restore_provenance(self, input_key: str, prov: Provenance | None) -> None:
        """Put back a provenance the input had (the taxonomy editor's undo and redo, a merge's credit);
        None removes it."""
        kind, _, attr = input_key.partition(":")
        if prov is None:
            if self.provenance.pop(input_key, None) is not None:
                self.changes.emit("provenance")
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
        if self.owner.algorithm in registry.HISTOGRAM_ALGORITHMS:
            attr = (self.owner.params or {}).get("attribute") or self.histogram_attribute()
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
        if self.owner.algorithm in registry.HISTOGRAM_ALGORITHMS:
            attr = (self.owner.params or {}).get("attribute") or self.histogram_attribute()
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

    def uncovered(self, attribute: str) -> tuple[tuple[Any, int], ...]:
        """((value, rows), ...) not covered by the taxonomy of ``attribute``, most frequent first; with missing
        values kept, the missing-value token too when the column has missing cells (exactly what the run
        checks)."""
        tax = self.taxonomies.get(attribute)
        if tax is None or not self.owner.has_data or attribute not in self.owner.columns:
            return ()
        values, counts = self.owner.value_counts(attribute)
        leaf_ids = tax.map_values(values).leaf_ids
        bad = [
            (v.item() if hasattr(v, "item") else v, int(c)) for v, c, leaf in zip(values, counts, leaf_ids) if leaf < 0
        ]
        if self.missing == KEEP_MISSING and self.types.get(attribute) != NUMERIC:
            # kept missing cells become the declared token: the run checks it like any value
            n_missing = self.owner.missing_rows(attribute)
            if n_missing and tax.map_values([self.missing_token]).leaf_ids[0] < 0:
                bad.append((self.missing_token, n_missing))
        bad.sort(key=lambda t: (-t[1], str(t[0])))
        return tuple(bad)
