"""The handler against the embedded AWS (moto): every behaviour of the core, as a user would see it."""

from __future__ import annotations

import contextlib
import io
import json
import threading

import boto3
import pytest
from builders import REGION, SDK_ACTIONS, event, rule_config, rule_status

from rule_actions.handler import ActionsFailed


def outcomes(result):
    return [(a["rule"], a["kind"], a["target"], a["outcome"]) for a in result["actions"]]


def issues_found(job="demo-job-001", action_json=SDK_ACTIONS, rule="VanishingGradient", **kwargs):
    configs = [rule_config(rule, action_json)] if action_json is not None else [rule_config(rule)]
    return event(job=job, debug=[rule_status(rule, job=job)], debug_configs=configs, **kwargs)


def test_sdk_action_json_stops_the_job_and_emails_the_endpoint(aws):
    # Given an InProgress job whose rule carries the SDK's escaped action_json (StopTraining + Email)
    aws.put_job("demo-job-001")

    # When its IssuesFound event arrives
    result = aws.invoke(issues_found())

    # Then the job is stopped directly (no listing; one describe: its live status) and the endpoint receives one
    # message about it (the result names it redacted)
    assert outcomes(result) == [
        ("VanishingGradient", "stoptraining", "demo-job-001", "done"),
        ("VanishingGradient", "email", "m***@example.com", "done"),
        ("VanishingGradient", "notify", "team", "skipped"),  # the default rules, with no team subscribers
    ]
    assert result["actions"][0]["jobs"] == ["demo-job-001"]
    assert aws.status("demo-job-001") == "Stopping"
    assert "ListTrainingJobs" not in aws.calls and aws.calls.count("DescribeTrainingJob") == 1
    [message] = aws.inbox("ml@example.com")
    assert "VanishingGradient" in message["subject"] and "demo-job-001" in message["subject"]
    assert "stoptraining demo-job-001: done" in message["email"]


def test_plain_json_action_json_is_accepted_too(aws):
    # Given the same actions written as plain JSON
    aws.put_job("demo-job-001")
    plain = SDK_ACTIONS.replace('\\"', '"')

    # When / Then they run the same way
    result = aws.invoke(issues_found(action_json=plain))
    assert [a["outcome"] for a in result["actions"][:2]] == ["done", "done"]


def test_action_json_is_read_from_describe_training_job_only_when_the_event_lacks_it(aws):
    # Given a job whose rule configuration is only in the account, not in the event
    aws.put_job("demo-job-001", debug_rule_configurations=[rule_config("VanishingGradient", SDK_ACTIONS)])
    bare = event(debug=[rule_status("VanishingGradient")])

    # When the event arrives
    result = aws.invoke(bare)

    # Then one DescribeTrainingJob supplies the actions
    assert aws.calls.count("DescribeTrainingJob") == 1
    assert [a["kind"] for a in result["actions"] if a["outcome"] == "done"] == ["stoptraining", "email"]

    # And an event that carries its configurations makes no DescribeTrainingJob call
    aws.calls.clear()
    aws.invoke(issues_found())
    assert "DescribeTrainingJob" not in aws.calls


def test_describe_failure_fails_the_invocation_but_config_actions_still_run(aws):
    # Given a job that DescribeTrainingJob cannot find, and a team to notify
    aws.configure(notify={"emails": ["team@example.com"]})
    bare = event(job="ghost-job", debug=[rule_status("VanishingGradient", job="ghost-job")])

    # When the event arrives
    with pytest.raises(ActionsFailed, match="DescribeTrainingJob failed"):
        aws.invoke(bare)

    # Then the team was notified anyway, and the retry will read the action_json again
    assert len(aws.inbox("team@example.com")) == 1 and [to for to, _ in aws.published] == ["team"]


