"""The pure planner: (event, configuration, described parameters) -> planned actions and their fates."""

from __future__ import annotations

import json
from typing import Any

import pytest
from builders import SDK_ACTIONS, event, monitor_event, rule_config, rule_status
from planning import find, first_needs, parse_event
from planning import plan_all as plan_with
from smdebug_rulesconfig.actions.actions import ActionList, Email, StopTraining

from rule_actions.config import Config
from rule_actions.records import Described, TeamAudience

JOB = "demo-job-001"
TEAM_CONFIG = {"notify": {"emails": ["team@example.com"]}}
NO_RULES = {"rules": {}}


def sdk_actions(job: str, *actions) -> str:
    """The action_json the SDK stores for `actions` when the estimator's job is `job`."""
    action_list = ActionList(*actions)
    action_list.update_training_job_prefix_if_not_specified(job)
    return action_list.serialize()


def plan_all(raw: dict[str, Any], config: dict[str, Any] | None = None, described: Any = None,
             running: tuple[str, ...] = (JOB,), **facts: Any):
    """Plan an event as the pipeline does: triggers, then what the plan needs read (InProgress jobs by prefix,
    from `running`; the description), then the decisions."""
    return plan_with(raw, config, described, running, **facts)


def needs(raw: dict[str, Any], config: dict[str, Any]) -> bool:
    """Whether the plan asks for the job's description (DescribeTrainingJob)."""
    return any(isinstance(need, Described) for need in first_needs(raw, config))


def run(
    config: dict[str, Any] | None = None,
    action_json: str | None = None,
    rule: str = "VanishingGradient",
    rule_state: str = "IssuesFound",
    described: Any = None,
    carry_config: bool = True,
    running: tuple[str, ...] = (JOB,),
    **event_args: Any,
):
    """Plan for one Debug rule on one event; the rule's configuration is in the event unless carry_config=False."""
    job = event_args.pop("job", JOB)
    raw = event(
        job=job,
        debug=[rule_status(rule, rule_state, job=job)],
        debug_configs=[rule_config(rule, action_json)] if carry_config else None,
        **event_args,
    )
    return plan_all(raw, config, described, running)


def rows(planned) -> list[tuple]:
    return [(p.kind, p.target, p.origin, p.outcome) for p in planned]


# --- what triggers -------------------------------------------------------------------------------------------


def test_issues_found_runs_action_json_then_the_configuration_entry():
    # Given an IssuesFound rule with the SDK's action_json, and a team to notify
    # When it is planned
    planned = run(TEAM_CONFIG, SDK_ACTIONS)

    # Then the SDK's stop and email come first, then the configuration's notify, all to be carried out
    assert rows(planned) == [
        ("stoptraining", JOB, "action_json", None),
        ("email", "ml@example.com", "action_json", None),
        ("notify", "team", "config", None),
    ]
    assert all(p.trigger.name == "VanishingGradient" for p in planned)


@pytest.mark.parametrize("config_stop", ["stoptraining", {"name": "StopTraining", "training_job_prefix": JOB}])
def test_the_same_action_from_action_json_and_configuration_runs_once(config_stop):
    # Given action_json and configuration both asking to stop this job and to email the same address
    config = {"rules": {"*": [config_stop, {"name": "email", "endpoint": "ml@example.com"}]}}

    # When it is planned
    planned = run(config, SDK_ACTIONS)

    # Then each runs once, attributed to action_json (which comes first)
    assert rows(planned) == [("stoptraining", JOB, "action_json", None), ("email", "ml@example.com", "action_json", None)]


def test_a_plain_json_stop_without_prefix_and_a_configured_stop_are_the_same():
    # Given a stop with no prefix in action_json and a bare stoptraining in the configuration
    planned = run({"rules": {"*": ["stoptraining"]}}, json.dumps([{"name": "stoptraining"}]))

    # When it is planned
    # Then one stop of this job
    assert rows(planned) == [("stoptraining", JOB, "action_json", None)]


