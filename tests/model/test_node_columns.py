"""``Column``: the replay's per-node fields as growable arrays behave as the lists they replaced."""

import numpy as np
import pytest

from dpstudio.model.watch.node_columns import Column


def test_a_column_follows_a_list_through_random_operations():
    rng = np.random.default_rng(3)
    col, ref = Column(np.int64), []
    for _ in range(3000):
        op = rng.integers(5)
        if op <= 1 or not ref:
            v = int(rng.integers(-5, 100))
            col.append(v)
            ref.append(v)
        elif op == 2:
            assert col.pop() == ref.pop()
        elif op == 3:
            i = int(rng.integers(len(ref)))
            col[i] = ref[i] = int(rng.integers(100))
        else:
            i = int(rng.integers(len(ref)))
            col.delete(i)
            del ref[i]
        assert len(col) == len(ref)
    assert col.tolist() == ref and list(col) == ref and col == ref
    assert np.asarray(col).tolist() == ref and col[2:5].tolist() == ref[2:5] and col[-1] == ref[-1]
    assert all(type(x) is int for x in col)


def test_reads_are_read_only_views_and_bulk_puts_write():
    col = Column(np.float64, [1.0, 2.0, 3.0, 4.0])
    view = np.asarray(col)
    with pytest.raises(ValueError):
        view[0] = 9.0
    col.put(np.array([0, 2]), [7.0, 8.0])
    assert col.tolist() == [7.0, 2.0, 8.0, 4.0]
    col[:] = np.array([0.0, 0.0, 0.0, 0.0])
    assert col.tolist() == [0.0] * 4
    undo = col.copy()
    undo[0] = 5.0  # a copy is the caller's own
    assert col[0] == 0.0
    assert np.asarray(col, dtype=np.int64).dtype == np.int64


def test_growing_keeps_every_value():
    col = Column(np.int64)
    for i in range(10_000):
        col.append(i)
    assert np.array_equal(np.asarray(col), np.arange(10_000))
    with pytest.raises(IndexError):
        Column(np.int64).pop()
    with pytest.raises(IndexError):
        col.delete(10_000)
