"""stop [job]: stop the job this trigger is about, whatever its family; or the job that owns it.

    stop                          the event's own job: a training, processing, transform or hyperparameter tuning
                                  job, or a pipeline execution (StopTrainingJob, StopProcessingJob, StopTransformJob,
                                  StopHyperParameterTuningJob, StopPipelineExecution)
    stop job=tuning_job           the tuning job that launched the event's training job (a trial); it stops its
                                  running trials too
    stop job=pipeline_execution   the pipeline execution whose step launched the event's job (its tag
                                  sagemaker:pipeline-execution-arn)

`stoptraining` keeps the SDK's meaning (training jobs, by name or prefix); `stop` never takes a prefix: it stops
exactly one job, named by the event. The same safety as stoptraining: only a running job (the event's status, or a
describe of the owner), never in a phase its family refuses (a training job uploading its model), never a job
outside its family's scope; exactly once (the ledger), every refusal on its row. An owner may be named by the
stack's configuration, or by a job's action_json or tag when the configuration allows it (`stop_owners`, or a stop
it declares naming the same owner): the stack grants stopping an owner's family only then. A pipeline execution's stop carries a ClientRequestToken made
from the execution and the trigger; SageMaker does not interrupt a running Callback or Lambda step: the execution
stays Stopping until that step ends (a Lambda step at its timeout), then Stopped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from rule_actions.contract import Outcome
from rule_actions.fields import TextList
from rule_actions.kinds.base import UNFOLLOWED, Kind, already, own_stop, record_stop, through_batch
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import (
    Action,
    Capability,
    Described,
    Done,
    Invalid,
    JobEffect,
    JobEvent,
    JobRef,
    Need,
    NothingDone,
    Origin,
    Place,
    Planned,
    Unread,
)
from rule_actions.text import digest, quoted

OWN = "job"
OWNERS = ("tuning_job", "pipeline_execution")  # the families' owner_key values
STOP_OWNERS = TextList(
    "stop_owners", "The owners a job's own action_json or tags may name in a stop ({\"name\": \"stop\", \"job\": "
    "...}): tuning_job, pipeline_execution. The stack grants stopping that family's jobs (under its prefixes). A stop "
    "the configuration itself declares naming an owner allows it too. Empty by default: a job's own actions stop only "
    "the job itself.", pattern="tuning_job|pipeline_execution", hint="tuning_job or pipeline_execution",
    check=lambda value: value in OWNERS)


class StopJobKind(Kind):
    name = "stop"
    keys = ("job",)
    key_schemas: ClassVar[dict[str, dict[str, Any]]] = {"job": {"type": "string", "enum": list(OWNERS)}}
    places = frozenset((Place.ACTION_JSON, Place.RULES))  # a job outcome comes when the job has ended
    effect = JobEffect.STOP
    fields = (STOP_OWNERS,)

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        which = entry.get("job")
        if which is None:
            return Action(self.name)
        if which not in OWNERS:
            return Invalid(f"{where}.job", f"{quoted(which)} is not one of {', '.join(OWNERS)} (leave it out to stop "
                                           "the job the trigger is about)", self.name,
                           which if isinstance(which, str) else "")
        return Action(self.name, which)

    def as_dict(self, action: Action) -> dict[str, str]:
        return {"name": self.name} if action.target is None else {"name": self.name, "job": action.target}

    def targets(self, action: Action, event: JobEvent, config: Configured) -> tuple[str, ...]:
        ref = _ref(action.target, event)
        return (ref.name if isinstance(ref, JobRef) else f"the {action.target} of {event.job_name}",)

    def deny(self, target: str, event: JobEvent, config: Configured) -> str | None:
        ref = _named(target, event)
        if ref is None or ref.covered(config[ref.scope]):
            return None
        return (f"{ref.noun} {ref.name} is outside the stack's scope ({ref.scope.key}: "
                f"{', '.join(config[ref.scope])}): not stopped")

    def needs(self, item: Planned, event: JobEvent, config: Configured) -> frozenset[Need]:
        ref = _named(item.target, event)
        if ref is None or ref.status:
            return frozenset()
        return frozenset({Described(ref.api, ref.key)})

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: Mapping[Need, Any]) -> Planned:
        which, ref = _owner(item.target, event)
        if ref is None:
            return item.decided(Outcome.SKIPPED, f"{event.job_family.noun} {event.job_name} was not launched by a "
                                                 f"{item.target.split()[1].replace('_', ' ')}: nothing to stop")
        if item.origin != Origin.CONFIGURATION and which != OWN and which not in _named_owners(config):
            return item.decided(Outcome.DENIED, f"the stack may stop a {ref.noun} named by a job's own actions only "
                                                f"when its configuration allows it (stop_owners: [\"{which}\"], or a "
                                                "stop it declares naming one): it grants the call then")
        status = ref.status
        if not status:
            described = answers.get(Described(ref.api, ref.key), Unread(f"{ref.api.describe} was not read"))
            if isinstance(described, Unread):
                return item.decided(Outcome.FAILED, described.reason)
            found = described.get(ref.status_member)
            status = found if isinstance(found, str) else "unknown"
        if status != ref.running:
            return item.decided(Outcome.SKIPPED, f"{ref.noun} {ref.name} is {status}; only a {ref.running} "
                                                 f"{ref.noun} is stopped")
        refused = event.job_family.stop_refusal(event) if ref.name == event.job_name else None
        if refused:
            return item.decided(Outcome.SKIPPED, refused)
        return replace(item, jobs=(ref.name,))

    def preview(self, item: Planned) -> str:
        return f"would stop {', '.join(item.jobs or ())}"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        event = occasion.event
        ref = _named(item.target, event)
        if ref is None:  # check() has refused it already
            return NothingDone(Outcome.SKIPPED, "nothing to stop")
        token = digest(f"{ref.arn}|{item.trigger.label}")[:64] if ref.key == ref.arn else None
        queues = event.job_family.stopped_through(occasion.config, ref.name) if ref.name == event.job_name else ()
        status, words = through_batch(item, occasion, ports, ref.name, ref.arn, queues) if queues else \
            (ports.jobs.stop(ref.api, ref.key, token), "")
        if status == "stopped":
            found, note = own_stop(occasion, ref.name)
            notes = [f"stopped {ref.name}" + note + (f" ({ref.consequence})" if ref.consequence else "")]
            notes += [words] if words else []
            notes += record_stop(item, occasion, ports, ref.name, ref.arn, found)
            return Done("; ".join(notes), (ref.name,))
        if status.startswith("already"):  # another stop's (SageMaker's "already Stopping/Stopped"), not this one
            return NothingDone(Outcome.SKIPPED, f"nothing to stop: {already(status, ref.name, ref.arn, ports)}",
                               once=True)
        if status == UNFOLLOWED:  # a decision that stands: said once
            return NothingDone(Outcome.SKIPPED, f"nothing to stop: {ref.name} is {words}", once=True)
        return NothingDone(Outcome.SKIPPED, f"nothing to stop: {ref.name} is {status}")

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        """Stop (and describe, to read the status of a job that refuses a stop) the event's own family, when a stop
        may be declared."""
        if config.reads_action_json or self.declared(config):
            return frozenset({Capability.STOP, Capability.DESCRIBE})
        return frozenset()

    def owner_capabilities(self, config: Configured, owner_key: str) -> frozenset[Capability]:
        """Stop and describe the owners the configuration names (`stop` with job tuning_job or
        pipeline_execution, or stop_owners): those jobs' family is granted even when none of its events is
        matched."""
        return frozenset({Capability.STOP, Capability.DESCRIBE}) if owner_key in _named_owners(config) else frozenset()


def _ref(which: str | None, event: JobEvent) -> JobRef | None:
    return event.job_family.jobs_of(event).get(which or OWN)


def _owner(target: str, event: Any) -> tuple[str, JobRef | None]:
    """The job a planned stop's target names, and how (the event's own first, then its owners)."""
    return next(((which, ref) for which, ref in event.job_family.jobs_of(event).items() if ref.name == target), (OWN, None))


def _named(target: str, event: Any) -> JobRef | None:
    return _owner(target, event)[1]


def _named_owners(config: Any) -> set[str]:
    """The owners the configuration's stops name, or it allows a job's own actions to name (the stack grants
    stopping them)."""
    declared = {d.action.target for d in config.declared if d.action.kind == "stop" and d.action.target}
    return declared | set(config[STOP_OWNERS])


KIND = StopJobKind()