def test_mixed_case_job_name_is_stopped_by_its_own_prefix(aws):
    # Given a job with capitals (the rule container lower-cases action_json and never matches it)
    aws.put_job("MyJob-Exp1")
    actions = '[{\\"name\\": \\"stoptraining\\", \\"training_job_prefix\\": \\"MyJob-Exp1\\"}]'

    # When / Then it is stopped
    result = aws.invoke(issues_found(job="MyJob-Exp1", action_json=actions))
    assert outcomes(result)[0] == ("VanishingGradient", "stoptraining", "MyJob-Exp1", "done")
    assert aws.status("MyJob-Exp1") == "Stopping"


def test_stoptraining_without_prefix_defaults_to_the_events_job(aws):
    aws.put_job("demo-job-001")
    result = aws.invoke(issues_found(action_json='[{"name": "StopTraining"}]'))
    assert outcomes(result)[0] == ("VanishingGradient", "stoptraining", "demo-job-001", "done")


@pytest.mark.parametrize(
    ("others", "stop_all", "outcome", "stopped"),
    [
        ([], False, "done", ["exp-a-1"]),  # one match: the job itself
        (["exp-a-2"], False, "skipped", []),  # two matches: like the SDK, stop nothing
        (["exp-a-2"], True, "done", ["exp-a-1", "exp-a-2"]),
    ],
)
def test_prefix_stops_exactly_one_match_unless_stop_all_matching(aws, others, stop_all, outcome, stopped):
    # Given InProgress jobs under the prefix "exp-a-", and a Completed one that must never count
    aws.configure(stop_all_matching=stop_all)
    for name in ["exp-a-1", *others]:
        aws.put_job(name)
    aws.put_job("exp-a-old", "Completed")
    actions = '[{"name": "stoptraining", "training_job_prefix": "exp-a-"}]'

    # When the rule of exp-a-1 fires
    result = aws.invoke(issues_found(job="exp-a-1", action_json=actions))

    # Then
    [stop] = [a for a in result["actions"] if a["kind"] == "stoptraining"]
    assert (stop["outcome"], stop["jobs"]) == (outcome, stopped)
    if outcome == "skipped":
        assert "exp-a-1" in stop["reason"] and "exp-a-2" in stop["reason"]  # the jobs found are named
    assert [aws.status(n) for n in ["exp-a-1", *others]] == [
        "Stopping" if n in stopped else "InProgress" for n in ["exp-a-1", *others]
    ]


def test_prefix_with_no_inprogress_match_is_skipped(aws):
    # Given the event says InProgress but the account no longer lists the job as InProgress
    aws.put_job("exp-b-1", "Completed")
    result = aws.invoke(issues_found(job="exp-b-1", action_json='{"name": "stoptraining", "training_job_prefix": "exp-b"}'))
    [stop] = result["actions"][:1]
    assert stop["outcome"] == "skipped" and "no InProgress training job starts with 'exp-b'" in stop["reason"]


def test_cross_job_prefix_is_denied_unless_allowed(aws):
    # Given another team's InProgress job, and an action_json whose prefix targets it
    aws.put_job("demo-job-001")
    aws.put_job("other-team-job")
    hostile = '[{"name": "stoptraining", "training_job_prefix": "other-team"}]'

    # When the rule fires with the default configuration
    result = aws.invoke(issues_found(action_json=hostile))

    # Then nothing is stopped and the outcome says why
    assert outcomes(result)[0][3] == "denied"
    assert "allow_cross_job_stop" in result["actions"][0]["reason"]
    assert aws.status("other-team-job") == "InProgress"

    # And with allow_cross_job_stop the operator can permit it
    aws.configure(allow_cross_job_stop=True)
    result = aws.invoke(issues_found(action_json=hostile))
    assert result["actions"][0]["jobs"] == ["other-team-job"]


@pytest.mark.parametrize(("status", "outcome"), [("Stopped", "skipped"), ("Stopping", "skipped"),
                                                ("Completed", "skipped")])
