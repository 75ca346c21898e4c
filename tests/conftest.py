"""Shared test set-up: never real AWS. Fake credentials and a fixed region for every test."""

import os

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
