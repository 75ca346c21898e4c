"""Overtraining: neither loss improves any more. It holds when the training loss has not improved on its best by
more than `delta` over its last `patience_train` datapoints, and the validation loss not over its last
`patience_validation` (Debugger's test, over datapoints instead of steps)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import LOSS_METRICS, LOSS_WINDOW, job_query, loss_needs, loss_pair
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped


def stalled(values: list[float], patience: int, delta: float) -> bool:
    """The last `patience` values do not beat the best before them by more than `delta`."""
    return len(values) > patience and min(values[-patience:]) > min(values[:-patience]) - delta


class Overtraining(Monitor):
    name = "Overtraining"
    summary = "Neither the training nor the validation loss improves any more: training longer only costs."
    params = (*LOSS_METRICS,
              Param("patience_train", 5, "Training datapoints without improvement", 1, 150, "datapoints", whole=True),
              Param("patience_validation", 10, "Validation datapoints without improvement", 1, 150, "datapoints",
                    whole=True),
              Param("delta", 0.01, "Least improvement on the best value that counts", 0, 1000, ""),
              LOSS_WINDOW._replace(default=200))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return loss_needs(job, p, self.name, now)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        pair = loss_pair(job, p, self.name)
        if isinstance(pair, Skipped):
            return pair
        train, validation = pair
        t = [v for _, v in data.points(job_query(job, train))]
        v = [x for _, x in data.points(job_query(job, validation))]
        if len(t) <= p["patience_train"] or len(v) <= p["patience_validation"]:
            return Pending(f"{len(t)} datapoints of {train} and {len(v)} of {validation} "
                           f"({p['patience_train'] + 1} and {p['patience_validation'] + 1} needed)")
        if stalled(t, p["patience_train"], p["delta"]) and stalled(v, p["patience_validation"], p["delta"]):
            return Finding(f"neither {train} (best {min(t):.4g}) improved by {p['delta']:g} in its last "
                           f"{p['patience_train']} datapoints nor {validation} (best {min(v):.4g}) in its last "
                           f"{p['patience_validation']}: training longer only costs")
        return Clear()


MONITOR = Overtraining()