def test_job_already_finished_in_the_account(aws, status, outcome):
    # Given the event says InProgress but the job has moved on since
    aws.put_job("demo-job-001", status)

    # When the rule fires
    result = aws.invoke(issues_found(action_json='[{"name": "stoptraining"}]'))

    # Then a job already stopping (another stop's) or finished is skipped, saying its status, never a failure
    stop = result["actions"][0]
    assert (stop["outcome"], stop["jobs"]) == (outcome, [])
    assert status in stop["reason"]


def test_event_of_a_job_that_is_not_inprogress_skips_the_stop_but_still_notifies(aws):
    # Given IssuesFound arriving after the job Completed (rule jobs can finish late)
    aws.put_job("demo-job-001", "Completed")
    result = aws.invoke(issues_found(status="Completed", secondary="Completed"))

    # Then the stop is skipped with the status, and the email still goes out
    assert outcomes(result)[:2] == [
        ("VanishingGradient", "stoptraining", "demo-job-001", "skipped"),
        ("VanishingGradient", "email", "m***@example.com", "done"),
    ]
    assert "Completed" in result["actions"][0]["reason"]
    assert "StopTrainingJob" not in aws.calls


def test_archive_replay_acts_only_with_act_on_replays(aws):
    aws.put_job("demo-job-001")
    replayed = issues_found(**{"replay-name": "outage-2026-11-20"})

    result = aws.invoke(replayed)
    assert {a["outcome"] for a in result["actions"]} == {"skipped"}
    assert aws.status("demo-job-001") == "InProgress" and aws.published == []

    aws.configure(act_on_replays=True)
    result = aws.invoke(replayed)
    assert result["actions"][0]["outcome"] == "done" and aws.status("demo-job-001") == "Stopping"


