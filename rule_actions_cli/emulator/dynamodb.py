"""moto's DynamoDB, with conditional writes that are atomic as in AWS.

The ledger's exactly-once rests on one DynamoDB guarantee: of two concurrent conditional writes of one item (the
in-progress claim of an action, `attribute_not_exists`), one fails with ConditionalCheckFailedException. moto reads
the item, checks the condition and writes in three steps without a lock, so two threads (the tests' concurrent
deliveries, or two requests to a `ThreadedMotoServer`) can both pass the check and both carry out the action: a
double send that AWS never makes, seen as a flaky test under load.

`install()` runs each of the backend's writes under one process-wide lock (moto looks the backend up at every
request, in-process `mock_aws` and `ThreadedMotoServer` alike); idempotent.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from moto.dynamodb.models import DynamoDBBackend

from rule_actions_cli.emulator import Gap

_LACKS = ("reads the item, checks the condition and writes without a lock: two concurrent requests can both pass "
          "the check (AWS fails one with ConditionalCheckFailedException): each write is atomic")
GAPS = tuple(Gap("dynamodb", api, _LACKS) for api in ("PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems"))

WRITES = ("put_item", "update_item", "delete_item", "transact_write_items")
_PATCH_MARK = "_rule_actions_patch"
_LOCK = threading.RLock()


def _atomic(write: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(write)
    def atomic(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return write(*args, **kwargs)

    setattr(atomic, _PATCH_MARK, True)
    return atomic


def install() -> None:
    for name in WRITES:
        write = getattr(DynamoDBBackend, name)
        if not getattr(write, _PATCH_MARK, False):
            setattr(DynamoDBBackend, name, _atomic(write))