def test_stops_come_first_within_a_rule_and_action_json_before_configuration():
    # Given action_json listing an email before its stop, and a configuration listing notify before an sms
    action_json = json.dumps([{"name": "email", "endpoint": "ml@example.com"}, {"name": "stoptraining"}])
    config = {**TEAM_CONFIG, "rules": {"*": ["notify", {"name": "sms", "endpoint": "+15555550100"}, "stoptraining"]}}

    # When it is planned
    planned = run(config, action_json)

    # Then the stop is first; the others keep action_json-then-configuration order
    assert [(p.kind, p.origin) for p in planned] == [
        ("stoptraining", "action_json"),
        ("email", "action_json"),
        ("notify", "config"),
        ("sms", "config"),
    ]


def test_each_rule_is_planned_in_turn_with_its_own_stops_first():
    # Given two IssuesFound rules, the second with a stop
    raw = event(
        debug=[rule_status("Overfit"), rule_status("VanishingGradient")],
        debug_configs=[
            rule_config("Overfit", json.dumps([{"name": "email", "endpoint": "a@example.com"}])),
            rule_config("VanishingGradient", json.dumps([{"name": "email", "endpoint": "b@example.com"}, {"name": "stoptraining"}])),
        ],
    )

    # When it is planned
    planned = plan_all(raw, NO_RULES)

    # Then the rules are planned in event order, and a stop goes first only within its own rule
    assert [(p.trigger.name, p.kind, p.target) for p in planned] == [
        ("Overfit", "email", "a@example.com"),
        ("VanishingGradient", "stoptraining", JOB),
        ("VanishingGradient", "email", "b@example.com"),
    ]


def test_the_same_action_for_two_rules_is_planned_for_each():
    # Given two IssuesFound rules with the same configuration entry
    raw = event(debug=[rule_status("Overfit"), rule_status("VanishingGradient")], debug_configs=[rule_config("Overfit"), rule_config("VanishingGradient")])

    # When it is planned
    planned = plan_all(raw, TEAM_CONFIG)

    # Then each rule gets its own notify (the message names the rule)
    assert [(p.trigger.name, p.kind) for p in planned] == [("Overfit", "notify"), ("VanishingGradient", "notify")]


def test_profiler_rules_are_planned_too():
    # Given a Profiler rule that found issues
    raw = event(profiler=[rule_status("CPUBottleneck")], profiler_configs=[rule_config("CPUBottleneck")])

    # When it is planned
    planned = plan_all(raw, TEAM_CONFIG)

    # Then the configuration's notify applies
    assert [(p.trigger.rule_family, p.trigger.name, p.kind, p.outcome) for p in planned] == [("Profiler", "CPUBottleneck", "notify", None)]


def test_action_json_is_ignored_when_honor_action_json_is_false():
    # Given honor_action_json false
    config = {**TEAM_CONFIG, "honor_action_json": False}

    # When a rule with action_json is planned
    planned = run(config, SDK_ACTIONS)

    # Then only the configuration's entry is planned
    assert rows(planned) == [("notify", "team", "config", None)]


@pytest.mark.parametrize("config_rules", [{"*": ["notify"]}, {"*": ["stoptraining", "notify"]}])
def test_rule_error_notifies_the_team_and_nothing_else(config_rules):
    # Given a rule in Error, with action_json and a configuration that would stop
    config = {**TEAM_CONFIG, "rules": config_rules}

    # When it is planned
    planned = run(config, SDK_ACTIONS, rule_state="Error")

    # Then the team is notified, and nothing is stopped or emailed
    assert rows(planned) == [("notify", "team", "config", None)]


def test_rule_error_does_nothing_when_notify_on_rule_error_is_false():
    # Given notify_on_rule_error false
    config = {**TEAM_CONFIG, "notify_on_rule_error": False}

    # When a rule in Error is planned
    # Then nothing
    assert run(config, SDK_ACTIONS, rule_state="Error") == []


@pytest.mark.parametrize("state", ["NoIssuesFound", "InProgress", "Stopping", "Stopped", "issuesfound", "ISSUESFOUND", "", "Unknown"])
def test_other_rule_statuses_do_nothing(state):
    # Given a rule in any other status, with actions everywhere
    config = {**TEAM_CONFIG, "rules": {"*": ["stoptraining", "notify"]}}

    # When it is planned
    # Then nothing is planned
    assert run(config, SDK_ACTIONS, rule_state=state) == []


