"""The one owner of logging and metrics (Powertools Logger and EMF Metrics; X-Ray is left out: it doubles
cold start). Endpoints are personal data: logs carry them redacted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit, single_metric

SERVICE = "rule-actions"
NAMESPACE = "RuleActions"

logger = Logger(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)


def redact(kind: str, target: str) -> str:
    """ml@example.com -> m***@example.com; +15555550100 -> +*******0100; other targets unchanged."""
    if kind == "email" and "@" in target:
        local, _, domain = target.rpartition("@")
        return f"{local[:1]}***@{domain}"
    if kind == "sms":
        return "+" + "*" * max(len(target) - 5, 0) + target[-4:]
    return target


def log_action(job: str, result: Mapping[str, object]) -> None:
    """One structured line per decision."""
    fields = {**result, "target": redact(str(result["kind"]), str(result["target"]))}
    level = logger.warning if result["outcome"] in ("failed", "invalid", "denied") else logger.info
    level("action", training_job=job, **fields)


def emit_outcomes(results: Iterable[Mapping[str, object]]) -> None:
    """An EMF metric `Actions` per (kind, outcome), with both as dimensions."""
    for (kind, outcome), count in Counter((r["kind"], r["outcome"]) for r in results).items():
        with single_metric(name="Actions", unit=MetricUnit.Count, value=count, namespace=NAMESPACE) as metric:
            metric.add_dimension(name="kind", value=str(kind))
            metric.add_dimension(name="outcome", value=str(outcome))
