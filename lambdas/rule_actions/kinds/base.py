"""What an action kind is: one object per kind (kinds/<kind>.py), holding everything about that kind.

    name, keys, places    its grammar: the keys it takes besides `name`, where it may be declared
    key_schemas           the JSON Schema of each key (the published configuration schema is built from them)
    parse, as_dict        the values of its keys -> Action, or Invalid naming the field; and back
    fields                its configuration (fields.py declarations), read back with config[FIELD]
    targets               the concrete targets for an event (a prefix or job, an endpoint, an audience); a kind
                          that reaches several destinations with one declaration gives several (notify: the team,
                          and its chat channels), each planned, recorded and reported on its own
    deny                  policy: why it is refused here (denied), whatever the state of the account
    needs, check          what it needs read, then its decision given what was read (skipped, failed, or ready)
    preview               what it would do (the dry run's reason)
    carry_out             do it, through the ports it is handed: Done, or NothingDone (nothing recorded)
    check_config, warnings, test_actions, capabilities, owner_capabilities, stack_parts
                          what it checks across the configuration, warns of, reaches with a test notification,
                          needs of the job families, and asks of the stack (subscriptions, channels, grants)

Redaction is not per kind: every result, log line and error goes through privacy.redact, whatever it holds.
Adding a kind: a module with a `Kind` subclass and its line in rule_actions/registry.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rule_actions.cost import JobCost, stop_note
from rule_actions.fields import Field, Flag
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import (
    Action,
    Capability,
    Done,
    Invalid,
    JobEffect,
    JobEvent,
    Need,
    NothingDone,
    Origin,
    Place,
    Planned,
)
from rule_actions.text import duration, one_line, timestamp


class Kind:
    name: ClassVar[str] = ""
    keys: ClassVar[tuple[str, ...]] = ()  # keys besides `name`
    required: ClassVar[tuple[str, ...]] = ()  # the keys an entry must have
    key_schemas: ClassVar[dict[str, dict[str, Any]]] = {}
    places: ClassVar[frozenset[Place]] = frozenset(Place)
    # What it does to jobs (a stop, a restart): its results name the jobs it acted on, it is planned before the
    # messages (stops first: what a restart and the messages say depends on them), watch mode reports it as what it
    # would do, and its results count as its effect (stops and savings; restarts). None: it acts on no job.
    effect: ClassVar[JobEffect | None] = None
    fields: ClassVar[tuple[Field[Any], ...]] = ()

    @property
    def acts_on_jobs(self) -> bool:
        return self.effect is not None

    @property
    def rank(self) -> int:
        """Its place in a trigger's plan: stops, then the other job actions, then the rest (messages)."""
        return 0 if self.effect == JobEffect.STOP else 1 if self.effect is not None else 2

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        return Action(self.name)

    def as_dict(self, action: Action) -> dict[str, str]:
        """The grammar's object form, keys in the SDK's order."""
        return {"name": self.name}

    def identity(self, target: str) -> str:
        """Two targets with one identity are one action (planned once, recorded once)."""
        return target

    def targets(self, action: Action, event: JobEvent, config: Configured) -> tuple[str, ...]:
        return (action.target or "",)

    def deny(self, target: str, event: JobEvent, config: Configured) -> str | None:
        return None

    def needs(self, item: Planned, event: JobEvent, config: Configured) -> frozenset[Need]:
        return frozenset()

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: Mapping[Need, Any]) -> Planned:
        return item

    def preview(self, item: Planned) -> str:
        return f"would {self.name} {item.target}"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        raise NotImplementedError

    def check_config(self, config: Configured, where: str) -> list[str]:
        return []

    def warnings(self, config: Configured, where: str) -> list[str]:
        return []

    def test_actions(self, config: Configured) -> tuple[Action, ...]:
        return ()

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        return frozenset()

    def owner_capabilities(self, config: Configured, owner_key: str) -> frozenset[Capability]:
        """What it needs of the jobs that own others (tuning jobs, pipeline executions: a family's owner_key) when
        it may act on them through their children's events."""
        return frozenset()

    def stack_parts(self, config: Configured) -> list[Any]:
        return []

    def follows_stops(self, config: Configured) -> dict[str, Any] | None:
        """Whether it may be asked, at a stop of this stack, to be carried out once the job has stopped (a restart,
        a warm pool's release): the detail clause the job's Stopped events must also match for it ({}: any), or None
        (never). The stack's rule then matches the Stopped outcome of such jobs, which carries it out."""
        return None

    def declared(self, config: Configured) -> list[Any]:
        """The configuration's own declarations of this kind (Declared records)."""
        return [d for d in config.declared if d.action.kind == self.name]


RELEASE_WARM_POOLS = Flag(
    "release_warm_pools", True, "A training job this stack stopped keeps its warm pool (ResourceConfig."
    "KeepAlivePeriodInSeconds) billed after it stops: release it once the job has Stopped, unless a restart's copy "
    "may reuse it. false: the pool stays until its keep-alive period ends.")