def test_triggered_lists_issues_found_and_errors():
    # Given rules in every status
    statuses = ["IssuesFound", "Error", "NoIssuesFound", "InProgress", "Stopped"]
    parsed = parse_event(event(debug=[rule_status(f"R{i}", s) for i, s in enumerate(statuses)]))

    # When the triggered rules are asked for
    # Then IssuesFound always, Error only with notify_on_rule_error
    assert [r.status for r in find(parsed, Config.from_dict({}))] == ["IssuesFound", "Error"]
    assert [r.status for r in find(parsed, Config.from_dict({"notify_on_rule_error": False}))] == ["IssuesFound"]


# --- stop training -------------------------------------------------------------------------------------------


def test_a_configured_stop_defaults_to_the_events_job():
    # Given a configuration with a bare stoptraining
    # When it is planned
    planned = run({"rules": {"*": ["stoptraining"]}})

    # Then it stops this event's job
    assert rows(planned) == [("stoptraining", JOB, "config", None)]


@pytest.mark.parametrize(
    ("prefix", "allow_cross", "outcome"),
    [
        (JOB, False, None),
        ("demo-job", False, None),  # covers demo-job-001
        ("d", False, None),
        ("other-team-job", False, "denied"),
        ("demo-job-0012", False, "denied"),  # longer than the job name
        ("emo-job-001", False, "denied"),  # a substring, not a prefix
        ("other-team-job", True, None),
        ("demo-job-0012", True, None),
    ],
)
def test_a_prefix_not_covering_the_events_job_is_denied_unless_allowed(prefix, allow_cross, outcome):
    # Given action_json stopping by a prefix
    action_json = sdk_actions(JOB, StopTraining(prefix))

    # When it is planned, with or without allow_cross_job_stop (each prefix lists one InProgress job)
    planned = run({"rules": {}, "allow_cross_job_stop": allow_cross}, action_json,
                  running=(JOB, "other-team-job-1", "demo-job-00123") if allow_cross else (JOB,))

    # Then it is denied when the prefix could stop other jobs, unless allowed
    assert rows(planned) == [("stoptraining", prefix, "action_json", outcome)]
    if outcome:
        assert planned[0].reason


def test_configured_cross_job_prefix_is_denied_too():
    # Given a configured stop with a prefix that does not cover this job
    planned = run({"rules": {"*": [{"name": "stoptraining", "training_job_prefix": "team-b-"}]}})

    # When it is planned
    # Then it is denied
    assert rows(planned) == [("stoptraining", "team-b-", "config", "denied")]


@pytest.mark.parametrize("job", ["MyJob-2026-11-22", "BERT-Large-A100", "x-Y-z"])
def test_mixed_case_job_names_are_stopped_by_their_own_prefix(job):
    # Given the SDK's action_json for a job whose name has capitals (the SDK fills in the job name)
    action_json = sdk_actions(job, StopTraining(), Email("ml@example.com"))

    # When it is planned
    planned = run(NO_RULES, action_json, job=job)

    # Then the stop targets the job by its own name, and is not denied
    assert rows(planned) == [("stoptraining", job, "action_json", None), ("email", "ml@example.com", "action_json", None)]


def test_a_prefix_in_another_case_than_the_job_does_not_cover_it():
    # Given a job with capitals and a lower-cased prefix (as the rule container would use)
    planned = run(NO_RULES, sdk_actions("x", StopTraining("myjob")), job="MyJob-2026-11-22")

    # When it is planned
    # Then the prefix is not taken to cover the job
    assert rows(planned) == [("stoptraining", "myjob", "action_json", "denied")]


@pytest.mark.parametrize("status", ["Completed", "Stopping", "Stopped", "Failed"])
def test_stop_is_skipped_when_the_job_is_not_in_progress(status):
    # Given the job already left InProgress (rule jobs can finish after the training job)
    config = {**TEAM_CONFIG, "rules": {"*": ["notify"]}}

    # When a rule with stop and email is planned
    planned = run(config, SDK_ACTIONS, status=status, secondary=status)

    # Then the stop is skipped with the job's status named, the messages still go out
    assert rows(planned) == [
        ("stoptraining", JOB, "action_json", "skipped"),
        ("email", "ml@example.com", "action_json", None),
        ("notify", "team", "config", None),
    ]
    assert status in planned[0].reason


