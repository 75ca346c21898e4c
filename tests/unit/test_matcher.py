"""The EventBridge event-pattern matcher used by the local replay: documented examples, our rule's shape,
every operator's edges, invalid patterns, and a differential check against moto's matcher."""

import json
import random

import pytest
from moto.events.models import EventPattern

from rule_actions_cli.matcher import InvalidPattern, matches, validate


def case(name, pattern, event, expected):
    return pytest.param(pattern, event, expected, id=name)


def check(pattern, event, expected):
    # When the pattern is matched against the event
    answer = matches(pattern, event)

    # Then the answer is the documented one
    assert answer is expected


EC2_EVENT = {
    "version": "0",
    "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
    "detail-type": "EC2 Instance State-change Notification",
    "source": "aws.ec2",
    "account": "111122223333",
    "time": "2017-12-22T18:43:48Z",
    "region": "us-west-1",
    "resources": ["arn:aws:ec2:us-west-1:123456789012:instance/i-1234567890abcdef0"],
    "detail": {"instance-id": "i-1234567890abcdef0", "state": "terminated"},
}
EC2_TERMINATED = {
    "source": ["aws.ec2"],
    "detail-type": ["EC2 Instance State-change Notification"],
    "detail": {"state": ["terminated"]},
}
MACIE_RISK = {"source": ["aws.macie"], "detail-type": ["Macie Alert"], "detail": {"risk-score": [80], "trigger": {"risk": [8]}}}
MACIE_EVENT = {
    "source": "aws.macie",
    "detail-type": "Macie Alert",
    "detail": {"notification-type": "ALERT_CREATED", "tags": ["Custom_Alert", "Insider"], "risk-score": 80,
               "trigger": {"alert-type": "basic", "risk": 8}},
}
AUTOSCALING_EVENT = {"source": "aws.autoscaling", "detail-type": "EC2 Instance Launch Successful", "resources": [],
                     "detail": {"eventVersion": "", "responseElements": None}}


# "Event pattern syntax" and "Amazon EventBridge event patterns" (EventBridge user guide):
# all pattern fields must be in the event with the same nesting; values in a list are OR-ed.
SYNTAX = [
    case("ec2-terminated", EC2_TERMINATED, EC2_EVENT, True),
    case("ec2-running", EC2_TERMINATED, {**EC2_EVENT, "detail": {"state": "running"}}, False),
    case("field-missing-from-event", EC2_TERMINATED, {k: v for k, v in EC2_EVENT.items() if k != "detail-type"}, False),
    case("same-name-other-nesting", EC2_TERMINATED, {**EC2_EVENT, "detail": {}, "state": "terminated"}, False),
    case("ec2-or-fargate", {"source": ["aws.ec2", "aws.fargate"]}, {"source": "aws.fargate"}, True),
    case("neither-ec2-nor-fargate", {"source": ["aws.ec2", "aws.fargate"]}, {"source": "aws.s3"}, False),
    case("macie-risk-80-and-8", MACIE_RISK, MACIE_EVENT, True),
    case("macie-trigger-risk-7", MACIE_RISK, {**MACIE_EVENT, "detail": {**MACIE_EVENT["detail"], "trigger": {"risk": 7}}}, False),
    case("strings-are-case-sensitive", {"source": ["AWS.EC2"]}, EC2_EVENT, False),
]

# "Matching null values and empty strings in Amazon EventBridge event patterns":
# null and "" are not interchangeable.
NULLS = [
    case("empty-string", {"detail": {"eventVersion": [""]}}, AUTOSCALING_EVENT, True),
    case("null", {"detail": {"responseElements": [None]}}, AUTOSCALING_EVENT, True),
    case("null-is-not-empty-string", {"detail": {"eventVersion": [None]}}, AUTOSCALING_EVENT, False),
    case("empty-string-is-not-null", {"detail": {"responseElements": [""]}}, AUTOSCALING_EVENT, False),
    case("null-does-not-match-absent", {"detail": {"absent": [None]}}, AUTOSCALING_EVENT, False),
]

# "Arrays in Amazon EventBridge event patterns": an event array matches when the intersection is non-empty.
RESOURCES = {"resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f",
                           "arn:aws:ec2:us-east-1:111122223333:instance/i-b188560f",
                           "arn:aws:ec2:us-east-1:444455556666:instance/i-b188560f"]}
