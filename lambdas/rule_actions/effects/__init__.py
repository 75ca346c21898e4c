"""The only modules that call AWS or the network (the adapters: `adapters.Adapters` is the bag the handler builds).
Clients use botocore's standard retry mode and honour AWS_ENDPOINT_URL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import boto3
from botocore.config import Config as BotoConfig

BOTO_CONFIG = BotoConfig(retries={"mode": "standard", "max_attempts": 5}, user_agent_extra="rule-actions")


def client(service: str, region: str | None = None, credentials: Mapping[str, str] | None = None) -> Any:
    """A client for `service`; botocore itself reads AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE>. `credentials`:
    STS's (an assumed role's), else the environment's."""
    keys = {} if credentials is None else {
        "aws_access_key_id": credentials["AccessKeyId"],
        "aws_secret_access_key": credentials["SecretAccessKey"],
        "aws_session_token": credentials["SessionToken"],
    }
    return boto3.client(service, region_name=region, config=BOTO_CONFIG, **keys)


def partition(region: str) -> str:
    """The partition of a region: aws, aws-cn, aws-us-gov..."""
    return boto3.session.Session().get_partition_for_region(region)
