"""What stands between the project and a run, all at once (Qt-free): the readiness checklist.

``readiness(project, epsilon_text=None) -> list[Problem]`` lists every problem the project has for its
chosen algorithm and mode, in the order a person fixes them (data, roles, class, class values, each
attribute's taxonomy or bounds, derived public inputs, epsilon, budget). Each ``Problem`` names the place
to fix it (``place``: a panel and control, see PLACES) and the attribute or input concerned, so the
studio's checklist can offer a button that goes there; the Algorithm panel's Run refuses with the same
list, and tests and the CLI can call it without Qt.

Privacy: the checks read the project's public inputs and its data-owner view (uncovered values, as the
Taxonomy panel shows them); nothing here is released or logged. A release run is refused while a public
input derived from the data is unconfirmed, because its export would be refused after the budget is spent.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpstudio.algorithms import registry
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.epsilon_text import parse_epsilon_text
from dpstudio.model.project.project import NUMERIC, QUASI_IDENTIFIER, RELEASE, Project, ProjectError

#: place -> (panel title, what is there): where each kind of problem is fixed
PLACES = {
    "data.open": ("Data", "Open"),
    "data.role": ("Data", "Role"),
    "data.type": ("Data", "Type"),
    "data.types": ("Data", "Confirm column types"),
    "data.bounds": ("Data", "Public bounds"),
    "data.classes": ("Data", "Class values"),
    "taxonomy": ("Taxonomy", "the attribute's taxonomy"),
    "export.inputs": ("Export", "Public inputs"),
    "algorithm.epsilon": ("Algorithm", "epsilon"),
    "algorithm.budget": ("Algorithm", "dataset budget"),
    "algorithm.steps": ("Algorithm", "h"),
}


@dataclass(frozen=True)
class Problem:
    """One reason the project cannot run yet."""

    text: str
    place: str  # a key of PLACES
    attribute: str | None = None  # the attribute (or, for export.inputs, the input key) to select there

    @property
    def panel(self) -> str:
        return PLACES[self.place][0]


def _attribute_problems(p: Project, a: str) -> list[Problem]:
    if p.types.get(a) == NUMERIC:
        if a not in p.bounds:
            return [Problem(f"{a} is numeric and needs public bounds", "data.bounds", a)]
        return []
    tax = p.taxonomies.get(a)
    if tax is None:
        return [Problem(f"{a} has no taxonomy", "taxonomy", a)]
    if tax.is_numeric:
        return [
            Problem(
                f"{a} is categorical but its taxonomy is made of intervals (make {a} numeric, or import "
                "a categorical taxonomy)",
                "taxonomy",
                a,
            )
        ]
    values, rows = p.uncovered_values(a, limit=3)
    if rows:
        return [
            Problem(f"{a}: the taxonomy does not cover some values (e.g. {', '.join(map(str, values))})", "taxonomy", a)
        ]
    return []


def _table_problems(p: Project) -> list[Problem]:
    out: list[Problem] = []
    qis = p.attributes(QUASI_IDENTIFIER)
    cls = p.class_attribute
    if not qis:
        out.append(
            Problem(
                "no attribute is a quasi-identifier: give at least one the role 'quasi-identifier'",
                "data.role",
                p.columns[0] if p.columns else None,
            )
        )
    if cls is None:
        out.append(
            Problem(
                "the class attribute is not chosen: give one attribute the role 'class'",
                "data.role",
                p.columns[-1] if p.columns else None,
            )
        )
    elif p.classes is None and p.mode == RELEASE:
        out.append(
            Problem(
                f"the class values of {cls} are not declared (a release lists exactly the public classes)",
                "data.classes",
                cls,
            )
        )
    for a in qis:
        out.extend(_attribute_problems(p, a))
    if qis and not out:
        out.extend(_tree_size_problems(p))
    return out


def _tree_size_problems(p: Project) -> list[Problem]:
    """The tree's largest size, from public inputs (``runs.tree_size_problem``): refused before the question."""
    from dpstudio.model.release.runs import RunInputError, table_engine_params, tree_size_problem

    params = p.plan_params()
    try:
        steps = int(table_engine_params(p.algorithm, params, p.epsilon, params["numeric_attributes"]).steps)
    except RunInputError:  # a split or a setting that cannot run: said by the run itself
        return []
    try:
        found = tree_size_problem(p, steps)
    except RunInputError as exc:  # $DPSTUDIO_MAX_LEAVES is not a number
        return [Problem(str(exc), "algorithm.steps")]
    if found is None:
        return []
    text, attribute = found
    return [Problem(text, "taxonomy", attribute) if attribute else Problem(text, "algorithm.steps")]


