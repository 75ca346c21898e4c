"""One job's lifecycle delivered in any order, with duplicates, through the real handler on moto (issue 36): EventBridge
keeps no order and Lambda may deliver an event twice.

The job has ended by the time its events are delivered (Completed, or stopped by its owner): each delivery order
hypothesis draws, every event at least once and some twice or more, must give
  (a) never an action on the job after its final state: no stop call, no `done` stop, its status unchanged;
  (b) the same actions done whatever the order: each message once (a rule's email and the team's notify, the job's
      outcome), nothing more;
  (c) every decision not to stop it reported once (one `skipped` row, then duplicates), no action failed.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

import pytest
from builders import ACCOUNT, REGION, event, function_resources, rule_config, rule_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from moto.dynamodb.models import dynamodb_backends
from moto.sagemaker.models import sagemaker_backends
from moto.sns.models import sns_backends

from rule_actions import handler
from rule_actions.config import Config, Settings
from rule_actions.handler import ActionsFailed
from rule_actions_cli.embedded import LocalContext
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

TABLE = "rule-actions-orders-ledger"
JOB = "bert-orders-2026-11-24-001"
CONTEXT = LocalContext("rule-actions", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:rule-actions")
ORDERS = settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=60)
CONFIG = {"notify": {"emails": ["team@example.com"]}, "allowed_endpoints": ["*@example.com"],
          "rules": {"*": ["notify"]}, "job_outcomes": {"Completed": ["notify"], "Stopped": ["notify"]}}
ACTIONS = '[{"name": "stoptraining"}, {"name": "email", "endpoint": "ml@example.com"}]'
PHASES = ("Starting", "Downloading", "Training")


def transitions(phases: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"Status": phase, "StartTime": str(1763799000000 + 60000 * index), "StatusMessage": phase}
            for index, phase in enumerate(phases)]


def lifecycle(ending: str) -> list[dict[str, Any]]:
    """The job's events in the order SageMaker sent them: it starts, trains, LossNotDecreasing finds issues (its
    action_json stops the job and emails), then (Overfit finding issues too, both carried by every later event) it
    uploads and completes, or its owner stops it."""
    configs = [rule_config("LossNotDecreasing", ACTIONS), rule_config("Overfit")]

    def state(n: int, status: str, phases: tuple[str, ...], loss: str, overfit: str) -> dict[str, Any]:
        raw = event(job=JOB, status=status, secondary=phases[-1], event_id=f"e-{n}",
                    debug=[rule_status("LossNotDecreasing", loss, job=JOB), rule_status("Overfit", overfit, job=JOB)],
                    debug_configs=configs, time=f"2026-11-24T10:0{n}:00Z")
        raw["detail"]["SecondaryStatusTransitions"] = transitions(phases)
        return raw

    later = ("Uploading", "Completed") if ending == "Completed" else ("Stopping", "Stopped")
    final = "Completed" if ending == "Completed" else "Stopped"
    return [state(0, "InProgress", PHASES[:1], "InProgress", "InProgress"),
            state(1, "InProgress", PHASES, "IssuesFound", "InProgress"),
            state(2, "InProgress" if ending == "Completed" else "Stopping", (*PHASES, later[0]), "IssuesFound",
                  "IssuesFound"),
            state(3, final, (*PHASES, *later), "IssuesFound", "IssuesFound")]


@st.composite
def deliveries(draw: Any) -> tuple[str, list[int]]:
    """An ending and a delivery order: every event once, some again, shuffled."""
    ending = draw(st.sampled_from(["Completed", "Stopped"]))
    count = len(lifecycle(ending))
    again = draw(st.lists(st.integers(0, count - 1), max_size=count))
    order = [*range(count), *again]
    draw(st.randoms(use_true_random=False)).shuffle(order)
    return ending, order


@pytest.fixture(scope="module")
def account():
    patch = pytest.MonkeyPatch()
    with mock_aws():
        topic = function_resources(patch, "rule-actions-orders", TABLE)
        handler.runtime.cache_clear()
        _, effects = handler.runtime()  # the clients, as at cold start
        calls: list[str] = []
        for client in (effects.jobs.client, effects.notifier.client, effects.ledger.client):
            client.meta.events.register("before-parameter-build", lambda model, **_: calls.append(model.name))
        yield topic, effects, calls
    patch.undo()
    handler.runtime.cache_clear()


def delivered(account: Any, ending: str, order: list[int]) -> tuple[list[dict[str, Any]], list[str]]:
    """A fresh account whose job has ended (`ending`), its events delivered in `order`: the rows, the calls made."""
    topic, effects, calls = account
    sagemaker_backends[ACCOUNT][REGION].training_jobs.clear()
    dynamodb_backends[ACCOUNT][REGION].tables[TABLE].items.clear()
    ledger = effects.ledger  # and what the execution environment remembers (Powertools' local cache)
    ledger.__init__(ledger.table_name, ledger.ttl_seconds // 3600, ledger.client)
    sns = sns_backends[ACCOUNT][REGION]
    sns.subscriptions.clear()
    sns.topics[topic].sent_notifications.clear()
    moto_sagemaker.put_training_job(JOB, ending, secondary_status=ending)
    config = Config.from_dict(CONFIG)
    effects.notifier.client.subscribe(TopicArn=topic, Protocol="email", Endpoint="team@example.com",
                                      Attributes={"FilterPolicy": json.dumps({"to": ["team"]})})
    effects.notifier.__init__(effects.notifier.client, topic)
    calls.clear()
    events = lifecycle(ending)
    rows = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(handler, "runtime", lambda: (Settings(config, topic, TABLE, REGION), effects))
        for index in order:
            try:
                rows.append(handler.lambda_handler(events[index], CONTEXT))
            except ActionsFailed as err:  # a failure fails the property, naming the row
                pytest.fail(f"event {index} failed: {err}")
    return rows, list(calls)


@ORDERS
@given(case=deliveries())
def test_a_lifecycle_in_any_order_never_acts_after_the_final_state_and_does_the_same(account, case):
    ending, order = case
    # Given a job that has ended, When its events are delivered in this order (duplicates included)
    rows, calls = delivered(account, ending, order)
    actions = [a for row in rows for a in row["actions"]]
    # Then (a) nothing acted on the job: no stop asked, none done, its status unchanged
    assert not [c for c in calls if c.startswith("Stop")], order
    assert moto_sagemaker.training_job_status(JOB) == ending
    stops = [a for a in actions if a["kind"] == "stoptraining"]
    assert not [a for a in stops if a["outcome"] == "done" or a.get("jobs")], order
    # (b) the same actions done whatever the order: each message once
    done = Counter((a["trigger"], a["kind"], a["target"]) for a in actions if a["outcome"] == "done")
    assert done == Counter({("LossNotDecreasing", "email", "m***@example.com"): 1,
                            ("LossNotDecreasing", "notify", "team"): 1, ("Overfit", "notify", "team"): 1,
                            (f"job:{ending}", "notify", "team"): 1}), order
    # (c) the decision not to stop reported once, the rest its duplicates; nothing failed; no message says the
    # stack stopped the job
    assert [a["outcome"] for a in stops] == ["skipped"] + ["duplicate"] * (len(stops) - 1), order
    assert {a["outcome"] for a in actions} <= {"done", "skipped", "duplicate"}, order
    sent = sns_backends[ACCOUNT][REGION].topics[account[0]].sent_notifications
    assert sent and not [m for m in sent if f"stopped {JOB}" in json.dumps(m)], order


def test_the_property_s_lifecycle_is_what_sagemaker_sends():
    # Given either lifecycle, When read in its own order, Then each event is further along than the one before
    from planning import parse_event

    for ending in ("Completed", "Stopped"):
        progress = [parse_event(raw).event.progress for raw in lifecycle(ending)]
        assert all(later.after(earlier) for earlier, later in itertools.pairwise(progress))
        assert not any(earlier.after(progress[-1]) for earlier in progress[:-1])
