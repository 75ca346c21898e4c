"""Shared test set-up: never real AWS. Fake credentials and a fixed region for every test."""

import os
import sys

import pytest

# Set before any boto3 client exists; tests that need an endpoint set AWS_ENDPOINT_URL themselves.
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION="us-east-1",
    AWS_REGION="us-east-1",
    POWERTOOLS_SERVICE_NAME="rule-actions",
    POWERTOOLS_METRICS_NAMESPACE="RuleActions",
)
os.environ.pop("AWS_PROFILE", None)
os.environ.pop("AWS_ENDPOINT_URL", None)



@pytest.fixture(autouse=True)
def _no_invocation_deadline_left_behind():
    """Each test starts outside any invocation: a handler run in an earlier test leaves its deadline (its context's
    remaining time) in the process, which would refuse a later test's AWS calls once it passed (NoTimeLeft): the
    10,000-event load test, started within a minute of the fuzz tests' last invocation, failed so on a busy machine."""
    effects = sys.modules.get("rule_actions.effects")  # not imported yet: nothing left behind
    if effects is not None:
        effects.begin_invocation(None)
    yield
