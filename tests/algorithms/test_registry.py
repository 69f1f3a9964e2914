"""The algorithm registry: every release algorithm declared once, every front end reading it.

The guard at the end checks that no module above the algorithms layer lists algorithms itself (a tuple,
list, set or dict of two or more algorithm names): such a list is the second declaration that goes stale
when an algorithm is added. It is proven on planted modules holding each form of the violation.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dpstudio.algorithms import registry
from dpstudio.algorithms.diffgen import PRESETS
from dpstudio.algorithms.interval_trees import ALGORITHMS as TREE_ENGINES
from dpstudio.algorithms.interval_trees import IntervalTreeParams

ROOT = Path(__file__).resolve().parents[2] / "dpstudio"


def test_lookup_accepts_the_id_the_command_and_the_engine_name():
    a = registry.lookup("luedp")
    assert a is registry.lookup("luedptree") and a.id == "luedptree" and a.is_histogram and a.locked_split
    assert registry.lookup("diffgen-consistent").id == "diffgen_consistency"
    assert registry.algorithm_id("diffgen-consistent") == "diffgen_consistency"
    assert registry.algorithm_id("no-such") == "no-such"
    with pytest.raises(KeyError, match="choose one of diffgen, diffgen_consistency"):
        registry.lookup("no-such")


def test_every_declared_engine_exists_and_takes_its_defaults():
    for a in registry.REGISTRY.values():
        assert a.family in (registry.TABLE, registry.HISTOGRAM)
        assert a.noised in (registry.LEAVES, registry.LEVELS, registry.BINS, registry.STRATEGY)
        assert len({p.key for p in a.params}) == len(a.params), a.id
        if a.is_table:
            assert a.engine in PRESETS and a.selection in (registry.EXPONENTIAL, registry.NOISY_MAX)
        else:
            assert a.engine in TREE_ENGINES and a.selection == ""
            IntervalTreeParams(algorithm=a.engine, epsilon=1).validate()
    assert set(TREE_ENGINES) == {a.engine for a in registry.REGISTRY.values() if a.is_histogram}


def test_the_command_lines_and_the_api_offer_exactly_the_registry():
    from dpstudio import api
    from dpstudio.cli import build_parser

    choices = {}
    for action in build_parser()._subparsers._group_actions[0].choices.items():
        name, sub = action
        for opt in sub._actions:
            if "--algorithm" in opt.option_strings and opt.choices is not None:
                choices[name] = tuple(opt.choices)
    assert choices["release"] == registry.commands(registry.TABLE)
    assert choices["histogram"] == registry.commands(registry.HISTOGRAM)
    from dpstudio.cli import evaluate

    assert evaluate.ALGORITHMS == registry.commands(registry.TABLE)  # a comma-separated list, checked by hand
    assert api.ALGORITHMS == tuple(registry.REGISTRY)


# -- the guard --------------------------------------------------------------------------------------------
def _names() -> set[str]:
    out: set[str] = set()
    for a in registry.REGISTRY.values():
        out |= {a.id, a.command, a.engine}
    return out


def literal_lists(source: str, names: set[str]) -> list[tuple[int, list[str]]]:
    """(line, names) of each tuple, list, set or dict (its keys) literal naming two or more algorithms."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elts = list(node.elts)
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        else:
            continue
        named = {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in names}
        if len(named) >= 2:
            found.append((node.lineno, sorted(named)))
    return found


def above_algorithms() -> list[Path]:
    return [p for p in sorted(ROOT.rglob("*.py")) if p.relative_to(ROOT).parts[0] not in ("core", "algorithms")]


def test_no_module_above_the_engines_lists_algorithms_itself():
    names = _names()
    bad = {str(p.relative_to(ROOT)): hits for p in above_algorithms() if (hits := literal_lists(p.read_text(), names))}
    assert bad == {}, "read these lists from dpstudio.algorithms.registry instead"


@pytest.mark.parametrize(
    "planted",
    [
        'CHOICES = ("diffgen", "maxgddp")',
        'CHOICES = ["hb", "sc", "flat"]',
        'CHOICES = {"luedp", "hopt"}',
        'NAMES = {"diffgen-consistent": "x", "pidentity": "y"}',
        'def f(a):\n    return a in ("diffgen_consistency", "luedptree")',
        'def f(a):\n    if a not in ["flat", "hb"]:\n        return 1',
    ],
)
def test_the_guard_catches_every_form_of_a_second_list(planted):
    assert literal_lists(planted, _names())


def test_the_guard_lets_one_name_and_other_families_pass():
    names = _names()
    assert not literal_lists('if a == "maxgddp":\n    x = ("maxgddp", 3)', names)
    assert not literal_lists('ALGS = ("samarati", "incognito", "mondrian-strict")', names)


# -- the second guard: no dispatch on an algorithm's name ----------------------------------------------------
def name_dispatch(source: str, names: set[str]) -> list[int]:
    """Lines comparing a value with an algorithm's literal name (``==``, ``!=``, ``in``, ``not in``, either
    side, one name or several): a branch that a new algorithm would have to be added to. What an algorithm
    does is read from its declaration (``registry.lookup(name).noised``, ``.accepts(option)``...) instead."""

    def literal_names(node) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(literal_names(e) for e in node.elts)
        return False

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops
        ):
            if any(literal_names(side) for side in [node.left, *node.comparators]):
                found.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and literal_names(node.value):
            found.append(node.lineno)
    return found


def test_no_module_above_the_engines_dispatches_on_an_algorithms_name():
    """The front ends and the model (the engines implement each algorithm and branch on their own
    parameter)."""
    names = _names()
    modules = above_algorithms()
    bad = {str(p.relative_to(ROOT)): hits for p in modules if (hits := name_dispatch(p.read_text(), names))}
    assert bad == {}, "ask the registry what the algorithm does (registry.lookup(name)) instead"


@pytest.mark.parametrize(
    "planted",
    [
        'if p.algorithm == "maxgddp":\n    x = 1',
        'if alg != "flat":\n    x = 1',
        'y = "hb" == params.algorithm',
        'if algorithm in ("luedp", "hopt"):\n    x = 1',
        'if args.algorithm not in {"diffgen-consistent"}:\n    x = 1',
        'def f(a):\n    return [x for x in a if x.algorithm == "pidentity"]',
        'match name:\n    case "sc":\n        x = 1',
    ],
)
def test_the_dispatch_guard_catches_every_form(planted):
    assert name_dispatch(planted, _names())


def test_the_dispatch_guard_lets_other_comparisons_pass():
    names = _names()
    assert not name_dispatch("if self.project.algorithm != self.algorithm:\n    x = 1", names)
    assert not name_dispatch('if kind == "samarati":\n    x = 1', names)
    assert not name_dispatch('x = {"maxgddp": 1}\ny = lookup("maxgddp").noised == LEVELS', names)
