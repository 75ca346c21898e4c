"""NoImprovement (opt-in: only when a configuration or a tuning job's tag turns it on): a tuning job whose last
`trials` completed trials did not improve its objective. It holds when the best objective value among its latest
`trials` completed trials (those with a final objective value, in the order they ended) is not better than the best
before them by more than `min_delta`, in the direction of the job's objective (Minimize or Maximize, from its
HyperParameterTuningJobConfig). Read: the same one call per tuning job and run as FailingTrials."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.contract import Offer
from rule_actions.monitors.job import JUDGED, TRIALS, RunningJob
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped


class NoImprovement(Monitor):
    name = "NoImprovement"
    summary = "None of a tuning job's last `trials` completed trials improved its objective by more than `min_delta`."
    needs = frozenset({Offer.TRIALS})
    phases = (JUDGED,)
    metrics = False
    trials = True
    params = (Param("trials", 10, "Completed trials in a row without an improvement after which the rule holds", 2,
                    TRIALS - 1, "trials", whole=True),
              Param("min_delta", 0.0, "How much better than the best before them a trial's objective must be to "
                    "count as an improvement", 0, 1e12))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        if job.objective not in ("Minimize", "Maximize"):
            return Skipped(f"{self.name} needs the tuning job's objective type (Minimize or Maximize): its "
                           "HyperParameterTuningJobConfig names none")
        return Reads(trials=TRIALS)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        done = sorted(((t, t.objective) for t in data.trials if t.status == "Completed" and t.objective is not None),
                      key=lambda scored: (scored[0].ended or scored[0].created, scored[0].name))
        k = p["trials"]
        if len(done) <= k:
            return Pending(f"{len(done)} completed trials with an objective value (the rule compares the last {k} "
                           "with those before them)")
        sign = 1 if job.objective == "Maximize" else -1
        before = max(sign * objective for _, objective in done[:-k])
        latest, best = max(done[-k:], key=lambda scored: sign * scored[1])
        if sign * best > before + p["min_delta"]:
            return Clear(f"{latest.name} improved the objective to {best:g} among the last {k} trials")
        return Finding(f"none of the last {k} completed trials improved the objective ({job.objective}) by more than "
                       f"{p['min_delta']:g}: their best {best:g} ({latest.name}), the best before them "
                       f"{sign * before:g}")

MONITOR = NoImprovement()
