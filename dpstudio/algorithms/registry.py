"""Every release algorithm of the studio, the command line and the API, declared once.

An ``Algorithm`` names one: its id in projects and the API, its name on screen, its family (``table``:
the DiffGen engine over a table with a class; ``histogram``: the interval-tree engine over one numeric
column), its ``--algorithm`` value on the command line, the engine's own name for it, and its parameters
(``ParamSpec``: what the Algorithm panel draws and the run takes). Every list of algorithms elsewhere
(the panel's menu, the command lines' choices, the plans' dispatch) is read from ``REGISTRY``.

Everything here is a public input: the parameters are chosen before the data is looked at, and each one's
help says which budget it moves.
"""

from __future__ import annotations

from dataclasses import dataclass

TABLE, HISTOGRAM = "table", "histogram"
#: where an algorithm puts its count noise (``Algorithm.noised``)
LEAVES, LEVELS, BINS, STRATEGY = "leaf counts", "every level of a tree", "bins", "bins and weighted sums"
#: how a table algorithm chooses its splits (``Algorithm.selection``): the exponential mechanism with
#: DiffGen's split points, or report-noisy-max over each level (MAXGDDP)
EXPONENTIAL, NOISY_MAX = "exponential mechanism", "noisy max"


@dataclass(frozen=True)
class ParamSpec:
    key: str
    label: str
    kind: str  # "int", "choice", "bool"
    default: object
    choices: tuple = ()
    lo: int = 0
    hi: int = 0
    help: str = ""
    special: str = ""  # the spin box's text for its lowest value (``lo``), e.g. "auto"


#: the value of the "steps" parameter that means "choose h from epsilon" (``diffgen_auto``; the studio's
#: default). The spin boxes start at 1 otherwise, so 0 specializations cannot be asked for in the studio.
AUTO_STEPS = 0


#: why H_b and SC leave the root (the total) un-noised by default: a noised root takes a whole level's share of
#: epsilon for one count, which least squares barely uses. With it noised, the released error of H_b at the
#: default 256 bins passes a flat histogram's near epsilon 1.9; without, near 3.8
#: (tests/model/test_histogram_defaults_vs_flat.py).
ROOT_HELP = (
    "give the total of all bins a noisy count of its own; off by default: it takes a whole level's share of "
    "epsilon for one count, and the released bins are then noisier (the total is still the sum of the bins)"
)


def _bins(hi: int = 1 << 20, why_at_most: str = "") -> ParamSpec:
    """A histogram's number of bins (at most ``hi``; ``why_at_most`` says why when it is small)."""
    note = f" ({why_at_most})" if why_at_most else ""
    return ParamSpec("bins", "bins", "int", 256, lo=2, hi=hi, help=f"equal-width bins over the public bounds, n{note}")


def _branching(special: str, meaning: str) -> ParamSpec:
    """An interval tree's children per node; 0 (shown as ``special``) leaves the choice to the engine."""
    return ParamSpec(
        "branching",
        "branching",
        "int",
        0,
        lo=0,
        hi=64,
        special=special,
        help=f"children per node; {special}: {meaning}",
    )


_PARAMS: dict[str, list[ParamSpec]] = {
    "diffgen": [
        ParamSpec(
            "steps",
            "refinement steps",
            "int",
            AUTO_STEPS,
            lo=AUTO_STEPS,
            hi=60,
            help="how many times the table is split into finer groups, each split chosen privately "
            "(h, the exponential-mechanism selections of DiffGen; auto: chosen from epsilon)",
            special="auto",
        ),
        ParamSpec(
            "score",
            "score",
            "choice",
            "max",
            ("max", "infogain"),
            help="how a candidate split is scored: Max (sensitivity 1) or normalised information gain "
            "(sensitivity log2 of the number of classes)",
        ),
        ParamSpec(
            "numeric_attributes",
            "how many attributes are numbers",
            "int",
            1,
            lo=0,
            hi=20,
            help="how many quasi-identifiers are numeric (|A_num| in the DiffGen paper); filled from the "
            "Data panel's roles and types",
        ),
    ],
    "maxgddp": [
        ParamSpec(
            "steps",
            "levels",
            "int",
            AUTO_STEPS,
            lo=AUTO_STEPS,
            hi=30,
            help="levels of the tree, h (auto: chosen from epsilon)",
            special="auto",
        ),
        ParamSpec(
            "fanout",
            "fan-out",
            "int",
            3,
            lo=2,
            hi=20,
            help="children per node, f; the level budgets grow by r = f^(1/3) per level (MAXGDDP)",
        ),
    ],
    "flat": [
        _bins(),
    ],
    "hb": [
        _bins(),
        _branching("automatic", "the value with the least expected error for ranges (Qardaji, Yang and Li 2013)"),
        ParamSpec("root_noised", "noise the root", "bool", False, help=ROOT_HELP),
    ],
    "sc": [
        _bins(),
        ParamSpec("root_noised", "noise the root", "bool", False, help=ROOT_HELP),
    ],
    "hopt": [
        _bins(4096, "the search over branchings and level budgets takes seconds above a few thousand bins"),
        ParamSpec(
            "root_noised",
            "noise the root",
            "bool",
            True,
            help="let the optimiser noise the root (it may still leave it out when that pays)",
        ),
    ],
    "luedptree": [
        _bins(),
        _branching("SC's shape", "the tree SC builds (seed 003 section 3.3)"),
    ],
    "pidentity": [
        _bins(4096, "its plan takes seconds above a few thousand bins"),
    ],
}
_PARAMS["diffgen_consistency"] = _PARAMS["diffgen"] + [
    ParamSpec(
        "consistency",
        "consistency",
        "choice",
        "least_squares",
        ("least_squares", "hay_generalized"),
        help="least_squares: the exact best linear unbiased estimate; hay_generalized: two-pass "
        "averaging (Hay, Rastogi, Miklau and Suciu 2010, generalized in seed 000)",
    ),
]


