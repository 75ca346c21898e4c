"""The exactly-once ledger: Powertools idempotency on DynamoDB, keyed per action (and per decision not to carry
one out: said once); and the record of each job this stack stopped.

`once(key, work)` runs `work` unless a record for `key` exists: a done action returns its stored result,
marked duplicate; an action that raises leaves no record, so the next delivery runs it again; an action in
progress in another invocation raises InProgressElsewhere (the caller reports it as failed, and the retry finds
it done). When the table cannot be reached, LedgerUnavailable is raised and `work` does not run (or, when only
completing the record failed, it did: `after_work`).

`mark_stopped(job_arn, by, cost_usd, saved_usd)` / `stopped_by(job_arn)`: a plain item per stopped job (same table,
same TTL), so that the job's Stopped outcome can tell our own stop from anybody else's; it also keeps what the job
cost until the stop and what the stop saved at most (`cost_usd`, `saved_usd`: decimal strings, absent when unknown),
and what is to follow once the job has stopped (`follow_stop`, read back by `stop_record`: a restart).
`restart_quota(account, limit)`: a conditional counter per account and hour (restarts_per_hour).
`saw(job_arn, progress)`: the order of what it saw of a job, a plain item per job (same table, same TTL) keeping the
furthest Progress of its events (a conditional write: only further along replaces it); a late event is told by it.

Powertools' idempotency is imported and set up on the first `once` of the execution environment, not at its cold
start: an invocation that claims no action (an event nothing acts on, a scheduled evaluation that finds nothing)
never imports it (about 3 ms of the handler's import, docs/performance.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rule_actions.contract import (
    LEDGER_COST_ATTRIBUTE,
    LEDGER_EXPIRY_ATTRIBUTE,
    LEDGER_KEY_ATTRIBUTE,
    LEDGER_SAVED_ATTRIBUTE,
)
from rule_actions.ports import InProgressElsewhere, LedgerUnavailable
from rule_actions.records import Progress, StopNote
from rule_actions.text import error_text

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig

KEY_PREFIX = "rule-actions"
# Done records are also kept in the execution environment's memory (Powertools' local cache, an LRU of
# LOCAL_CACHE_ITEMS): a repeat of a done action or of a decision not to act (SageMaker's duplicate events, later
# events that still carry IssuesFound, an evaluation's finding at every run: most of the matched events) is answered
# without a DynamoDB call. Exactly once is unchanged: only completed records are cached (never in-progress ones),
# each expires with its record, and the first claim of an action is always DynamoDB's conditional write. Measured
# by `python -m bench 4` (matched events per second, DynamoDB calls, with and without; 1,024 items instead of
# Powertools' 256 took 3,434 DynamoDB calls to 2,440 over its 10,000 events once refusals were recorded too).
LOCAL_CACHE = True
LOCAL_CACHE_ITEMS = 1024
STOPPED_PREFIX = f"{KEY_PREFIX}#stopped#"  # + the job's ARN; never a Powertools key (<prefix>#<hex digest>)
SEEN_PREFIX = f"{KEY_PREFIX}#seen#"  # + the job's ARN: the furthest along its events were seen
RESTARTS_PREFIX = f"{KEY_PREFIX}#restarts#"  # + account#hour: the restarts made in an account in an hour
THEN = "follow_ups"  # the stop record's attribute: what follows the stop once the job has stopped (a string set)


class DynamoLedger:
    def __init__(self, table_name: str, ttl_hours: int, dynamodb_client: Any):
        self.client = dynamodb_client
        self.table_name = table_name
        self.ttl_seconds = ttl_hours * 3600
        self._context: Any = None  # the invocation's Lambda context (the in-progress records' expiry)
        self._idempotency: tuple[IdempotencyConfig, Callable[..., dict[str, Any]]] | None = None
        self._making = threading.Lock()  # one idempotency per ledger, whatever threads claim first (tests)

    def _claims(self) -> tuple[IdempotencyConfig, Callable[..., dict[str, Any]]]:
        """Powertools' idempotency over the table: its configuration, and `_run` made idempotent; made on the
        first claim (see the module's doc)."""
        with self._making:
            if self._idempotency is None:
                from aws_lambda_powertools.utilities.idempotency import (
                    DynamoDBPersistenceLayer,
                    IdempotencyConfig,
                    idempotent_function,
                )

                config = IdempotencyConfig(
                    expires_after_seconds=self.ttl_seconds,
                    raise_on_no_idempotency_key=True,
                    response_hook=_mark_duplicate,
                    use_local_cache=LOCAL_CACHE,
                    local_cache_max_items=LOCAL_CACHE_ITEMS,
                )
                if self._context is not None:
                    config.register_lambda_context(self._context)
                store = DynamoDBPersistenceLayer(
                    table_name=self.table_name, boto3_client=self.client,
                    key_attr=LEDGER_KEY_ATTRIBUTE, expiry_attr=LEDGER_EXPIRY_ATTRIBUTE,
                )
                self._idempotency = config, idempotent_function(
                    _run, data_keyword_argument="key", persistence_store=store, config=config, key_prefix=KEY_PREFIX
                )
            return self._idempotency

    def register(self, lambda_context: Any) -> None:
        """Lets an in-progress record expire with the invocation's remaining time."""
        if lambda_context is not None:
            with self._making:
                self._context = lambda_context
                if self._idempotency is not None:  # else it is registered when the idempotency is made
                    self._idempotency[0].register_lambda_context(lambda_context)

    def once(self, key: dict[str, str], work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """`work()` once per key (ports.Ledger): Powertools' errors become the port's."""
        _, once = self._claims()
        from aws_lambda_powertools.utilities.idempotency.exceptions import (
            IdempotencyAlreadyInProgressError,
            IdempotencyPersistenceLayerError,
        )

        try:
            found: dict[str, Any] = once(work, key=key)
            return found
        except IdempotencyAlreadyInProgressError:
            raise InProgressElsewhere() from None
        except IdempotencyPersistenceLayerError as err:
            source = err.args[1] if len(err.args) > 1 else err  # Powertools passes the AWS error second
            # "... to success": the work ran, only its record could not be completed
            raise LedgerUnavailable(error_text(source), "to success" in str(err.args[0])) from None

    def mark_stopped(self, job_arn: str, by: str, cost_usd: float | None = None,
                     saved_usd: float | None = None, at: datetime | None = None) -> None:
        """The stop's record: who stopped the job, and (when known) what it cost until the stop and what the stop
        saved at most, in US dollars as decimal strings (cost_usd, saved_usd: what `rule-actions report` sums)."""
        figures = {name: {"S": f"{value:.2f}"} for name, value in ((LEDGER_COST_ATTRIBUTE, cost_usd),
                                                                    (LEDGER_SAVED_ATTRIBUTE, saved_usd))
                   if value is not None}
        self.client.put_item(TableName=self.table_name, Item={
            LEDGER_KEY_ATTRIBUTE: {"S": STOPPED_PREFIX + job_arn},
            LEDGER_EXPIRY_ATTRIBUTE: {"N": str(int(time.time()) + self.ttl_seconds)},
            "stopped_by": {"S": by},
            "stopped_at": {"S": (at or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")},
            **figures,
        })

    def stopped_by(self, job_arn: str) -> str | None:
        """Who in this stack stopped the job (a rule of a job), or None when this stack did not (or long ago)."""
        note = self.stop_record(job_arn)
        return note.by if note else None

    def stop_record(self, job_arn: str) -> StopNote | None:
        """The stop's record: who stopped the job and what is to follow once it has stopped; None when this stack
        did not stop it (or long ago)."""
        item = self.client.get_item(TableName=self.table_name, ConsistentRead=True,
                                    Key={LEDGER_KEY_ATTRIBUTE: {"S": STOPPED_PREFIX + job_arn}}).get("Item")
        if not item or int(item.get(LEDGER_EXPIRY_ATTRIBUTE, {}).get("N", "0")) < time.time():
            return None  # TTL deletes expired items within days, not at once
        return StopNote(str(item.get("stopped_by", {}).get("S", "")), tuple(sorted(item.get(THEN, {}).get("SS", []))),
                        str(item.get("stopped_at", {}).get("S", "")))

    def follow_stop(self, job_arn: str, action: str) -> None:
        """Add `action` to what follows the stop (a string set on the stop's record, which must exist: the stop of
        the same trigger wrote it just before)."""
        self.client.update_item(
            TableName=self.table_name, Key={LEDGER_KEY_ATTRIBUTE: {"S": STOPPED_PREFIX + job_arn}},
            UpdateExpression=f"ADD {THEN} :action", ConditionExpression=f"attribute_exists({LEDGER_KEY_ATTRIBUTE})",
            ExpressionAttributeValues={":action": {"SS": [action]}})

    def restart_quota(self, account: str, limit: int) -> bool:
        """One more restart in `account` this hour (UTC), unless `limit` were made: one conditional counter per
        account and hour (its record expires with the ledger's TTL)."""
        hour = datetime.now(UTC).strftime("%Y-%m-%dT%H")
        try:
            self.client.update_item(
                TableName=self.table_name, Key={LEDGER_KEY_ATTRIBUTE: {"S": f"{RESTARTS_PREFIX}{account}#{hour}"}},
                UpdateExpression="ADD #n :one SET #e = :expires",
                ConditionExpression="attribute_not_exists(#n) OR #n < :limit",
                ExpressionAttributeNames={"#n": "restarts", "#e": LEDGER_EXPIRY_ATTRIBUTE},
                ExpressionAttributeValues={":one": {"N": "1"}, ":limit": {"N": str(limit)},
                                           ":expires": {"N": str(int(time.time()) + self.ttl_seconds)}})
        except self.client.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def saw(self, job_arn: str, progress: Progress) -> Progress | None:
        """One conditional write: `progress` kept when the job had no record, or one behind it (rank, then steps);
        else the record's, when it is further along (a late event), or None (as far along). ConsistentRead is not
        needed: the condition is checked on the item itself, and a failed one returns it."""
        rank, steps = progress.rank, progress.steps
        try:
            self.client.update_item(
                TableName=self.table_name, Key={LEDGER_KEY_ATTRIBUTE: {"S": SEEN_PREFIX + job_arn}},
                UpdateExpression="SET #r = :r, #n = :n, #s = :s, #t = :t, #p = :p, #e = :e",
                ConditionExpression="attribute_not_exists(#r) OR #r < :r OR (#r = :r AND #n < :n)",
                ExpressionAttributeNames={"#r": "rank", "#n": "steps", "#s": "status", "#t": "at", "#p": "phase",
                                          "#e": LEDGER_EXPIRY_ATTRIBUTE},
                ExpressionAttributeValues={":r": {"N": str(rank)}, ":n": {"N": str(steps)},
                                           ":s": {"S": progress.status}, ":t": {"S": progress.at},
                                           ":p": {"S": progress.phase},
                                           ":e": {"N": str(int(time.time()) + self.ttl_seconds)}},
                ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except self.client.exceptions.ConditionalCheckFailedException as err:
            item = err.response.get("Item") or {}
            known = Progress(item.get("status", {}).get("S", ""), int(item.get("steps", {}).get("N", "0")),
                             item.get("at", {}).get("S", ""), item.get("phase", {}).get("S", ""))
            return known if known.after(progress) else None
        return None


def _run(work: Callable[[], dict[str, Any]], key: dict[str, str]) -> dict[str, Any]:
    return work()


def _mark_duplicate(response: Any, idempotent_data: Any) -> Any:
    """Powertools' response hook (its IdempotentHookFunction): the record of work already done, marked so."""
    record = idempotent_data
    expires = datetime.fromtimestamp(int(record.expiry_timestamp or 0), tz=UTC).isoformat(timespec="seconds")
    return {**response, "duplicate": True, "ledger_expires": expires}
