"""The exactly-once ledger: <name>-ledger, a DynamoDB table of Powertools idempotency records (expired by TTL) and
records of this stack's stops, built into RuleActions' own scope (its logical id and name those of its first
releases)."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from rule_actions.contract import LEDGER_EXPIRY_ATTRIBUTE, LEDGER_KEY_ATTRIBUTE


class LedgerTable:
    def __init__(self, scope: Construct, table_name: str) -> None:
        self.table = dynamodb.Table(
            scope, "Ledger", table_name=table_name,
            partition_key=dynamodb.Attribute(name=LEDGER_KEY_ATTRIBUTE, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            time_to_live_attribute=LEDGER_EXPIRY_ATTRIBUTE,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True),
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=RemovalPolicy.DESTROY,  # records live dedup_ttl_hours; nothing to keep
        )