#: plain names shown for choice values (the value itself is what projects and the CLI store)
CHOICE_NAMES = {
    "max": "Max (records of the majority class)",
    "infogain": "information gain",
    "least_squares": "least squares (the most accurate)",
    "hay_generalized": "two-pass averaging",
}


#: the DiffGen engine's options that every table algorithm takes beyond its parameters (the command line sets
#: them; ``budget_plan.engine_params`` passes them on): how candidates are scored over partitions, the
#: share of epsilon for the counts, post-processing
TABLE_OPTIONS = ("score_scope", "grid_bins", "count_fraction", "clamp_negative", "round_counts", "tree_projection")


@dataclass(frozen=True)
class Algorithm:
    """One release algorithm, as every front end names it."""

    id: str  # projects, the API, the studio
    name: str  # what the studio shows
    family: str  # TABLE or HISTOGRAM
    command: str  # the command line's --algorithm value
    engine: str  # the engine's name: a DiffGen preset, or an interval-tree algorithm
    summary: str  # one line for the command line's help
    params: tuple[ParamSpec, ...]
    noised: str  # LEAVES, LEVELS, BINS or STRATEGY: what gets count noise
    selection: str = ""  # table algorithms: EXPONENTIAL or NOISY_MAX
    #: the engine chooses the per-level (or per-node) budgets: the Algorithm panel's bar cannot be dragged
    locked_split: bool = False
    #: engine options beyond ``params`` that apply to this algorithm only (the command line's options, such as
    #: MAXGDDP's ``tree_fraction``); the options every table algorithm takes are ``TABLE_OPTIONS``
    options: tuple[str, ...] = ()
    #: locked histograms: the engine's budgets differ node by node (LUEDPTree), not only level by level (H_opt)
    per_node_budgets: bool = False

    @property
    def is_table(self) -> bool:
        return self.family == TABLE

    @property
    def is_histogram(self) -> bool:
        return self.family == HISTOGRAM

    def takes(self, key: str) -> bool:
        """Whether ``key`` is one of this algorithm's parameters."""
        return any(p.key == key for p in self.params)

    @property
    def counts_every_level(self) -> bool:
        """A table algorithm that noises every level of its partition tree (DiffGen with consistency)."""
        return self.is_table and self.noised == LEVELS

    @property
    def noisy_max_levels(self) -> bool:
        """A table algorithm that chooses each level's split by noisy max on geometric budgets (MAXGDDP)."""
        return self.is_table and self.selection == NOISY_MAX

    def accepts(self, key: str) -> bool:
        """Whether the engine option or parameter ``key`` applies to this algorithm."""
        return self.takes(key) or key in self.options or (self.is_table and key in TABLE_OPTIONS)

    def defaults(self) -> dict:
        return {p.key: p.default for p in self.params}


