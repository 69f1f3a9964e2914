"""A small table written in several byte forms (shuffled, CRLF, without the trailing newline) for the
budget-store tests of the CLI and the studio."""

ROWS = [
    ("China", 18, "N"),
    ("Korea", 21, "Y"),
    ("Canada", 27, "N"),
    ("USA", 35, "N"),
    ("USA", 29, "Y"),
    ("China", 39, "Y"),
    ("Korea", 22, "N"),
    ("China", 28, "N"),
] * 5


def write_data(path, rows, newline="\n", trailing=True):
    lines = ["country,age,hired"] + [f"{c},{a},{h}" for c, a, h in rows]
    path.write_bytes((newline.join(lines) + (newline if trailing else "")).encode())
    return path


def spent_epsilons(store) -> list[float]:
    """Every spend recorded in the budget store file ``store`` (none when it does not exist yet)."""
    import sqlite3
    from fractions import Fraction

    if not store.exists():
        return []
    with sqlite3.connect(store) as con:
        return [float(Fraction(str(e))) for (e,) in con.execute("SELECT epsilon FROM spends")]