def _histogram_problems(p: Project) -> list[Problem]:
    attr = (p.params or {}).get("attribute")
    if attr is None:
        found = [a for a in p.attributes(QUASI_IDENTIFIER) if p.types.get(a) == NUMERIC and a in p.bounds]
        if not found:
            numeric = [a for a in p.columns if p.types.get(a) == NUMERIC]
            return [
                Problem(
                    "a histogram needs a numeric quasi-identifier with public bounds",
                    "data.bounds" if numeric else "data.type",
                    (numeric or p.columns or [""])[0] or None,
                )
            ]
        return []
    if p.types.get(attr) != NUMERIC or attr not in p.bounds:
        return [Problem(f"{attr} needs to be numeric with public bounds for a histogram", "data.bounds", attr)]
    return []


def _derived_problems(p: Project) -> list[Problem]:
    if p.mode != RELEASE:
        return []
    undeclared = pv.key(pv.CLASSES, p.class_attribute or "") if p.classes is None else None  # listed already
    keys = [k for k in p.unconfirmed_inputs() if k != undeclared]
    types = [k.partition(":")[2] for k in keys if k.startswith(pv.TYPE + ":")]
    out = []
    if types:  # confirmed together, in one dialog
        shown = ", ".join(types[:6]) + (f" and {len(types) - 6} more" if len(types) > 6 else "")
        out.append(
            Problem(
                f"the types of {len(types)} column{'s' if len(types) > 1 else ''} ({shown}) were read "
                "from the data and are not confirmed as public knowledge",
                "data.types",
                types[0],
            )
        )
    return out + [
        Problem(
            f"the {pv.describe(k)} was derived from the data and is not confirmed as public "
            "knowledge (its release could not be exported)",
            "export.inputs",
            k,
        )
        for k in keys
        if not k.startswith(pv.TYPE + ":")
    ]


def _budget_problems(p: Project, eps) -> list[Problem]:
    if p.mode != RELEASE or eps is None:
        return []
    facts = p.release_confirmation(eps)
    if not facts.refusal or facts.refusal.startswith("the class values"):  # listed above already
        return []
    return [Problem(facts.refusal, "algorithm.budget")]


def readiness(project: Project, epsilon_text: str | None = None, budget: bool = True) -> list[Problem]:
    """Every problem of ``project`` for its algorithm and mode (empty: ready to run). ``epsilon_text``:
    what the epsilon box shows (checked as the run reads it); None checks the project's epsilon.
    ``budget=False`` leaves out the budget store's answer (``budget_problems``, always last): what is left
    depends on the project and the epsilon text alone."""
    p = project
    if not p.has_data:
        return [Problem("no data is loaded: open a file, or the bundled Adult sample", "data.open")]
    if p.algorithm in registry.HISTOGRAM_ALGORITHMS:
        out = _histogram_problems(p)
    else:
        out = _table_problems(p)
    out.extend(_derived_problems(p))
    if epsilon_text is not None:
        try:
            parse_epsilon_text(epsilon_text)
        except ValueError as exc:
            out.append(Problem(f"epsilon is not valid: {exc}", "algorithm.epsilon"))
    if budget:
        out.extend(budget_problems(p, epsilon_text))
    return out


def budget_problems(project: Project, epsilon_text: str | None = None) -> list[Problem]:
    """What the budget store says against a release run of ``epsilon_text`` (None: the project's epsilon)
    now: it is read again at every call (another window or the command line may have spent since)."""
    if not project.has_data:
        return []
    eps: Fraction | None = project.epsilon
    if epsilon_text is not None:
        try:
            eps = parse_epsilon_text(epsilon_text)
        except ValueError:  # listed by ``readiness``
            return []
    try:
        return _budget_problems(project, eps)
    except (ProjectError, ValueError) as exc:
        return [Problem(f"the budget cannot be checked: {exc}", "algorithm.budget")]


def refusal_text(problems: list[Problem]) -> str:
    """One message naming every problem and where it is fixed ("" when there is none): Run's refusal."""
    if not problems:
        return ""
    return "not ready to run: " + "; ".join(f"{x.text} \u2192 {x.panel} panel ({PLACES[x.place][1]})" for x in problems)


__all__ = ["PLACES", "Problem", "budget_problems", "readiness", "refusal_text"]
