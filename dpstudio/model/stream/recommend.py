"""A stream mechanism recommended from public inputs only (T, w, epsilon, K), with its reason.

Mechanisms are compared only with those that give the same guarantee (``GUARANTEE``): the user-level ones
(one person over the whole horizon) among themselves, the event-level one (binary: one record at one
timestamp, a weaker promise) on its own. Only a data-independent figure can be compared without reading the
data: the expected squared error of one ungrouped window, w v, with the exact discrete Laplace variance v of
the noise each mechanism runs (``stream_view.analytic_window_errors``). ASM-DP, FAST, BD and BA publish
predictions whose error depends on the data; they are named as not judged, never ranked. Nothing here reads
a count, so the recommendation may be shown before any data is opened and in either mode.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpstudio.model.stream.view import analytic_window_errors

USER_LEVEL = "user-level"
EVENT_LEVEL = "event-level"
GUARANTEE = {
    "tpm": USER_LEVEL,
    "swm": USER_LEVEL,
    "uniform": USER_LEVEL,
    "asm": USER_LEVEL,
    "fast": USER_LEVEL,
    "bd": USER_LEVEL,
    "ba": USER_LEVEL,
    "binary": EVENT_LEVEL,
}
DATA_DEPENDENT = ("asm", "fast", "bd", "ba")


@dataclass(frozen=True)
class Recommendation:
    mechanism: str
    guarantee: str
    figures: dict  # mechanism -> expected squared error of one ungrouped window (same guarantee, closed form)
    reason: str


def same_guarantee(mechanism: str) -> list[str]:
    """The mechanisms that give the same guarantee as ``mechanism`` (itself included)."""
    g = GUARANTEE[mechanism]
    return [m for m, h in GUARANTEE.items() if h == g]


def recommend(horizon: int, window: int, epsilon, cap: int = 1, guarantee: str = USER_LEVEL) -> Recommendation:
    """The mechanism with the smallest data-independent window error among those giving ``guarantee``."""
    mechanisms = [m for m, g in GUARANTEE.items() if g == guarantee and m not in DATA_DEPENDENT]
    figures = {m: v[0] for m, v in analytic_window_errors(mechanisms, horizon, window, (epsilon,), cap).items()}
    best = min(figures, key=lambda m: (figures[m], m != "tpm"))  # uniform runs TPM's noise: TPM named on a tie
    k = "" if cap == 1 else f", K = {cap}"
    head = f"{best.upper()} for T = {horizon}, w = {window}, \u03b5 = {float(epsilon):g}{k}"
    if guarantee == EVENT_LEVEL:
        reason = (
            f"{head}: the only event-level mechanism (its guarantee protects one record at one timestamp, "
            f"weaker than the user-level mechanisms', so it is not compared with them); expected squared "
            f"error of one window {_figure(figures[best])}."
        )
        return Recommendation(best, guarantee, figures, reason)

    others = [
        f"{m.upper()} {_figure(figures[m])} ({_times(figures[m] / figures[best])})"
        for m in sorted(figures, key=figures.__getitem__)
        if m != best and m != "uniform"
    ]
    reason = (
        f"{head}: the smallest expected squared error of one window ({_figure(figures[best])}) among the "
        f"user-level mechanisms with a figure from public inputs"
        + (f"; {', '.join(others)}" if others else "")
        + ". ASM-DP, FAST, BD and BA publish predictions whose error depends on the data (not judged from "
        "public inputs: measure them in teaching mode); binary is event-level, a weaker guarantee, and is "
        "not compared with these."
    )
    return Recommendation(best, guarantee, figures, reason)


def _figure(value: float) -> str:
    """A figure for people: three significant digits, written out with separators (13,800; 348,000,000), never
    in e-notation."""
    rounded = float(f"{value:.3g}")
    return f"{rounded:,.0f}" if rounded >= 100 else f"{rounded:g}"


def _times(ratio: float) -> str:
    return "the same" if abs(ratio - 1) < 5e-4 else f"{_figure(ratio)} times as large"


def advice(params, horizon: int) -> tuple[Recommendation, dict]:
    """The recommendation for a run's public parameters and the sidecar's ``recommendation`` entry (the
    command and the Stream panel's export write the same)."""
    rec = recommend(horizon, params.window, params.checked_epsilon(), int(params.cap), GUARANTEE[params.mechanism])
    return rec, {"mechanism": rec.mechanism, "reason": rec.reason, "from": "public inputs only (T, w, epsilon, K)"}


__all__ = [
    "advice",
    "DATA_DEPENDENT",
    "EVENT_LEVEL",
    "GUARANTEE",
    "USER_LEVEL",
    "Recommendation",
    "recommend",
    "same_guarantee",
]
