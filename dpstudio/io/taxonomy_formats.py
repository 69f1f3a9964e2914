"""Reading and writing taxonomy trees: ARX hierarchy CSV, brace text, JSON and indented text.

Every format round-trips: ``parse_x(format_x(t)) == t`` for a valid taxonomy (numeric nodes are written
under their canonical interval label ``[lo,hi)``; only JSON keeps other labels on numeric nodes). Errors are
``TaxonomyError`` and name the file (``source``), the line and the problem.

Numeric taxonomies: a tree is read as numeric when EVERY label is an interval: ``[lo,hi)`` in all formats,
and also the seed-002 shorthand ``lo-hi`` (meaning [lo, hi)) in brace and indented text. ARX files use
``lo-hi`` for closed integer ranges (``0-4;0-9;...``), so there only ``[lo,hi)`` makes a tree numeric and
ARX's own files (age: ``17;15-19;10-19;...;*``) load as categorical trees over the listed values.
Pass ``kind="categorical"`` or ``kind="numeric"`` to override the detection.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from dpstudio.core.taxonomy import (
    CATEGORICAL,
    NUMERIC,
    Node,
    Taxonomy,
    TaxonomyError,
    check_tree,
    interval_label,
    parse_interval,
)
from dpstudio.io.atomic import atomic_write

FORMATS = ("arx", "brace", "json", "indented")
ARX_SEPARATORS = (";", "\t", "|", ",")
_EXTENSIONS = {".csv": "arx", ".tsv": "arx", ".json": "json", ".txt": "indented", ".brace": "brace"}

__all__ = [
    "FORMATS",
    "read_taxonomy",
    "write_taxonomy",
    "detect_format",
    "parse_taxonomy",
    "format_taxonomy",
    "parse_arx",
    "format_arx",
    "sniff_separator",
    "parse_brace",
    "format_brace",
    "parse_json",
    "format_json",
    "parse_indented",
    "format_indented",
]


# -- shared --------------------------------------------------------------------------------------------
def _finish(root: Node, line_of: dict[int, int], source, attribute: str, kind: str | None, dash: bool) -> Taxonomy:
    """Decide categorical/numeric, canonicalise numeric labels, validate, and freeze."""
    nodes, stack = [], [root]
    while stack:
        n = stack.pop()
        nodes.append(n)
        stack.extend(reversed(n.children))
    if kind not in (None, CATEGORICAL, NUMERIC):
        raise TaxonomyError(f"unknown kind {kind!r} (expected {CATEGORICAL!r} or {NUMERIC!r})", source)
    if kind != CATEGORICAL:
        parsed = [parse_interval(n.label, dash=dash) for n in nodes]
        intervals = [iv for iv in parsed if iv is not None]
        if len(intervals) == len(parsed):
            kind = NUMERIC
            for n, (lo, hi) in zip(nodes, intervals):
                n.lo, n.hi, n.label = lo, hi, interval_label(lo, hi)
        elif kind == NUMERIC:
            bad = next(n for n, iv in zip(nodes, parsed) if iv is None)
            form = "[lo,hi) or lo-hi" if dash else "[lo,hi)"
            raise TaxonomyError(
                f"label {bad.label!r} is not an interval ({form}) in a numeric taxonomy", source, line_of.get(id(bad))
            )
        else:
            kind = CATEGORICAL
    check_tree(root, source, line_of, kind)
    return Taxonomy(root, attribute, kind=kind)


def _labels_for_writing(tax: Taxonomy) -> list[str]:
    if tax.is_numeric:
        return [interval_label(a, b) for a, b in zip(tax.lo, tax.hi)]
    return list(tax.labels)


def _check_writable(tax: Taxonomy, labels: list[str], fmt: str) -> None:
    for lab in labels:
        if lab != lab.strip() or lab == "" or len(lab.splitlines()) > 1:
            raise TaxonomyError(f"label {lab!r} cannot be written as {fmt}: empty, line break, or spaces at an end")


# -- ARX hierarchy CSV ---------------------------------------------------------------------------------
def _csv_rows(lines: list[tuple[int, str]], sep: str) -> list[tuple[int, list[str]]]:
    """Each line parsed as one CSV record (a quote left open does not swallow the next line)."""
    rows = list(csv.reader([text for _, text in lines], delimiter=sep))
    if len(rows) == len(lines):
        return [(no, row) for (no, _), row in zip(lines, rows)]
    return [(no, next(csv.reader([text], delimiter=sep), [""])) for no, text in lines]


def sniff_separator(text: str) -> str:
    """The ARX separator among ; tab | , (in that order of preference).

    A file whose first cell is quoted uses the character right after the closing quote. Otherwise the
    separator that splits every row (of the first 2,000 lines) into the same number (>= 2) of cells, the
    most cells winning; if none
    does, the one that splits the first row most (so the ragged-row message points at the culprit); ``;`` for
    a one-column file.
    """
    lines = [(i, t) for i, t in enumerate(text.splitlines()[:2000], 1) if t.strip()]  # a sample is enough
    if not lines:
        return ";"
    first = lines[0][1]
    if first.startswith('"'):
        k = 1
        while k < len(first):
            if first[k] == '"':
                if first[k + 1 : k + 2] == '"':
                    k += 2
                    continue
                if first[k + 1 : k + 2] in ARX_SEPARATORS and first[k + 1 : k + 2]:
                    return first[k + 1]
                break
            k += 1
    consistent, best, best_cells = None, ";", 1
    for sep in ARX_SEPARATORS:
        rows = _csv_rows(lines, sep)
        lengths = {len(r) for _, r in rows}
        cells = len(rows[0][1])
        if len(lengths) == 1 and cells >= 2 and (consistent is None or cells > consistent[1]):
            consistent = (sep, cells)
        if cells > best_cells:
            best, best_cells = sep, cells
    return consistent[0] if consistent else best


def parse_arx(
    text: str, attribute: str = "", source: str | None = None, sep: str | None = None, kind: str | None = None
) -> Taxonomy:
    """An ARX hierarchy: no header, one row per leaf, then its ancestors up to the root (usually ``*``).

    A label names one node in the whole file. A label repeated in consecutive cells of a row is one node
    (ARX pads shallow leaves this way), so leaves may sit at different depths.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    sep = sep or sniff_separator(text)
    lines = [(i, t) for i, t in enumerate(text.splitlines(), 1) if t.strip()]
    if not lines:
        raise TaxonomyError("empty file: no hierarchy rows", source)
    rows = _csv_rows(lines, sep)
    width, first_line = len(rows[0][1]), rows[0][0]
    nodes: dict[str, Node] = {}
    line_of: dict[int, int] = {}
    parent_of: dict[str, tuple[str, int]] = {}
    leaf_line: dict[str, int] = {}
    order: list[tuple[str, str]] = []  # (parent, child) edges in the order first seen
    sep_name = "tab" if sep == "\t" else repr(sep)
    for no, cells in rows:
        if len(cells) != width:
            raise TaxonomyError(
                f"ragged row: {len(cells)} cells, expected {width} as on line {first_line} (separator {sep_name})",
                source,
                no,
            )
        cells = [c.strip() for c in cells]
        for k, c in enumerate(cells, 1):
            if c == "":
                raise TaxonomyError(f"empty label in column {k}", source, no)
        path = [c for k, c in enumerate(cells) if k == 0 or c != cells[k - 1]]
        if len(set(path)) != len(path):
            rep = next(c for c in path if path.count(c) > 1)
            loop = path[path.index(rep) : len(path) - path[::-1].index(rep)]
            raise TaxonomyError("cycle: " + " -> ".join(repr(c) for c in loop), source, no)
        leaf = path[0]
        if leaf in leaf_line:
            raise TaxonomyError(f"duplicate leaf {leaf!r} (first at line {leaf_line[leaf]})", source, no)
        leaf_line[leaf] = no
        for label in path:
            if label not in nodes:
                nodes[label] = Node(label)
                line_of[id(nodes[label])] = no
        for child, parent in zip(path, path[1:]):
            if child in parent_of:
                known, known_line = parent_of[child]
                if known != parent:
                    raise TaxonomyError(
                        f"label {child!r} has two parents: {known!r} (line {known_line}) and {parent!r}", source, no
                    )
            else:
                parent_of[child] = (parent, no)
                order.append((parent, child))
    group_line: dict[str, int] = {}
    for parent, line in parent_of.values():
        group_line.setdefault(parent, line)
    for leaf, no in leaf_line.items():
        if leaf in group_line:
            under = group_line[leaf]
            raise TaxonomyError(
                f"{leaf!r} is a leaf value on line {no} and also a generalization (line {under})",
                source,
                max(no, under),
            )
    for start in nodes:
        walk, label = [], start
        while label in parent_of and label not in walk:
            walk.append(label)
            label = parent_of[label][0]
        if label in walk:
            loop = walk[walk.index(label) :] + [label]
            closing_line = max(parent_of[c][1] for c in loop[:-1])
            raise TaxonomyError("cycle: " + " -> ".join(repr(c) for c in loop), source, closing_line)
    roots = [label for label in nodes if label not in parent_of]
    if len(roots) != 1:
        where = ", ".join(f"{r!r} (line {line_of[id(nodes[r])]})" for r in roots[:5])
        raise TaxonomyError(
            f"the last column must hold one root, found {len(roots)}: {where}",
            source,
            line_of[id(nodes[roots[1]])] if len(roots) > 1 else None,
        )
    for parent, child in order:
        nodes[parent].children.append(nodes[child])
    return _finish(nodes[roots[0]], line_of, source, attribute, kind, dash=False)


