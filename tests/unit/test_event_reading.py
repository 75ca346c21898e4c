"""Reading an event: the job family parses the job, the trigger families observe the rule statuses and the job
outcome (pipeline.read_event), and what cannot be read is a named problem (or IgnoredEvent naming the field)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest
from builders import ACCOUNT, REGION, SDK_ACTIONS, event, job_arn, rule_config, rule_status
from planning import parse_event

from rule_actions.records import IgnoredEvent
from rule_actions.text import timestamp as parse_timestamp
from rule_actions.triggers.rule_status import NOT_GIVEN

EPOCH_MS = 1763800000000
AT_EPOCH = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=EPOCH_MS)


def ignored(raw) -> str:
    with pytest.raises(IgnoredEvent) as caught:
        parse_event(raw)
    return str(caught.value)


# --- what is ignored, and why --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "mentions"),
    [
        (None, "NoneType"),
        ([], "list"),
        ("event", "str"),
        (42, "int"),
        (event(source="aws.ec2"), "aws.ec2"),
        (event(source=None), "source"),
        (event(**{"detail-type": "SageMaker Endpoint State Change"}), "SageMaker Endpoint State Change"),
        (event(**{"detail-type": "sagemaker training job state change"}), "sagemaker training job state change"),
        ({k: v for k, v in event().items() if k != "detail-type"}, "detail-type"),
        (event(detail=None), "detail"),
        (event(detail="{}"), "detail"),
        (event(detail=[]), "detail"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_events_we_cannot_use_are_ignored_with_a_reason(raw, mentions):
    # Given an event that is not a training-job state change we can act on
    # When it is parsed
    reason = ignored(raw)

    # Then it is ignored with a reason pointing at the problem
    assert mentions in reason


@pytest.mark.parametrize("field", ["TrainingJobName", "TrainingJobArn", "TrainingJobStatus"])
@pytest.mark.parametrize("value", ["<missing>", None, "", 42, ["demo-job-001"]], ids=["missing", "null", "empty", "number", "list"])
def test_events_without_the_job_fields_are_ignored_naming_the_field(field, value):
    # Given an event whose detail lacks a usable job name, ARN or status
    raw = event()
    if value == "<missing>":
        del raw["detail"][field]
    else:
        raw["detail"][field] = value

    # When it is parsed
    reason = ignored(raw)

    # Then the reason names the field
    assert field in reason


@pytest.mark.parametrize("name", ['[{"name": "email", "endpoint": "a@example.com"}]', "-lead", "trail-", "a_b",
                                  "a" * 64, "a b", "exp\n1"])
def test_a_job_name_sagemaker_never_gives_is_ignored_naming_the_field(name):
    # Given an event whose job name no SageMaker job can have (found by the fuzz tests: it reached StopTrainingJob)
    raw = event()
    raw["detail"]["TrainingJobName"] = name
    # When it is parsed / Then it is ignored, naming the field, and the job it names is not taken as a job
    with pytest.raises(IgnoredEvent) as caught:
        parse_event(raw)
    assert "detail.TrainingJobName" in str(caught.value) and "not a SageMaker job name" in str(caught.value)
    assert caught.value.job is None


# --- what is read --------------------------------------------------------------------------------------------


def test_a_training_job_event_is_read():
    # Given a realistic event with a Debug rule that found issues
    raw = event(job="demo-job-001", status="InProgress", secondary="Training", debug=[rule_status("VanishingGradient")], event_id="evt-1")

    # When it is parsed
    parsed = parse_event(raw)

    # Then the envelope and the job are read
    assert (parsed.event_id, parsed.account, parsed.region) == ("evt-1", ACCOUNT, REGION)
    assert (parsed.job_name, parsed.job_arn, parsed.job_status, parsed.secondary_status) == (
        "demo-job-001",
        job_arn("demo-job-001"),
        "InProgress",
        "Training",
    )
    assert parsed.replay_name is None
    assert parsed.problems == ()
    # and the rule status, with its details, evaluation job and time
    (rule,) = parsed.rules
    source = raw["detail"]["DebugRuleEvaluationStatuses"][0]
    assert (rule.rule_family, rule.name, rule.status) == ("Debug", "VanishingGradient", "IssuesFound")
    assert rule.details == source["StatusDetails"]
    assert rule.evaluation_job_arn == source["RuleEvaluationJobArn"]
    assert rule.last_modified == AT_EPOCH


def test_debug_and_profiler_statuses_are_both_read_with_their_family():
    # Given an event with Debug and Profiler rule statuses
    raw = event(
        debug=[rule_status("VanishingGradient"), rule_status("LossNotDecreasing", "NoIssuesFound")],
        profiler=[rule_status("ProfilerReport", "InProgress"), rule_status("CPUBottleneck", "IssuesFound")],
    )

    # When it is parsed
    parsed = parse_event(raw)

    # Then every rule is there, tagged with its family and status
    assert [(r.rule_family, r.name, r.status) for r in parsed.rules] == [
        ("Debug", "VanishingGradient", "IssuesFound"),
        ("Debug", "LossNotDecreasing", "NoIssuesFound"),
        ("Profiler", "ProfilerReport", "InProgress"),
        ("Profiler", "CPUBottleneck", "IssuesFound"),
    ]


def test_an_event_without_rule_statuses_has_no_rules():
    # Given a plain state change (no rule statuses)
    # When it is parsed
    parsed = parse_event(event(status="Completed", secondary="Completed"))

    # Then there are no rules and no problems
    assert parsed.rules == ()
    assert parsed.problems == ()


def test_replay_name_is_picked_up():
    # Given an event replayed from an EventBridge archive
    raw = event(debug=[rule_status("VanishingGradient")], **{"replay-name": "rule-actions-archive-replay-1"})

    # When it is parsed
    # Then the replay is known
    assert parse_event(raw).replay_name == "rule-actions-archive-replay-1"


def test_rule_configurations_are_read_per_family():
    # Given an event carrying the rule configurations, one with the SDK's action_json
    raw = event(
        debug=[rule_status("VanishingGradient"), rule_status("Overfit")],
        profiler=[rule_status("VanishingGradient")],
        debug_configs=[rule_config("VanishingGradient", SDK_ACTIONS), rule_config("Overfit")],
        profiler_configs=[rule_config("ProfilerReport")],
    )

    # When it is parsed
    parsed = parse_event(raw)
    debug_vg, debug_overfit, profiler_vg = parsed.rules

    # Then each rule's RuleParameters come from its own family's configurations
    assert parsed.parameters(debug_vg)["action_json"] == SDK_ACTIONS
    assert "action_json" not in parsed.parameters(debug_overfit)
    assert parsed.parameters(debug_overfit)["rule_to_invoke"] == "Overfit"
    # and a rule whose configuration the event does not carry is NOT_GIVEN (a Debug config is no Profiler config)
    assert parsed.parameters(profiler_vg) is NOT_GIVEN


def test_rule_parameters_are_not_given_when_the_event_has_no_configurations():
    # Given an event with a status but no configuration lists (as AWS's sample)
    parsed = parse_event(event(debug=[rule_status("VanishingGradient")]))

    # When the rule's parameters are asked for
    # Then they are NOT_GIVEN (to be described)
    assert parsed.parameters(parsed.rules[0]) is NOT_GIVEN


@pytest.mark.parametrize(
    ("statuses", "good", "bad_fields"),
    [
        (
            [rule_status("VanishingGradient"), {"RuleEvaluationStatus": "IssuesFound"}],
            ["VanishingGradient"],
            ["DebugRuleEvaluationStatuses[1]"],
        ),
        (
            [{"RuleConfigurationName": "Overfit"}, rule_status("VanishingGradient")],
            ["VanishingGradient"],
            ["DebugRuleEvaluationStatuses[0]"],
        ),
        (["IssuesFound", None, 42, rule_status("Overfit")], ["Overfit"], [f"DebugRuleEvaluationStatuses[{i}]" for i in range(3)]),
        ([{"RuleConfigurationName": "", "RuleEvaluationStatus": "IssuesFound"}], [], ["DebugRuleEvaluationStatuses[0]"]),
        ([{"RuleConfigurationName": 7, "RuleEvaluationStatus": "IssuesFound"}], [], ["DebugRuleEvaluationStatuses[0]"]),
        ([{"RuleConfigurationName": "Overfit", "RuleEvaluationStatus": None}], [], ["DebugRuleEvaluationStatuses[0]"]),
        ({"RuleConfigurationName": "Overfit", "RuleEvaluationStatus": "IssuesFound"}, [], ["DebugRuleEvaluationStatuses"]),
        ("IssuesFound", [], ["DebugRuleEvaluationStatuses"]),
    ],
    ids=["no name", "no status", "not objects", "empty name", "numeric name", "null status", "object not list", "string"],
)
def test_malformed_status_entries_are_reported_not_dropped_silently(statuses, good, bad_fields):
    # Given rule statuses with malformed entries next to good ones
    raw = event()
    raw["detail"]["DebugRuleEvaluationStatuses"] = statuses

    # When it is parsed
    parsed = parse_event(raw)

    # Then the good ones are read and each bad one is reported with its path
    assert [r.name for r in parsed.rules] == good
    assert len(parsed.problems) == len(bad_fields)
    for problem, field in zip(parsed.problems, bad_fields, strict=False):
        assert field in problem


def test_malformed_profiler_entries_are_reported_under_their_family():
    # Given a malformed Profiler status entry
    raw = event(profiler=[{"RuleConfigurationName": "ProfilerReport"}])

    # When it is parsed
    parsed = parse_event(raw)

    # Then the problem names the Profiler list
    assert parsed.rules == ()
    assert len(parsed.problems) == 1
    assert "ProfilerRuleEvaluationStatuses[0]" in parsed.problems[0]


def test_optional_fields_of_the_wrong_type_do_not_break_the_event():
    # Given a status whose optional fields have wrong types, and a non-string SecondaryStatus
    raw = event(debug=[rule_status("Overfit", StatusDetails=None, RuleEvaluationJobArn=42, LastModifiedTime={"t": 1})])
    raw["detail"]["SecondaryStatus"] = None

    # When it is parsed
    parsed = parse_event(raw)

    # Then the rule is still read, the bad optional values left empty
    (rule,) = parsed.rules
    assert (rule.name, rule.status) == ("Overfit", "IssuesFound")
    assert rule.details == ""
    assert rule.evaluation_job_arn == ""
    assert rule.last_modified is None
    assert parsed.secondary_status is None and parsed.problems == ()  # null is absent, not a problem

    # And a SecondaryStatus of another type is absent too, and named as a problem
    raw["detail"]["SecondaryStatus"] = ["Training"]
    assert parse_event(raw).secondary_status is None
    assert parse_event(raw).problems == ('detail.SecondaryStatus: not a str (["Training"])',)


def test_unknown_fields_are_tolerated():
    # Given an event with fields we do not know, everywhere
    raw = event(debug=[rule_status("VanishingGradient", FutureField={"x": [1, 2]})], debug_configs=[rule_config("VanishingGradient", SDK_ACTIONS)])
    raw["brand-new-envelope-field"] = True
    raw["detail"]["Tags"] = {"team": "ml"}
    raw["detail"]["FailureReason"] = None
    raw["detail"]["SomethingNew"] = [{"a": 1}]
    raw["detail"]["DebugRuleConfigurations"][0]["NewKnob"] = 3
    before = copy.deepcopy(raw)

    # When it is parsed
    parsed = parse_event(raw)

    # Then it is read as usual, without problems, and the input is left untouched
    assert [r.name for r in parsed.rules] == ["VanishingGradient"]
    assert parsed.problems == ()
    assert parsed.parameters(parsed.rules[0])["action_json"] == SDK_ACTIONS
    assert raw == before


def test_mixed_case_job_names_are_kept():
    # Given a job whose name has capitals (its ARN is lower-cased by SageMaker)
    raw = event(job="MyJob-2026-11-22", debug=[rule_status("Overfit", job="MyJob-2026-11-22")])

    # When it is parsed
    parsed = parse_event(raw)

    # Then the name keeps its case
    assert parsed.job_name == "MyJob-2026-11-22"
    assert parsed.job_arn.endswith("/myjob-2026-11-22")


# --- timestamps ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (str(EPOCH_MS), AT_EPOCH),
        (EPOCH_MS, AT_EPOCH),
        (float(EPOCH_MS), AT_EPOCH),
        ("1763800000123", AT_EPOCH + timedelta(milliseconds=123)),
        ("0", datetime(1970, 1, 1, tzinfo=UTC)),
        ("2025-11-22T08:26:40Z", AT_EPOCH),
        ("2025-11-22T08:26:40+00:00", AT_EPOCH),
        ("2025-11-22T10:26:40+02:00", AT_EPOCH),
        ("2025-11-22T08:26:40.500Z", AT_EPOCH + timedelta(milliseconds=500)),
        ("2025-11-22T08:26:40", AT_EPOCH),  # no offset: UTC
    ],
)
def test_timestamps_are_read_as_utc_instants(value, expected):
    # Given an epoch-millisecond or ISO 8601 timestamp
    # When it is read
    parsed = parse_timestamp(value)

    # Then it is that instant, and timezone-aware
    assert parsed == expected
    assert parsed.tzinfo is not None


@pytest.mark.parametrize("value", [None, "", "yesterday", "2025-13-45T99:00:00Z", True, False, [], {}, "nan", "inf", "1e400", "9" * 5000])
def test_unreadable_timestamps_are_none(value):
    # Given something that is not a timestamp
    # When it is read
    # Then it is None, never an exception
    assert parse_timestamp(value) is None


@pytest.mark.parametrize("value", [str(EPOCH_MS), "2025-11-22T08:26:40Z"])
def test_rule_time_is_read_in_either_form(value):
    # Given a rule status whose LastModifiedTime is epoch-ms or ISO
    parsed = parse_event(event(debug=[rule_status("Overfit", LastModifiedTime=value)]))

    # When it is read
    # Then it is the same instant
    assert parsed.rules[0].last_modified == AT_EPOCH


# --- what a job outcome needs ------------------------------------------------------------------------------


def test_the_outcome_fields_are_read():
    # Given a failed job's detail with its reason, timings and transitions
    raw = event(status="Failed", secondary="Failed")
    raw["detail"].update(
        FailureReason="AlgorithmError: boom",
        TrainingStartTime="1763800000000", TrainingEndTime="1763803600000",
        TrainingTimeInSeconds=3600, BillableTimeInSeconds=1200,
        SecondaryStatusTransitions=[{"Status": "Training", "StartTime": "1763800000000", "StatusMessage": "Training"},
                                    {"Status": "Failed", "StartTime": "1763803600000"}],
    )

    # When it is parsed
    parsed = parse_event(raw)

    # Then each is typed, and the event is the Failed outcome
    assert parsed.failure_reason == "AlgorithmError: boom"
    assert parsed.started == AT_EPOCH and (parsed.ended - parsed.started).total_seconds() == 3600
    assert (parsed.run_seconds, parsed.billable_seconds) == (3600, 1200)
    assert [(t.status, t.message) for t in parsed.transitions] == [("Training", "Training"), ("Failed", "")]
    assert parsed.outcome.label == "job:Failed" and parsed.outcome.rule is None
    assert parsed.outcome.ledger_fields == {"outcome": "Failed"} and parsed.problems == ()


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("SecondaryStatusTransitions", {"Status": "Failed"}, "detail.SecondaryStatusTransitions: not a list"),
    ("SecondaryStatusTransitions", [{"Status": 5}], "detail.SecondaryStatusTransitions[0]: no Status string"),
    ("TrainingTimeInSeconds", "3600", "detail.TrainingTimeInSeconds: not a whole number of seconds"),
    ("BillableTimeInSeconds", -1, "detail.BillableTimeInSeconds: not a whole number of seconds"),
    ("FailureReason", ["x"], "detail.FailureReason: not a str"),
    ("DebugRuleConfigurations", [None, "x", 5], "detail.DebugRuleConfigurations[0]: no RuleConfigurationName"),
    ("ProfilerRuleConfigurations", {"a": 1}, "detail.ProfilerRuleConfigurations: not a list"),
])
def test_unreadable_outcome_fields_are_problems_not_crashes(field, value, problem):
    # Given a field of the wrong shape
    raw = event(status="Failed", secondary="Failed")
    raw["detail"][field] = value

    # When it is parsed / Then the event is still read, the field named as a problem
    parsed = parse_event(raw)
    assert parsed.outcome.outcome == "Failed"
    assert parsed.problems and parsed.problems[0].startswith(problem), parsed.problems


def test_an_ignored_event_still_names_its_job():
    raw = event(job="named-job")
    del raw["detail"]["TrainingJobStatus"]
    with pytest.raises(IgnoredEvent) as caught:
        parse_event(raw)
    assert caught.value.job == "named-job" and "TrainingJobStatus" in str(caught.value)


def test_another_jobs_arn_is_built_like_sagemakers():
    parsed = parse_event(event(job="demo-job-001"))
    assert parsed.arn_of("HPO-Trial-2") == job_arn("hpo-trial-2")