RELEASE = "release_warm_pool"  # the kind that releases it (kinds/release_warm_pool.py), asked by a stop to follow it
POOL = "warm pool"  # its target


def warm_pool(event: JobEvent, job: str) -> int:
    """The keep-alive period of the event's own job's warm pool (ResourceConfig.KeepAlivePeriodInSeconds), 0: none
    (another job than the event's, or none kept)."""
    resources = event.detail.get("ResourceConfig") if job == event.job_name else None
    keep = resources.get("KeepAlivePeriodInSeconds") if isinstance(resources, Mapping) else None
    return keep if isinstance(keep, int) and not isinstance(keep, bool) and keep > 0 else 0


def record_stop(item: Planned, occasion: Occasion, ports: Any, job: str, arn: str,
                cost: JobCost | None = None) -> list[str]:
    """Record that this stack stopped `job` (its ARN), so its Stopped outcome does not alert twice, with what it
    cost until the stop and what the stop saved at most (`cost`: the event's own job's, when known); and, when the
    job keeps a warm pool (release_warm_pools), that its release follows the stop once the job has Stopped. The job
    is stopped whatever happens here: a record that cannot be written is a note on the stop, not a failure of it."""
    event = occasion.event
    by = one_line(f"rule {item.trigger.label} of {event.job_name}", 200)
    try:
        figures = {name: value for name, value in (("cost_usd", cost.usd if cost else None),
                                                   ("saved_usd", cost.saved_usd if cost else None)) if value is not None}
        ports.ledger.mark_stopped(arn, by, at=timestamp(event.time), **figures)
    except Exception as err:
        return [f"the record of {job}'s stop could not be written ({type(err).__name__}): its Stopped outcome may alert"]
    keep = warm_pool(event, job)
    if not keep:
        return []
    if not occasion.config[RELEASE_WARM_POOLS]:
        return [f"its warm pool stays billed for up to {duration(keep)} after it stops (release_warm_pools is false)"]
    try:
        ports.ledger.follow_stop(arn, f"{RELEASE}|{POOL}|{Origin.CONFIGURATION}")
    except Exception as err:
        return [f"its warm pool's release could not be noted ({type(err).__name__}): it bills for up to "
                f"{duration(keep)} after the stop"]
    return [f"its warm pool (kept {duration(keep)}) is released once it has stopped, unless a restart reuses it"]


def already(status: str, job: str, arn: str, ports: Any) -> str:
    """Why a stop of a job already stopping is a stop no more: who stopped it (this stack's record), e.g. "job-1 is
    already Stopping: stopped by rule StalledTraining of job-1 at 2026-11-24 08:50 UTC"."""
    try:
        note = ports.ledger.stop_record(arn)
    except Exception:  # the record cannot be read: the state alone is said
        note = None
    who = f"stopped by {note.by}" + (f" at {note.at}" if note.at else "") if note and note.by else \
        "not by this stack"
    return f"{job} is {status}: {who}"


def own_stop(occasion: Occasion, job: str) -> tuple[JobCost | None, str]:
    """A stopped job's cost and the note its result carries (" (cost $310.05 until the stop; saved at most
    $1,499.22)"), when it is the event's own job and its cost is known; else (None, "")."""
    found = occasion.cost if job == occasion.event.job_name else None
    return found, stop_note(found)


UNFOLLOWED = "unfollowed"  # through_batch's status of a training job no followed queue's running service job runs


def through_batch(item: Planned, occasion: Occasion, ports: Ports, job: str, arn: str,
                  queues: tuple[str, ...]) -> tuple[str, str]:
    """Stop the training job `job` (its ARN) that AWS Batch runs, through its service job in one of `queues`
    (TerminateServiceJob with a reason naming the trigger; Batch stops the training job itself: a StopTrainingJob
    behind its back may be retried by its retry strategy). (status, words): "stopped" and what the row says of it;
    "already FAILED" / "already SUCCEEDED"; UNFOLLOWED and why (a decision that stands: the attempt never moves to
    a followed queue, and a requeued job runs a new attempt); or why nothing was stopped. Raises when Batch cannot be
    called."""
    batch = ports.batch
    if batch is None:
        raise RuntimeError("AWS Batch is not available to this function (batch_queues is empty)")
    found = batch.running_job(arn, queues)
    if found is None:
        return UNFOLLOWED, (f"run by no service job of batch_queues ({', '.join(queues)}): not stopped (a "
                            "StopTrainingJob behind Batch's back may be retried by it)")
    queue, summary = found
    job_id, name = str(summary.get("jobId", "")), str(summary.get("jobName", ""))
    reason = one_line(f"rule-actions: {item.trigger.label} stopped it ({occasion.event.job_family.noun} {job})", 1024)
    status = batch.terminate(job_id, reason)
    if status != "terminated":
        return status, ""
    queue_shown = queue.rpartition("job-queue/")[2] or queue
    return "stopped", (f"through AWS Batch: TerminateServiceJob of service job {name} ({job_id}, queue "
                       f"{queue_shown}), reason {reason!r}; Batch stops the training job (never StopTrainingJob)")