def format_arx(tax: Taxonomy, sep: str = ";") -> str:
    """One row per leaf (left to right): the leaf, its ancestors, the root; shallow leaves are padded by
    repeating the leaf label. Labels must be unique in the tree (a label names one node in ARX files)."""
    labels = _labels_for_writing(tax)
    _check_writable(tax, labels, "ARX")
    seen: dict[str, int] = {}
    for i, lab in enumerate(labels):
        if lab in seen:
            raise TaxonomyError(f"label {lab!r} is used by two nodes; an ARX hierarchy needs unique labels")
        seen[lab] = i
    width = tax.height + 1
    out = io.StringIO()
    # quote every cell when a label holds a separator or a quote, so that sniffing cannot mistake the file
    risky = any(ch in lab for lab in labels for ch in ARX_SEPARATORS + ('"', "{", "}"))
    writer = csv.writer(out, delimiter=sep, lineterminator="\n", quoting=csv.QUOTE_ALL if risky else csv.QUOTE_MINIMAL)
    for leaf in tax.leaves:
        path = [labels[j] for j in reversed(tax.path(leaf))]
        writer.writerow([path[0]] * (width - len(path)) + path)
    return out.getvalue()


# -- brace text ----------------------------------------------------------------------------------------
def parse_brace(text: str, attribute: str = "", source: str | None = None, kind: str | None = None) -> Taxonomy:
    """Seed 002's notation: ``{label child child ...}`` with each child itself in braces, e.g.
    ``{Any {Worked {Private} {Self-emp}} {Never-worked}}``. A label is the text after ``{`` up to the next
    brace, trimmed (spaces and hyphens allowed); ``\\{``, ``\\}`` and ``\\\\`` escape braces in labels."""
    line, i, n = 1, 0, len(text)
    stack: list[tuple[Node, int]] = []
    line_of: dict[int, int] = {}
    root: Node | None = None
    after_child = False  # inside a node, after at least one child: only spaces may follow before { or }
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == "{":
            if root is not None and not stack:
                raise TaxonomyError("more than one root: text after the root's closing brace", source, line)
            start_line = line
            i += 1
            chars: list[str] = []
            while i < n and text[i] not in "{}":
                if text[i] == "\\" and i + 1 < n and text[i + 1] in "{}\\":
                    chars.append(text[i + 1])
                    i += 2
                    continue
                if text[i] == "\n":
                    line += 1
                chars.append(text[i])
                i += 1
            node = Node("".join(chars).strip())
            line_of[id(node)] = start_line
            if stack:
                stack[-1][0].children.append(node)
            else:
                root = node
            stack.append((node, start_line))
            after_child = False
        elif ch == "}":
            if not stack:
                raise TaxonomyError("unbalanced braces: '}' closes nothing", source, line)
            stack.pop()
            after_child = bool(stack)
            i += 1
        else:
            j = i
            while j < n and text[j] not in "{}\n":
                j += 1
            stray = text[i:j].strip()
            if root is None:
                raise TaxonomyError(f"text {stray!r} before the first '{{'", source, line)
            if not stack:
                raise TaxonomyError(f"text {stray!r} after the root's closing brace", source, line)
            raise TaxonomyError(
                f"text {stray!r} after a child of {stack[-1][0].label!r}: a label must come right after its '{{'"
                if after_child
                else f"unexpected text {stray!r}",
                source,
                line,
            )
    if stack:
        node, opened = stack[-1]
        raise TaxonomyError(
            f"unbalanced braces: '{{' of {node.label!r} opened on line {opened} is never closed "
            f"(the text ends on line {line})",
            source,
            opened,
        )
    if root is None:
        raise TaxonomyError("empty text: no '{' found", source)
    return _finish(root, line_of, source, attribute, kind, dash=True)


