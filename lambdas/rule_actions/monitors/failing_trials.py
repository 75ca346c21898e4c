"""FailingTrials: a tuning job whose trials fail. It holds when the first `first` trials that ended all failed, or
the latest `in_a_row` trials that ended failed one after another; the finding names the distinct failure reasons
(usually one: the same bug in every trial), each with how many trials gave it. Stopping the tuning job
(StopHyperParameterTuningJob) also stops its running trials, before it spends its budget of training jobs on a bug.

Read: the tuning job's latest TRIALS trials (one ListTrainingJobsForHyperParameterTuningJob call per tuning job and
run, newest first). "The first trials" are judged while the listing holds every trial of the job (fewer than
TRIALS); past that, `in_a_row` still holds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from rule_actions.contract import Offer
from rule_actions.monitors.job import JUDGED, TRIALS, RunningJob
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped

ENDED = ("Completed", "Failed", "Stopped")
REASON_MAX = 200


class FailingTrials(Monitor):
    name = "FailingTrials"
    summary = "A tuning job's first `first` trials failed, or its latest `in_a_row` trials failed one after another."
    needs = frozenset({Offer.TRIALS})
    phases = (JUDGED,)
    metrics = False
    trials = True
    params = (Param("first", 3, "The first trials that ended: when this many all failed, the rule holds (0: off)", 0,
                    100, "trials", whole=True),
              Param("in_a_row", 3, "The latest trials that ended: when this many failed in a row, the rule holds (0: "
                    "off)", 0, 100, "trials", whole=True))

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        return Reads(trials=TRIALS)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        listed = sorted(data.trials, key=lambda t: (t.created, t.name))  # oldest first
        ended = [t for t in listed if t.status in ENDED]
        found = []
        whole = len(data.trials) < TRIALS
        if p["first"] and whole and len(ended) >= p["first"] and all(t.status == "Failed" for t in ended[:p["first"]]):
            found.append((f"its first {p['first']} trials failed", ended[:p["first"]]))
        latest = ended[-p["in_a_row"]:] if p["in_a_row"] else []
        if p["in_a_row"] and len(latest) == p["in_a_row"] and all(t.status == "Failed" for t in latest) \
                and not (found and whole and len(ended) == p["first"]):
            found.append((f"its latest {p['in_a_row']} trials failed in a row", latest))
        if not found:
            failed = sum(1 for t in ended if t.status == "Failed")
            if not ended:
                return Pending("no trial has ended yet")
            return Clear(f"{failed} of {len(ended)} ended trials failed")
        what, trials = found[0]
        reasons = Counter(_reason(t.reason) for t in trials)
        named = "; ".join(f"{reason} ({count} trial{'s' if count > 1 else ''})" for reason, count in reasons.items())
        return Finding(f"{what} ({', '.join(t.name for t in trials)}): {len(reasons)} distinct "
                       f"reason{'s' if len(reasons) > 1 else ''}: {named}")


def _reason(text: str) -> str:
    """A failure reason as one line, without what differs from trial to trial's reason only by its length."""
    line = " ".join(text.split()) or "(no reason given)"
    return line if len(line) <= REASON_MAX else line[:REASON_MAX - 1] + "…"


MONITOR = FailingTrials()
