"""Growable numpy columns for the replay's per-node fields (``TreeState.parent_ids``, ``status``, ``sizes``).

A run of tens of thousands of nodes appends one entry per created node, and the views read each field
as one array every redraw (the tree's colours, the focus, the icicle's widths). Kept as Python lists,
every read converted 38,000 entries (``np.asarray``, about a millisecond each, several per redraw), and a
consistency or release event rewrote them entry by entry. A ``Column`` appends in amortised constant time
(the buffer doubles), reads as an array without a copy (``np.asarray(column)``: a read-only view of the
filled part) and updates many entries at once (``column.put(positions, values)``).

Nothing here is privacy-relevant: the columns hold what the events already showed (creation order,
parents, status codes, released sizes).
"""

from __future__ import annotations

import numpy as np


class Column:
    """A list-like column of one numpy dtype: ``append``, ``pop``, ``len``, indexing and slicing (a slice
    reads as a read-only array), assignment to an index or a slice, iteration as Python scalars."""

    __slots__ = ("_buf", "_n")

    def __init__(self, dtype, values=()) -> None:
        arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=dtype)
        self._buf = np.empty(max(16, 2 * arr.size), dtype=dtype)
        self._buf[: arr.size] = arr
        self._n = int(arr.size)

    # -- reading ------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def view(self) -> np.ndarray:
        """The filled part as a read-only array (no copy: valid until the column next changes)."""
        v = self._buf[: self._n]
        v.flags.writeable = False
        return v

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        v = self.view()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    def __getitem__(self, k):
        v = self.view()[k]
        return v.item() if isinstance(v, np.generic) else v

    def __iter__(self):
        return iter(self.view().tolist())

    def tolist(self) -> list:
        return self.view().tolist()

    def copy(self) -> np.ndarray:
        """A writable copy of the values (an undo record)."""
        return self._buf[: self._n].copy()

    def __eq__(self, other) -> bool:
        return self.tolist() == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Column({self.tolist()!r})"

    # -- changing -----------------------------------------------------------------------------------
    def append(self, value) -> None:
        if self._n == self._buf.size:
            grown = np.empty(2 * self._buf.size, dtype=self._buf.dtype)
            grown[: self._n] = self._buf[: self._n]
            self._buf = grown
        self._buf[self._n] = value
        self._n += 1

    def pop(self):
        if not self._n:
            raise IndexError("pop from an empty column")
        self._n -= 1
        return self._buf[self._n].item()

    def __setitem__(self, k, value) -> None:
        self._buf[: self._n][k] = value

    def put(self, positions: np.ndarray, values) -> None:
        """Set the entries at ``positions`` (an array of positions below ``len``) to ``values``."""
        self._buf[: self._n][positions] = values

    def delete(self, i: int) -> None:
        """Remove the entry at position ``i`` (the later ones move up by one)."""
        if not -self._n <= i < self._n:
            raise IndexError("column index out of range")
        i %= self._n
        self._buf[i : self._n - 1] = self._buf[i + 1 : self._n].copy()
        self._n -= 1


__all__ = ["Column"]