def _escape_brace(label: str) -> str:
    return label.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")


def format_brace(tax: Taxonomy, multiline: bool = False, indent: str = "  ") -> str:
    """The brace notation on one line (or one node per line, indented, with ``multiline``)."""
    labels = [_escape_brace(lab) for lab in _labels_for_writing(tax)]
    _check_writable(tax, labels, "brace text")

    def one(i: int, level: int) -> str:
        kids = tax.children[i]
        if not multiline:
            inner = " ".join(one(c, level + 1) for c in kids)
            return "{" + labels[i] + (" " + inner if kids else "") + "}"
        pad = indent * level
        if not kids:
            return f"{pad}{{{labels[i]}}}"
        body = "\n".join(one(c, level + 1) for c in kids)
        return f"{pad}{{{labels[i]}\n{body}\n{pad}}}"

    # explicit stack would be needed only for trees deeper than Python's recursion limit (~1000 levels)
    return one(0, 0) + "\n"


# -- JSON ----------------------------------------------------------------------------------------------
_JSON_LABEL_RE = re.compile(r'"label"\s*:\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)')


def _json_lines(text: str) -> dict[str, list[int]]:
    """For each label value, the lines of its ``"label": ...`` entries in text order."""
    out: dict[str, list[int]] = {}
    line, last = 1, 0
    for m in _JSON_LABEL_RE.finditer(text):
        line += text.count("\n", last, m.start())
        last = m.start()
        try:
            value = json.loads(m.group(1))
        except ValueError:
            continue
        out.setdefault(str(value), []).append(line)
    return out


