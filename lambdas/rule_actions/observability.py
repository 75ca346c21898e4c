"""The one owner of logging and metrics (Powertools Logger and EMF Metrics; X-Ray is left out: it doubles
cold start). Every log line goes through privacy.redact as it is written, whatever its fields hold."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit, single_metric

from rule_actions.contract import (
    ACTIONS_METRIC,
    COST_METRIC,
    FAMILY_DIMENSION,
    KIND_DIMENSION,
    NAMESPACE,
    OUTCOME_DIMENSION,
    SAVED_METRIC,
    SERVICE,
    TRIGGER_DIMENSION,
    TRIGGERS_METRIC,
    Outcome,
)
from rule_actions.cost import JobCost
from rule_actions.privacy import redact
from rule_actions.records import JobEvent, Result, Trigger


def _serialize(log: Any) -> str:
    return redact(json.dumps(log, default=str, separators=(",", ":"), ensure_ascii=False))


logger = Logger(service=SERVICE, json_serializer=_serialize)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

_WARN = (Outcome.FAILED, Outcome.INVALID, Outcome.DENIED)


def log_action(job: str, result: Result) -> None:
    """One structured line per decision."""
    level = logger.warning if result.outcome in _WARN else logger.info
    level("action", job=job, **result.as_dict())


def emit(triggers: Iterable[Trigger], results: Iterable[Result], event: JobEvent | None = None,
         cost: JobCost | None = None) -> None:
    """EMF metrics: `Actions` per (kind, outcome) and `Triggers` per trigger type (rule:IssuesFound, job:Failed),
    each with its values as dimensions (never a name or an endpoint: bounded, and nothing personal); and what the
    job cost (`dollars`)."""
    triggers, results = list(triggers), list(results)
    actions = Counter((r.planned.kind, str(r.outcome)) for r in results)
    for dimensions, count in [*(({KIND_DIMENSION: k, OUTCOME_DIMENSION: o}, n) for (k, o), n in actions.items()),
                              *(({TRIGGER_DIMENSION: t}, n) for t, n in Counter(t.metric for t in triggers).items())]:
        name = ACTIONS_METRIC if KIND_DIMENSION in dimensions else TRIGGERS_METRIC
        with single_metric(name=name, unit=MetricUnit.Count, value=count, namespace=NAMESPACE) as metric:
            for key, value in dimensions.items():
                metric.add_dimension(name=key, value=value)
    if event is not None and event.family is not None and cost is not None:
        dollars(triggers, results, event.job_name, event.family.name, cost)


OUTCOME_TRIGGER = "job_outcome"  # the trigger family whose reports say what an ended job cost


def dollars(triggers: list[Trigger], results: list[Result], job: str, family: str, cost: JobCost) -> None:
    """The cost metrics, dimension `family`, unit None, in US dollars (known figures only, never a
    made-up 0): `SavedDollars`, once per stop carried out that stopped the event's job (what it saved at most);
    `CostDollars`, once per trigger that stopped the job or reported its outcome (a message carried out)."""
    for trigger in triggers:
        done = [r for r in results if r.planned.trigger == trigger and r.outcome == Outcome.DONE]
        stops = [r for r in done if job in r.stopped]
        if cost.saved_usd is not None:
            for _ in stops:
                _dollars(SAVED_METRIC, cost.saved_usd, family)
        reported = trigger.TYPE == OUTCOME_TRIGGER and any(r.jobs is None for r in done)
        if cost.usd is not None and (stops or reported):
            _dollars(COST_METRIC, cost.usd, family)


def _dollars(name: str, value: float, family: str) -> None:
    """One EMF record of `name` in US dollars with the dimension `family` (and `service`, as every metric here)."""
    with single_metric(name=name, unit=MetricUnit.NoUnit, value=value, namespace=NAMESPACE) as metric:
        metric.add_dimension(name=FAMILY_DIMENSION, value=family)
