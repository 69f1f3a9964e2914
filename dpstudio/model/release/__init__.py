"""The release service and what it shares with the front ends: the snapshot taken at Run, the question asked
before a spend, the budget account of the loaded data. See ``service.py``."""

from dpstudio.model.release.question import (
    CAUTION_EPSILON,
    MAX_EPSILON,
    ReleaseQuestion,
    epsilon_caution,
    epsilon_refusal,
)
from dpstudio.model.release.service import SIMULATION_RECORD, ReleaseRefused, ReleaseRequest, ReleaseService, RunSetup

__all__ = [
    "CAUTION_EPSILON",
    "MAX_EPSILON",
    "ReleaseQuestion",
    "ReleaseRefused",
    "ReleaseRequest",
    "ReleaseService",
    "RunSetup",
    "SIMULATION_RECORD",
    "epsilon_caution",
    "epsilon_refusal",
]