_ALL = (
    Algorithm(
        "diffgen",
        "DiffGen",
        TABLE,
        "diffgen",
        "diffgen",
        "DiffGen (Mohammed et al. 2011): h exponential-mechanism specializations, noisy leaf counts",
        tuple(_PARAMS["diffgen"]),
        LEAVES,
        EXPONENTIAL,
    ),
    Algorithm(
        "diffgen_consistency",
        "DiffGen with consistency",
        TABLE,
        "diffgen-consistent",
        "diffgen-consistent",
        "DiffGen with every level of the partition tree noised and made consistent (seed 000)",
        tuple(_PARAMS["diffgen_consistency"]),
        LEVELS,
        EXPONENTIAL,
        options=("node_budget",),
    ),
    Algorithm(
        "maxgddp",
        "MAXGDDP",
        TABLE,
        "maxgddp",
        "maxgddp",
        "MAXGDDP (seed 001): h levels chosen with geometric budgets, noisy leaf counts",
        tuple(_PARAMS["maxgddp"]),
        LEAVES,
        NOISY_MAX,
        options=("tree_fraction", "numeric_grid"),
    ),
    Algorithm(
        "flat",
        "Flat histogram (Dwork)",
        HISTOGRAM,
        "flat",
        "flat",
        "Flat (Dwork): Lap(1/eps) on every bin",
        tuple(_PARAMS["flat"]),
        BINS,
    ),
    Algorithm(
        "hb",
        "H_b interval tree",
        HISTOGRAM,
        "hb",
        "hb",
        "H_b (Hay et al.): b-ary tree, Lap(L/eps) on every noised level, least squares",
        tuple(_PARAMS["hb"]),
        LEVELS,
    ),
    Algorithm(
        "sc",
        "SC interval tree",
        HISTOGRAM,
        "sc",
        "sc",
        "SC (seed 003, 3.3): arity by expected error, selective partition, Lap(Delta/eps), least squares",
        tuple(_PARAMS["sc"]),
        LEVELS,
    ),
    Algorithm(
        "luedptree",
        "LUEDPTree",
        HISTOGRAM,
        "luedp",
        "luedp",
        "LUEDPTree (seed 003, 3.4): per-node budgets by coverage probability, weighted least squares",
        tuple(_PARAMS["luedptree"]),
        LEVELS,
        locked_split=True,
        options=("shape",),
        per_node_budgets=True,
    ),
    Algorithm(
        "hopt",
        "H_opt interval tree (level budgets optimised)",
        HISTOGRAM,
        "hopt",
        "hopt",
        "H_opt: b-ary tree with per-level budgets optimised for the error after least squares (levels, "
        "the root included, may be left un-noised), weighted least squares",
        tuple(_PARAMS["hopt"]),
        LEVELS,
        locked_split=True,
    ),
    Algorithm(
        "pidentity",
        "p-Identity (bins plus weighted sums, HDMM)",
        HISTOGRAM,
        "pidentity",
        "pidentity",
        "p-Identity (HDMM, McKenna et al. 2018): the bins plus p optimised weighted sums on integer "
        "queries (from 1,024 bins: smooth sums at two scales), exact weighted least squares",
        tuple(_PARAMS["pidentity"]),
        STRATEGY,
        locked_split=True,
    ),
)

#: id -> Algorithm, in the order the studio's menu shows them
REGISTRY: dict[str, Algorithm] = {a.id: a for a in _ALL}


def lookup(name: str) -> Algorithm:
    """The algorithm named by its id, its command-line name or its engine's name; ``KeyError`` naming the
    choices for any other name."""
    for a in _ALL:
        if str(name) in (a.id, a.command, a.engine):
            return a
    raise KeyError(f"unknown algorithm {name!r}; choose one of {', '.join(REGISTRY)}")


def algorithm_id(name: str) -> str:
    """The studio's id of an algorithm named the studio's or the command line's way (``diffgen-consistent``
    is ``diffgen_consistency``); unknown names come back unchanged."""
    try:
        return lookup(name).id
    except KeyError:
        return str(name)


def default_params(algorithm: str) -> dict:
    return REGISTRY[algorithm].defaults()


def histogram_name(engine_name: str) -> str:
    """The display name of a histogram run from its engine's algorithm name ("luedp": "LUEDPTree")."""
    try:
        return lookup(engine_name).name
    except KeyError:
        return str(engine_name)


def commands(family: str) -> tuple[str, ...]:
    """The command line's ``--algorithm`` choices of one family."""
    return tuple(a.command for a in _ALL if a.family == family)


#: algorithm id -> display name
ALGORITHMS = {a.id: a.name for a in _ALL}
TABLE_ALGORITHMS = tuple(a.id for a in _ALL if a.is_table)
HISTOGRAM_ALGORITHMS = tuple(a.id for a in _ALL if a.is_histogram)
#: histogram algorithms whose per-level (or per-node) budgets the engine chooses: the bar is not draggable
LOCKED_SPLIT = tuple(a.id for a in _ALL if a.locked_split)
#: the command line's names that are not the studio's id (``diffgen-consistent``, ``luedp``) -> the id
COMMAND_NAMES = {a.command: a.id for a in _ALL if a.command != a.id}
#: the table algorithms' DiffGen presets, the histograms' interval-tree engine names
TABLE_PRESETS = {a.id: a.engine for a in _ALL if a.is_table}
ENGINE_NAMES = {a.id: a.engine for a in _ALL if a.is_histogram}
#: id -> the parameters the Algorithm panel draws
PARAMS = {a.id: list(a.params) for a in _ALL}
