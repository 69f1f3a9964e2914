"""Declarations belong to the dataset they were made for (Qt-free).

When the studio opens another file, the public inputs declared for the previous one (taxonomies, bounds,
numeric kinds, class values, column types, each with its provenance) are taken off the project and kept
here as ``Declarations``: nothing declared for one dataset is silently described as declared for
another (the sidecar and the report would say "the bundled Adult sample's public bounds" of a survey).
The user may re-apply them in one step (``apply``); each re-applied input then records that wording:
"<its source>; re-applied from the declarations for <the old file> to <the new file>", keeping whether it
was derived from data and any confirmation. Only inputs whose column exists in the new data with the same
type are re-applied; the others are listed as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dpstudio.model.project import provenance as pv
from dpstudio.model.project.provenance import Provenance


@dataclass
class Declarations:
    """What was declared for the data file ``label`` (see the module docstring)."""

    label: str
    types: dict = field(default_factory=dict)  # column -> "numeric"/"categorical" (declared ones only)
    taxonomies: dict = field(default_factory=dict)  # attribute -> Taxonomy
    taxonomy_sources: dict = field(default_factory=dict)
    bounds: dict = field(default_factory=dict)
    numeric_types: dict = field(default_factory=dict)
    class_attribute: str | None = None
    classes: list | None = None
    provenance: dict = field(default_factory=dict)  # input key -> Provenance

    @classmethod
    def capture(cls, project, label: str) -> Declarations:
        declared_types = {
            c: t for c, t in project.types.items() if not project.provenance_of(pv.key(pv.TYPE, c)).derived
        }
        return cls(
            label,
            declared_types,
            dict(project.taxonomies),
            dict(project.taxonomy_sources),
            dict(project.bounds),
            dict(project.numeric_types),
            project.class_attribute,
            None if project.classes is None else list(project.classes),
            dict(project.provenance),
        )

    def count(self) -> int:
        return (
            len(self.types)
            + len(self.taxonomies)
            + len(self.bounds)
            + len(self.numeric_types)
            + (self.classes is not None)
        )

    def applicable(self, columns) -> int:
        """How many of these inputs name a column of other data with ``columns`` (0: nothing to offer)."""
        return len(self.applicable_inputs(columns))

    def applicable_inputs(self, columns) -> list[str]:
        """These inputs that name a column of other data with ``columns``, in words ("bounds of age")."""
        cols = set(columns)
        kinds = (
            ("type", self.types),
            ("taxonomy", self.taxonomies),
            ("bounds", self.bounds),
            ("numeric kind", self.numeric_types),
        )
        out = [f"{kind} of {name}" for kind, names in kinds for name in names if name in cols]
        if self.classes is not None and self.class_attribute in cols:
            out.append(f"class values of {self.class_attribute}")
        return out

    def _wording(self, key: str, target: str) -> Provenance:
        old = self.provenance.get(key) or Provenance("declared")
        return Provenance(
            f"{old.source}; re-applied from the declarations for {self.label} to {target}", old.derived, old.confirmed
        )

    def apply(self, project, target: str) -> tuple[list[str], list[str]]:
        """Re-apply to ``project`` (its data now ``target``); (inputs re-applied, inputs skipped with why)."""
        done, skipped = [], []
        cols = set(project.columns)

        def usable(attr: str, kind: str | None = None) -> bool:
            if attr not in cols:
                skipped.append(f"{attr}: not a column of {target}")
                return False
            if kind is not None and project.types.get(attr) != kind:
                skipped.append(f"{attr}: {project.types.get(attr)} in {target}, {kind} in {self.label}")
                return False
            return True

        for c, t in self.types.items():
            if c in cols:
                try:
                    project.set_type(c, t, self._wording(pv.key(pv.TYPE, c), target).source)
                    done.append(pv.key(pv.TYPE, c))
                except ValueError as exc:
                    skipped.append(f"{c}: {exc}")
        for a, (lo, hi) in self.bounds.items():
            if usable(a, "numeric"):
                prov = self._wording(pv.key(pv.BOUNDS, a), target)
                project.set_bounds(a, lo, hi, prov.source, prov.derived)
                project.provenance[pv.key(pv.BOUNDS, a)] = prov
                done.append(pv.key(pv.BOUNDS, a))
        for a, kind in self.numeric_types.items():
            if usable(a, "numeric"):
                prov = self._wording(pv.key(pv.KIND, a), target)
                project.set_numeric_type(a, kind, prov.source, prov.derived)
                project.provenance[pv.key(pv.KIND, a)] = prov
                done.append(pv.key(pv.KIND, a))
        for a, tax in self.taxonomies.items():
            if usable(a):
                prov = self._wording(pv.key(pv.TAXONOMY, a), target)
                project.set_taxonomy(a, tax, prov.source, prov.derived)
                project.provenance[pv.key(pv.TAXONOMY, a)] = prov
                done.append(pv.key(pv.TAXONOMY, a))
        if self.classes is not None and self.class_attribute is not None:
            if project.class_attribute == self.class_attribute:
                prov = self._wording(pv.key(pv.CLASSES, self.class_attribute), target)
                project.set_classes(self.classes, prov.source, prov.derived)
                project.provenance[pv.key(pv.CLASSES, self.class_attribute)] = prov
                done.append(pv.key(pv.CLASSES, self.class_attribute))
            else:
                skipped.append(
                    f"class values of {self.class_attribute}: {self.class_attribute} is not the class of {target}"
                )
        project.notify("provenance")
        return done, skipped


__all__ = ["Declarations"]