ASG = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:eb56d16b:autoScalingGroupName/ASGTerminate"
ARRAYS = [
    case("intersection", RESOURCES, {"resources": [ASG, "arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f"]}, True),
    case("no-intersection", RESOURCES, {"resources": [ASG]}, False),
    case("empty-event-array", RESOURCES, {"resources": []}, False),
    case("nested-arrays-flatten", {"a": ["x"]}, {"a": [["w"], [["x"]]]}, True),
]

# "Comparison operators for use in event patterns in Amazon EventBridge" (its table and sections; the
# older title of the sections is "Content filtering in Amazon EventBridge event patterns").
NUMERIC_DOC = {"detail": {"c-count": [{"numeric": [">", 0, "<=", 5]}], "d-count": [{"numeric": ["<", 10]}],
                          "x-limit": [{"numeric": ["=", 3.018e2]}]}}
COMPLEX_DOC = {
    "time": [{"prefix": "2017-10-02"}],
    "detail": {"state": [{"anything-but": "initializing"}], "c-count": [{"numeric": [">", 0, "<=", 5]}],
               "d-count": [{"numeric": ["<", 10]}], "x-limit": [{"anything-but": [100, 200, 300]}]},
}
COMPLEX_EVENT = {"time": "2017-10-02T16:24:49Z", "detail": {"state": "running", "c-count": 5, "d-count": 3, "x-limit": 301.8}}
NO_C_COUNT = {"detail-type": ["EC2 Instance State-change Notification"], "detail": {"state": ["initializing", "running"]}}


def detail(**fields):
    return {"detail": fields}


