"""SageMaker hyperparameter tuning jobs: the "SageMaker HyperParameter Tuning Job State Change" event, their outcomes
(`tuning_job_outcomes`: Failed, Stopped, Completed) and their scope (`tuning_job_prefixes`).

One message per tuning job, however many training jobs (trials) it launched: while `tuning_job_outcomes` attaches
actions, a trial's outcome is held back unless `tuning_trials_alert` is true (jobs/training.py; its rule statuses are
acted on whatever the switch says). Every message carries the tuning job's facts: its
training jobs' status counters, its objective counters, its best training job and that job's objective value, and
for a warm start (WarmStartConfig) the best of its parents' trials too when it is another (OverallBestTrainingJob):
SageMaker's event carries neither (its schema has no BestTrainingJob member), so they are read with one
DescribeHyperParameterTuningJob, unless an event does carry BestTrainingJob; a Failed one also the failure reasons
of at most TRIALS_SHOWN failed trials (one ListTrainingJobsForHyperParameterTuningJob): a tuning job's own reason
("No training job succeeded after 5 attempts") says nothing a person can act on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rule_actions.contract import Grant, Offer, OutcomeCondition
from rule_actions.cost import PRICES, Billing
from rule_actions.jobs.base import NAME_RE, JobFamily, Members
from rule_actions.jobs.common import (
    CONSOLE_PATHS,
    LIST_TRIALS,
    LOG_GROUPS,
    TUNING,
    TUNING_JOB,
    TUNING_JOB_OUTCOMES,
    TUNING_NAME,
    TUNING_NAME_HINT,
    TUNING_OWNER,
    TUNING_SCOPE,
    TUNING_STOPPED,
    TUNING_TRIALS_ALERT,
    essence,
)
from rule_actions.ports import Configured
from rule_actions.records import Described, FailedTrials, JobEvent, Need, Unread
from rule_actions.text import DETAILS_MAX, NAME_MAX, line, log_link, plain, quoted, text_at

FAILED = "Failed"
OUTCOMES = {
    FAILED: OutcomeCondition((FAILED,), (), (), "tuning job failed", "failed"),
    "Stopped": OutcomeCondition(("Stopped",), (), (), "tuning job stopped", "was stopped"),
    "Completed": OutcomeCondition(("Completed",), (), (), "tuning job completed", "completed"),
}
TRIALS_SHOWN = 5  # the failed trials a Failed message names, with their reasons
TRIAL_REASON_MAX = 300
COUNTERS = ("Completed", "InProgress", "RetryableError", "NonRetryableError", "Stopped")  # TrainingJobStatusCounters
OBJECTIVE = ("Succeeded", "Pending", "Failed")  # ObjectiveStatusCounters
COUNTED = {"TrainingJobStatusCounters": COUNTERS, "ObjectiveStatusCounters": OBJECTIVE}
# The members of the event its messages use, checked (each malformed one a problem on the event's row)
CHECKED = (*COUNTED, "BestTrainingJob", "OverallBestTrainingJob", "WarmStartConfig")


class Tuning(JobFamily):
    name = "tuning"
    noun = "hyperparameter tuning job"
    detail_type = "SageMaker HyperParameter Tuning Job State Change"
    members = Members(name="HyperParameterTuningJobName", arn="HyperParameterTuningJobArn",
                      status="HyperParameterTuningJobStatus", secondary=None, transitions=None,
                      started="CreationTime", ended="HyperParameterTuningEndTime")
    api = TUNING
    resource = TUNING_JOB
    outcomes = OUTCOMES
    console_path = CONSOLE_PATHS[TUNING_JOB]
    log_group = LOG_GROUPS[TUNING_JOB]  # its trials' streams start with its name
    scope = TUNING_SCOPE
    owner_key = TUNING_OWNER  # a trial's stop may name it: StopHyperParameterTuningJob also stops its running trials
    stop_consequence = TUNING_STOPPED
    outcome_actions = TUNING_JOB_OUTCOMES
    settings = (TUNING_TRIALS_ALERT,)
    name_pattern = re.compile(TUNING_NAME, re.ASCII)
    name_hint = TUNING_NAME_HINT
    # The sum of its trials (each on its training job definition's instances), bounded by its own ResourceLimits.
    billing = Billing("Training", started="CreationTime", ended="HyperParameterTuningEndTime",
                      runtime=("HyperParameterTuningJobConfig", "ResourceLimits", "MaxRuntimeInSeconds"), trials=True)
    offers = frozenset({Offer.JOB_STATUS, Offer.TRIALS, Offer.COST})
    metric_namespace = LOG_GROUPS[TUNING_JOB]  # its trials' (training jobs')
    statuses = ("Completed", "InProgress", "Failed", "Stopped", "Stopping", "Deleting", "DeleteFailed")

    def logs(self, region: str, job_name: str) -> tuple[str, str]:
        return "Its training jobs' logs", log_link(region, self.log_group, job_name)

    def detail_problems(self, detail: Mapping[str, Any]) -> list[str]:
        return [problem for key in CHECKED for problem in _problems(key, detail.get(key))]

    def outcome_needs(self, event: JobEvent, outcome: str) -> frozenset[Need]:
        needs: set[Need] = set()
        malformed = any(_problems(key, event.detail.get(key)) for key in CHECKED)  # a description may have them
        if "BestTrainingJob" not in _usable(event.detail) or malformed or (
                outcome == FAILED and not event.failure_reason):
            needs.add(Described(self.api, event.job_name))
        if outcome == FAILED:
            needs.add(FailedTrials(event.job_name, TRIALS_SHOWN))
        return frozenset(needs)

    def learn(self, event: JobEvent, answers: Mapping[Any, Any]) -> JobEvent:
        described = answers.get(Described(self.api, event.job_name))
        known: Mapping[str, Any] = described if isinstance(described, Mapping) else {}
        detail = {**known, **_usable(event.detail)}  # a malformed member of the event is a problem, never a fact
        trials = answers.get(FailedTrials(event.job_name, TRIALS_SHOWN))
        reason = event.failure_reason or text_at(known, "FailureReason")
        details = {
            "training_jobs": _counters(detail.get("TrainingJobStatusCounters"), COUNTERS),
            "objective": _counters(detail.get("ObjectiveStatusCounters"), OBJECTIVE),
            "best_training_job": _best(detail.get("BestTrainingJob")),
            "overall_best_training_job": _overall(detail),
            "failed_trials": ([_trial(t) for t in trials] if isinstance(trials, (list, tuple))
                              and not isinstance(trials, Unread) else None),
            "unread": "; ".join(a.reason for a in (described, trials) if isinstance(a, Unread)) or None,
        }
        return replace(event, failure_reason=reason, details=details)

    def outcome_lines(self, event: JobEvent, outcome: str) -> list[str]:
        d = event.details
        if not d:
            return []
        jobs, objective, best = d.get("training_jobs"), d.get("objective"), d.get("best_training_job")
        lines = [
            line("Training jobs", _summary(jobs, COUNTERS) if jobs else "unknown"),
            line("Objective", _summary(objective, OBJECTIVE) if objective else "unknown"),
            line("Best job", _best_text(best) if best else _no_best(objective, d.get("unread"))),
        ]
        overall = d.get("overall_best_training_job")
        if overall:
            lines.append(line("Overall best", f"{_best_text(overall)} (a trial of its warm start's parents)"))
        trials = d.get("failed_trials")
        if trials:
            failed = (jobs or {}).get("NonRetryableError", 0) + (jobs or {}).get("RetryableError", 0)
            shown = f"{len(trials)} of {failed}" if failed > len(trials) else str(len(trials))
            lines += ["", f"Failed training jobs ({shown}) and why, in their own words:"]
            lines += [f"  - {t['name']}: {plain(essence(t['reason']), TRIAL_REASON_MAX) or '(no reason given)'}"
                      for t in trials]
        if d.get("unread"):
            lines += ["", f"Not read: {plain(d['unread'], DETAILS_MAX)}"]
        return lines

    def short_reason(self, event: JobEvent) -> str:
        """A failed trial's own reason, which says what went wrong (the tuning job's says how many failed)."""
        trials = event.details.get("failed_trials") if event.details else None
        if trials and trials[0]["reason"]:
            return f"{essence(trials[0]['reason'])} (trial {trials[0]['name']})"
        return event.failure_reason

    def read_grants(self, config: Configured) -> list[Grant]:
        outcomes = {outcome for outcome, actions in config[self.outcome_actions] if actions}
        if not outcomes:
            return []
        trials = FAILED in outcomes or config[PRICES].known  # a failed one's reasons; every one's cost
        actions = (f"sagemaker:{self.api.describe}", *((f"sagemaker:{LIST_TRIALS}",) if trials else ()))
        return [Grant(
            sid="ReadHyperparameterTuningJobs", actions=actions, resources=self.resources(config),
            reason="Tuning jobs are named by users at run time: the function describes any tuning job (and lists the "
                   "training jobs it launched: a failed one's failures, what its trials cost) under the configured "
                   "tuning_job_prefixes (every tuning job in the account and region when none are set), read-only, "
                   "to word its message.",
        )]


def _problems(key: str, value: Any) -> list[str]:
    """What cannot be read of a member the messages use (None: absent, nothing to say)."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [f"detail.{key}: not an object ({quoted(value)})"]
    if key in COUNTED:
        return [f"detail.{key}.{name}: not a whole number ({quoted(value[name])})" for name in COUNTED[key]
                if name in value and not _count(value[name])]
    if key in ("BestTrainingJob", "OverallBestTrainingJob"):
        name, metric = value.get("TrainingJobName"), value.get("FinalHyperParameterTuningJobObjectiveMetric")
        found = [] if isinstance(name, str) and NAME_RE.fullmatch(name) else [
            f"detail.{key}.TrainingJobName: not a SageMaker training job name ({quoted(name)})"]
        where = f"detail.{key}.FinalHyperParameterTuningJobObjectiveMetric"
        if metric is not None and not isinstance(metric, Mapping):
            found.append(f"{where}: not an object ({quoted(metric)})")
        elif isinstance(metric, Mapping):
            number, metric_name = metric.get("Value"), metric.get("MetricName")
            if number is not None and (isinstance(number, bool) or not isinstance(number, (int, float))):
                found.append(f"{where}.Value: not a number ({quoted(number)})")
            if metric_name is not None and not isinstance(metric_name, str):
                found.append(f"{where}.MetricName: not a string ({quoted(metric_name)})")
        return found
    return []


