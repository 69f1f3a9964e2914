"""What a run used, frozen when Run was pressed (Qt-free): the export describes this, never the window's
later state.

``snapshot_of(project)`` copies the dataset's identity (file, SHA-256 of its bytes, the budget store's
name), every public input the release depends on with the provenance it has now (``public_inputs``), the
inputs still derived from the data and unconfirmed (``unconfirmed``: their run can never be exported;
confirming them later does not launder it), the algorithm, its parameters, epsilon, the mode, and the
settings the re-run scripts need (class, class values, taxonomies, bounds, numeric kinds, missing-value
choice). Public inputs only: no record, no count.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import NUMERIC, QUASI_IDENTIFIER, Project, taxonomy_from_dict, taxonomy_to_dict


@dataclass(frozen=True)
class RunSnapshot:
    """See the module docstring. ``taxonomies`` are copies: editing a tree later changes nothing here."""

    teaching: bool
    epsilon: Fraction
    seed: int
    algorithm: str
    params: MappingProxyType
    data_path: str | None
    data_sha256: str | None
    dataset_name: str
    public_inputs: tuple = ()
    unconfirmed: tuple = ()  # descriptions of inputs derived from the data and unconfirmed at Run
    class_attribute: str | None = None
    classes: tuple | None = None
    quasi_identifiers: tuple = ()
    numeric: tuple = ()  # the numeric quasi-identifiers
    taxonomies: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    bounds: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    numeric_types: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    missing: str = "drop"
    missing_token: str = "?"
    histogram_attribute: str | None = None

    def export_refusal(self) -> str:
        """Why this run can never be exported ("" when it can, as far as its inputs go)."""
        if self.teaching:
            return "it was a teaching run (simulation noise): not a release"
        if self.unconfirmed:
            return (
                "when it ran, these inputs were derived from the data and not confirmed as public knowledge: "
                f"{'; '.join(self.unconfirmed)}. Confirming them now does not change what ran: confirm them, "
                "then run again"
            )
        return ""


def snapshot_of(project: Project) -> RunSnapshot:
    """The project's inputs as a run started now would use them."""
    from dpstudio.model.release.runs import histogram_attribute

    p = project
    qis = tuple(p.attributes(QUASI_IDENTIFIER))
    numeric = tuple(a for a in qis if p.types.get(a) == NUMERIC)
    taxonomies = {a: taxonomy_from_dict(taxonomy_to_dict(p.taxonomies[a])) for a in qis if a in p.taxonomies}
    unconfirmed = tuple(f"{pv.describe(k)} ({p.provenance_of(k).source})" for k in p.unconfirmed_inputs())
    hist = (p.params or {}).get("attribute") or histogram_attribute(p)
    return RunSnapshot(
        teaching=p.teaching,
        epsilon=p.epsilon,
        seed=p.seed,
        algorithm=p.algorithm,
        params=MappingProxyType(copy.deepcopy(dict(p.params or {}))),
        data_path=None if p.data_path is None else str(p.data_path),
        data_sha256=p.data_hash,
        dataset_name=p.account.default_name(),
        public_inputs=tuple(copy.deepcopy(p.public_inputs_record())),
        unconfirmed=unconfirmed,
        class_attribute=p.class_attribute,
        classes=None if p.classes is None else tuple(p.classes),
        quasi_identifiers=qis,
        numeric=numeric,
        taxonomies=MappingProxyType(taxonomies),
        bounds=MappingProxyType({a: tuple(float(v) for v in p.bounds[a]) for a in numeric if a in p.bounds}),
        numeric_types=MappingProxyType({a: p.numeric_types[a] for a in numeric if a in p.numeric_types}),
        missing=p.missing,
        missing_token=p.missing_token,
        histogram_attribute=hist,
    )


__all__ = ["RunSnapshot", "snapshot_of"]