@pytest.mark.parametrize(("secondary", "outcome"), [("Uploading", "skipped"), ("Training", None),
                                                   ("Downloading", None), ("Interrupted", None)])
def test_a_debugger_stop_never_stops_a_job_uploading_its_model(secondary, outcome):
    # Given a Debugger rule whose action_json stops the job, and the job's event showing its phase
    planned = run(TEAM_CONFIG, SDK_ACTIONS, status="InProgress", secondary=secondary)
    # Then a job uploading its artifacts is not stopped (its training is over: a stop could lose the model); in any
    # other phase the rule's request stands
    assert rows(planned)[0] == ("stoptraining", JOB, "action_json", outcome)
    if outcome:
        assert planned[0].reason == ("the training job is uploading artifacts (SecondaryStatus Uploading): its "
                                     "training is over and a stop now could lose the model; not stopped")
    assert [row[3] for row in rows(planned)[1:]] == [None, None]  # the messages still go out


# --- watch mode ----------------------------------------------------------------------------------------------

WATCHED_STOP = ["stoptraining", "notify"]


def test_a_stop_of_a_monitor_rule_in_watch_mode_is_watched_and_its_messages_go_out():
    # Given a monitor rule in watch mode whose configured actions stop the job and notify the team
    config = {**TEAM_CONFIG, "rules": {"StalledTraining": WATCHED_STOP}}
    # When it is planned
    planned = plan_all(monitor_event("watch"), config, team_subscribed=True)
    # Then the stop is decided as watched, saying what it would have stopped; the team is still told
    assert rows(planned) == [("stoptraining", JOB, "config", "watched"), ("notify", "team", "config", None)]
    assert planned[0].reason == f"watch mode: would stop {JOB}; nothing was changed"
    # And in act mode, or with no mode carried, the same rule's stop is to be carried out
    for mode in ("act", None):
        assert rows(plan_all(monitor_event(mode), config, team_subscribed=True)) == [
            ("stoptraining", JOB, "config", None), ("notify", "team", "config", None)]


@pytest.mark.parametrize("family", ["Debug", "Profiler"])
def test_a_debugger_rules_parameters_are_not_read_as_a_mode(family):
    # Given a Debugger rule whose RuleParameters happen to say mode=watch (the user's, not ours to interpret)
    config = {**TEAM_CONFIG, "rules": {"StalledTraining": WATCHED_STOP}}
    # When it is planned / Then its stop is carried out as any Debugger rule's
    assert [p.outcome for p in plan_all(monitor_event("watch", family), config, team_subscribed=True)] == [None, None]


def test_a_watched_stop_keeps_the_refusals_decided_before_it():
    config = {**TEAM_CONFIG, "rules": {"StalledTraining": WATCHED_STOP}}
    # Given a watched rule on a job that is no longer InProgress: the stop is skipped for that reason
    [stop, _] = plan_all(monitor_event("watch", status="Completed", secondary="Completed"), config,
                         team_subscribed=True)
    assert (stop.outcome, stop.reason) == ("skipped", "training job is Completed; only InProgress jobs are stopped")
    # and a prefix of the job's own that matches several jobs is skipped too, not watched
    config = {**TEAM_CONFIG, "rules": {"StalledTraining": [{"name": "stoptraining", "training_job_prefix": "demo-"},
                                                           "notify"]}}
    [stop, _] = plan_all(monitor_event("watch"), config, running=(JOB, "demo-job-002"), team_subscribed=True)
    assert stop.outcome == "skipped" and "stop_all_matching is false" in stop.reason
    # while a policy refusal stays denied
    config = {**TEAM_CONFIG, "rules": {"StalledTraining": [{"name": "stoptraining", "training_job_prefix": "other-"}]}}
    assert [p.outcome for p in plan_all(monitor_event("watch"), config)] == ["denied"]


def test_watch_mode_is_decided_before_dry_run():
    config = {**TEAM_CONFIG, "dry_run": True, "rules": {"StalledTraining": WATCHED_STOP}}
    planned = plan_all(monitor_event("watch"), config, team_subscribed=True)
    assert [(p.kind, p.outcome) for p in planned] == [("stoptraining", "watched"), ("notify", "dry_run")]


