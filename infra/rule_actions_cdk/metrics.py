"""The function's metrics as CloudWatch holds them: namespace, name and dimensions, each from the names the function
emits them by (rule_actions.contract) and the values their dimensions take (rule_actions.registry). The stack's
dashboard (dashboard.py) graphs them and `rule-actions report` reads them. Plain data: no aws-cdk-lib is loaded.

Every one of them also has the dimension `service`: the deployment's service name (its construct's name, which the
stack sets in POWERTOOLS_SERVICE_NAME), so that each deployment of an account and region reads its own metrics:
`FunctionMetric.dimensions(service)`.
"""

from __future__ import annotations

from typing import NamedTuple

from rule_actions import registry
from rule_actions.contract import (
    ACTIONS_METRIC,
    COST_METRIC,
    EVALUATED_METRIC,
    EVALUATION_ERRORS_METRIC,
    EVALUATION_PROBLEMS_METRIC,
    EVALUATION_SECONDS_METRIC,
    EVENTS_METRIC,
    FAMILY_DIMENSION,
    FINDINGS_METRIC,
    IGNORED_METRIC,
    KIND_DIMENSION,
    NAMESPACE,
    OUTCOME_DIMENSION,
    REFUSED_ACCOUNT_METRIC,
    RESTARTS_METRIC,
    SAVED_METRIC,
    SERVICE_DIMENSION,
    TEST_METRIC,
    TRIGGER_DIMENSION,
    TRIGGERS_METRIC,
    UNFINISHED_METRIC,
    Outcome,
)
from rule_actions.records import JobEffect


class FunctionMetric(NamedTuple):
    """One metric of the function: its name and its own dimensions (the service dimension is added by `dimensions`)."""

    name: str
    own: tuple[tuple[str, str], ...] = ()

    @property
    def namespace(self) -> str:
        return NAMESPACE

    def dimensions(self, service: str) -> dict[str, str]:
        """Its dimensions as the deployment whose service name is `service` emits it."""
        return {**dict(self.own), SERVICE_DIMENSION: service}

    def value(self, dimension: str) -> str:
        return dict(self.own)[dimension]


KINDS = registry.action_kinds()  # every value of Actions' kind
STOP_KINDS = registry.kinds_with(JobEffect.STOP)  # the kinds that stop jobs
OUTCOMES = tuple(str(outcome) for outcome in Outcome)  # every value of Actions' outcome
TRIGGERS = registry.trigger_metrics()  # every value of Triggers' trigger
FAMILIES = tuple(family.name for family in registry.JOBS)  # every value of SavedDollars' and CostDollars' family


def actions(kind: str, outcome: str) -> FunctionMetric:
    return FunctionMetric(ACTIONS_METRIC, ((KIND_DIMENSION, kind), (OUTCOME_DIMENSION, outcome)))


def triggers(trigger: str) -> FunctionMetric:
    return FunctionMetric(TRIGGERS_METRIC, ((TRIGGER_DIMENSION, trigger),))


def saved(family: str) -> FunctionMetric:
    return FunctionMetric(SAVED_METRIC, ((FAMILY_DIMENSION, family),))


def cost(family: str) -> FunctionMetric:
    return FunctionMetric(COST_METRIC, ((FAMILY_DIMENSION, family),))


EVENTS, IGNORED, TESTS, REFUSED, RESTARTS = (FunctionMetric(name) for name in (
    EVENTS_METRIC, IGNORED_METRIC, TEST_METRIC, REFUSED_ACCOUNT_METRIC, RESTARTS_METRIC))
# A scheduled evaluation's, once per run.
EVALUATED, FINDINGS, EVALUATION_ERRORS, EVALUATION_PROBLEMS, UNFINISHED, EVALUATION_SECONDS = (
    FunctionMetric(name) for name in (EVALUATED_METRIC, FINDINGS_METRIC, EVALUATION_ERRORS_METRIC,
                                      EVALUATION_PROBLEMS_METRIC, UNFINISHED_METRIC, EVALUATION_SECONDS_METRIC))


def every_metric(organization: bool = True, monitor: bool = True) -> list[FunctionMetric]:
    """Every metric the function may emit (with organization mode's refused events and the evaluation's metrics)."""
    return [*(actions(k, o) for k in KINDS for o in OUTCOMES), *map(triggers, TRIGGERS), *map(saved, FAMILIES),
            *map(cost, FAMILIES), EVENTS, IGNORED, TESTS, RESTARTS, *([REFUSED] if organization else []),
            *([EVALUATED, FINDINGS, EVALUATION_ERRORS, EVALUATION_PROBLEMS, UNFINISHED, EVALUATION_SECONDS]
              if monitor else [])]
