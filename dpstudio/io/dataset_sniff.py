"""Reading the shape of a text table before loading it: separator, header row, field counts per line.

Helpers of :mod:`dpstudio.io.datasets`; they work on a decoded sample (the first few thousand lines) or, for
the ragged-row check, on the raw bytes as they stream past.
"""

from __future__ import annotations

import csv
import math
from collections import Counter

import numpy as np

SEPARATORS = (",", ";", "\t", "|")
COMMA_SPACE = ", "
QUOTE = '"'


def is_number(text: str) -> bool:
    """True for text a CSV number column holds ('39', '-1.5e3'); NaN/infinity spelled out do not count."""
    try:
        value = float(text)
    except ValueError:
        return False
    return math.isfinite(value)


def split_sample(text: str, delimiter: str) -> list[list[str]]:
    """Parse sample lines into rows of stripped cells, skipping blank lines (as the loader does)."""
    reader = csv.reader(text.splitlines(), delimiter=delimiter, quotechar=QUOTE, skipinitialspace=True)
    return [[cell.strip() for cell in row] for row in reader if row]


def sniff_separator(text: str) -> str:
    """The separator of a sample: one of ',' ';' tab '|' or ', ' (comma followed by a space).

    For each candidate, the fraction of lines that have the modal number of fields (at least two) is
    scored; the most regular candidate wins, then the one giving more fields. A single-column table
    gives ','.
    """
    best = None
    for sep in SEPARATORS:
        rows = split_sample(text, sep)
        if not rows:
            continue
        counts = Counter(len(row) for row in rows)
        fields, lines = counts.most_common(1)[0]
        if fields < 2:
            continue
        score = (lines / len(rows), fields)
        if best is None or score > best[0]:
            best = (score, sep)
    if best is None:
        return ","
    sep = best[1]
    if sep == "," and _mostly_comma_space(text):
        return COMMA_SPACE
    return sep


def _mostly_comma_space(text: str) -> bool:
    commas = text.count(",")
    return commas > 0 and text.count(", ") >= 0.9 * commas


def looks_like_header(rows: list[list[str]], missing: frozenset[str]) -> bool:
    """Does the first row hold column names rather than data?

    It does when none of its cells is a number or a missing-value token, its non-empty cells are distinct,
    and either some column is numeric in the rows below with a name above it, or (all-text tables) no cell
    is empty and none recurs in its column below. An empty first cell (a pandas index column) is allowed.
    """
    if not rows:
        return False
    first, body = rows[0], rows[1:]
    named = [cell for cell in first if cell != ""]
    if not named or any(cell in missing or is_number(cell) for cell in named):
        return False
    if len(set(named)) != len(named):
        return False
    if not body:
        return len(named) == len(first)
    columns = list(zip(*(row for row in body if len(row) == len(first))))
    if not columns:
        return False
    for name, col in zip(first, columns):
        present = [cell for cell in col if cell not in missing]
        if name and present and all(is_number(cell) for cell in present):
            return True
    if len(named) != len(first):
        return False
    return all(name not in set(col) for name, col in zip(first, columns))


class FieldCounter:
    """Counts the fields of every line of a byte stream, to find the first ragged row.

    Works block by block with numpy (one separator byte; lines end with LF or CRLF; blank lines are
    skipped, as the loader skips them). Quoted fields may hold separators or line breaks, so once a quote
    character is seen the counter gives up (``quoted`` becomes True) and the caller checks with the csv
    module instead.
    """

    def __init__(self, separator: str):
        self.sep = ord(separator[0])
        self.expected: int | None = None
        self.expected_line = 0
        self.bad: tuple[int, int] | None = None  # (line number, fields)
        self.quoted = False
        self._line = 0  # lines completed so far
        self._carry_seps = 0
        self._carry_len = 0
        self._carry_last = 0

    @property
    def active(self) -> bool:
        return self.bad is None and not self.quoted

    def feed(self, block) -> None:
        if not self.active or len(block) == 0:
            return
        arr = np.frombuffer(block, dtype=np.uint8)
        if (arr == ord(QUOTE)).any():
            self.quoted = True
            return
        newlines = np.flatnonzero(arr == 10)
        if newlines.size == 0:
            self._carry_seps += int(np.count_nonzero(arr == self.sep))
            self._carry_len += arr.size
            self._carry_last = int(arr[-1])
            return
        at_end = np.searchsorted(np.flatnonzero(arr == self.sep), newlines)
        seps = np.diff(at_end, prepend=0)
        seps[0] += self._carry_seps
        starts = np.concatenate(([-1], newlines[:-1]))
        lengths = newlines - starts - 1
        lengths[0] += self._carry_len
        last = np.where(newlines > 0, arr[np.maximum(newlines - 1, 0)], self._carry_last)
        blank = (lengths == 0) | ((lengths == 1) & (last == 13))
        self._check(seps + 1, blank)
        self._line += newlines.size
        tail = arr[newlines[-1] + 1 :]
        self._carry_seps = int(np.count_nonzero(tail == self.sep))
        self._carry_len = tail.size
        self._carry_last = int(tail[-1]) if tail.size else 10

    def finish(self) -> None:
        """Check the last line when the stream does not end with a line break."""
        if not self.active or self._carry_len == 0:
            return
        if self._carry_len == 1 and self._carry_last == 13:
            return
        self._check(np.array([self._carry_seps + 1]), np.array([False]))

    def _check(self, fields: np.ndarray, blank: np.ndarray) -> None:
        rows = np.flatnonzero(~blank)
        if rows.size == 0:
            return
        if self.expected is None:
            self.expected = int(fields[rows[0]])
            self.expected_line = self._line + int(rows[0]) + 1
        wrong = rows[fields[rows] != self.expected]
        if wrong.size:
            i = int(wrong[0])
            self.bad = (self._line + i + 1, int(fields[i]))


def first_ragged_line(lines, delimiter: str) -> tuple[int, int, int, int] | None:
    """Quote-aware check with the csv module: (line, fields, expected, line of expected) or None."""
    reader = csv.reader(lines, delimiter=delimiter, quotechar=QUOTE, skipinitialspace=True)
    expected = None
    for row in reader:
        if not row:
            continue
        if expected is None:
            expected = (len(row), reader.line_num)
        elif len(row) != expected[0]:
            return reader.line_num, len(row), expected[0], expected[1]
    return None
