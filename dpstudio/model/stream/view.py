"""The stream view's data (Qt-free): a recorded stream run, played to any step, and the analytic errors
the Stream panel's Compare plots (issue 12; the view is ``gui/panels/stream.py``).

``StreamPlayback(events)`` holds the events ``run_stream`` yielded. ``state(k)`` is what the view shows
after the first k events: the released value of every timestamp so far (and its source: noisy, sample,
prediction, repeat), the latest published window with its group ends, the ledger lines so far, and the
guarantee, which is always shown. True counts are present only in a simulation (teaching) run.

``literal_asm_playback(counts, ...)``: the published ASM for teaching only, labelled "not differentially
private" and never exportable (``exportable`` is False; it refuses secure noise).

``analytic_window_errors(mechanisms, T, w, epsilons)``: the ungrouped per-window Laplace error w v of the
mechanisms that have one (swm, tpm, uniform, binary), with the exact discrete Laplace variance: public
inputs only, fit for release mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpstudio.algorithms.stream_baselines import binary_levels
from dpstudio.algorithms.stream_runs import StreamParams
from dpstudio.algorithms.stream_shp import asm_literal
from dpstudio.core.budget import as_fraction
from dpstudio.core.events import BudgetSpent, run_result
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.range_error import laplace_variance
from dpstudio.core.scales import noise_scale
from dpstudio.core.stream_events import StreamValueReleased, WindowReleased

NOT_DP = "not differentially private"


@dataclass
class StreamState:
    step: int
    values: dict = field(default_factory=dict)  # t -> (value, source)
    true_counts: dict = field(default_factory=dict)  # t -> true count (teaching runs only)
    window: WindowReleased | None = None
    ledger: list = field(default_factory=list)  # Spend entries so far
    spent: float = 0.0


@dataclass
class StreamPlayback:
    events: list
    guarantee: str
    label: str = ""
    exportable: bool = True

    @property
    def teaching(self) -> bool:
        return any(isinstance(e, StreamValueReleased) and e.true_count is not None for e in self.events)

    def state(self, k: int) -> StreamState:
        k = max(0, min(int(k), len(self.events)))
        st = StreamState(k)
        for e in self.events[:k]:
            if isinstance(e, StreamValueReleased):
                st.values[e.t] = (e.value, e.source)
                if e.true_count is not None:
                    st.true_counts[e.t] = e.true_count
            elif isinstance(e, WindowReleased):
                st.window = e
            elif isinstance(e, BudgetSpent):
                st.ledger.append(e.spend)
                st.spent = e.spent_total
        return st


def playback_of(events, params: StreamParams) -> StreamPlayback:
    """A recorded ``run_stream`` run; the guarantee comes from its result (or the parameters)."""
    events = list(events)
    result = run_result(events)
    guarantee = result.guarantee if result is not None else params.guarantee(params.horizon or "T")
    return StreamPlayback(events, guarantee, params.mechanism)


def literal_asm_playback(counts, epsilon, seed: int, ratio: float = 0.4) -> StreamPlayback:
    """The published ASM (teaching only): simulation noise, true counts shown, never exportable."""
    x = np.asarray(counts, dtype=np.int64)
    gen = asm_literal(x, x.size, epsilon, SimulationNoise(seed), ratio)
    events = list(gen)
    return StreamPlayback(
        events,
        f"literal ASM: {NOT_DP} (it reads true counts to decide what to release)",
        f"literal ASM ({NOT_DP})",
        exportable=False,
    )


def analytic_window_errors(mechanisms, horizon: int, window: int, epsilons, cap: int = 1) -> dict:
    """{mechanism: [w v for each epsilon]} for swm, tpm, uniform (ungrouped) and binary (mean over
    positions of (1 + lowest set bit) v); other mechanisms have no data-independent figure (None). ``cap``:
    K, one person's most per timestamp (every scale for sensitivity K; SWM's w K)."""
    out = {}
    for m in mechanisms:
        row = []
        for eps in epsilons:
            e = as_fraction(eps)
            if m == "swm":
                row.append(window * laplace_variance(noise_scale(window * cap, e / (horizon - window + 1))))
            elif m in ("tpm", "uniform"):
                row.append(window * laplace_variance(noise_scale(cap, e / horizon)))
            elif m == "binary":
                v = laplace_variance(noise_scale(cap, e / binary_levels(horizon)))
                lows = np.array([(t & -t).bit_length() for t in range(1, horizon + 1)], dtype=float)
                row.append(float(window * v * lows.mean()))
            else:
                row.append(None)
        out[m] = row
    return out
