"""Overfit: the validation loss pulls away from the training loss. Each validation datapoint against the training
datapoint at or before it: it holds when (validation - training) / training exceeds `ratio_threshold` at the last
`patience` validation datapoints (Debugger's test)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import LOSS_METRICS, LOSS_WINDOW, job_query, loss_needs, loss_pair
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped


class Overfit(Monitor):
    name = "Overfit"
    summary = "The validation loss is more than ratio_threshold above the training loss."
    params = (*LOSS_METRICS,
              Param("ratio_threshold", 0.1, "(validation - training) / training above which the job overfits",
                    0, 100, ""),
              Param("patience", 1, "Consecutive validation datapoints over the ratio", 1, 100, "datapoints",
                    whole=True),
              LOSS_WINDOW)

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return loss_needs(job, p, self.name, now)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        pair = loss_pair(job, p, self.name)
        if isinstance(pair, Skipped):
            return pair
        train, validation = pair
        training = data.points(job_query(job, train))
        checked = data.points(job_query(job, validation))
        times = [t for t, _ in training]
        ratios = []
        for t, value in checked:
            index = bisect_right(times, t) - 1
            if index >= 0 and training[index][1] > 0:
                ratios.append((value, training[index][1], (value - training[index][1]) / training[index][1]))
        if len(ratios) < p["patience"]:
            return Pending(f"{len(ratios)} datapoints of {validation} with a training value before them "
                           f"({p['patience']} needed)")
        last = ratios[-p["patience"]:]
        if all(ratio > p["ratio_threshold"] for _v, _t, ratio in last):
            value, base, ratio = last[-1]
            return Finding(f"{validation} {value:.4g} is {100 * ratio:.0f}% above {train} {base:.4g} (ratio threshold "
                           f"{100 * p['ratio_threshold']:g}%) at its last {p['patience']} datapoint(s)")
        return Clear()


MONITOR = Overfit()