OPERATOR_DOCS = [
    case("prefix", {"time": [{"prefix": "2017-10-02"}]}, {"time": "2017-10-02T18:43:48Z"}, True),
    case("prefix-other-day", {"time": [{"prefix": "2017-10-02"}]}, {"time": "2017-10-03T18:43:48Z"}, False),
    case("prefix-ignore-case", {"service": [{"prefix": {"equals-ignore-case": "EventB"}}]}, {"service": "EVENTBRIDGE"}, True),
    case("prefix-ignore-case-other", {"service": [{"prefix": {"equals-ignore-case": "EventB"}}]}, {"service": "Lambda"}, False),
    case("suffix", {"FileName": [{"suffix": ".png"}]}, {"FileName": "image.png"}, True),
    case("suffix-is-case-sensitive", {"FileName": [{"suffix": ".png"}]}, {"FileName": "image.PNG"}, False),
    case("suffix-ignore-case", {"FileName": [{"suffix": {"equals-ignore-case": ".png"}}]}, {"FileName": "image.PNG"}, True),
    case("equals-ignore-case", {"detail-type": [{"equals-ignore-case": "ec2 instance state-change notification"}]}, EC2_EVENT, True),
    case("equals-ignore-case-other", {"detail-type": [{"equals-ignore-case": "ec2 instance"}]}, EC2_EVENT, False),
    case("anything-but", detail(state=[{"anything-but": "initializing"}]), detail(state="running"), True),
    case("anything-but-excluded", detail(state=[{"anything-but": "initializing"}]), detail(state="initializing"), False),
    case("anything-but-number", detail(**{"x-limit": [{"anything-but": 123}]}), detail(**{"x-limit": 456}), True),
    case("anything-but-number-excluded", detail(**{"x-limit": [{"anything-but": 123}]}), detail(**{"x-limit": 123}), False),
    case("anything-but-list", detail(state=[{"anything-but": ["stopped", "overloaded"]}]), detail(state="running"), True),
    case("anything-but-list-excluded", detail(state=[{"anything-but": ["stopped", "overloaded"]}]), detail(state="stopped"), False),
    case("anything-but-numbers", detail(**{"x-limit": [{"anything-but": [100, 200, 300]}]}), detail(**{"x-limit": 150}), True),
    case("anything-but-numbers-excluded", detail(**{"x-limit": [{"anything-but": [100, 200, 300]}]}), detail(**{"x-limit": 200}), False),
    case("anything-but-prefix", detail(state=[{"anything-but": {"prefix": "init"}}]), detail(state="running"), True),
    case("anything-but-prefix-excluded", detail(state=[{"anything-but": {"prefix": "init"}}]), detail(state="initializing"), False),
    case("anything-but-suffix", {"FileName": [{"anything-but": {"suffix": ".png"}}]}, {"FileName": "a.txt"}, True),
    case("anything-but-suffix-excluded", {"FileName": [{"anything-but": {"suffix": ".png"}}]}, {"FileName": "a.png"}, False),
    case("anything-but-ignore-case", {"state": [{"anything-but": {"equals-ignore-case": "initializing"}}]}, {"state": "running"}, True),
    case("anything-but-ignore-case-excluded", {"state": [{"anything-but": {"equals-ignore-case": "initializing"}}]}, {"state": "INITIALIZING"}, False),
    case("anything-but-ignore-case-list", {"state": [{"anything-but": {"equals-ignore-case": ["Stopped", "OverLoaded"]}}]}, {"state": "STOPPED"}, False),
    case("anything-but-wildcard", {"FilePath": [{"anything-but": {"wildcard": "*/lib/*"}}]}, {"FilePath": "/usr/bin/exec"}, True),
    case("anything-but-wildcard-excluded", {"FilePath": [{"anything-but": {"wildcard": "*/lib/*"}}]}, {"FilePath": "/usr/lib/mod.so"}, False),
    case("numeric", NUMERIC_DOC, detail(**{"c-count": 5, "d-count": 3, "x-limit": 301.8}), True),
    case("numeric-c-count-0", NUMERIC_DOC, detail(**{"c-count": 0, "d-count": 3, "x-limit": 301.8}), False),
    case("numeric-x-limit-302", NUMERIC_DOC, detail(**{"c-count": 5, "d-count": 3, "x-limit": 302}), False),
    case("price-is-100", {"Price": [{"numeric": ["=", 100]}]}, {"Price": 100}, True),
    case("price-10-to-20", {"Price": [{"numeric": [">", 10, "<=", 20]}]}, {"Price": 20}, True),
    case("price-not-above-10", {"Price": [{"numeric": [">", 10, "<=", 20]}]}, {"Price": 10}, False),
    case("cidr", detail(sourceIPAddress=[{"cidr": "10.0.0.0/24"}]), detail(sourceIPAddress="10.0.0.255"), True),
    case("cidr-outside", detail(sourceIPAddress=[{"cidr": "10.0.0.0/24"}]), detail(sourceIPAddress="10.0.1.1"), False),
    case("exists-false-absent", detail(**{"c-count": [{"exists": False}]}), NO_C_COUNT, True),
    case("exists-false-not-a-leaf", detail(**{"c-count": [{"exists": False}]}),
         {**NO_C_COUNT, "detail": {**NO_C_COUNT["detail"], "c-count": {"c1": 100}}}, True),
    case("exists-false-present", detail(**{"c-count": [{"exists": False}]}), detail(**{"c-count": 5}), False),
    case("exists-true", {"ProductName": [{"exists": True}]}, {"ProductName": "Widget"}, True),
    case("exists-true-absent", {"ProductName": [{"exists": True}]}, {"Product": "Widget"}, False),
    case("empty", {"LastName": [""]}, {"LastName": ""}, True),
    case("equals", {"Name": ["Alice"]}, {"Name": "Alice"}, True),
    case("null", {"UserID": [None]}, {"UserID": None}, True),
    case("not", {"Weather": [{"anything-but": ["Raining"]}]}, {"Weather": "Raining"}, False),
    case("or-values", {"PaymentType": ["Credit", "Debit"]}, {"PaymentType": "Debit"}, True),
    case("or-fields", {"$or": [{"Location": ["New York"]}, {"Day": ["Monday"]}]}, {"Location": "Paris", "Day": "Monday"}, True),
    case("or-fields-neither", {"$or": [{"Location": ["New York"]}, {"Day": ["Monday"]}]}, {"Location": "Paris", "Day": "Friday"}, False),
    case("wildcard", {"FileName": [{"wildcard": "dir/*.png"}]}, {"FileName": "dir/sub/image.png"}, True),
    case("wildcard-other-folder", {"FileName": [{"wildcard": "dir/*.png"}]}, {"FileName": "other/image.png"}, False),
    case("complex", COMPLEX_DOC, COMPLEX_EVENT, True),
    case("complex-x-limit-excluded", COMPLEX_DOC, {**COMPLEX_EVENT, "detail": {**COMPLEX_EVENT["detail"], "x-limit": 300}}, False),
]

# aws/event-ruler README (the engine behind EventBridge), "The $or Primitive" and "JSON Array Matching".
CLOUDWATCH_OR = {"source": ["aws.cloudwatch"], "$or": [{"metricName": ["CPUUtilization", "ReadLatency"]},
                                                       {"namespace": ["AWS/EC2", "AWS/ES"]}]}