# --- replays, dry run, allow-list, team ----------------------------------------------------------------------


def test_replayed_events_are_skipped_unless_act_on_replays():
    # Given an event replayed from an archive
    replay = {"replay-name": "archive-replay-7"}

    # When it is planned
    planned = run(TEAM_CONFIG, SDK_ACTIONS, **replay)

    # Then every action is skipped, naming the replay
    assert [(p.kind, p.outcome) for p in planned] == [("stoptraining", "skipped"), ("email", "skipped"), ("notify", "skipped")]
    assert all("archive-replay-7" in p.reason for p in planned)

    # And with act_on_replays, they run
    planned = run({**TEAM_CONFIG, "act_on_replays": True}, SDK_ACTIONS, **replay)
    assert [(p.kind, p.outcome) for p in planned] == [("stoptraining", None), ("email", None), ("notify", None)]


def test_dry_run_marks_every_runnable_action():
    # Given dry_run
    config = {**TEAM_CONFIG, "dry_run": True, "rules": {"*": ["notify", {"name": "sms", "endpoint": "+15555550100"}]}}

    # When a rule is planned
    planned = run(config, SDK_ACTIONS)

    # Then every action is dry_run: nothing is carried out
    assert [(p.kind, p.outcome) for p in planned] == [("stoptraining", "dry_run"), ("email", "dry_run"), ("notify", "dry_run"), ("sms", "dry_run")]


def test_dry_run_does_not_hide_denials():
    # Given dry_run and an endpoint outside the allow-list
    config = {"dry_run": True, "rules": {}, "allowed_endpoints": ["*@corp.example"]}

    # When it is planned
    # Then the email is still reported as denied
    assert [p.outcome for p in run(config, json.dumps([{"name": "email", "endpoint": "ml@example.com"}]))] == ["denied"]


@pytest.mark.parametrize(
    ("kind", "endpoint", "allowed", "outcome"),
    [
        ("email", "ml@example.com", ["*@example.com"], None),
        ("email", "ML@Example.com", ["*@example.com"], None),
        ("email", "attacker@evil.example", ["*@example.com"], "denied"),
        ("email", "ml@example.com.evil", ["*@example.com"], "denied"),
        ("sms", "+15555550100", ["+1555*"], None),
        ("sms", "+4415555550100", ["+1555*"], "denied"),
        ("sms", "+15555550100", ["*@example.com"], "denied"),
        ("email", "anyone@anywhere.org", [], None),
    ],
)
def test_action_json_endpoints_outside_allowed_endpoints_are_denied(kind, endpoint, allowed, outcome):
    # Given action_json messaging an endpoint, and an allow-list
    action_json = json.dumps([{"name": kind, "endpoint": endpoint}])

    # When it is planned
    planned = run({"rules": {}, "allowed_endpoints": allowed}, action_json)

    # Then it is denied unless it matches
    assert rows(planned) == [(kind, endpoint, "action_json", outcome)]
    if outcome:
        assert endpoint in planned[0].reason


@pytest.mark.parametrize(("subscribed", "outcome"), [(False, "skipped"), (True, None), (None, None)])
def test_notify_needs_a_team_subscriber_whoever_added_it(subscribed, outcome):
    # Given the default rules (notify), and a team audience read as having a subscriber, none, or unknown
    raw = event(debug=[rule_status("VanishingGradient")], debug_configs=[rule_config("VanishingGradient")])

    # When a rule is planned: notify asks for the audience to be read
    assert TeamAudience() in first_needs(raw, {})
    planned = plan_all(raw, {}, team_subscribed=subscribed)

    # Then notify is skipped only when the audience is known to have none (unknown: it goes out)
    assert rows(planned) == [("notify", "team", "config", outcome)]
    if outcome:
        assert "no confirmed subscriber" in planned[0].reason and '{"to": ["team"]}' in planned[0].reason


# --- invalid action_json -------------------------------------------------------------------------------------