def _usable(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The event's members, but those that are absent or cannot be read (a description may have them)."""
    return {key: value for key, value in detail.items() if value is not None and not _problems(key, value)}


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _counters(value: Any, keys: tuple[str, ...]) -> dict[str, int] | None:
    if not isinstance(value, Mapping):
        return None
    return {key: value[key] for key in keys if isinstance(value.get(key), int) and not isinstance(value[key], bool)}


def _summary(counters: Mapping[str, int], keys: tuple[str, ...]) -> str:
    words = {"InProgress": "in progress", "RetryableError": "failed (retryable)",
             "NonRetryableError": "failed (non-retryable)"}
    return ", ".join(f"{counters[key]} {words.get(key, key.lower())}" for key in keys if key in counters) or "none"


def _best(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("TrainingJobName"), str):
        return None
    metric = value.get("FinalHyperParameterTuningJobObjectiveMetric")
    metric = metric if isinstance(metric, Mapping) else {}
    number = metric.get("Value")
    return {"name": plain(value["TrainingJobName"], NAME_MAX),
            "objective_metric": plain(metric["MetricName"], 256) if isinstance(metric.get("MetricName"), str) else None,
            "value": number if isinstance(number, (int, float)) and not isinstance(number, bool) else None}


def _overall(detail: Mapping[str, Any]) -> dict[str, Any] | None:
    """A warm start's OverallBestTrainingJob, when it is not its own best (a trial of a parent tuning job)."""
    if not isinstance(detail.get("WarmStartConfig"), Mapping):
        return None
    overall, own = _best(detail.get("OverallBestTrainingJob")), _best(detail.get("BestTrainingJob"))
    return overall if overall and (not own or overall["name"] != own["name"]) else None


def _no_best(objective: Mapping[str, int] | None, unread: str | None) -> str:
    """Why no best job is named: none reached its objective, or it is not known (not read, or not said)."""
    if unread or (objective or {}).get("Succeeded"):
        return "unknown (" + ("not read" if unread else "not named by SageMaker") + ")"
    return "none (no training job reached its objective)"


def _best_text(best: Mapping[str, Any]) -> str:
    if best.get("value") is None:
        return str(best["name"])
    return f"{best['name']} ({best.get('objective_metric') or 'objective'} = {best['value']:g})"


def _trial(summary: Any) -> dict[str, str]:
    summary = summary if isinstance(summary, Mapping) else {}
    name, reason = summary.get("TrainingJobName"), summary.get("FailureReason")
    return {"name": plain(name, NAME_MAX) if isinstance(name, str) else "?",
            "reason": plain(reason, DETAILS_MAX, multiline=True) if isinstance(reason, str) else ""}


FAMILY = Tuning()
