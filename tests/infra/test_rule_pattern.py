"""The rule's event pattern (infra.pattern, the one the stack synthesizes) against events, with the project's
EventBridge matcher: the function is invoked for outcomes that can lead to an action, and only for those."""

import pytest
from builders import EVENTS, event, rule_status, sample

from infra.pattern import event_pattern, trigger_statuses
from rule_actions.config import Config
from rule_actions_cli.pattern import matches, validate

DEFAULT = Config()
FAMILIES = ("DebugRuleEvaluationStatuses", "ProfilerRuleEvaluationStatuses")


def test_the_pattern_is_valid_and_exact():
    for config in (DEFAULT, Config(notify_on_rule_error=False, training_job_prefixes=("exp-", "Team-A"))):
        validate(event_pattern(config))
    assert event_pattern(Config(notify_on_rule_error=False, training_job_prefixes=("exp-", "Team-A"))) == {
        "source": ["aws.sagemaker"],
        "detail-type": ["SageMaker Training Job State Change"],
        "detail": {
            "$or": [
                {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}},
                {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}},
            ],
            "TrainingJobName": [{"prefix": "exp-"}, {"prefix": "Team-A"}],
        },
    }


@pytest.mark.parametrize(("name", "detail", "expected"), [
    ("debug IssuesFound", {"debug": [rule_status("VanishingGradient")]}, True),
    ("profiler IssuesFound", {"profiler": [rule_status("LowGPUUtilization")]}, True),
    ("IssuesFound among others", {"debug": [rule_status("Overfit", "InProgress"), rule_status("LossNotDecreasing")]}, True),
    ("rule Error", {"debug": [rule_status("LossNotDecreasing", "Error")]}, True),
    ("NoIssuesFound", {"debug": [rule_status("VanishingGradient", "NoIssuesFound")]}, False),
    ("InProgress only", {"debug": [rule_status("VanishingGradient", "InProgress")],
                         "profiler": [rule_status("ProfilerReport", "InProgress")]}, False),
    ("NoIssuesFound and InProgress", {"debug": [rule_status("A", "NoIssuesFound"), rule_status("B", "InProgress")]}, False),
    ("rule Stopped", {"debug": [rule_status("VanishingGradient", "Stopped")]}, False),
    ("no rules", {}, False),
    ("empty rule lists", {"debug": [], "profiler": []}, False),
])
def test_default_pattern(name, detail, expected):
    assert matches(event_pattern(DEFAULT), event(**detail)) is expected


def test_rule_errors_do_not_invoke_without_notify_on_rule_error():
    pattern = event_pattern(Config(notify_on_rule_error=False))
    assert not matches(pattern, event(debug=[rule_status("LossNotDecreasing", "Error")]))
    assert matches(pattern, event(debug=[rule_status("LossNotDecreasing", "IssuesFound")]))


def test_prefixes_narrow_the_jobs():
    pattern = event_pattern(Config(training_job_prefixes=("exp-", "Team-A")))
    issues = [rule_status("VanishingGradient")]
    assert matches(pattern, event(job="exp-42", debug=issues))
    assert matches(pattern, event(job="Team-A-run-1", debug=issues))
    assert not matches(pattern, event(job="team-a-run-1", debug=issues))  # EventBridge's prefix is case-sensitive
    assert not matches(pattern, event(job="other-exp-42", debug=issues))
    assert not matches(pattern, event(job="exp-42", debug=[rule_status("VanishingGradient", "NoIssuesFound")]))


def test_other_sources_and_detail_types_do_not_match():
    issues = event(debug=[rule_status("VanishingGradient")])
    assert not matches(event_pattern(DEFAULT), {**issues, "source": "aws.ec2"})
    assert not matches(event_pattern(DEFAULT), {**issues, "detail-type": "SageMaker Processing Job State Change"})


def actionable(sample_event, config=DEFAULT):
    """The oracle: a rule of either family in a status the handler can act on."""
    statuses = [s["RuleEvaluationStatus"] for family in FAMILIES for s in sample_event["detail"].get(family, [])]
    return any(status in trigger_statuses(config) for status in statuses)


SAMPLES = sorted(path.name for path in EVENTS.glob("*.json"))


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_events(name):
    events = sample(name)
    for position, sample_event in enumerate(events if isinstance(events, list) else [events]):
        assert matches(event_pattern(DEFAULT), sample_event) is actionable(sample_event), f"{name}[{position}]"


def test_samples_the_readme_says_invoke_nothing():
    assert not matches(event_pattern(DEFAULT), sample("no-issues-found.json"))
    assert not any(matches(event_pattern(DEFAULT), e) for e in sample("lifecycle-completed-no-issues.json"))
    assert matches(event_pattern(DEFAULT), sample("vanishing-gradient-sdk-actions.json"))
    assert matches(event_pattern(DEFAULT), sample("profiler-low-gpu-utilization.json"))
    assert matches(event_pattern(DEFAULT), sample("rule-error.json"))
    # the first IssuesFound of a lifecycle and every event after it invoke; the events before do not
    lifecycle = [matches(event_pattern(DEFAULT), e) for e in sample("lifecycle-stopped-after-issues.json")]
    first = lifecycle.index(True)
    assert first > 0 and all(lifecycle[first:])
