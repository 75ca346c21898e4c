"""The only list of plug-ins, and what they add up to. Everything outside the plug-in packages (the configuration,
the plan and pipeline, messages, the stack, the CLI) reaches a plug-in through here.

    JOBS        job families (jobs/): what an event of each says, how its jobs are stopped, listed, linked
    TRIGGERS    trigger families (triggers/): what happened that actions can be attached to, and its words
    KINDS       action kinds (kinds/): what can be done, its grammar, policy and configuration
    READERS     readers (readers/): the answer to each kind of Need

Adding a plug-in is its module and one line below (a new reader also names its Need in records.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.contract import SOURCE, Grant
from rule_actions.fields import Field
from rule_actions.jobs import pipeline, processing, training, transform, tuning
from rule_actions.jobs.base import JobFamily
from rule_actions.kinds import email, notify, sms, stop, webhook
from rule_actions.kinds.base import Kind
from rule_actions.ports import Configured
from rule_actions.readers import describe, failed_steps, failed_trials, in_progress, stop_record, team
from rule_actions.readers.base import Reader
from rule_actions.records import Capability, Place, Trigger
from rule_actions.triggers import job_outcome, rule_status, test
from rule_actions.triggers.base import TriggerFamily

JOBS: tuple[JobFamily, ...] = (training.FAMILY, tuning.FAMILY, processing.FAMILY, pipeline.FAMILY, transform.FAMILY)
TRIGGERS: tuple[TriggerFamily, ...] = (rule_status.FAMILY, job_outcome.FAMILY, test.FAMILY)
KINDS: dict[str, Kind] = {kind.name: kind for kind in (stop.KIND, email.KIND, sms.KIND, notify.KIND, webhook.KIND)}
READERS: dict[type, Reader] = {reader.need: reader for reader in (describe.READER, in_progress.READER, team.READER,
                                                                  stop_record.READER, failed_trials.READER,
                                                                  failed_steps.READER)}

_BY_DETAIL_TYPE = {detail_type: family for family in JOBS for detail_type in family.detail_types}
_BY_TYPE = {family.type: family for family in TRIGGERS}


def job_family(raw: Any) -> JobFamily | None:
    """The family whose state-change event `raw` is, by its source and detail-type; None for anything else."""
    if not isinstance(raw, Mapping) or raw.get("source") != SOURCE:
        return None
    detail_type = raw.get("detail-type")
    return _BY_DETAIL_TYPE.get(detail_type) if isinstance(detail_type, str) else None


def trigger_family(trigger: Trigger) -> TriggerFamily:
    return _BY_TYPE[trigger.TYPE]


def kind(name: str) -> Kind:
    return KINDS[name]


def reader(need: Any) -> Reader:
    return READERS[type(need)]


def allowed_in(place: Place) -> tuple[str, ...]:
    """The kinds that may be declared in `place`."""
    return tuple(name for name, kind in KINDS.items() if place in kind.places)


def acts_on_jobs(name: str) -> bool:
    return name in KINDS and KINDS[name].acts_on_jobs


def fields() -> tuple[Field[Any], ...]:
    """Every plug-in's configuration fields, each once, in registry order."""
    found = [f for plugin in (*JOBS, *TRIGGERS, *KINDS.values()) for f in plugin.fields]
    return tuple(dict.fromkeys(found))


def capabilities(config: Configured, family: JobFamily) -> frozenset[Capability]:
    """What the trigger families and kinds of this configuration need of a job family: the triggers that fire on
    its events, and the kinds declared where those triggers take their actions from (a stop is declared for rule
    statuses, which only training jobs have: no other family is ever stopped)."""
    firing = [trigger for trigger in TRIGGERS if trigger.clauses(config, family)]
    places = frozenset(place for trigger in firing for place in trigger.places)
    kinds = [kind for kind in KINDS.values() if kind.places & places]
    return frozenset(c for plugin in (*firing, *kinds) for c in plugin.capabilities(config))


def job_grants(config: Configured) -> list[Grant]:
    """The job families' IAM statements (the function's role; in organization mode, each member's executor role)."""
    return [grant for family in JOBS if enabled(config, family)
            for grant in family.grants(config, capabilities(config, family))]


def stack_parts(config: Configured) -> list[Any]:
    """What the kinds ask of the stack: team subscriptions, chat channels, grants, SMS delivery logs."""
    return [part for kind in KINDS.values() for part in kind.stack_parts(config)]


def clauses(config: Configured, family: JobFamily) -> list[dict[str, Any]]:
    return [clause for trigger in TRIGGERS for clause in trigger.clauses(config, family)]


def enabled(config: Configured, family: JobFamily) -> bool:
    """A family is on when some trigger can fire on its events: it is matched and granted, else neither."""
    return bool(clauses(config, family))


def event_pattern(config: Configured) -> dict[str, Any]:
    """The EventBridge pattern of the stack's rule: the events of the enabled families that can have a trigger."""
    patterns = [family.pattern(clauses(config, family), config) for family in JOBS if enabled(config, family)]
    if len(patterns) == 1:
        return patterns[0]
    # Several families: one source, and a $or of each family's detail-type and detail.
    return {"source": [SOURCE], "$or": [{key: value for key, value in p.items() if key != "source"} for p in patterns]}