def test_dry_run_reports_and_calls_nothing_that_acts(aws):
    aws.configure(dry_run=True, notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    result = aws.invoke(issues_found())
    assert {a["outcome"] for a in result["actions"]} == {"dry_run"}
    assert aws.status("demo-job-001") == "InProgress" and aws.published == []
    assert not {"StopTrainingJob", "Publish", "Subscribe"} & set(aws.calls)  # the ledger records what was said


@pytest.mark.parametrize("notify_on_error", [True, False])
def test_rule_error_notifies_the_team_when_configured(aws, notify_on_error):
    aws.configure(notify_on_rule_error=notify_on_error, notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    errored = event(debug=[rule_status("Overfit", "Error", StatusDetails="ClientError: no tensors")], debug_configs=[rule_config("Overfit", SDK_ACTIONS)])

    result = aws.invoke(errored)

    # Then only notify (never the action_json's stop) runs for an Error
    assert outcomes(result) == ([("Overfit", "notify", "team", "done")] if notify_on_error else [])
    assert aws.status("demo-job-001") == "InProgress"
    if notify_on_error:
        [message] = aws.inbox("team@example.com")
        assert "Overfit rule error in demo-job-001" in message["subject"]
        assert "ClientError: no tensors" in message["email"]


def test_profiler_rule_runs_the_configured_actions(aws):
    # Given a profiler rule (no actions in the SDK) with actions attached in the configuration
    aws.configure(rules={"ProfilerReport": ["stoptraining", "notify"]}, notify={"sms": ["+15555550100"]})
    aws.put_job("demo-job-001")
    profiler = event(profiler=[rule_status("ProfilerReport", StatusDetails="LowGPUUtilization: p95 GPU 4%")])

    # When / Then
    result = aws.invoke(profiler)
    assert outcomes(result) == [
        ("ProfilerReport", "stoptraining", "demo-job-001", "done"),
        ("ProfilerReport", "notify", "team", "done"),
    ]
    assert "DescribeTrainingJob" in aws.calls  # the event carried no ProfilerRuleConfigurations
    [message] = aws.inbox("+15555550100")
    assert len(message["sms"]) <= 140 and "in demo-job-001 (InProgress); stopped it" in message["sms"]


def test_endpoints_receive_only_their_own_jobs_messages(aws):
    # Given two jobs, each with its own email endpoint in action_json
    for job, email in (("job-a", "alice@example.com"), ("job-b", "bob@example.org")):
        aws.put_job(job)
        actions = f'[{{"name": "email", "endpoint": "{email}"}}]'
        aws.invoke(issues_found(job=job, action_json=actions))

    # Then each endpoint's subscription filter lets through only the message addressed to it
    alice, bob = aws.inbox("alice@example.com"), aws.inbox("bob@example.org")
    assert len(alice) == 1 and "job-a" in alice[0]["subject"]
    assert len(bob) == 1 and "job-b" in bob[0]["subject"]
    assert len(aws.published) == 2


def test_allowed_endpoints_deny_others(aws):
    aws.configure(allowed_endpoints=["*@example.com"])
    aws.put_job("demo-job-001")
    actions = '[{"name": "email", "endpoint": "ml@example.com"}, {"name": "email", "endpoint": "x@evil.test"}, {"name": "sms", "endpoint": "+15555550100"}]'
    result = aws.invoke(issues_found(action_json=actions))
    assert [a["outcome"] for a in result["actions"] if a["kind"] != "notify"] == ["done", "denied", "denied"]
    assert aws.inbox("x@evil.test") == []


def test_action_from_action_json_and_config_runs_once(aws):
    # Given the configuration repeats the SDK's stop for this rule
    aws.configure(rules={"Vanishing*": ["stoptraining", {"name": "email", "endpoint": "ml@example.com"}]})
    aws.put_job("demo-job-001")
    result = aws.invoke(issues_found())
    assert [(a["kind"], a["origin"]) for a in result["actions"]] == [("stoptraining", "action_json"), ("email", "action_json")]


def test_invalid_entries_are_reported_and_the_rest_still_runs(aws):
    aws.configure(allow_any_sms=True)
    aws.put_job("demo-job-001")
    actions = '[{"name": "stoptraining", "training_job_prefix": ""}, {"name": "email", "endpoint": "not-an-email"}, {"name": "sms", "endpoint": "+15555550100"}, {"name": "notify"}]'
    result = aws.invoke(issues_found(action_json=actions))
    by_outcome = {(a["kind"], a["outcome"]) for a in result["actions"]}
    assert ("sms", "done") in by_outcome
    invalid = [a for a in result["actions"] if a["outcome"] == "invalid"]
    assert [a["reason"].split(":")[0] for a in invalid] == [
        "action_json[0].training_job_prefix",
        "action_json[1].endpoint",
        "action_json[3].name",
    ]
    assert aws.status("demo-job-001") == "InProgress"


def test_unparseable_action_json_gives_one_invalid_and_other_rules_still_run(aws):
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    broken = event(
        debug=[rule_status("VanishingGradient"), rule_status("LossNotDecreasing")],
        debug_configs=[rule_config("VanishingGradient", "[{oops"), rule_config("LossNotDecreasing", SDK_ACTIONS)],
    )
    result = aws.invoke(broken)
    vanishing = [a for a in result["actions"] if a["rule"] == "VanishingGradient"]
    assert [(a["kind"], a["outcome"]) for a in vanishing] == [("action_json", "invalid"), ("notify", "done")]
    assert aws.status("demo-job-001") == "Stopping"  # LossNotDecreasing's stop ran


def test_lifecycle_of_ten_events_with_duplicates_gives_each_action_once(aws):
    # Given a whole job lifecycle as SageMaker sends it: duplicates, and IssuesFound carried on to the end
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    vg = lambda status: rule_status("VanishingGradient", status)  # noqa: E731
    configs = [rule_config("VanishingGradient", SDK_ACTIONS)]
    sequence = [
        event(secondary="Starting", debug=[vg("InProgress")], debug_configs=configs),
        event(secondary="Training", debug=[vg("InProgress")], debug_configs=configs),
        event(secondary="Training", debug=[vg("InProgress")], debug_configs=configs),
        event(secondary="Training", debug=[vg("IssuesFound")], debug_configs=configs),
        event(secondary="Training", debug=[vg("IssuesFound")], debug_configs=configs),  # duplicate
        event(status="Stopping", secondary="Stopping", debug=[vg("IssuesFound")], debug_configs=configs),
        event(status="Stopping", secondary="Stopping", debug=[vg("IssuesFound")], debug_configs=configs),
        event(status="Stopped", secondary="Stopped", debug=[vg("IssuesFound")], debug_configs=configs),
        event(status="Stopped", secondary="Stopped", debug=[vg("IssuesFound")], debug_configs=configs),
        event(status="Stopped", secondary="Stopped", debug=[vg("IssuesFound")], debug_configs=configs),
    ]

    # When they are delivered in order
    results = [aws.invoke(e) for e in sequence]

    # Then each action was done exactly once, and the job stopped once
    done = [(a["kind"], a["target"]) for r in results for a in r["actions"] if a["outcome"] == "done"]
    assert sorted(done) == [("email", "m***@example.com"), ("notify", "team"), ("stoptraining", "demo-job-001")]
    assert aws.calls.count("StopTrainingJob") == 1
    assert len(aws.inbox("ml@example.com")) == 1 and len(aws.inbox("team@example.com")) == 1


def test_failed_action_is_retried_on_redelivery_and_done_ones_are_not_repeated(aws):
    # Given SNS publish fails on the first delivery
    aws.put_job("demo-job-001")
    effects = aws.effects()
    failing = {"on": True}

    def fail_publish(**_):
        if failing["on"]:
            raise RuntimeError("SNS is down")

    effects.notifier.client.meta.events.register("before-call.sns.Publish", fail_publish)

    # When the event is delivered: the stop is done, the email fails and the invocation raises
    with pytest.raises(ActionsFailed, match=r"email m\*\*\*@example.com: RuntimeError: SNS is down") as raised:
        aws.invoke(issues_found())
    assert "ml@example.com" not in str(raised.value)  # the error (and so the failed-events queue) is redacted
    assert aws.status("demo-job-001") == "Stopping"

    # And Lambda retries it after SNS recovers
    failing["on"] = False
    retry = aws.invoke(issues_found())

    # Then the email is sent now and the stop is not repeated
    assert [(a["kind"], a["outcome"]) for a in retry["actions"][:2]] == [("stoptraining", "duplicate"), ("email", "done")]
    assert aws.calls.count("StopTrainingJob") == 1
    assert len(aws.inbox("ml@example.com")) == 1


def test_unreachable_ledger_fails_the_invocation_without_acting(aws):
    # Given the ledger table is gone
    aws.put_job("demo-job-001")
    boto3.client("dynamodb", region_name=REGION).delete_table(TableName="rule-actions-ledger")

    # When the event arrives
    with pytest.raises(ActionsFailed, match="ledger unavailable"):
        aws.invoke(issues_found())

    # Then nothing was done without the ledger
    assert aws.status("demo-job-001") == "InProgress" and aws.published == []


def test_concurrent_deliveries_act_once(aws, atomic_requests):
    # Given the same event delivered four times at once (SageMaker duplicates, Lambda retries)
    aws.put_job("demo-job-001")
    aws.effects()
    results, errors = [], []

    def deliver():
        try:
            results.append(aws.invoke(issues_found()))
        except ActionsFailed as err:  # "in progress in a concurrent invocation": Lambda retries it
            errors.append(err)

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # Then the job was stopped and the email sent exactly once
    assert aws.calls.count("StopTrainingJob") == 1
    assert len(aws.inbox("ml@example.com")) == 1
    assert all("in progress" in str(e) for e in errors)
    # And a retry of any of them finds the work done
    assert {a["outcome"] for a in aws.invoke(issues_found())["actions"][:2]} == {"duplicate"}


@pytest.mark.parametrize(
    "raw",
    [
        {"source": "aws.ec2", "detail-type": "EC2 Instance State-change Notification", "detail": {}},
        {"source": "aws.sagemaker", "detail-type": "SageMaker Training Job State Change", "detail": "oops"},
        {"source": "aws.sagemaker", "detail-type": "SageMaker Training Job State Change", "detail": {"TrainingJobName": 7}},
        [],
        "x" * 1_000_000,
        None,
    ],
)
def test_events_that_cannot_be_acted_on_are_ignored_with_a_reason(aws, raw):
    result = aws.invoke(raw)
    assert result["actions"] == [] and result["ignored"]
    assert aws.calls == []


def test_jobs_outside_training_job_prefixes_are_ignored(aws):
    aws.configure(training_job_prefixes=["team-a-"])
    aws.put_job("demo-job-001")
    result = aws.invoke(issues_found())
    assert "training_job_prefixes" in result["ignored"] and aws.status("demo-job-001") == "InProgress"


def test_hostile_strings_do_not_crash_and_stay_plain_text(aws):
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    nasty = "<script>alert(1)</script>\x00\x1b[31m" + "é" * 5000
    hostile = event(debug=[rule_status(nasty, StatusDetails=nasty * 3)])
    result = aws.invoke(hostile)
    assert result["actions"][0]["outcome"] == "done"
    [(_, message)] = aws.published
    assert "\x00" not in message["email"] and "\x1b" not in message["email"]
    assert "<script>alert(1)</script>" in message["email"]  # literal text, never markup


def test_a_message_never_reveals_another_recipients_address(aws):
    # Given one rule whose action_json emails two people and texts a third
    aws.put_job("demo-job-001")
    actions = (
        '[{"name": "stoptraining"}, {"name": "email", "endpoint": "alice@example.com"}, '
        '{"name": "email", "endpoint": "bob@example.org"}, {"name": "sms", "endpoint": "+15555550100"}]'
    )

    # When the rule fires
    aws.invoke(issues_found(action_json=actions))

    # Then each message reports the stop, and names no other recipient
    [to_bob] = aws.inbox("bob@example.org")
    assert "stoptraining demo-job-001: done" in to_bob["email"]
    assert "alice@example.com" not in to_bob["email"] and "+15555550100" not in to_bob["email"]
    [to_alice] = aws.inbox("alice@example.com")
    assert "bob@example.org" not in to_alice["email"]


def test_one_address_in_two_cases_gets_one_message_across_events(aws):
    # Given two rules of a job whose action_json name one address, in two cases
    aws.put_job("demo-job-001")
    lower = issues_found(action_json='[{"name": "email", "endpoint": "casey@example.com"}]')
    upper = issues_found(action_json='[{"name": "email", "endpoint": "casey@EXAMPLE.com"}]', event_id="another")

    # When both events arrive
    first, second = aws.invoke(lower), aws.invoke(upper)

    # Then the address got one message; the second is a duplicate of the first (the ledger folds the case)
    assert [a["outcome"] for a in first["actions"] if a["kind"] == "email"] == ["done"]
    assert [a["outcome"] for a in second["actions"] if a["kind"] == "email"] == ["duplicate"]
    assert [to for to, _ in aws.published if to != "team"] == ["casey@example.com"]


def test_a_repeat_in_the_same_execution_environment_is_answered_without_the_ledger(aws):
    # Given an event whose actions were done by this execution environment
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    aws.invoke(issues_found())
    before = len(aws.calls)

    # When SageMaker's duplicate copy arrives
    again = aws.invoke(issues_found())

    # Then every action is a duplicate, found in the environment's memory (Powertools' local cache of done
    # records): no DynamoDB call and no action call
    assert {a["outcome"] for a in again["actions"]} == {"duplicate"}
    assert aws.calls[before:] == []


def test_a_refusal_is_said_once_and_its_redelivery_is_a_duplicate(aws):
    # Given a rule whose action_json stops another team's prefix and texts a number only it names (both denied),
    # and holds two entries that cannot run (invalid)
    aws.configure(rules={})
    aws.put_job("demo-job-001")
    aws.put_job("other-team-job")
    refused = ('[{"name": "stoptraining", "training_job_prefix": "other-team"}, {"name": "sms", "endpoint": '
               '"+15555550100"}, {"name": "reboot"}, {"name": "email", "endpoint": "not-an-email"}]')

    # When the same event is delivered twice
    first = aws.invoke(issues_found(action_json=refused))
    second = aws.invoke(issues_found(action_json=refused))

    # Then each refusal is reported once, then as a duplicate saying what was said; neither invocation fails
    assert [(a["kind"], a["outcome"]) for a in first["actions"]] == [
        ("stoptraining", "denied"), ("sms", "denied"), ("action_json", "invalid"), ("email", "invalid")]
    assert [a["outcome"] for a in second["actions"]] == ["duplicate"] * 4
    for said, again in zip(first["actions"], second["actions"], strict=True):
        assert again["reason"].startswith(f"already reported: {said['outcome']} ({said['reason']}); ledger record until ")
    assert aws.status("other-team-job") == "InProgress" and aws.published == []
    # and the ledger holds the reasons redacted, as it holds done actions'
    items = boto3.client("dynamodb", region_name=REGION).scan(TableName="rule-actions-ledger")["Items"]
    assert len(items) == 4 and "+*******0100" in str(items) and "5555550100" not in str(items)


def test_a_skipped_stop_runs_once_the_configuration_allows_it(aws):
    # Given two InProgress jobs under a rule's prefix: with stop_all_matching false the stop is skipped, and said once
    for name in ("exp-a-1", "exp-a-2"):
        aws.put_job(name)
    prefix = issues_found(job="exp-a-1", action_json='[{"name": "stoptraining", "training_job_prefix": "exp-a-"}]')
    skipped, said = aws.invoke(prefix), aws.invoke(prefix)
    assert [skipped["actions"][0]["outcome"], said["actions"][0]["outcome"]] == ["skipped", "duplicate"]

    # When the configuration allows stopping every match, and the event is delivered twice more
    aws.configure(stop_all_matching=True)
    done, again = aws.invoke(prefix), aws.invoke(prefix)

    # Then the recorded skip hides nothing: both jobs are stopped, once
    assert (done["actions"][0]["outcome"], done["actions"][0]["jobs"]) == ("done", ["exp-a-1", "exp-a-2"])
    assert again["actions"][0]["outcome"] == "duplicate"
    assert aws.calls.count("StopTrainingJob") == 2 and {aws.status(n) for n in ("exp-a-1", "exp-a-2")} == {"Stopping"}


def test_every_log_line_and_metric_carries_the_service_name_its_environment_gives_at_each_invocation(aws, monkeypatch):
    from rule_actions.contract import ENV_SERVICE, SERVICE_DIMENSION
    from rule_actions.observability import logger

    def run(service: str) -> tuple[list[dict], list[dict]]:
        """One invocation with `service` as the environment's service name: its log lines and EMF records."""
        monkeypatch.setenv(ENV_SERVICE, service)
        out, logs = io.StringIO(), logger.registered_handler
        previous, logs.stream = logs.stream, out
        try:
            with contextlib.redirect_stdout(out):
                aws.invoke(issues_found())
        finally:
            logs.stream = previous
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        return [line for line in lines if "_aws" not in line], [line for line in lines if "_aws" in line]

    # Given an event whose rule stops the job and emails (Actions and Triggers records of their own, the
    # invocation's Events)
    aws.put_job("demo-job-001")
    # When the function of the deployment TrainingActions handles it, then that of AuditActions (one process, as a
    # local replay of two stacks runs them)
    for service in ("TrainingActions", "AuditActions"):
        logs, records = run(service)
        # Then every log line says that service, and every EMF record has it as a dimension of every metric
        assert logs and {line["service"] for line in logs} == {service}
        names = {metric["Name"] for record in records for d in record["_aws"]["CloudWatchMetrics"]
                 for metric in d["Metrics"]}
        assert {"Actions", "Triggers", "Events"} <= names
        for record in records:
            assert record[SERVICE_DIMENSION] == service
            assert all(SERVICE_DIMENSION in dimensions for d in record["_aws"]["CloudWatchMetrics"]
                       for dimensions in d["Dimensions"])


def test_two_rules_one_stop_the_second_is_skipped_naming_who_stopped_it(aws):
    # Given two rules that hold at once on a running job, each declaring a stop
    aws.put_job("demo-job-001")
    aws.configure(rules={"VanishingGradient": ["stoptraining"], "Overfit": ["stoptraining"]})
    raw = event(debug=[rule_status("VanishingGradient"), rule_status("Overfit")])

    # When their finding arrives
    result = aws.invoke(raw)

    # Then the job is stopped once: the first rule's stop is done, the second is skipped, naming the first and when
    stops = [(a["trigger"], a["outcome"]) for a in result["actions"] if a["kind"] == "stoptraining"]
    assert stops == [("VanishingGradient", "done"), ("Overfit", "skipped")]
    second = result["actions"][1]["reason"]
    assert second.startswith("nothing to stop: demo-job-001 is already Stopping: stopped by rule VanishingGradient "
                             "of demo-job-001 at ")
    # at the time of the event that asked (the replay's timelines' own clock), not the machine's
    from datetime import UTC, datetime

    asked = datetime.fromisoformat(raw["time"].replace("Z", "+00:00")).astimezone(UTC)
    assert second.endswith(asked.strftime(" at %Y-%m-%d %H:%M UTC")) and aws.calls.count("StopTrainingJob") == 2


def phases(*names):
    return [{"Status": name, "StartTime": str(1763799000000 + 60000 * n), "StatusMessage": name}
            for n, name in enumerate(names)]


def test_an_outcome_delivered_after_the_job_s_final_one_is_a_late_event_said_once(aws):
    # Given a spot job that was interrupted, resumed and completed: its Completed event arrives first, its
    # Interrupted event (sent while it ran) after, twice
    aws.configure(notify={"emails": ["team@example.com"]},
                  job_outcomes={"Interrupted": ["notify"], "Completed": ["notify"]})
    aws.put_job("demo-job-001", "Completed")
    completed = event(status="Completed", secondary="Completed", event_id="e-completed",
                      time="2026-11-24T11:00:00Z")
    completed["detail"]["SecondaryStatusTransitions"] = phases("Starting", "Training", "Interrupted", "Training",
                                                               "Uploading", "Completed")
    interrupted = event(secondary="Interrupted", event_id="e-interrupted", time="2026-11-24T10:20:00Z")
    interrupted["detail"]["SecondaryStatusTransitions"] = phases("Starting", "Training", "Interrupted")

    # When they are delivered in that order
    first = aws.invoke(completed)
    late, again = aws.invoke(interrupted), aws.invoke(interrupted)

    # Then the Completed outcome is told; the Interrupted one is not (the ledger saw the job further along), said
    # once with the reason, then a duplicate
    assert [(a["trigger"], a["outcome"]) for a in first["actions"]] == [("job:Completed", "done")]
    assert [(a["trigger"], a["outcome"]) for a in late["actions"]] == [("job:Interrupted", "skipped")]
    assert late["actions"][0]["reason"] == (
        "a late event, not acted on: it shows demo-job-001 InProgress (Interrupted, 2026-11-24T10:20:00Z), and an "
        "event showing it Completed (2026-11-24T11:00:00Z) was seen before it (EventBridge keeps no order)")
    assert [a["outcome"] for a in again["actions"]] == ["duplicate"]
    assert len(aws.inbox("team@example.com")) == 1
