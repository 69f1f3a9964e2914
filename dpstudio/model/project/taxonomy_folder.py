"""Which files of a folder hold the taxonomy of which attribute (Qt-free), and a folder beside the data.

A file belongs to attribute A when its name without the suffix is A, or ends with ``_A`` (ARX's
``adult_hierarchy_age.csv``). Only the names are read here: the files themselves are public inputs read by
``dpstudio.io.taxonomy_formats`` when imported. Nothing here looks at the records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

TAXONOMY_SUFFIXES = (".csv", ".tsv", ".json", ".txt", ".brace")
BESIDE_NAMES = ("taxonomies", "hierarchies")  # sub-folders of the data's folder offered first


def _belongs(stem: str, attribute: str) -> bool:
    return stem == attribute or stem.endswith("_" + attribute)


@dataclass
class FolderMatch:
    """``matched``: attribute -> its file (the longest matching name wins: ``x_capital-gain`` over ``x_gain``);
    ``unmatched``: names of taxonomy-like files that belong to no attribute."""

    folder: Path
    matched: dict = field(default_factory=dict)
    unmatched: list = field(default_factory=list)

    def summary(self, imported, failed, still_without) -> str:
        """One line: what was imported, which files matched nothing, which attributes still lack a taxonomy."""
        parts = [
            f"imported {len(imported)} taxonom{'y' if len(imported) == 1 else 'ies'} from {self.folder.name}"
            + (f" ({', '.join(imported)})" if imported else "")
        ]
        if failed:
            parts.append(f"not imported: {', '.join(failed)}")
        if self.unmatched:
            shown = ", ".join(self.unmatched[:5])
            more = f" and {len(self.unmatched) - 5} more" if len(self.unmatched) > 5 else ""
            parts.append(f"{len(self.unmatched)} file(s) named after no attribute: {shown}{more}")
        parts.append(
            f"still without a taxonomy: {', '.join(still_without)}"
            if still_without
            else "every attribute that needs one has a taxonomy"
        )
        return "; ".join(parts)


def match_folder(folder, attributes, exclude=()) -> FolderMatch:
    """The taxonomy files of ``folder`` matched to ``attributes`` (``exclude``: paths to skip, e.g. the data)."""
    folder = Path(folder)
    skip = {Path(p).resolve() for p in exclude}
    files = sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in TAXONOMY_SUFFIXES and p.resolve() not in skip
    )
    out = FolderMatch(folder)
    used = set()
    for attr in attributes:
        hits = [p for p in files if _belongs(p.stem, attr)]
        if hits:
            out.matched[attr] = min(hits, key=lambda p: (len(p.stem) - len(attr), p.name))
            used.add(out.matched[attr])
    # a file named after a longer attribute name is that attribute's, not also a shorter one's ("x_gain")
    out.unmatched = [p.name for p in files if p not in used and not any(_belongs(p.stem, a) for a in attributes)]
    return out


def folder_beside(data_path, attributes) -> FolderMatch | None:
    """A folder beside the data whose file names match at least one attribute: ``taxonomies/`` or
    ``hierarchies/`` next to the data file, else the data's own folder (the data file itself skipped)."""
    if data_path is None:
        return None
    data_path = Path(data_path)
    for folder in [data_path.parent / n for n in BESIDE_NAMES] + [data_path.parent]:
        if folder.is_dir():
            try:
                found = match_folder(folder, attributes, exclude=[data_path])
            except OSError:
                continue
            if found.matched:
                return found
    return None


__all__ = ["FolderMatch", "TAXONOMY_SUFFIXES", "folder_beside", "match_folder"]