def test_invalid_action_json_entries_are_reported_and_the_rest_still_runs():
    # Given action_json with a bad endpoint among good actions
    action_json = json.dumps([{"name": "stoptraining"}, {"name": "email", "endpoint": "not-an-address"}, {"name": "sms", "endpoint": "+15555550100"}])

    # When it is planned (texts to any number allowed)
    planned = run({**NO_RULES, "allow_any_sms": True}, action_json)

    # Then the bad entry is invalid, naming its field; the others run (the stop first)
    assert planned[0].kind == "stoptraining"
    assert sorted((p.kind, p.outcome or "") for p in planned) == [("email", "invalid"), ("sms", ""), ("stoptraining", "")]
    (bad,) = [p for p in planned if p.outcome == "invalid"]
    assert "action_json[1].endpoint" in bad.reason


@pytest.mark.parametrize("action_json", ["{not json", "", "42", '"stoptraining"', "x" * 100_000])
def test_unparseable_action_json_is_one_invalid_and_configuration_still_applies(action_json):
    # Given action_json that cannot be read at all
    # When it is planned
    planned = run(TEAM_CONFIG, action_json)

    # Then one invalid entry for the rule's action_json, and the configuration's notify still runs
    assert [(p.kind, p.origin, p.outcome) for p in planned] == [("action_json", "action_json", "invalid"), ("notify", "config", None)]
    assert "action_json" in planned[0].reason


def test_notify_in_action_json_is_invalid():
    # Given action_json asking for notify (configuration only)
    # When it is planned
    planned = run(NO_RULES, json.dumps([{"name": "notify"}]))

    # Then it is invalid, not a team notification
    assert [p.outcome for p in planned] == ["invalid"]


# --- DescribeTrainingJob -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statuses", "configs", "config", "expected"),
    [
        ([("VanishingGradient", "IssuesFound")], None, {}, True),
        ([("VanishingGradient", "IssuesFound")], ["VanishingGradient"], {}, False),
        ([("VanishingGradient", "IssuesFound")], None, {"honor_action_json": False}, False),
        ([("VanishingGradient", "Error")], None, {}, False),
        ([("VanishingGradient", "NoIssuesFound")], None, {}, False),
        ([("VanishingGradient", "InProgress")], None, {}, False),
        ([], None, {}, False),
        ([("Overfit", "IssuesFound"), ("VanishingGradient", "IssuesFound")], ["Overfit"], {}, True),
        ([("Overfit", "NoIssuesFound"), ("VanishingGradient", "IssuesFound")], ["VanishingGradient"], {}, False),
    ],
)
def test_needs_description(statuses, configs, config, expected):
    # Given an event with rule statuses, carrying some rule configurations or none
    raw = event(
        debug=[rule_status(name, state) for name, state in statuses],
        debug_configs=[rule_config(name) for name in configs] if configs is not None else None,
    )

    # When asked whether DescribeTrainingJob is needed
    # Then only for an IssuesFound rule without its configuration, when action_json is honoured
    assert needs(raw, config) is expected


def test_a_profiler_rule_needs_its_own_familys_configuration():
    # Given a Profiler rule IssuesFound, the event carrying only a Debug configuration of the same name
    raw = event(profiler=[rule_status("CPUBottleneck")], debug_configs=[rule_config("CPUBottleneck")])

    # When asked
    # Then it still needs a description
    assert needs(raw, {}) is True


def test_described_parameters_are_used_when_the_event_has_none():
    # Given an event without configurations, and the parameters read with DescribeTrainingJob
    described = {("Debug", "VanishingGradient"): {"rule_to_invoke": "VanishingGradient", "action_json": SDK_ACTIONS}}

    # When it is planned with them
    planned = run(NO_RULES, described=described, carry_config=False)

    # Then the described action_json is planned
    assert rows(planned) == [("stoptraining", JOB, "action_json", None), ("email", "ml@example.com", "action_json", None)]


def test_a_describe_failure_is_a_failed_action_json_entry_for_the_rule():
    # Given an event without configurations, and DescribeTrainingJob having failed
    failure = "AccessDeniedException: not authorized to perform sagemaker:DescribeTrainingJob"

    # When it is planned with the failure
    planned = run(TEAM_CONFIG, described=failure, carry_config=False)

    # Then there is a failed action_json entry for that rule with the reason, and the configuration still runs
    assert [(p.trigger.name, p.kind, p.outcome) for p in planned] == [("VanishingGradient", "action_json", "failed"), ("VanishingGradient", "notify", None)]
    assert failure in planned[0].reason


