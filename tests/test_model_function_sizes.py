"""No function in ``dpstudio/model`` is over 100 lines (issue 31): a longer one holds several decisions that
belong in their own functions (the per-family error figures, the two kinds of anonymization run). The check
is proven on a planted function one line over the limit."""

from __future__ import annotations

import ast
from pathlib import Path

MODEL = Path(__file__).resolve().parents[1] / "dpstudio" / "model"
LIMIT = 100


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int]]:
    """(name, lines) of every function or method, nested ones included, longer than ``limit`` lines."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_in_the_model_is_over_100_lines():
    bad = {
        str(p.relative_to(MODEL)): hits for p in sorted(MODEL.rglob("*.py")) if (hits := long_functions(p.read_text()))
    }
    assert bad == {}


def test_the_check_finds_a_planted_long_function_and_method():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))  # the def line makes it LIMIT + 1
    assert long_functions(f"def f():\n{body}\n") == [("f", LIMIT + 1)]
    method = "\n".join("    " + line for line in f"def m(self):\n{body}".splitlines())
    assert long_functions(f"class C:\n{method}\n") == [("m", LIMIT + 1)]
    assert long_functions(f"def g():\n{chr(10).join(body.splitlines()[:-1])}\n") == []


def test_the_project_only_composes_its_parts():
    """Issue 31: ``Project`` is at most 400 lines; its fields and methods live in its parts, each name in one
    part only, and every one is read and set through the project."""
    from dpstudio.model.project.project import PARTS, Project

    source = (MODEL / "project" / "project.py").read_text()
    assert source.count("\n") <= 400
    names = [n for names in PARTS.values() for n in names]
    assert len(names) == len(set(names))  # no field or method in two parts
    p = Project()
    for part, owned in PARTS.items():
        for name in owned:
            assert getattr(type(p), name).part == part
    p.inputs.roles["x"] = "class"  # a part's field is the project's
    assert p.roles == {"x": "class"}
    p.epsilon = 3  # and setting it through the project sets the part's
    assert p.settings.epsilon == 3
