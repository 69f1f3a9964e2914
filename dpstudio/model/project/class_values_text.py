"""The class values as typed in one line of the studio: separated by commas, a value that holds a comma (or
a double quote) written in double quotes, as in a CSV line (``"Bachelors, or more", HS-grad``). Spaces
around a value are not part of it. ``format_class_values`` writes a list back the same way, so a declared
list shows as text that reads back to the same list."""

from __future__ import annotations

import csv
import io


def parse_class_values(text: str) -> list[str]:
    """The values in ``text``; empty ones are dropped. ValueError for an unclosed quote."""
    if text.count('"') % 2:
        raise ValueError('a double quote is not closed (write a value holding a comma as "a, b")')
    row = next(csv.reader(io.StringIO(text), skipinitialspace=True), [])
    return [v.strip() for v in row if v.strip()]


def format_class_values(values) -> str:
    """``values`` as one line that ``parse_class_values`` reads back to the same list."""

    def one(v: str) -> str:
        v = str(v)
        return '"' + v.replace('"', '""') + '"' if ("," in v or '"' in v or v != v.strip()) else v

    return ", ".join(one(v) for v in values)


__all__ = ["format_class_values", "parse_class_values"]