NESTED_OR = {"source": ["aws.cloudwatch"], "$or": [
    {"metricName": ["CPUUtilization", "ReadLatency"]},
    {"metricType": ["MetricType"], "namespace": ["AWS/EC2", "AWS/ES"], "$or": [{"metricId": [1234]}, {"spaceId": [1000]}]},
    {"scope": ["Service"]},
]}
EMPLOYEES = {"employees": [{"firstName": "John", "lastName": "Doe"}, {"firstName": "Anna", "lastName": "Smith"},
                           {"firstName": "Peter", "lastName": "Jones"}]}
EVENT_RULER = [
    case("or-first", CLOUDWATCH_OR, {"source": "aws.cloudwatch", "metricName": "ReadLatency"}, True),
    case("or-second", CLOUDWATCH_OR, {"source": "aws.cloudwatch", "namespace": "AWS/ES"}, True),
    case("or-and-sibling-fails", CLOUDWATCH_OR, {"source": "aws.ec2", "namespace": "AWS/ES"}, False),
    case("nested-or-and", NESTED_OR, {"source": "aws.cloudwatch", "metricType": "MetricType", "namespace": "AWS/EC2", "spaceId": 1000}, True),
    case("nested-or-and-missing-inner", NESTED_OR, {"source": "aws.cloudwatch", "metricType": "MetricType", "namespace": "AWS/EC2"}, False),
    case("parallel-or-in-detail", {"$or": [{"a": ["1"]}, {"b": ["2"]}], "detail": {"$or": [{"c": ["3"]}, {"d": ["4"]}]}},
         {"b": "2", "detail": {"d": "4"}}, True),
    case("array-of-objects", {"employees": {"firstName": ["Anna"]}}, EMPLOYEES, True),
    case("array-of-objects-none", {"employees": {"firstName": ["Maria"]}}, EMPLOYEES, False),
    case("array-consistent", {"employees": {"firstName": ["Anna"], "lastName": ["Smith"]}}, EMPLOYEES, True),
    case("array-consistent-across-elements", {"employees": {"firstName": ["Anna"], "lastName": ["Jones"]}}, EMPLOYEES, False),
    case("multi-level-arrays", {"employees": {"firstName": ["Peter"]}}, {"employees": [[EMPLOYEES["employees"][0]], [EMPLOYEES["employees"][2]]]}, True),
]


@pytest.mark.parametrize("pattern, event, expected", SYNTAX + NULLS + ARRAYS + OPERATOR_DOCS + EVENT_RULER)
def test_documented_examples(pattern, event, expected):
    # Given a pattern and an event from the documentation
    check(pattern, event, expected)


