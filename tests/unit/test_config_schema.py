"""The published schema of a configuration file (schemas/config.schema.json, `rule-actions schema`): generated
from the fields the plug-ins declare plus the stack settings, and differential-tested against the validators
(Config.from_dict, StackSettings.from_dict) on samples, examples and generated configuration files.

The schema may be laxer than the validator only where JSON Schema cannot say what the validator checks across
fields (an endpoint outside allowed_endpoints, a webhook nobody declared...); it is never stricter.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rule_actions import config as configuration
from rule_actions.config import Config, ConfigError
from rule_actions_cdk.settings import FILE_SCHEMA, FILE_STACK, StackSettings, file_schema, split_file

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "schemas" / "config.schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
# What the validator checks across fields, which JSON Schema cannot state.
CROSS_FIELD = re.compile(r"is not in allowed_endpoints|is not declared in webhooks|names an account that is not in "
                         r"accounts|a channel is listed twice|give org_id, accounts or both|only organization mode "
                         r"evaluates other regions|organization mode evaluates the jobs of organization.accounts|"
                         r"a budget needs the jobs' prices, and none can be known|sets both usd and by_prefix")


def verdicts(data: Any, validator: Any = VALIDATOR) -> tuple[bool, list[str]]:
    """(the schema accepts it, the validators' errors)."""
    errors: list[str] = []
    try:
        config, stack = split_file(data, "rule-actions.json")
    except ConfigError as err:
        return validator.is_valid(data), [str(err)]
    for validate, value in ((Config.from_dict, config), (StackSettings.from_dict, stack)):
        try:
            validate(value)
        except ConfigError as err:
            errors += str(err).splitlines()[1:] or [str(err)]
    return validator.is_valid(data), errors


def agree(data: Any, validator: Any = VALIDATOR) -> None:
    schema_ok, errors = verdicts(data, validator)
    if schema_ok:  # the schema may only miss what it cannot state
        assert all(CROSS_FIELD.search(error) for error in errors), (data, errors)
    else:  # never stricter than the validator
        assert errors, (data, [e.message for e in validator.iter_errors(data)])


def test_the_published_schema_is_the_one_the_declarations_give():
    # When the schema is generated from the plug-ins' field declarations and the stack settings
    # Then it is the published file (regenerate: rule-actions schema --out schemas/config.schema.json)
    assert file_schema() == SCHEMA


def test_the_schema_is_a_json_schema_and_documents_every_key():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert list(SCHEMA["properties"]) == [FILE_SCHEMA, *configuration.KEYS, FILE_STACK]
    documented = {key: p for key, p in SCHEMA["properties"].items() if key != FILE_SCHEMA}
    documented.update(SCHEMA["properties"][FILE_STACK]["properties"])
    assert all(p.get("description") and "default" in p for p in documented.values()), [
        key for key, p in documented.items() if not (p.get("description") and "default" in p)]


@pytest.mark.parametrize(("change", "data"), [
    (lambda s: s["properties"]["training_job_prefixes"]["items"].pop("pattern"), {"training_job_prefixes": ["a*"]}),
    (lambda s: s["properties"]["dedup_ttl_hours"].update(maximum=100), {"dedup_ttl_hours": 200}),
    (lambda s: s["$defs"]["job_outcomes"]["anyOf"][0]["anyOf"].pop(0),  # the email variant
     {"job_outcomes": {"Failed": {"name": "email", "endpoint": "a@example.com"}}}),
    (lambda s: s["properties"]["monitor"]["properties"]["rules"]["properties"]["StalledTraining"]["properties"]["mode"]
     .update(enum=["act", "watch", "wtch"]), {"monitor": {"rules": {"StalledTraining": {"mode": "wtch"}}}}),
])
def test_a_planted_difference_is_caught(change, data):
    # Given a copy of the schema made laxer or stricter than the validator in one place
    planted = json.loads(json.dumps(SCHEMA))
    change(planted)
    # When a configuration that tells them apart is judged / Then the difference is reported
    with pytest.raises(AssertionError):
        agree(data, jsonschema.Draft202012Validator(planted))
    agree(data)  # and the published schema agrees


EXAMPLES = [ROOT / "examples" / name for name in ("demo-config.json", "demo-webhook-config.json",
                                                  "organization-config.json", "monitor-config.json",
                                                  "pagerduty-config.json")]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_are_valid_for_both(path):
    assert verdicts(json.loads(path.read_text())) == (True, [])


def test_the_projects_file_and_the_canonical_form_are_valid_for_both():
    data = json.loads((ROOT / "rule-actions.json").read_text())
    assert verdicts(data) == (True, [])
    config, stack = split_file(data, "rule-actions.json")
    canonical = {**Config.from_dict(config).to_dict(), FILE_STACK: StackSettings.from_dict(stack).to_dict()}
    assert verdicts(canonical) == (True, [])


SLACK = {"workspace_id": "T0123ABCD", "channel_id": "C0123ABCD"}
TEAMS = {"tenant_id": "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", "team_id": "1f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
         "channel_id": "19%3aabc%40thread.tacv2"}


@pytest.mark.parametrize("data", [
    {"rules": {"Loss*": ["stoptraining", "StopTraining", {"name": "EMAIL", "endpoint": "a@example.com"}]}},
    {"rules": {"*": "notify"}},
    {"rules": {"*": {"name": "stoptraining", "training_job_prefix": "exp-"}}},
    {"rules": {"*": ["email"]}},  # an endpoint kind needs its endpoint
    {"rules": {"": ["notify"]}},
    {"rules": {"*": [{"name": "notify", "endpoint": "x"}]}},
    {"job_outcomes": {"Failed": ["stoptraining"]}},
    {"job_outcomes": {"failed": ["notify"]}},
    {"job_outcomes": {"Failed": [{"name": "webhook", "endpoint": "ml-alerts"}]},
     "webhooks": {"ml-alerts": {"secret": "rule-actions/demo", "format": "json"}}},
    {"job_outcomes": {"Failed": [{"name": "webhook", "endpoint": "nobody"}]}},
    {"notify": {"emails": ["a@example.com"], "sms": ["+15555550100"]}, "allowed_endpoints": ["*@example.com"]},
    {"notify": None},
    {"notify": {"emails": ["not an address"]}},
    {"chat": {"slack": [SLACK], "teams": [TEAMS]}},
    {"chat": {"slack": [SLACK, SLACK]}},
    {"chat": {"slack": [{**SLACK, "channel_id": "c-1"}]}},
    {"webhooks": {"a": {"secret": "arn:aws:secretsmanager:us-east-1:123456789012:secret:x-AbCdEf", "format": "teams"}}},
    {"webhooks": {"a": {"secret": "arn:aws:s3:::bucket", "format": "json"}}},
    {"webhooks": {"a b": {"secret": "s", "format": "json"}}},
    {"training_job_prefixes": ["exp-", "Team-A"]},
    {"training_job_prefixes": ["exp*"]},
    {"training_job_prefixes": ["exp-\n"]},
    {"dedup_ttl_hours": 0}, {"dedup_ttl_hours": 8760}, {"dedup_ttl_hours": True}, {"dedup_ttl_hours": 1.5},
    {"dry_run": "yes"}, {"unknown": 1},
    {"organization": {"accounts": ["111122223333"], "central_account": "123456789012", "central_region": "eu-west-1"}},
    {"organization": {"org_id": "o-a1b2c3d4e5", "central_account": "123456789012", "central_region": "us-east-1",
                      "aliases": {"444455556666": "x"}}},
    {"organization": {"accounts": [], "central_account": "123456789012", "central_region": "us-east-1"}},
    {"organization": {"accounts": ["1111"], "central_account": "123456789012", "central_region": "us-east-1"}},
    {"organization": {"org_id": "o-a1b2c3d4e5", "accounts": ["111122223333"], "aliases": {"444455556666": "x"},
                      "central_account": "123456789012", "central_region": "us-east-1"}},
    {"tuning_job_outcomes": {"Failed": ["notify"], "Completed": [{"name": "email", "endpoint": "a@example.com"}]},
     "tuning_trials_alert": True, "tuning_job_prefixes": ["hpo-"]},
    {"tuning_job_outcomes": {"Interrupted": ["notify"]}},  # a training outcome, not a tuning job's
    {"tuning_job_outcomes": {"Failed": ["stoptraining"]}},
    {"processing_job_outcomes": {"Failed": ["notify"], "Stopped": []}, "processing_job_prefixes": ["prep-"]},
    {"processing_job_outcomes": {"Failed": {"name": "webhook", "endpoint": "nobody"}}},
    {"pipeline_outcomes": {"Failed": ["notify"], "CompletedWithFailures": ["notify"], "Succeeded": []},
     "pipeline_prefixes": ["churn-"], "pipeline_step_jobs_alert": False},
    {"pipeline_outcomes": {"Completed": ["notify"]}},  # a pipeline succeeds, it does not complete
    {"pipeline_prefixes": ["churn*"]},
    {"transform_job_outcomes": {"Failed": ["notify", {"name": "sms", "endpoint": "+15555550100"}]},
     "transform_job_prefixes": ["batch-"]},
    {"transform_job_outcomes": {"Failed": ["notify"]}, "transform_job_prefixes": [""]},
    {"tuning_trials_alert": "yes"}, {"pipeline_step_jobs_alert": None},
    {"monitor": None}, {"monitor": {}}, {"monitor": "on"},
    {"monitor": {"rules": {"LowGPUUtilization": {"threshold_p95": 50, "window": 20.0}, "StalledTraining": {}},
                 "every_minutes": 10, "job_tags": False, "shards": 3}},
    {"monitor": {"rules": {"VanishingGradient": {}}}}, {"monitor": {"rules": {"Nope": {}}}},
    {"monitor": {"rules": {"LowGPUUtilization": {"window": 2}}}},
    {"monitor": {"rules": {"LowGPUUtilization": {"window": 20.5}}}},
    {"monitor": {"rules": {"LowGPUUtilization": {"threshold_p95": "70"}}}},
    {"monitor": {"rules": {"LowGPUUtilization": {"threshold_p95": True}}}},
    {"monitor": {"rules": {"StalledTraining": {"metric": "train:loss"}}}},
    {"monitor": {"rules": {"StalledTraining": {"metric": "train loss"}}}},
    {"monitor": {"rules": {"StalledTraining": {"x": 1}}}}, {"monitor": {"rules": {"StalledTraining": []}}},
    {"monitor": {"rules": {"StalledTraining": {"mode": "act"}, "Overfit": {"mode": "watch"}}}},
    {"monitor": {"rules": {"StalledTraining": {"mode": "wtch"}}}}, {"monitor": {"rules": {"Overfit": {"mode": None}}}},
    {"monitor": {"every_minutes": 0}}, {"monitor": {"every_minutes": 61}}, {"monitor": {"shards": 21}},
    {"monitor": {"job_tags": "yes"}}, {"monitor": {"regions": ["us-east-1"]}}, {"monitor": {"regions": ["mars"]}},
    {"monitor": {"unknown": 1}},
    {"monitor": {"regions": ["eu-west-1"]}, "organization": {"accounts": ["111122223333"], "central_account":
                                                             "123456789012", "central_region": "us-east-1"}},
    {"monitor": {}, "organization": {"org_id": "o-a1b2c3d4e5", "central_account": "123456789012",
                                     "central_region": "us-east-1"}},
    {"prices": {"price_list": False, "usd_per_hour": {"ml.p4d.24xlarge": 25.1}, "regions": {"eu-west-1": {}}}},
    {"prices": {"usd_per_hour": {"ml.p4d.24xlarge": 0}}}, {"prices": {"usd_per_hour": {"p4d": 1}}},
    {"prices": {"regions": {"mars": {}}}}, {"prices": {"regions": {"eu-west-1": []}}}, {"prices": None},
    {"prices": {"usd_per_hour": {"ml.p4d.24xlarge": 10001}}}, {"prices": {"price_list": 1}},
    {"monitor": {"rules": {"Budget": {"usd": 100, "warn_at": [0.5, 0.8]}}}},
    {"monitor": {"rules": {"Budget": {"by_prefix": {"llm-": 500}, "warn_at": []}}}},
    {"monitor": {"rules": {"Budget": {"usd": 0}}}}, {"monitor": {"rules": {"Budget": {"warn_at": [1]}}}},
    {"monitor": {"rules": {"Budget": {"warn_at": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}}}},
    {"monitor": {"rules": {"Budget": {"by_prefix": {"llm*": 5}}}}},
    {"monitor": {"rules": {"Budget": {"usd": 5, "by_prefix": {"a-": 1}}}}},
    {"monitor": {"rules": {"Budget": {"usd": 5}}}, "prices": {"price_list": False}},
    {"restart_checkpoints": ["s3://ml-checkpoints/llm"], "restart_roles": ["arn:aws:iam::123456789012:role/train"]},
    {"restart_checkpoints": ["ml-checkpoints/llm"]}, {"restart_checkpoints": ["s3://ml-checkpoints/a b"]},
    {"restart_roles": ["train"]}, {"restart_roles": ["arn:aws:iam::1234:role/train"]},
    {"stop_owners": ["tuning_job", "pipeline_execution"]}, {"stop_owners": ["tuning"]},
    {"batch_queues": ["gpu-training"]}, {"batch_queues": ["gpu training"]},
    {"$schema": "schemas/config.schema.json", "stack": {"stack_name": "MlAlerts", "log_retention_days": None}},
    {"$schema": 3}, {"stack": None}, {"stack": []}, {"stack": {"stack_name": "1abc"}},
    {"stack": {"stack_name": "a" * 41}}, {"stack": {"reserved_concurrency": 0}}, {"stack": {"reserved_concurrency": True}},
    {"stack": {"log_retention_days": 2}}, {"stack": {"sms_delivery_logs": "no"}}, {"stack": {"powertools_layer": 1}},
])
def test_hand_picked_configurations_get_one_verdict(data):
    agree(data)


EMAILS = ["a@example.com", "First.Last@mail.example.co.uk", "not-an-email", "a@b", ""]
PHONES = ["+15555550100", "+4915155550100", "15555550100", "+0123"]
ACTIONS = st.one_of(
    st.sampled_from(["notify", "stoptraining", "StopTraining", "email", "webhook", "nope", ""]),
    st.builds(lambda e: {"name": "email", "endpoint": e}, st.sampled_from(EMAILS)),
    st.builds(lambda e: {"name": "sms", "endpoint": e}, st.sampled_from(PHONES)),
    st.builds(lambda p: {"name": "stoptraining", "training_job_prefix": p}, st.sampled_from(["exp-", "", "a*", 5])),
    st.builds(lambda e: {"name": "webhook", "endpoint": e}, st.sampled_from(["ml-alerts", "bad name"])),
    st.sampled_from([{"name": "notify", "extra": 1}, {}, 42, None]),
)
ACTION_LISTS = st.one_of(ACTIONS, st.lists(ACTIONS, max_size=3))
JUNK = st.sampled_from([None, 0, 1.5, "x", [], {}, True])
FIELDS = {
    "notify": st.one_of(JUNK, st.fixed_dictionaries({}, optional={"emails": st.lists(st.sampled_from(EMAILS), max_size=2),
                                                                  "sms": st.lists(st.sampled_from(PHONES), max_size=2)})),
    "rules": st.one_of(JUNK, st.dictionaries(st.sampled_from(["*", "Loss*", "VanishingGradient", ""]), ACTION_LISTS,
                                             max_size=3)),
    "job_outcomes": st.one_of(JUNK, st.dictionaries(st.sampled_from(["Failed", "Completed", "Interrupted", "failed"]),
                                                    ACTION_LISTS, max_size=3)),
    "chat": st.one_of(JUNK, st.fixed_dictionaries({}, optional={"slack": st.lists(st.sampled_from([SLACK, {}]), max_size=2),
                                                                "teams": st.lists(st.sampled_from([TEAMS, {"x": 1}]), max_size=2)})),
    "webhooks": st.one_of(JUNK, st.dictionaries(st.sampled_from(["ml-alerts", "a b"]), st.sampled_from([
        {"secret": "rule-actions/demo", "format": "json"}, {"secret": "s", "format": "xml"}, {"secret": "s"}]),
        max_size=2)),
    "allowed_endpoints": st.one_of(JUNK, st.lists(st.sampled_from(["*@example.com", "+1555*", "", 3]), max_size=2)),
    "training_job_prefixes": st.one_of(JUNK, st.lists(st.sampled_from(["exp-", "Team-A", "a*", ""]), max_size=2)),
    # the other job families: their outcomes (each its own names, near misses of another family's), their scopes
    **{key: st.one_of(JUNK, st.dictionaries(st.sampled_from([*outcomes, "failed", "Interrupted"]), ACTION_LISTS,
                                            max_size=3))
       for key, outcomes in (("tuning_job_outcomes", ("Failed", "Stopped", "Completed")),
                             ("processing_job_outcomes", ("Failed", "Stopped", "Completed")),
                             ("pipeline_outcomes", ("Failed", "CompletedWithFailures", "Stopped", "Succeeded")),
                             ("transform_job_outcomes", ("Failed", "Stopped", "Completed")))},
    **{key: st.one_of(JUNK, st.lists(st.sampled_from(["hpo-", "Team-B", "b*", ""]), max_size=2))
       for key in ("tuning_job_prefixes", "processing_job_prefixes", "pipeline_prefixes", "transform_job_prefixes")},
    "dedup_ttl_hours": st.one_of(JUNK, st.integers(-2, 9000)),
    # the lists whose items have a form: restarts' checkpoints and roles, the stop's owners, Batch's queues
    "restart_checkpoints": st.one_of(JUNK, st.lists(st.sampled_from(["s3://ml-checkpoints/llm", "s3://b", "bucket/x",
                                                                     "s3://ml/a b", ""]), max_size=2)),
    "restart_roles": st.one_of(JUNK, st.lists(st.sampled_from(["arn:aws:iam::123456789012:role/train", "train",
                                                               "arn:aws:iam::1:role/x"]), max_size=2)),
    "stop_owners": st.one_of(JUNK, st.lists(st.sampled_from(["tuning_job", "pipeline_execution", "tuning"]),
                                            max_size=2)),
    **{flag: st.one_of(st.booleans(), JUNK) for flag in ("honor_action_json", "stop_all_matching", "allow_cross_job_stop",
                                                          "act_on_replays", "notify_on_rule_error", "dry_run",
                                                          "allow_any_sms", "tuning_trials_alert",
                                                          "pipeline_step_jobs_alert")},
    "organization": st.one_of(st.none(), st.fixed_dictionaries(
        {"central_account": st.sampled_from(["123456789012", "1234"]),
         "central_region": st.sampled_from(["us-east-1", "ap-southeast-4", "mars-1"])},
        optional={"org_id": st.sampled_from(["o-a1b2c3d4e5", "org"]),
                  "accounts": st.lists(st.sampled_from(["111122223333", "444455556666", "1"]), max_size=3),
                  "aliases": st.dictionaries(st.sampled_from(["111122223333", "9"]), st.sampled_from(["team-a", "!"]),
                                             max_size=1)})),
    "prices": st.one_of(JUNK, st.fixed_dictionaries({}, optional={
        "price_list": st.sampled_from([True, False, "yes", None]),
        "usd_per_hour": st.one_of(JUNK, st.dictionaries(st.sampled_from(["ml.p4d.24xlarge", "p4d", ""]),
                                                        st.sampled_from([25, 0.5, 0, -1, 1e9, True, "3"]), max_size=2)),
        "regions": st.one_of(JUNK, st.dictionaries(st.sampled_from(["eu-west-1", "mars"]), st.one_of(
            JUNK, st.dictionaries(st.sampled_from(["ml.g5.xlarge", "x"]), st.sampled_from([1.2, 0, "1"]), max_size=1)),
            max_size=2)),
        "unknown": JUNK})),
    "monitor": st.one_of(JUNK, st.fixed_dictionaries({}, optional={
        "rules": st.one_of(JUNK, st.dictionaries(
            st.sampled_from(["LowGPUUtilization", "StalledTraining", "VanishingGradient", "Nope", "Budget"]),
            st.one_of(JUNK, st.dictionaries(st.sampled_from(["window", "threshold", "threshold_p95", "metric", "mode",
                                                             "x", "usd", "warn_at", "by_prefix"]),
                                            st.sampled_from([0, 20, 70, 1800, 1e9, -1, "70", "train:loss", "a b",
                                                             True, None, 20.0, 20.5, "act", "watch", "Act",
                                                             [0.5, 0.8], [0, 1], [], {"llm-": 50}, {"a*": 1},
                                                             {"b-": 0}]),
                                            max_size=2)),
            max_size=2)),
        "every_minutes": st.sampled_from([0, 1, 5, 60, 61, 5.0, "5", True]),
        "job_tags": st.sampled_from([True, False, "true", None]),
        "shards": st.sampled_from([1, 2, 20, 21, 0]),
        "regions": st.sampled_from([[], ["eu-west-1"], ["mars"], "us-east-1"]),
        "unknown": JUNK})),
    "unknown_key": JUNK,
    FILE_SCHEMA: st.sampled_from(["schemas/config.schema.json", 3, None]),
    FILE_STACK: st.one_of(JUNK, st.fixed_dictionaries({}, optional={
        "stack_name": st.sampled_from(["RuleActions", "ml-Alerts-2", "2x", "a b", "a" * 41, 5]),
        "reserved_concurrency": st.sampled_from([None, 1, 1000, 1001, 0, True, 2.0]),
        "log_retention_days": st.sampled_from([None, 90, 91, 90.0, True, "90"]),
        "sms_delivery_logs": st.sampled_from([True, False, None, "yes"]),
        "unknown": JUNK})),
}
CONFIGS = st.fixed_dictionaries({}, optional=FIELDS)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONFIGS)
def test_generated_configurations_get_one_verdict(data):
    # Given a configuration mixing valid values, near misses and junk in every field
    # When the schema and the validator judge it
    # Then they agree, but for the checks across fields that JSON Schema cannot state
    agree(data)


def test_a_whole_number_written_as_2_0_is_the_number_2_for_the_validator_as_for_the_schema():
    # Given whole numbers written with a fraction of zero (JSON has one number type; the schema's "integer" takes them)
    data = {"dedup_ttl_hours": 2.0, "stack": {"reserved_concurrency": 2.0}}
    # Then the schema and the validator accept them, as the integers they are
    assert verdicts(data) == (True, [])
    config, stack = split_file(data, "rule-actions.json")
    assert Config.from_dict(config).to_dict()["dedup_ttl_hours"] == 2
    assert type(Config.from_dict(config).to_dict()["dedup_ttl_hours"]) is int
    assert StackSettings.from_dict(stack).reserved_concurrency == 2
    assert type(StackSettings.from_dict(stack).reserved_concurrency) is int
    # and a fraction is still refused by both
    assert verdicts({"dedup_ttl_hours": 2.5})[0] is False and verdicts({"dedup_ttl_hours": 2.5})[1]