def test_a_describe_failure_only_affects_rules_that_needed_it():
    # Given two IssuesFound rules, only one carried by the event
    raw = event(
        debug=[rule_status("Overfit"), rule_status("VanishingGradient")],
        debug_configs=[rule_config("Overfit", json.dumps([{"name": "email", "endpoint": "a@example.com"}]))],
    )

    # When it is planned with a describe failure
    planned = plan_all(raw, NO_RULES, "ThrottlingException: Rate exceeded")

    # Then the carried rule is planned normally, the other gets the failed entry
    assert [(p.trigger.name, p.kind, p.outcome) for p in planned] == [("Overfit", "email", None), ("VanishingGradient", "action_json", "failed")]


def test_the_events_own_parameters_win_over_the_description():
    # Given an event carrying the rule's action_json, and a different description
    described = {("Debug", "VanishingGradient"): {"action_json": json.dumps([{"name": "email", "endpoint": "other@example.com"}])}}

    # When it is planned
    planned = run(NO_RULES, SDK_ACTIONS, described=described)

    # Then the event's action_json is used
    assert [p.target for p in planned] == [JOB, "ml@example.com"]


def test_a_rule_missing_from_the_description_has_no_action_json():
    # Given a description that does not mention the rule
    # When it is planned
    planned = run(TEAM_CONFIG, described={("Debug", "Other"): {"action_json": SDK_ACTIONS}}, carry_config=False)

    # Then only the configuration applies
    assert rows(planned) == [("notify", "team", "config", None)]


def test_endpoints_that_differ_only_in_case_are_one_recipient():
    # Given action_json and the configuration naming one address in two cases (as allowed_endpoints compares them)
    action_json = json.dumps([{"name": "email", "endpoint": "casey@example.com"}])
    config = {"rules": {"*": [{"name": "email", "endpoint": "casey@EXAMPLE.com"}, {"name": "email", "endpoint": "Casey@Example.com"}]}}

    # When it is planned / Then one email, as action_json wrote it
    assert rows(run(config, action_json)) == [("email", "casey@example.com", "action_json", None)]


# --------------------------------------------------------------------------- endpoints from action_json


def outcome_of(kind: str, endpoint: str, config: dict[str, Any]) -> tuple[str | None, str]:
    [item] = run({"rules": {}, **config}, json.dumps([{"name": kind, "endpoint": endpoint}]))
    return item.outcome, item.reason or ""


def test_a_text_to_a_number_only_action_json_names_is_denied_by_default():
    # Given the default configuration (no allowlist) and a number that only the training job's action_json names
    outcome, reason = outcome_of("sms", "+15555550100", {})
    # Then it is denied, naming the key that would allow it
    assert outcome == "denied"
    assert "not a number the configuration names" in reason and "allow_any_sms is false" in reason


@pytest.mark.parametrize("config", [
    {"allow_any_sms": True},  # the one-line opt-out
    {"notify": {"sms": ["+15555550100"]}},  # a number the deployer wrote (as a team member)
    {"job_outcomes": {"Failed": [{"name": "sms", "endpoint": "+15555550100"}]}},  # ... or for an outcome
    {"allowed_endpoints": ["+1555555*"]},  # an allowlist that matches it
])
def test_a_text_goes_to_a_number_the_configuration_names_or_allows(config):
    assert outcome_of("sms", "+15555550100", config) == (None, "")


def test_an_allowlist_applies_to_texts_whatever_allow_any_sms_says():
    outcome, reason = outcome_of("sms", "+15555550100", {"allowed_endpoints": ["*@example.com"], "allow_any_sms": True})
    assert (outcome, reason) == ("denied", "+15555550100 is not in allowed_endpoints")


def test_email_to_any_address_is_allowed_without_an_allowlist():
    # An address confirms its subscription before it receives anything: no allowlist needed by default
    assert outcome_of("email", "someone@example.org", {}) == (None, "")
    assert outcome_of("email", "someone@example.org", {"allowed_endpoints": ["*@example.com"]})[0] == "denied"
