"""The one owner of logging and metrics (Powertools Logger and EMF Metrics; X-Ray is left out: it doubles
cold start). Every log line goes through privacy.redact as it is written, whatever its fields hold.

Every log line (its `service` key) and every EMF record (its dimension `service`) carries the deployment's service
name, `service()`: the construct's name, which the stack sets in POWERTOOLS_SERVICE_NAME; read at each invocation
(`observed`), since a local replay runs stacks of other names in one process."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit, single_metric

from rule_actions.contract import (
    ACTIONS_METRIC,
    COST_METRIC,
    ENV_SERVICE,
    FAMILY_DIMENSION,
    KIND_DIMENSION,
    NAMESPACE,
    OUTCOME_DIMENSION,
    RESTARTS_METRIC,
    SAVED_METRIC,
    SERVICE,
    SERVICE_DIMENSION,
    TRIGGER_DIMENSION,
    TRIGGERS_METRIC,
    Outcome,
)
from rule_actions.cost import JobCost
from rule_actions.privacy import redact
from rule_actions.records import JobEvent, Result, Trigger


def _serialize(log: Any) -> str:
    line: str = redact(json.dumps(log, default=str, separators=(",", ":"), ensure_ascii=False))
    return line


def service() -> str:
    """This deployment's service name: POWERTOOLS_SERVICE_NAME as the stack sets it (its construct's name), else
    SERVICE (outside a stack: tests, the CLI)."""
    return os.environ.get(ENV_SERVICE) or SERVICE


logger = Logger(service=service(), json_serializer=_serialize)
metrics = Metrics(namespace=NAMESPACE, service=service())


def observed(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """The handler with Powertools' context in its log lines (each invocation starting from a clear state) and its
    metrics flushed at its end, both under the service name its environment gives now."""

    @logger.inject_lambda_context(clear_state=True)
    @metrics.log_metrics
    @functools.wraps(handler)
    def invocation(event: Any, context: Any) -> Any:
        name = service()
        logger.append_keys(service=name)
        metrics.service = name
        return handler(event, context)

    return invocation


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
        _record(name, MetricUnit.Count, count, dimensions)
    restarted = sum(len(r.restarted) for r in results)
    if restarted:
        _record(RESTARTS_METRIC, MetricUnit.Count, restarted, {})
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
                _record(SAVED_METRIC, MetricUnit.NoUnit, cost.saved_usd, {FAMILY_DIMENSION: family})
        reported = trigger.TYPE == OUTCOME_TRIGGER and any(r.jobs is None for r in done)
        if cost.usd is not None and (stops or reported):
            _record(COST_METRIC, MetricUnit.NoUnit, cost.usd, {FAMILY_DIMENSION: family})


def _record(name: str, unit: MetricUnit, value: float, dimensions: Mapping[str, str]) -> None:
    """One EMF record of its own (its dimensions differ from the invocation's metrics'): `dimensions`, then the
    service name, as every metric here."""
    with single_metric(name=name, unit=unit, value=value, namespace=NAMESPACE) as metric:
        for key, found in {**dimensions, SERVICE_DIMENSION: service()}.items():
            metric.add_dimension(name=key, value=found)
