"""StalledTraining: a training job stopped making progress (no log line, or no datapoint of a named metric, for
`threshold` seconds after training started, from the whole job or from one host that was logging). Its logic, shared
with StalledJob, is in monitors/silence.py, with how a host's rhythm is learned and how the logs are read."""

from __future__ import annotations

from rule_actions.monitors.silence import LOOKBACK, RHYTHM_HOURS, StalledTraining, rhythm, span

__all__ = ["LOOKBACK", "RHYTHM_HOURS", "StalledTraining", "rhythm", "span"]

MONITOR = StalledTraining()
