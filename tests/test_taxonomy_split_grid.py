"""A taxonomy on a numeric attribute is its public split grid (DiffGen and MAXGDDP), never ignored.

An ARX-style age hierarchy (a categorical tree whose leaves are the ages, grouped in 5-year bands and
decades) and a generated interval tree are given with public bounds; every released age interval must
start and end on the bounds or on the taxonomy's cut points, the sidecar names the grid and its source,
and neighbouring tables still give identical metadata.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpstudio.cli import main
from dpstudio.core.lattice import Lattice
from dpstudio.core.split_grid import GridLattice, SplitGridError, taxonomy_cut_points
from dpstudio.core.taxonomy_generators import numeric_equal_width
from dpstudio.io.taxonomy_formats import read_taxonomy
from tests.cli_outputs import run_writer, without
from tests.test_cli_neighbours import RELEASE_MECHANISM_OUTPUTS

BANDS = set(range(20, 91, 5))  # the 5-year band starts strictly inside the bounds [17, 91)


def arx_age(lo=17, hi=90) -> str:
    """ARX hierarchy CSV: age; 5-year band; decade; * (bands and decades labelled as closed ranges)."""
    return "".join(
        f"{v};{v // 5 * 5}-{v // 5 * 5 + 4};{v // 10 * 10}-{v // 10 * 10 + 9};*\n" for v in range(lo, hi + 1)
    )


def test_cut_points_of_an_arx_age_hierarchy_are_its_group_boundaries(tmp_path):
    path = tmp_path / "age.csv"
    path.write_text(arx_age())
    tax = read_taxonomy(path)
    assert not tax.is_numeric
    cuts = taxonomy_cut_points(tax)
    assert set(cuts[(cuts > 17) & (cuts < 91)].tolist()) == BANDS  # the single ages are not cut points


def test_cut_points_of_an_interval_tree_are_its_interval_ends():
    tax = numeric_equal_width(0, 80, 2, 2, "x")
    assert taxonomy_cut_points(tax).tolist() == [0, 20, 40, 60, 80]


def test_a_tree_whose_groups_interleave_or_whose_leaves_are_words_has_no_cut_points(tmp_path):
    path = tmp_path / "age.csv"
    path.write_text("1;odd;*\n2;even;*\n3;odd;*\n")
    with pytest.raises(SplitGridError, match="not consecutive"):
        taxonomy_cut_points(read_taxonomy(path))
    path.write_text("1;a;*\nx;a;*\n")
    with pytest.raises(SplitGridError, match="not numbers"):
        taxonomy_cut_points(read_taxonomy(path))


def test_grid_lattice_cells_agree_with_an_independent_rule():
    grid = GridLattice(Lattice.for_bounds(17, 91, "integer"), (20, 25, 30, 5, 95), "test")
    assert grid.grid == (20.0, 25.0, 30.0) and grid.n_points == 3
    x = np.arange(17, 92)
    expected = np.array([sum(v >= c for c in (20, 25, 30)) for v in x])
    assert np.array_equal(grid.index(x), expected)
    assert [grid.point(k) for k in range(4)] == [17, 20, 25, 30]


def table(folder, n, seed=0, extra=()):
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    cls = np.where(rng.random(n) < np.clip((age - 17) / 50, 0.05, 0.95), "Y", "N")
    sex = rng.choice(["F", "M"], n)
    folder.mkdir()
    rows = [f"{a},{s},{c}\n" for a, s, c in zip(age, sex, cls)] + [f"{a},{s},{c}\n" for a, s, c in extra]
    (folder / "d.csv").write_text("age,sex,cls\n" + "".join(rows))
    (folder / "sex.csv").write_text("F;*\nM;*\n")
    (folder / "age.csv").write_text(arx_age())
    (folder / "age.txt").write_text(
        "[17,91)\n  [17,40)\n    [17,30)\n    [30,40)\n  [40,91)\n    [40,65)\n    [65,91)\n"
    )


def argv(algorithm, age_file, steps=6, epsilon="10"):
    return [
        "release",
        "--data",
        "d.csv",
        "--class",
        "cls",
        "--classes",
        "N,Y",
        "--taxonomy",
        "sex=sex.csv",
        "--taxonomy",
        f"age={age_file}",
        "--bounds",
        "age=17:91",
        "--type",
        "age=integer",
        "--algorithm",
        algorithm,
        "--epsilon",
        epsilon,
        "--steps",
        str(steps),
        "--out",
        "out.csv",
    ]


def released_age_ends(out) -> set:
    """Every end of an age interval in the released CSV ("[lo,hi)" labels)."""
    col = out.rows[0].index("age")
    labels = {row[col] for row in out.rows[1:]}
    assert all(lab.startswith("[") and lab.endswith(")") for lab in labels), labels
    return {float(e) for lab in labels for e in lab[1:-1].split(",")}


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
@pytest.mark.parametrize("age_file,cuts", [("age.csv", BANDS), ("age.txt", {30, 40, 65})], ids=["arx", "intervals"])
def test_release_splits_age_only_at_the_taxonomy_cut_points(tmp_path, algorithm, age_file, cuts):
    split = set()
    for run in range(3):
        table(tmp_path / f"r{run}", 3000, seed=run)
        out = run_writer(tmp_path / f"r{run}", argv(algorithm, age_file))
        ends = released_age_ends(out)
        assert ends <= cuts | {17, 91}, (algorithm, sorted(ends))
        split |= ends - {17, 91}
        lattice = next(a for a in out.sidecar["attributes"] if a["name"] == "age")["lattice"]
        assert set(lattice["grid"]) == cuts and age_file in lattice["split_points"]
    assert split  # age was split at all (it decides the class): the check above had something to check


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
def test_neighbouring_tables_give_the_same_metadata_with_an_age_taxonomy(tmp_path, algorithm):
    table(tmp_path / "d", 400)
    table(tmp_path / "d1", 400, extra=[(33, "F", "Y")])
    a, b = (run_writer(tmp_path / name, argv(algorithm, "age.csv", steps=3, epsilon="1")) for name in ("d", "d1"))
    assert a.rows[0] == b.rows[0]
    assert without(a.sidecar, RELEASE_MECHANISM_OUTPUTS) == without(b.sidecar, RELEASE_MECHANISM_OUTPUTS)
    assert a.stderr == b.stderr


def test_a_categorical_age_taxonomy_without_bounds_stays_categorical(tmp_path):
    table(tmp_path / "d", 200)
    args = [a for a in argv("diffgen", "age.csv") if a not in ("--bounds", "age=17:91", "--type", "age=integer")]
    out = run_writer(tmp_path / "d", args)
    assert next(a for a in out.sidecar["attributes"] if a["name"] == "age")["kind"] == "categorical"
    assert main is not None
