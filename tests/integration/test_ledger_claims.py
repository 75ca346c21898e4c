"""The ledger makes Powertools' idempotency on its first claim, not at the cold start (effects/ledger.py): what it
claims, and how long an in-progress record lives (the invocation's remaining time), are as when it was made at once."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from rule_actions.effects.ledger import DynamoLedger

ROOT = Path(__file__).resolve().parents[2]
TABLE = "ledger"
IN_PROGRESS_EXPIRY = "in_progress_expiration"  # Powertools' attribute: epoch ms until an in-progress record expires


class Context:
    """A Lambda context with `seconds` left."""

    def __init__(self, seconds: int):
        self.seconds = seconds

    def get_remaining_time_in_millis(self) -> int:
        return self.seconds * 1000


@pytest.fixture
def ledger():
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
        yield DynamoLedger(TABLE, 24, client)


def in_progress_seconds_left(ledger: DynamoLedger) -> float:
    """While a claim's work runs: the seconds its in-progress record (the only one) has left."""
    [item] = [i for i in ledger.client.scan(TableName=TABLE)["Items"] if i["status"]["S"] == "INPROGRESS"]
    return int(item[IN_PROGRESS_EXPIRY]["N"]) / 1000 - time.time()


def test_an_in_progress_record_expires_with_the_invocation_registered_before_and_after_the_first_claim(ledger):
    # Given an invocation with 40 s left, registered before the ledger's first claim (nothing made yet)
    ledger.register(Context(40))
    seen: dict[str, float] = {}

    def work(name: str):
        def run():
            seen[name] = in_progress_seconds_left(ledger)
            return {"done": name}
        return run

    # When it claims an action, then a later invocation with 9 s left claims another
    first = ledger.once({"action": "first"}, work("first"))
    ledger.register(Context(9))
    second = ledger.once({"action": "second"}, work("second"))

    # Then each ran once, and each in-progress record lived as long as its own invocation had left
    assert (first, second) == ({"done": "first"}, {"done": "second"})
    assert 35 < seen["first"] <= 40
    assert 4 < seen["second"] <= 9


def test_a_done_claim_is_answered_as_a_duplicate_by_the_idempotency_made_on_the_first_claim(ledger):
    # Given an action claimed and done
    ledger.once({"action": "notify"}, lambda: {"outcome": "done"})

    # When it is claimed again
    again = ledger.once({"action": "notify"}, lambda: pytest.fail("the work ran twice"))

    # Then the stored result comes back, marked as the duplicate it is
    assert again["outcome"] == "done" and again["duplicate"] is True


def test_the_handler_s_cold_start_imports_no_idempotency_nor_monitor_rules():
    # Given a fresh interpreter with the function's package, as Lambda imports it
    probe = ("import sys, rule_actions.handler; "
             "print('\\n'.join(m for m in sys.modules if m.startswith(('aws_lambda_powertools', 'rule_actions'))))")

    # When it imports the handler
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "lambdas")}, cwd=ROOT / "lambdas")
    loaded = set(done.stdout.split())

    # Then it holds the handler and Powertools' logger, but neither what only a claim needs nor what only a
    # scheduled evaluation or organization mode does
    assert {"rule_actions.handler", "aws_lambda_powertools.logging"} <= loaded
    late = {m for m in loaded if m.startswith(("aws_lambda_powertools.utilities.idempotency", "rule_actions.monitors",
                                               "rule_actions.effects.members", "rule_actions.effects.logs",
                                               "rule_actions.effects.cloudwatch"))}
    assert late == set()