# Our rule: SageMaker training-job state changes with IssuesFound in a Debugger or Profiler rule status.
SAGEMAKER_RULE = {
    "source": ["aws.sagemaker"],
    "detail-type": ["SageMaker Training Job State Change"],
    "detail": {"$or": [{"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}},
                       {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound"]}}]},
}
TEAM_A_RULE = {**SAGEMAKER_RULE, "detail": {**SAGEMAKER_RULE["detail"], "TrainingJobName": [{"prefix": "team-a-"}]}}


def training_event(name="team-a-resnet", debug=(), profiler=()):
    statuses = lambda kind, states: [  # noqa: E731
        {"RuleConfigurationName": f"{kind}{i}", "RuleEvaluationJobArn": f"arn:aws:sagemaker:us-east-1:1:processing-job/{kind}{i}",
         "RuleEvaluationStatus": state, "LastModifiedTime": 1700000000000}
        for i, state in enumerate(states)
    ]
    return {"version": "0", "source": "aws.sagemaker", "detail-type": "SageMaker Training Job State Change",
            "detail": {"TrainingJobName": name, "TrainingJobStatus": "InProgress",
                       "DebugRuleEvaluationStatuses": statuses("Debug", debug),
                       "ProfilerRuleEvaluationStatuses": statuses("Profiler", profiler)}}


@pytest.mark.parametrize("pattern, event, expected", [
    case("debug-issues-among-several", SAGEMAKER_RULE, training_event(debug=["NoIssuesFound", "IssuesFound", "InProgress"]), True),
    case("profiler-issues-among-several", SAGEMAKER_RULE, training_event(debug=["NoIssuesFound"], profiler=["InProgress", "IssuesFound"]), True),
    case("no-issues", SAGEMAKER_RULE, training_event(debug=["NoIssuesFound", "InProgress"], profiler=["NoIssuesFound"]), False),
    case("no-rules", SAGEMAKER_RULE, training_event(), False),
    case("other-detail-type", SAGEMAKER_RULE, {**training_event(debug=["IssuesFound"]), "detail-type": "SageMaker Endpoint State Change"}, False),
    case("team-a-issues", TEAM_A_RULE, training_event(debug=["IssuesFound"]), True),
    case("team-b-issues", TEAM_A_RULE, training_event(name="team-b-resnet", debug=["IssuesFound"]), False),
    case("team-a-no-issues", TEAM_A_RULE, training_event(profiler=["NoIssuesFound", "Error"]), False),
])
def test_sagemaker_rule_pattern(pattern, event, expected):
    # Given our stack's rule pattern and a training-job state-change event
    check(pattern, event, expected)


@pytest.mark.parametrize("pattern, event, expected", [
    case("number-equals-float", {"n": [5]}, {"n": 5.0}, True),
    case("number-not-string", {"n": [5]}, {"n": "5"}, False),
    case("string-not-number", {"n": ["5"]}, {"n": 5}, False),
    case("true-not-1", {"n": [True]}, {"n": 1}, False),
    case("1-not-true", {"n": [1]}, {"n": True}, False),
    case("false", {"n": [False]}, {"n": False}, True),
    case("leaf-on-object", {"d": ["x"]}, {"d": {"x": "x"}}, False),
    case("object-on-scalar", {"d": {"x": ["x"]}}, {"d": "x"}, False),
    case("prefix-on-number", {"n": [{"prefix": "1"}]}, {"n": 12}, False),
    case("prefix-in-array", {"n": [{"prefix": "b"}]}, {"n": ["abc", "bcd"]}, True),
    case("suffix-on-null", {"n": [{"suffix": "l"}]}, {"n": None}, False),
    case("numeric-on-string", {"n": [{"numeric": [">", 0]}]}, {"n": "5"}, False),
    case("numeric-on-bool", {"n": [{"numeric": [">", 0]}]}, {"n": True}, False),
    case("numeric-ge-boundary", {"n": [{"numeric": [">=", 0, "<", 5]}]}, {"n": 0}, True),
    case("numeric-lt-boundary", {"n": [{"numeric": [">=", 0, "<", 5]}]}, {"n": 5}, False),
    case("numeric-le", {"n": [{"numeric": ["<=", -1.5]}]}, {"n": -1.5}, True),
    case("numeric-any-array-element", {"n": [{"numeric": [">", 10]}]}, {"n": [1, 2, 11]}, True),
    case("exists-false-missing", {"n": [{"exists": False}]}, {}, True),
    case("exists-false-null", {"n": [{"exists": False}]}, {"n": None}, False),
    case("exists-false-parent-missing", {"d": {"n": [{"exists": False}]}}, {"e": 1}, True),
    case("exists-false-empty-array", {"n": [{"exists": False}]}, {"n": []}, True),
    case("exists-true-null", {"n": [{"exists": True}]}, {"n": None}, True),
    case("exists-true-object", {"n": [{"exists": True}]}, {"n": {"x": 1}}, False),
    case("exists-or-value", {"n": ["a", {"exists": False}]}, {}, True),
    case("anything-but-missing", {"n": [{"anything-but": "a"}]}, {}, False),
    case("anything-but-other-type", {"n": [{"anything-but": "5"}]}, {"n": 5}, True),
    case("anything-but-number-value", {"n": [{"anything-but": [5, 6]}]}, {"n": 5.0}, False),
    case("anything-but-array-one-other", {"n": [{"anything-but": ["a"]}]}, {"n": ["a", "b"]}, True),
    case("anything-but-array-all-excluded", {"n": [{"anything-but": ["a", "b"]}]}, {"n": ["a", "b"]}, False),
    case("anything-but-true-is-not-1", {"n": [{"anything-but": 1}]}, {"n": True}, True),
    case("anything-but-prefix-number", {"n": [{"anything-but": {"prefix": "1"}}]}, {"n": 12}, True),
    case("equals-ignore-case-number", {"n": [{"equals-ignore-case": "5"}]}, {"n": 5}, False),
    case("wildcard-empty-star", {"n": [{"wildcard": "a*b"}]}, {"n": "ab"}, True),
    case("wildcard-anchored", {"n": [{"wildcard": "a*b"}]}, {"n": "xab"}, False),
    case("wildcard-escaped-star", {"n": [{"wildcard": "a\\*b"}]}, {"n": "a*b"}, True),
    case("wildcard-escaped-star-literal", {"n": [{"wildcard": "a\\*b"}]}, {"n": "axb"}, False),
    case("wildcard-escaped-backslash", {"n": [{"wildcard": "c:\\\\*"}]}, {"n": "c:\\temp"}, True),
    case("wildcard-escaped-backslash-literal", {"n": [{"wildcard": "c:\\\\*"}]}, {"n": "c:temp"}, False),
    case("wildcard-regex-chars-literal", {"n": [{"wildcard": "a.b*"}]}, {"n": "axb"}, False),
    case("wildcard-newline", {"n": [{"wildcard": "a*"}]}, {"n": "a\nb"}, True),
    case("cidr-ipv6", {"ip": [{"cidr": "2001:db8::/32"}]}, {"ip": "2001:db8:1::1"}, True),
    case("cidr-ipv6-outside", {"ip": [{"cidr": "2001:db8::/32"}]}, {"ip": "2001:db9::1"}, False),
    case("cidr-v4-in-v6", {"ip": [{"cidr": "::/0"}]}, {"ip": "10.0.0.1"}, False),
    case("cidr-on-number", {"ip": [{"cidr": "0.0.0.0/24"}]}, {"ip": 5}, False),
    case("cidr-not-an-ip", {"ip": [{"cidr": "10.0.0.0/8"}]}, {"ip": "ten"}, False),
    case("or-inside-array-element", {"d": {"$or": [{"a": ["1"]}, {"b": ["2"]}], "c": ["3"]}},
         {"d": [{"a": "1", "c": "0"}, {"b": "2", "c": "3"}]}, True),
    case("or-inside-array-element-split", {"d": {"$or": [{"a": ["1"]}, {"b": ["9"]}], "c": ["3"]}},
         {"d": [{"a": "1", "c": "0"}, {"b": "2", "c": "3"}]}, False),
    case("exists-false-array-element", {"d": {"x": [{"exists": False}]}}, {"d": [{"x": 1}, {"y": 2}]}, True),
])
def test_operator_edges(pattern, event, expected):
    # Given an operator at an edge of its definition
    check(pattern, event, expected)


def test_event_must_be_an_object():
    # Given an event that is not a JSON object
    # When / Then matching refuses it rather than answering
    with pytest.raises(TypeError, match="event must be a JSON object"):
        matches({"source": ["aws.ec2"]}, ["aws.ec2"])


@pytest.mark.parametrize("pattern, path, problem", [
    ([], "<pattern>", "JSON object"),
    ({}, "<pattern>", "empty objects"),
    ({"detail": {}}, "detail:", "empty objects"),
    ({"source": "aws.ec2"}, "source:", "object or a list"),
    ({"source": []}, "source:", "empty lists"),
    ({"detail": {"TrainingJobName": [{"prefx": "a"}]}}, "detail.TrainingJobName[0]:", "unknown operator 'prefx'"),
    ({"detail": {"TrainingJobName": ["a", ["b"]]}}, "detail.TrainingJobName[1]:", "a matcher must be"),
    ({"n": [{"prefix": "a", "suffix": "b"}]}, "n[0]:", "exactly one key"),
    ({"n": [{"prefix": 5}]}, "n[0].prefix:", "must be a string"),
    ({"n": [{"prefix": {"equals-ignore-case": 5}}]}, "n[0].prefix.equals-ignore-case:", "must be a string"),
    ({"n": [{"suffix": {"wildcard": "a"}}]}, "n[0].suffix:", "equals-ignore-case"),
    ({"n": [{"equals-ignore-case": ["a"]}]}, "n[0].equals-ignore-case:", "must be a string"),
    ({"n": [{"exists": "true"}]}, "n[0].exists:", "true or false"),
    ({"n": [{"numeric": 5}]}, "n[0].numeric:", "[op, number]"),
    ({"n": [{"numeric": [">", 1, "<"]}]}, "n[0].numeric:", "[op, number]"),
    ({"n": [{"numeric": ["!=", 1]}]}, "n[0].numeric[0]:", "unknown comparison '!='"),
    ({"n": [{"numeric": [">", "1"]}]}, "n[0].numeric[1]:", "must be a number"),
    ({"n": [{"numeric": [">", True]}]}, "n[0].numeric[1]:", "must be a number"),
    ({"n": [{"numeric": ["<", 5, ">", 1]}]}, "n[0].numeric:", "lower bound"),
    ({"n": [{"numeric": ["=", 1, "<", 5]}]}, "n[0].numeric:", "lower bound"),
    ({"n": [{"numeric": [">", 5, "<", 1]}]}, "n[0].numeric:", "must be below"),
    ({"n": [{"numeric": [">", 6e9]}]}, "n[0].numeric[1]:", "outside the numeric range"),
    ({"n": [{"anything-but": []}]}, "n[0].anything-but:", "non-empty list"),
    ({"n": [{"anything-but": None}]}, "n[0].anything-but:", "string, a number"),
    ({"n": [{"anything-but": ["a", 1]}]}, "n[0].anything-but:", "only strings or only numbers"),
    ({"n": [{"anything-but": {"prefix": ""}}]}, "n[0].anything-but.prefix:", "must not be empty"),
    ({"n": [{"anything-but": {"numeric": [">", 1]}}]}, "n[0].anything-but:", "must nest exactly one of"),
    ({"n": [{"anything-but": {"equals-ignore-case": [5]}}]}, "n[0].anything-but.equals-ignore-case[0]:", "must be a string"),
    ({"n": [{"anything-but": {"wildcard": ["*/lib/*", "a**"]}}]}, "n[0].anything-but.wildcard[1]:", "consecutive wildcard"),
    ({"n": [{"wildcard": "a**b"}]}, "n[0].wildcard:", "consecutive wildcard"),
    ({"n": [{"wildcard": "a\\b"}]}, "n[0].wildcard:", "backslash"),
    ({"n": [{"wildcard": "a\\"}]}, "n[0].wildcard:", "backslash"),
    ({"n": [{"cidr": "10.0.0.0/33"}]}, "n[0].cidr:", "CIDR"),
    ({"$or": [{"a": ["1"]}]}, "$or:", "at least 2 objects"),
    ({"d": {"$or": {"a": ["1"]}}}, "d.$or:", "at least 2 objects"),
    ({"d": {"$or": [{"a": ["1"]}, ["b"]]}}, "d.$or[1]:", "must be objects"),
    ({"d": {"$or": [{"a": ["1"]}, {"b": [{"exists": 1}]}]}}, "d.$or[1].b[0].exists:", "true or false"),
])
def test_invalid_patterns_name_the_path(pattern, path, problem):
    # Given an invalid pattern
    # When it is validated, or used for matching
    for attempt in (lambda: validate(pattern), lambda: matches(pattern, {"n": 1})):
        with pytest.raises(InvalidPattern) as raised:
            attempt()

        # Then the error names the path and what is wrong
        assert str(raised.value).startswith(path), str(raised.value)
        assert problem in str(raised.value)


def test_valid_patterns_pass_validation():
    # Given patterns using every operator form
    patterns = [SAGEMAKER_RULE, TEAM_A_RULE, COMPLEX_DOC, NESTED_OR,
                {"n": [None, True, "a", 5, {"cidr": "10.0.0.0/8"}, {"wildcard": "a\\**\\\\"}, {"anything-but": {"wildcard": ["a*", "b"]}}]}]

    # When / Then none is rejected
    for pattern in patterns:
        validate(pattern)


# -------------------------------------------------------------- differential check against moto's matcher

STRINGS = ["running", "stopped", "initializing", "init-2", "INIT", "us-east-1", "us-west-2", ""]
NUMBERS = [2, 3, 5, 5.0, 7.5, -4, 100, 250.0, 300]  # no 0/1: moto's `==` would equal them with False/True


def random_scalar(rng):
    return rng.choice(STRINGS + NUMBERS + [None])


def random_event(rng):
    # No booleans (moto treats true as 1 in numeric), no empty arrays/objects (moto says they "exist"),
    # no arrays of objects (moto does not descend into them).
    value = lambda: rng.choice([random_scalar(rng)] * 3 + [[random_scalar(rng) for _ in range(rng.randint(1, 3))]])  # noqa: E731
    fields = {key: value() for key in ("state", "count", "region", "tags") if rng.random() < 0.7}
    if rng.random() < 0.5:
        fields["inner"] = rng.choice([{"x": value()}, value()])
    return {"source": rng.choice(["aws.ec2", "aws.sagemaker"]), "detail": fields}


def event_value(event, path):
    node = event["detail"]
    for name in path.split("."):
        node = node.get(name) if isinstance(node, dict) else None
    return [v for v in (node if isinstance(node, list) else [node]) if v is not None and not isinstance(v, dict)]


def random_matcher(rng, seen):
    # Most matchers are built from a value the event holds, so that matches are frequent enough.
    kind = rng.choice(["exact", "exact", "prefix", "numeric", "exists", "anything-but"])
    near = rng.choice(seen) if seen and rng.random() < 0.75 else random_scalar(rng)
    if kind == "exact":
        return near
    if kind == "prefix":
        return {"prefix": near[: rng.randint(1, 4)] if isinstance(near, str) and near else rng.choice(["init", "us-", "S"])}
    if kind == "exists":
        return {"exists": rng.random() < 0.5}
    if kind == "numeric":
        number = near if isinstance(near, (int, float)) else rng.choice(NUMBERS)
        low, high = sorted(rng.sample([-5, 2, 3, 5, 7.5, 100, 300], 2))
        return {"numeric": rng.choice([[rng.choice(["=", "<", "<=", ">", ">="]), number],
                                       [rng.choice([">", ">="]), low, rng.choice(["<", "<="]), high]])}
    options = rng.choice([STRINGS, NUMBERS])
    return {"anything-but": rng.choice([near if near is not None else rng.choice(options), rng.sample(options, rng.randint(1, 3))])}


def random_pattern(rng, event):
    def leaves():
        paths = rng.sample(["state", "count", "region", "tags", "inner", "inner.x", "absent"], rng.randint(1, 2))
        node = {}
        for path in paths:
            *parents, name = path.split(".")
            target = node
            for parent in parents:
                target = target.setdefault(parent, {}) if isinstance(target.get(parent, {}), dict) else {}
            target[name] = [random_matcher(rng, event_value(event, path)) for _ in range(rng.randint(1, 2))]
        return node

    detail_pattern = leaves()
    if rng.random() < 0.3:
        detail_pattern["$or"] = [leaves(), leaves()]
    pattern = {"detail": detail_pattern}
    if rng.random() < 0.3:
        pattern["source"] = [rng.choice(["aws.ec2", "aws.sagemaker"])]
    return pattern


def moto_matches(pattern, event):
    return EventPattern.load(json.dumps(pattern)).matches_event(event)


def generate_pairs(count, seed=20240611):
    rng = random.Random(seed)
    events = [random_event(rng) for _ in range(count)]
    return [(random_pattern(rng, event), event) for event in events]


DIFFERENTIAL_PAIRS = generate_pairs(400)


def test_differential_against_moto_on_operators_it_implements():
    # Given 400 generated (pattern, event) pairs without arrays of objects, on exact/prefix/numeric/exists/anything-but
    # When both matchers answer
    differences = [(p, e, ours, theirs) for p, e in DIFFERENTIAL_PAIRS
                   if (ours := matches(p, e)) != (theirs := moto_matches(p, e))]

    # Then they agree on every pair
    assert not differences, f"{len(differences)} differences, first: {differences[0]}"


def test_differential_set_exercises_both_answers_and_every_operator():
    # Given the generated pairs, split by our answer
    answers = {True: [], False: []}
    for pattern, event in DIFFERENTIAL_PAIRS:
        answers[matches(pattern, event)].append(json.dumps(pattern))

    # Then the set is large, and every operator and $or appears in matching and in non-matching pairs
    assert len(DIFFERENTIAL_PAIRS) >= 300
    assert len(answers[True]) >= 40 and len(answers[False]) >= 40
    for word in ('"prefix"', '"numeric"', '"exists"', '"anything-but"', '"$or"'):
        for outcome, patterns in answers.items():
            assert any(word in text for text in patterns), (word, outcome)


@pytest.mark.parametrize("pattern, event, documented", [
    case("array-of-objects", {"employees": {"firstName": ["Anna"]}}, EMPLOYEES, True),
    case("sagemaker-rule-statuses", SAGEMAKER_RULE, training_event(debug=["NoIssuesFound", "IssuesFound"]), True),
])
def test_moto_differs_on_arrays_of_objects(pattern, event, documented):
    # Given an event whose matching field sits in an array of objects (event-ruler README, "JSON Array Matching")
    # When both matchers answer
    ours, theirs = matches(pattern, event), moto_matches(pattern, event)

    # Then ours gives the documented answer and moto's does not
    assert ours is documented
    assert theirs is not documented