def parse_json(text: str, attribute: str = "", source: str | None = None, kind: str | None = None) -> Taxonomy:
    """Nested ``{"label": ..., "children": [...]}``; numeric nodes also carry ``"lo"`` and ``"hi"``.

    The top level may be the root node itself or ``{"attribute": ..., "kind": ..., "root": {...}}``.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TaxonomyError(f"bad JSON: {e.msg} (column {e.colno})", source, e.lineno) from None
    except RecursionError:
        raise TaxonomyError("bad JSON: nested too deeply", source) from None
    lines = _json_lines(text)
    used: dict[str, int] = {}

    def line_for(label) -> int | None:
        found = lines.get(str(label), [])
        k = used.get(str(label), 0)
        used[str(label)] = k + 1
        return found[k] if k < len(found) else None

    if isinstance(data, dict) and "root" in data:
        attribute = attribute or str(data.get("attribute") or "")
        kind = kind or data.get("kind")
        data = data["root"]
    if not isinstance(data, dict):
        raise TaxonomyError(f"bad JSON: the top level must be an object, found {type(data).__name__}", source, 1)
    line_of: dict[int, int] = {}
    has_interval: list[bool] = []

    def build(obj, parent_line: int | None) -> Node:
        if not isinstance(obj, dict):
            raise TaxonomyError(f"bad JSON: a node must be an object, found {type(obj).__name__}", source, parent_line)
        if "label" not in obj:
            raise TaxonomyError('bad JSON: a node has no "label"', source, parent_line)
        label = obj["label"]
        if not isinstance(label, (str, int, float)) or isinstance(label, bool):
            raise TaxonomyError(f"bad JSON: label {label!r} must be text", source, parent_line)
        no = line_for(label)
        node = Node(str(label))
        line_of[id(node)] = no or 0
        if ("lo" in obj) != ("hi" in obj):
            raise TaxonomyError(f'bad JSON: node {node.label!r} has only one of "lo" and "hi"', source, no)
        if "lo" in obj:
            for key in ("lo", "hi"):
                if not isinstance(obj[key], (int, float)) or isinstance(obj[key], bool):
                    raise TaxonomyError(f'bad JSON: node {node.label!r}: "{key}" must be a number', source, no)
            node.lo, node.hi = float(obj["lo"]), float(obj["hi"])
        has_interval.append("lo" in obj)
        kids = obj.get("children", [])
        if not isinstance(kids, list):
            raise TaxonomyError(f'bad JSON: "children" of {node.label!r} must be a list', source, no)
        node.children = [build(c, no) for c in kids]
        return node

    try:
        root = build(data, None)
    except RecursionError:
        raise TaxonomyError("bad JSON: tree nested too deeply", source) from None
    if kind == CATEGORICAL:
        pass
    elif all(has_interval):
        kind = NUMERIC
    elif any(has_interval):
        raise TaxonomyError('bad JSON: some nodes have "lo"/"hi" and others do not', source)
    elif kind == NUMERIC:
        # intervals only in the labels: let _finish parse them
        return _finish(root, line_of, source, attribute, NUMERIC, dash=True)
    else:
        kind = CATEGORICAL
    if kind == CATEGORICAL:
        stack = [root]
        while stack:
            n = stack.pop()
            n.lo = n.hi = None
            stack.extend(n.children)
    check_tree(root, source, line_of, kind)
    return Taxonomy(root, attribute, kind=kind)


def format_json(tax: Taxonomy, indent: int | None = 1) -> str:
    """``{"attribute", "kind", "root": {"label", ["lo", "hi"], ["children"]}}``."""

    def one(i: int) -> dict:
        obj: dict = {"label": tax.labels[i]}
        if tax.is_numeric:
            obj["lo"], obj["hi"] = _json_number(tax.lo[i]), _json_number(tax.hi[i])
        if tax.children[i]:
            obj["children"] = [one(c) for c in tax.children[i]]
        return obj

    doc = {"attribute": tax.attribute, "kind": tax.kind, "root": one(0)}
    return json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"


def _json_number(x: float):
    x = float(x)
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


# -- indented text -------------------------------------------------------------------------------------
def parse_indented(text: str, attribute: str = "", source: str | None = None, kind: str | None = None) -> Taxonomy:
    """One label per line; a node's children are the following lines indented more than it (spaces or
    tabs, not both). Blank lines are ignored."""
    if text.startswith("\ufeff"):
        text = text[1:]
    stack: list[tuple[int, Node, int]] = []  # (indent, node, line)
    line_of: dict[int, int] = {}
    root: Node | None = None
    indent_char: tuple[str, int] | None = None
    indent_of: dict[int, int] = {}
    for no, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        label = raw.strip()
        lead = raw[: len(raw) - len(raw.lstrip())]
        if lead:
            chars = set(lead)
            if len(chars) > 1:
                raise TaxonomyError("bad indentation: mixes tabs and spaces", source, no)
            ch = chars.pop()
            if indent_char is None:
                indent_char = (ch, no)
            elif indent_char[0] != ch:
                names = {" ": "spaces", "\t": "tabs"}
                raise TaxonomyError(
                    f"bad indentation: {names.get(ch, repr(ch))} here, "
                    f"{names.get(indent_char[0], repr(indent_char[0]))} on line {indent_char[1]}",
                    source,
                    no,
                )
        width = len(lead)
        node = Node(label)
        line_of[id(node)] = no
        if root is None:
            root = node
            stack.append((width, node, no))
            continue
        while stack and stack[-1][0] > width:
            stack.pop()
        if stack and stack[-1][0] == width:
            stack.pop()
        if not stack:
            raise TaxonomyError(
                f"more than one root: {label!r} is not indented under {root.label!r} (line {line_of[id(root)]})",
                source,
                no,
            )
        parent, parent_line = stack[-1][1], stack[-1][2]
        if parent.children and indent_of[id(parent.children[0])] != width:
            raise TaxonomyError(
                f"bad indentation: {label!r} is indented by {width}, its earlier siblings by "
                f"{indent_of[id(parent.children[0])]} (under {parent.label!r}, line {parent_line})",
                source,
                no,
            )
        parent.children.append(node)
        indent_of[id(node)] = width
        stack.append((width, node, no))
    if root is None:
        raise TaxonomyError("empty text: no labels", source)
    return _finish(root, line_of, source, attribute, kind, dash=True)


def format_indented(tax: Taxonomy, indent: str = "  ") -> str:
    """One label per line, each level indented by ``indent`` more than its parent."""
    labels = _labels_for_writing(tax)
    _check_writable(tax, labels, "indented text")
    return "".join(f"{indent * int(tax.depth[i])}{labels[i]}\n" for i in range(len(tax)))


# -- dispatch ------------------------------------------------------------------------------------------
def detect_format(text: str, filename: str | Path | None = None) -> str:
    """``arx``/``json`` from a .csv/.tsv/.json name; otherwise from the content: ``{"`` is JSON, ``{``
    brace text, any indented line indented text, a row with a separator ARX, else indented text."""
    if filename is not None:
        fmt = _EXTENSIONS.get(Path(filename).suffix.lower())
        if fmt in ("arx", "json", "brace"):
            return fmt
    body = text.lstrip("\ufeff")
    stripped = body.lstrip()
    if re.match(r'\{\s*"', stripped):
        return "json"
    if stripped.startswith("{"):
        return "brace"
    lines = [t for t in body.splitlines() if t.strip()]
    if any(t[0].isspace() for t in lines):
        return "indented"
    if lines and parse_interval(lines[0], dash=False) is not None:
        return "indented"  # a lone numeric root such as [0,10), not an ARX row split at its comma
    sep = sniff_separator(body)
    if lines and (lines[0].startswith('"') or len(next(csv.reader([lines[0]], delimiter=sep))) >= 2):
        return "arx"
    return "indented"


_PARSERS: dict[str, Callable[..., Taxonomy]] = {
    "arx": parse_arx,
    "brace": parse_brace,
    "json": parse_json,
    "indented": parse_indented,
}


def parse_taxonomy(
    text: str, format: str | None = None, attribute: str = "", source: str | None = None, kind: str | None = None
) -> Taxonomy:
    """Parse text in ``format`` (detected from the content when None)."""
    fmt = format or detect_format(text)
    if fmt not in _PARSERS:
        raise TaxonomyError(f"unknown taxonomy format {fmt!r} (expected one of {', '.join(FORMATS)})", source)
    return _PARSERS[fmt](text, attribute=attribute, source=source, kind=kind)


def format_taxonomy(tax: Taxonomy, format: str, **options) -> str:
    """Text of ``tax`` in ``format`` (``sep`` for arx, ``multiline`` for brace, ``indent`` for json/indented)."""
    writers: dict[str, Callable[..., str]] = {
        "arx": format_arx,
        "brace": format_brace,
        "json": format_json,
        "indented": format_indented,
    }
    if format not in writers:
        raise TaxonomyError(f"unknown taxonomy format {format!r} (expected one of {', '.join(FORMATS)})")
    return writers[format](tax, **options)


def _attribute_from_name(path: Path) -> str:
    stem = path.stem
    return stem.split("_hierarchy_", 1)[1] if "_hierarchy_" in stem else stem


def read_taxonomy(path, attribute: str | None = None, format: str | None = None, kind: str | None = None) -> Taxonomy:
    """Read a taxonomy file. The format comes from ``format``, else the extension (.csv/.tsv ARX, .json),
    else the content. The attribute defaults to the JSON's ``attribute`` or the file name (``x_hierarchy_age``
    and ``age`` both give ``age``)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise TaxonomyError(f"cannot read the file: {e.strerror or e}", str(p)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise TaxonomyError(f"not UTF-8 text (byte {e.start})", str(p), line) from None
    fmt = format or detect_format(text, p)
    tax = parse_taxonomy(text, fmt, attribute or "", str(p), kind)
    if not tax.attribute:
        tax.attribute = attribute or _attribute_from_name(p)
    return tax


def write_taxonomy(tax: Taxonomy, path, format: str | None = None, overwrite: bool = False, **options) -> Path:
    """Write atomically (``dpstudio.io.atomic``); refuses to replace an existing file unless ``overwrite``.
    The format comes from ``format`` or the extension: .csv (ARX, ``;``), .tsv (ARX, tab), .json, .txt
    (indented), .brace."""
    p = Path(path)
    fmt = format or _EXTENSIONS.get(p.suffix.lower())
    if fmt is None:
        raise TaxonomyError(
            f"cannot tell the taxonomy format from {p.name!r}; pass format= (one of {', '.join(FORMATS)})", str(p)
        )
    if fmt == "arx" and "sep" not in options and p.suffix.lower() == ".tsv":
        options["sep"] = "\t"
    return atomic_write(p, format_taxonomy(tax, fmt, **options), overwrite=overwrite)
