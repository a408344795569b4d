"""Timing: the cost model (cost.py), the scheduler (schedule.py) and the `Timeline` they build
(timeline.py). `profile_run(run)` -> `Timeline`; `Run.timeline()` calls it.
docs/timing.md documents the model and every number."""

from .timeline import LANE_NAMES, Timeline, profile_run

__all__ = ["profile_run", "Timeline", "LANE_NAMES"]
