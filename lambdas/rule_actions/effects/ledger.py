"""The exactly-once ledger: Powertools idempotency on DynamoDB, keyed per action.

`once(key, work)` runs `work` unless a record for `key` exists: a done action returns its stored result,
marked duplicate; an action that raises leaves no record, so the next delivery runs it again; an action in
progress in another invocation raises IdempotencyAlreadyInProgressError (the caller reports it as failed, and
the retry finds it done). When the table cannot be reached, IdempotencyPersistenceLayerError is raised and
`work` does not run.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

KEY_PREFIX = "rule-actions"
EXPIRY_ATTRIBUTE = "expiration"  # the table's TTL attribute (Powertools' default name)


class Ledger:
    def __init__(self, table_name: str, ttl_hours: int, dynamodb_client: Any):
        self.config = IdempotencyConfig(
            expires_after_seconds=ttl_hours * 3600,
            raise_on_no_idempotency_key=True,
            response_hook=_mark_duplicate,
        )
        self.client = dynamodb_client
        store = DynamoDBPersistenceLayer(table_name=table_name, boto3_client=dynamodb_client)
        self._once = idempotent_function(
            _run, data_keyword_argument="key", persistence_store=store, config=self.config, key_prefix=KEY_PREFIX
        )

    def register(self, lambda_context: Any) -> None:
        """Lets an in-progress record expire with the invocation's remaining time."""
        if lambda_context is not None:
            self.config.register_lambda_context(lambda_context)

    def once(self, key: dict[str, str], work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        return self._once(work, key=key)


def _run(work: Callable[[], dict[str, Any]], key: dict[str, str]) -> dict[str, Any]:
    return work()


def _mark_duplicate(response: dict[str, Any], record: DataRecord) -> dict[str, Any]:
    expires = datetime.fromtimestamp(int(record.expiry_timestamp or 0), tz=timezone.utc).isoformat(timespec="seconds")
    return {**response, "duplicate": True, "ledger_expires": expires}
