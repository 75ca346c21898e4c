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
    KIND_DIMENSION,
    NAMESPACE,
    OUTCOME_DIMENSION,
    SERVICE,
    TRIGGER_DIMENSION,
    TRIGGERS_METRIC,
    Outcome,
)
from rule_actions.privacy import redact
from rule_actions.records import Result, Trigger


def _serialize(log: Any) -> str:
    return redact(json.dumps(log, default=str, separators=(",", ":"), ensure_ascii=False))


logger = Logger(service=SERVICE, json_serializer=_serialize)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

_WARN = (Outcome.FAILED, Outcome.INVALID, Outcome.DENIED)


def log_action(job: str, result: Result) -> None:
    """One structured line per decision."""
    level = logger.warning if result.outcome in _WARN else logger.info
    level("action", job=job, **result.as_dict())


def emit(triggers: Iterable[Trigger], results: Iterable[Result]) -> None:
    """EMF metrics: `Actions` per (kind, outcome) and `Triggers` per trigger type (rule:IssuesFound, job:Failed),
    each with its values as dimensions (never a name or an endpoint: bounded, and nothing personal)."""
    actions = Counter((r.planned.kind, str(r.outcome)) for r in results)
    for dimensions, count in [*(({KIND_DIMENSION: k, OUTCOME_DIMENSION: o}, n) for (k, o), n in actions.items()),
                              *(({TRIGGER_DIMENSION: t}, n) for t, n in Counter(t.metric for t in triggers).items())]:
        name = ACTIONS_METRIC if KIND_DIMENSION in dimensions else TRIGGERS_METRIC
        with single_metric(name=name, unit=MetricUnit.Count, value=count, namespace=NAMESPACE) as metric:
            for key, value in dimensions.items():
                metric.add_dimension(name=key, value=value)
