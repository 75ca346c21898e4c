"""stoptraining [training_job_prefix]: stop the event's job, or the InProgress jobs starting with a prefix.

Policy (the SDK stops only when exactly one job matches; the rule container lower-cases everything):
- no prefix, or the job's own name: stop the job itself, no listing;
- a prefix that does not cover the event's job is denied unless `allow_cross_job_stop` (other teams' jobs);
- only an InProgress job is stopped, and never in a phase its family refuses (a training job uploading its model);
  a prefix must list the event's job among its InProgress matches (or `allow_cross_job_stop`), and exactly one
  match unless `stop_all_matching`;
- "already Stopping/Stopped" is another stop's: skipped, saying who stopped it (this stack's record: the rule and
  when), said once, and never counted as a stop. Each job this stack stops is recorded in the ledger, so its
  Stopped outcome does not alert a second time.

Owns `stop_all_matching` and `allow_cross_job_stop`. It stops jobs of the event's family through the family's
API (JobApi), and needs the family to grant stop (and the listing, when a stop may name a prefix).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from rule_actions.contract import IN_PROGRESS, JOB_NAME_PREFIX, Outcome
from rule_actions.fields import Flag, anchored
from rule_actions.kinds.base import UNFOLLOWED, Kind, own_stop, record_stop, through_batch
from rule_actions.kinds.base import already as base_already
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import (
    Action,
    Capability,
    Done,
    InProgress,
    Invalid,
    JobEffect,
    JobEvent,
    Need,
    NothingDone,
    Place,
    Planned,
    Unread,
)
from rule_actions.text import quoted

PREFIX_RE = re.compile(JOB_NAME_PREFIX, re.ASCII)
TRAINING = "training"  # the family stoptraining stops (stop: any family)
MAX_NAMED_JOBS = 10
STOP_ALL_MATCHING = Flag("stop_all_matching", False, "A stop's prefix stops every InProgress job it matches "
                         "(false: only when exactly one matches, as the SDK does).")
ALLOW_CROSS_JOB_STOP = Flag("allow_cross_job_stop", False, "Let a stop's prefix stop jobs other than the event's "
                            "own (other teams' jobs).")


def names(jobs: Sequence[str]) -> str:
    shown = ", ".join(jobs[:MAX_NAMED_JOBS])
    return shown + (f" and {len(jobs) - MAX_NAMED_JOBS} more" if len(jobs) > MAX_NAMED_JOBS else "")


def prefix_problem(prefix: Any) -> str | None:
    """Why a training_job_prefix is unusable, or None."""
    if not isinstance(prefix, str):
        return f"must be a string, got {type(prefix).__name__} {quoted(prefix)}"
    if prefix == "":
        return "is empty: it would match every training job"
    if not PREFIX_RE.fullmatch(prefix):
        return f"{quoted(prefix)} is not a training job name prefix (letters, digits, '-'; at most 63)"
    return None


def _batch_own(item: Planned, event: JobEvent, config: Configured) -> bool:
    """The prefix covers the event's job, one AWS Batch made, by its requested name: it stops that job alone, through
    Batch (never a listing of other jobs under the prefix: a Batch-made job's own name does not start with it)."""
    return bool(item.target and event.job_family.stopped_through(config, event.job_name)
                and event.job_family.own_prefix(config, event.job_name, item.target))


class StopKind(Kind):
    name = "stoptraining"
    keys = ("training_job_prefix",)
    key_schemas: ClassVar[dict[str, dict[str, Any]]] = {"training_job_prefix": {"type": "string", "pattern": anchored(JOB_NAME_PREFIX)}}
    places = frozenset((Place.ACTION_JSON, Place.RULES))  # a job outcome comes when the job has ended
    effect = JobEffect.STOP
    fields = (STOP_ALL_MATCHING, ALLOW_CROSS_JOB_STOP)

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        prefix = entry.get("training_job_prefix")
        if prefix is None:
            return Action(self.name)
        problem = prefix_problem(prefix)
        if problem:
            return Invalid(f"{where}.training_job_prefix", problem, self.name, prefix if isinstance(prefix, str) else "")
        return Action(self.name, prefix)

    def as_dict(self, action: Action) -> dict[str, str]:
        return {"name": self.name} if action.target is None else {"name": self.name, "training_job_prefix": action.target}

    def targets(self, action: Action, event: JobEvent, config: Configured) -> tuple[str, ...]:
        return (action.target or event.job_name,)

    def deny(self, target: str, event: JobEvent, config: Configured) -> str | None:
        if event.family is not None and event.job_family.name != TRAINING:
            return (f"stoptraining stops training jobs, and this is a {event.job_family.noun}: use stop (the job the "
                    "trigger is about, whatever its family)")
        if event.job_family.own_prefix(config, event.job_name, target) or config[ALLOW_CROSS_JOB_STOP]:
            return None
        return (f"prefix {target!r} does not cover this event's job {event.job_name!r}: it could stop other teams' "
                "jobs (set allow_cross_job_stop to permit)")

    def needs(self, item: Planned, event: JobEvent, config: Configured) -> frozenset[Need]:
        own = item.target == event.job_name or event.job_status != IN_PROGRESS or _batch_own(item, event, config)
        return frozenset() if own else frozenset({InProgress(event.job_family.api, item.target)})

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: Mapping[Need, Any]) -> Planned:
        if event.job_status != IN_PROGRESS:
            return item.decided(Outcome.SKIPPED, f"{event.job_family.noun} is {event.job_status}; only InProgress jobs "
                                                 "are stopped")
        refused = event.job_family.stop_refusal(event)
        if refused:
            return item.decided(Outcome.SKIPPED, refused)
        prefix = item.target
        if prefix == event.job_name:
            return replace(item, jobs=(prefix,))
        if _batch_own(item, event, config):  # a Batch-made job, by the name its owner asked for: that job alone
            return replace(item, jobs=(event.job_name,))
        listed = answers.get(InProgress(event.job_family.api, prefix), Unread(f"{event.job_family.api.list} was not read"))
        if isinstance(listed, Unread):
            return item.decided(Outcome.FAILED, listed.reason)
        if not listed:
            return item.decided(Outcome.SKIPPED, f"no InProgress {event.job_family.noun} starts with {prefix!r}")
        if event.job_name not in listed and not config[ALLOW_CROSS_JOB_STOP]:
            # A prefix covering this job covers others too; with this job gone they alone would be stopped.
            return item.decided(Outcome.SKIPPED, f"{event.job_name} is no longer InProgress; stopping only other jobs "
                                                 f"under {prefix!r} ({names(listed)}) needs allow_cross_job_stop")
        if len(listed) > 1 and not config[STOP_ALL_MATCHING]:
            return item.decided(Outcome.SKIPPED, f"{len(listed)} InProgress jobs start with {prefix!r} ({names(listed)}): "
                                                 "stop_all_matching is false, so none was stopped")
        return replace(item, jobs=tuple(listed))

    def preview(self, item: Planned) -> str:
        return f"would stop {names(item.jobs or ())}"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        event = occasion.event
        stopped, standing, not_running, noted = [], [], [], ""  # standing: decisions that stand, said once
        through: list[str] = []
        for job in item.jobs or ():
            queues = event.job_family.stopped_through(occasion.config, job)
            status, words = through_batch(item, occasion, ports, job, event.arn_of(job), queues) if queues else \
                (ports.jobs.stop(event.job_family.api, job), "")
            if status == "stopped":
                stopped.append(job)
                through += [words] if words else []
                found, note = own_stop(occasion, job)
                noted = noted or note
                not_running += record_stop(item, occasion, ports, job, event.arn_of(job), found)
            elif status.startswith("already"):  # SageMaker's "already Stopping/Stopped": another stop's, not this one
                standing.append(base_already(status, job, event.arn_of(job), ports))
            elif status == UNFOLLOWED:  # a decision that stands, as the one above
                standing.append(f"{job} is {words}")
            else:
                not_running.append(f"{job} is {status}")
        if not stopped:
            return NothingDone(Outcome.SKIPPED, f"nothing to stop: {'; '.join(standing + not_running)}",
                               once=bool(standing) and not not_running)
        notes = [f"stopped {names(stopped)}{noted}", *through, *standing, *not_running]
        return Done("; ".join(notes), tuple(stopped))

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        """Stop (and describe: the job's live status, read before a stop) when a stop may be declared (action_json,
        or the configuration); list when it may name a prefix."""
        declared = [d.action for d in self.declared(config)]
        needed = set()
        if config.reads_action_json or declared:
            needed |= {Capability.STOP, Capability.DESCRIBE}
        if config.reads_action_json or any(action.target for action in declared):
            needed.add(Capability.LIST)
        return frozenset(needed)


KIND = StopKind()
