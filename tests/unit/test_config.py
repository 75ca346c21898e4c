"""The typed configuration: Config.from_dict / to_dict, rule lookup, endpoint allow-list, job scope, Settings."""

from __future__ import annotations

import json

import pytest

from rule_actions.config import Config, ConfigError, Settings
from rule_actions.contract import Texts
from rule_actions.jobs.training import FAMILY as TRAINING
from rule_actions.kinds.endpoint import allowed as endpoint_allowed
from rule_actions.records import Action
from rule_actions.triggers import job_outcome, rule_status
from rule_actions.triggers.rule_status import BUILTIN_RULES
from rule_actions_cdk import plugins

EMAIL, NOTIFY, STOP = "email", "notify", "stoptraining"

SPEC_KEYS = (
    "notify",
    "rules",
    "job_outcomes",
    "chat",
    "webhooks",
    "honor_action_json",
    "allowed_endpoints",
    "stop_all_matching",
    "allow_cross_job_stop",
    "stop_owners",
    # restarts (kinds/restart.py): the limits, where checkpoints are listed, the roles passed
    "max_restarts",
    "restarts_per_hour",
    "max_chain_hours",
    "restart_checkpoints",
    "restart_roles",
    "release_warm_pools",
    "act_on_replays",
    "notify_on_rule_error",
    "custom_rules",
    "training_job_prefixes",
    "dedup_ttl_hours",
    "dry_run",
    "allow_any_sms",
    "organization",
    # the job families besides training (jobs/): each its outcomes and its scope, and the trials' and steps' flags
    "tuning_trials_alert",
    "pipeline_step_jobs_alert",
    "tuning_job_outcomes",
    "tuning_job_prefixes",
    "processing_job_outcomes",
    "processing_job_prefixes",
    "pipeline_outcomes",
    "pipeline_prefixes",
    "transform_job_outcomes",
    "transform_job_prefixes",
    # AWS Batch service jobs (jobs/batch.py): the queues followed (empty: off), their outcomes, the wait told
    "batch_job_outcomes",
    "batch_queues",
    "batch_wait_alert_minutes",
    "monitor",
    # what a job costs (cost.py): the Price List on or off, and rates over it
    "prices",
)
ENV = {"RULE_ACTIONS_TOPIC_ARN": "arn:aws:sns:us-east-1:123456789012:rule-actions", "RULE_ACTIONS_LEDGER_TABLE": "rule-actions-ledger"}


def can_text(config: Config) -> bool:
    """The stack logs text deliveries: a kind asks it to (contract.Texts)."""
    return any(isinstance(part, Texts) for part in plugins.stack_parts(config))


def config_error(data) -> str:
    with pytest.raises(ConfigError) as caught:
        Config.from_dict(data)
    return str(caught.value)


# --- defaults ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "default"),
    [
        ("honor_action_json", True),
        ("allowed_endpoints", ()),
        ("stop_all_matching", False),
        ("allow_cross_job_stop", False),
        ("act_on_replays", False),
        ("notify_on_rule_error", True),
        ("training_job_prefixes", ()),
        ("dedup_ttl_hours", 72),
        ("dry_run", False),
        ("notify", ((), ())),
        ("chat", ()),
        ("webhooks", ()),
    ],
)
@pytest.mark.parametrize("data", [{}, None], ids=["empty object", "null"])
def test_defaults(data, attribute, default):
    # Given an empty configuration
    # When it is read
    config = Config.from_dict(data)

    # Then each setting has its documented default
    assert config.value(attribute) == default


def test_default_rules_notify_the_team_for_every_rule():
    # Given no rules key
    # When it is read
    config = Config.from_dict({})

    # Then every rule maps to notify ({"*": ["notify"]})
    for rule in ("VanishingGradient", "LossNotDecreasing", "ProfilerReport", "x"):
        assert rule_status.actions_for(config, rule) == (Action(NOTIFY),)
    assert config.to_dict()["rules"] == {"*": [{"name": "notify"}]}


def test_a_full_configuration_is_read():
    # Given a configuration using every key
    data = {
        "notify": {"emails": ["team@example.com"], "sms": ["+15555550100"]},
        "rules": {"LossNotDecreasing": ["stoptraining", {"name": "email", "endpoint": "ml@example.com"}], "*": ["notify"]},
        "honor_action_json": False,
        "allowed_endpoints": ["*@example.com", "+1555*"],
        "stop_all_matching": True,
        "allow_cross_job_stop": True,
        "act_on_replays": True,
        "notify_on_rule_error": False,
        "training_job_prefixes": ["team-a-", "team-b-"],
        "dedup_ttl_hours": 24,
        "dry_run": True,
    }

    # When it is read
    config = Config.from_dict(data)

    # Then every value is taken
    assert config.value("notify")[0] == ("team@example.com",)
    assert config.value("notify")[1] == ("+15555550100",)
    assert rule_status.actions_for(config, "LossNotDecreasing") == (Action(STOP), Action(EMAIL, "ml@example.com"))
    assert config.value("allowed_endpoints") == ("*@example.com", "+1555*")
    assert config.value("training_job_prefixes") == ("team-a-", "team-b-")
    assert config.dedup_ttl_hours == 24
    flags = ("honor_action_json", "stop_all_matching", "allow_cross_job_stop", "act_on_replays", "notify_on_rule_error", "dry_run")
    assert {flag: config.value(flag) for flag in flags} == {flag: data[flag] for flag in flags}


# --- errors: one ConfigError naming every bad field and value -----------------------------------------------


def test_an_unknown_key_is_named_with_the_closest_allowed_one_not_every_key():
    # Given a misspelt key, a key in another case, and a key close to none
    # When each is read
    # Then the message names it and the key meant, on a line of its own, instead of every allowed key
    assert config_error({"dry-run": True}).splitlines()[1] == '  rule_actions.dry-run: unknown key; did you mean "dry_run"?'
    assert 'rule_actions.Rules: unknown key; did you mean "rules"?' in config_error({"Rules": {}})
    far = config_error({"zzz": 1})
    assert (f"rule_actions.zzz: unknown key: none of the {len(SPEC_KEYS)} allowed is close "
            "(see docs/configuration.md") in far
    assert not any(key in far for key in SPEC_KEYS if key != "rules")  # the keys are not listed
    # and a block's few keys are listed when none is close
    assert "rule_actions.notify.phones: unknown key; allowed: emails, sms" in config_error({"notify": {"phones": []}})


@pytest.mark.parametrize(
    ("data", "field", "value"),
    [
        ({"honor_action_json": "yes"}, "honor_action_json", "yes"),
        ({"dry_run": 1}, "dry_run", "1"),
        ({"allow_any_sms": "no"}, "allow_any_sms", "\"no\""),
        ({"stop_all_matching": None}, "stop_all_matching", "null"),
        ({"act_on_replays": "false"}, "act_on_replays", "false"),
        ({"allow_cross_job_stop": [True]}, "allow_cross_job_stop", "true"),
        ({"notify_on_rule_error": 0}, "notify_on_rule_error", "0"),
        ({"dedup_ttl_hours": 0}, "dedup_ttl_hours", "0"),
        ({"dedup_ttl_hours": 8761}, "dedup_ttl_hours", "8761"),
        ({"dedup_ttl_hours": -5}, "dedup_ttl_hours", "-5"),
        ({"dedup_ttl_hours": 1.5}, "dedup_ttl_hours", "1.5"),
        ({"dedup_ttl_hours": "72"}, "dedup_ttl_hours", "72"),
        ({"dedup_ttl_hours": True}, "dedup_ttl_hours", "true"),
        ({"allowed_endpoints": "*@example.com"}, "allowed_endpoints", "*@example.com"),
        ({"allowed_endpoints": [""]}, "allowed_endpoints", '""'),
        ({"allowed_endpoints": [42]}, "allowed_endpoints", "42"),
        ({"training_job_prefixes": "team-a-"}, "training_job_prefixes", "team-a-"),
        ({"training_job_prefixes": [None]}, "training_job_prefixes", "null"),
        ({"notify": ["team@example.com"]}, "notify", "team@example.com"),
        ({"notify": {"email": ["team@example.com"]}}, "notify", "email"),
        ({"notify": {"emails": "team@example.com"}}, "notify.emails", "team@example.com"),
        ({"notify": {"emails": ["not-an-address"]}}, "notify.emails", "not-an-address"),
        ({"notify": {"sms": ["5555550100"]}}, "notify.sms", "5555550100"),
        ({"notify": {"sms": ["+0555"]}}, "notify.sms", "+0555"),
        ({"rules": ["notify"]}, "rules", "notify"),
        ({"rules": {"Loss": [{"name": "email", "endpoint": "nope"}]}}, "rules", "nope"),
        ({"rules": {"Loss": [{"name": "sms", "endpoint": "555"}]}}, "rules", "555"),
        ({"rules": {"Loss": ["pagerduty"]}}, "rules", "pagerduty"),
        ({"rules": {"Loss": [{"name": "stoptraining", "training_job_prefix": ""}]}}, "training_job_prefix", "empty"),
        ({"rules": {"Loss": [{"name": "notify", "endpoint": "x@example.com"}]}}, "endpoint", "notify"),
        ({"rules": {"": ["notify"]}}, "rules", 'rules[""]'),
        ({"rules": {"Loss": 42}}, "rules", "42"),
    ],
)
def test_bad_values_are_named_with_their_field_and_value(data, field, value):
    # Given a configuration with one bad value
    # When it is read
    message = config_error(data)

    # Then the ConfigError names the field and shows the value
    assert field in message
    assert value in message


def test_rule_errors_name_the_rule_and_the_entry():
    # Given a rule whose second entry has a bad endpoint
    # When it is read
    message = config_error({"rules": {"Loss*": ["notify", {"name": "email", "endpoint": "nope"}]}})

    # Then the message points at that rule's entry
    assert "Loss*" in message
    assert "[1].endpoint" in message


def test_every_bad_field_is_reported_at_once():
    # Given several independent mistakes
    data = {
        "dry_run": "no",
        "dedup_ttl_hours": 0,
        "colour": "blue",
        "notify": {"emails": ["bad-address"]},
        "rules": {"Loss": [{"name": "sms", "endpoint": "123"}]},
    }

    # When it is read
    message = config_error(data)

    # Then one ConfigError names all of them
    for fragment in ("dry_run", "dedup_ttl_hours", "colour", "bad-address", '"123"'):
        assert fragment in message


@pytest.mark.parametrize("data", [[], "notify", 42, True], ids=["list", "string", "number", "bool"])
def test_a_configuration_that_is_not_an_object_is_refused(data):
    # Given a configuration of the wrong type
    # When it is read
    # Then ConfigError (not a TypeError or AttributeError)
    config_error(data)


@pytest.mark.parametrize("hours", [1, 72, 8760])
def test_dedup_ttl_hours_accepts_whole_hours_in_range(hours):
    # Given a TTL from 1 to 8760 hours
    # When it is read
    # Then it is taken
    assert Config.from_dict({"dedup_ttl_hours": hours}).dedup_ttl_hours == hours


# --- allowed_endpoints ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("allowed", "endpoint", "expected"),
    [
        ([], "anyone@anywhere.org", True),
        ([], "+4915155550100", True),
        (["ml@example.com"], "ml@example.com", True),
        (["ml@example.com"], "ML@Example.COM", True),  # case-insensitive
        (["ML@EXAMPLE.COM"], "ml@example.com", True),
        (["*@example.com"], "first.last@example.com", True),
        (["*@example.com"], "x@example.org", False),
        (["*@example.com"], "x@sub.example.com", False),
        (["*@*.example.com"], "x@sub.example.com", True),
        (["+1555*"], "+15555550100", True),
        (["+1555*"], "+4415555550100", False),
        (["ml@example.com", "+1555*"], "ops@example.com", False),
    ],
)
def test_endpoint_allowed(allowed, endpoint, expected):
    # Given an allow-list ([] means any)
    config = Config.from_dict({"allowed_endpoints": allowed})

    # When an endpoint is checked
    # Then it is allowed exactly when it matches one glob, case-insensitively
    assert endpoint_allowed(config, endpoint) is expected


@pytest.mark.parametrize(
    ("data", "endpoint"),
    [
        ({"notify": {"emails": ["team@other.org"]}}, "team@other.org"),
        ({"notify": {"sms": ["+4415555550100"]}}, "+4415555550100"),
        ({"rules": {"Loss": [{"name": "email", "endpoint": "ml@other.org"}]}}, "ml@other.org"),
        ({"rules": {"*": [{"name": "sms", "endpoint": "+4415555550100"}]}}, "+4415555550100"),
    ],
)
def test_configured_endpoints_must_be_in_allowed_endpoints(data, endpoint):
    # Given an endpoint in the configuration outside its own allow-list
    data = {**data, "allowed_endpoints": ["*@example.com", "+1*"]}

    # When it is read
    message = config_error(data)

    # Then the error names the endpoint and allowed_endpoints
    assert endpoint in message
    assert "allowed_endpoints" in message


def test_configured_endpoints_inside_allowed_endpoints_are_accepted():
    # Given configured endpoints that match the allow-list (in another case)
    data = {
        "allowed_endpoints": ["*@example.com", "+1*"],
        "notify": {"emails": ["Team@Example.com"], "sms": ["+15555550100"]},
        "rules": {"Loss": [{"name": "email", "endpoint": "ML@EXAMPLE.COM"}]},
    }

    # When it is read
    config = Config.from_dict(data)

    # Then it is accepted, addresses kept as written
    assert config.value("notify")[0] == ("Team@Example.com",)
    assert rule_status.actions_for(config, "Loss") == (Action(EMAIL, "ML@EXAMPLE.COM"),)


# --- rule lookup ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "rule", "expected"),
    [
        # exact name beats an earlier glob
        ({"Loss*": ["notify"], "LossNotDecreasing": ["stoptraining"]}, "LossNotDecreasing", (Action(STOP),)),
        # first glob in file order wins
        ({"Loss*": ["stoptraining"], "L*": ["notify"]}, "LossNotDecreasing", (Action(STOP),)),
        ({"L*": ["notify"], "Loss*": ["stoptraining"]}, "LossNotDecreasing", (Action(NOTIFY),)),
        # `*` is last even when written first
        ({"*": ["notify"], "Loss*": ["stoptraining"]}, "LossNotDecreasing", (Action(STOP),)),
        ({"*": ["notify"], "Loss*": ["stoptraining"]}, "Overfit", (Action(NOTIFY),)),
        # ? and [] globs
        ({"Profiler?eport": ["stoptraining"], "*": ["notify"]}, "ProfilerReport", (Action(STOP),)),
        ({"[LV]*": ["stoptraining"], "*": ["notify"]}, "VanishingGradient", (Action(STOP),)),
        # no match and no `*`: nothing
        ({"Loss*": ["stoptraining"]}, "Overfit", ()),
        ({}, "Overfit", ()),
        # a rule mapped to nothing explicitly
        ({"Overfit": [], "*": ["notify"]}, "Overfit", ()),
    ],
)
def test_actions_for_rule(rules, rule, expected):
    # Given a rules table
    config = Config.from_dict({"rules": rules})

    # When a rule's actions are looked up
    # Then exact name first, else the first glob in file order, `*` last
    assert rule_status.actions_for(config, rule) == expected


def test_rule_entries_keep_their_order_and_drop_duplicates():
    # Given a rule listing the same action twice, one spelt differently
    config = Config.from_dict({"rules": {"Loss": ["notify", "stoptraining", "StopTraining", {"name": "notify"}]}})

    # When it is looked up
    # Then each action appears once, in first-seen order
    assert rule_status.actions_for(config, "Loss") == (Action(NOTIFY), Action(STOP))


# --- job scope -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefixes", "job", "expected"),
    [
        ([], "anything-at-all", True),
        (["team-a-"], "team-a-bert-001", True),
        (["team-a-"], "team-b-bert-001", False),
        (["team-a-", "team-b-"], "team-b-bert-001", True),
        (["team-a-"], "x-team-a-bert", False),  # a prefix, not a substring
    ],
)
def test_job_in_scope(prefixes, job, expected):
    # Given training_job_prefixes
    config = Config.from_dict({"training_job_prefixes": prefixes})

    # When a job is checked
    # Then it is in scope when any prefix starts its name ([] = every job)
    assert TRAINING.in_scope(config, job) is expected


# --- canonical form ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"rules": {}},
        {"rules": {"*": ["notify"], "Loss*": ["stoptraining"], "LossNotDecreasing": [{"name": "stoptraining", "training_job_prefix": "Exp-A"}]}},
        {
            "notify": {"emails": ["Team@Example.com"], "sms": ["+15555550100"]},
            "rules": {"Overfit": [{"name": "EMAIL", "endpoint": "ML@example.com"}, {"name": "sms", "endpoint": "+15555550101"}, "notify"]},
            "allowed_endpoints": ["*@example.com", "+1555*"],
            "training_job_prefixes": ["team-a-"],
            "dedup_ttl_hours": 1,
            "honor_action_json": False,
            "stop_all_matching": True,
            "allow_cross_job_stop": True,
            "act_on_replays": True,
            "notify_on_rule_error": False,
            "dry_run": True,
        },
    ],
    ids=["empty", "no rules", "globs and prefixes", "every key"],
)
def test_to_dict_round_trips(data):
    # Given a configuration read from a dict
    config = Config.from_dict(data)

    # When it is written to its canonical form (through JSON, as the stack passes it) and read back
    canonical = config.to_dict()
    again = Config.from_dict(json.loads(json.dumps(canonical)))

    # Then it is the same configuration, and the canonical form has every key
    assert again == config
    assert again.to_dict() == canonical
    assert set(canonical) == set(SPEC_KEYS)
    assert Config.from_json(config.to_json()) == config


def test_to_dict_keeps_rule_order():
    # Given rules in a particular file order (order matters for globs)
    config = Config.from_dict({"rules": {"L*": ["notify"], "Loss*": ["stoptraining"]}})

    # When written and read back
    again = Config.from_dict(config.to_dict())

    # Then the first glob still wins
    assert list(config.to_dict()["rules"]) == ["L*", "Loss*"]
    assert rule_status.actions_for(again, "LossNotDecreasing") == (Action(NOTIFY),)


# --- Settings.from_env ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("drop", "missing"),
    [
        (("RULE_ACTIONS_TOPIC_ARN",), ("RULE_ACTIONS_TOPIC_ARN",)),
        (("RULE_ACTIONS_LEDGER_TABLE",), ("RULE_ACTIONS_LEDGER_TABLE",)),
        (("RULE_ACTIONS_TOPIC_ARN", "RULE_ACTIONS_LEDGER_TABLE"), ("RULE_ACTIONS_TOPIC_ARN", "RULE_ACTIONS_LEDGER_TABLE")),
    ],
)
@pytest.mark.parametrize("how", ["absent", "empty"])
def test_settings_name_the_missing_variables(drop, missing, how):
    # Given an environment without some required variables
    env = {k: v for k, v in ENV.items() if k not in drop} if how == "absent" else {**ENV, **{k: "" for k in drop}}

    # When settings are read
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)

    # Then the error names exactly the missing ones
    message = str(caught.value)
    for name in ENV:
        assert (name in message) is (name in missing)


def test_settings_read_the_environment():
    # Given a complete environment with a configuration
    env = {**ENV, "AWS_REGION": "eu-west-1", "RULE_ACTIONS_CONFIG": json.dumps({"dry_run": True, "notify": {"emails": ["t@example.com"]}})}

    # When settings are read
    settings = Settings.from_env(env)

    # Then every value is taken
    assert settings.topic_arn == ENV["RULE_ACTIONS_TOPIC_ARN"]
    assert settings.ledger_table == ENV["RULE_ACTIONS_LEDGER_TABLE"]
    assert settings.region == "eu-west-1"
    assert settings.config.dry_run is True
    assert settings.config.value("notify")[0] == ("t@example.com",)


def test_settings_without_a_configuration_use_the_defaults():
    # Given no RULE_ACTIONS_CONFIG
    # When settings are read
    settings = Settings.from_env(dict(ENV))

    # Then the configuration is the default one
    assert settings.config == Config.from_dict({})


@pytest.mark.parametrize(("text", "fragment"), [("{not json", "RULE_ACTIONS_CONFIG"), ('{"dry_run": "yes"}', "dry_run")])
def test_settings_with_a_bad_configuration_raise_config_error(text, fragment):
    # Given a configuration that is not JSON or not valid
    env = {**ENV, "RULE_ACTIONS_CONFIG": text}

    # When settings are read
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)

    # Then the error says where
    assert fragment in str(caught.value)


def test_settings_read_a_configuration_the_code_ships(tmp_path):
    # Given a configuration in a file of the function's code, named by the environment
    (tmp_path / "rule-actions-config.json").write_text(json.dumps({"dry_run": True}))
    env = {**ENV, "RULE_ACTIONS_CONFIG_FILE": "rule-actions-config.json", "LAMBDA_TASK_ROOT": str(tmp_path)}

    # When settings are read / Then it is the configuration
    assert Settings.from_env(env).config == Config.from_dict({"dry_run": True})

    # and a file that is not there is one error naming the variable and the file
    with pytest.raises(ConfigError, match=r"^RULE_ACTIONS_CONFIG_FILE: missing.json cannot be read"):
        Settings.from_env({**env, "RULE_ACTIONS_CONFIG_FILE": "missing.json"})
    with pytest.raises(ConfigError, match=r"RULE_ACTIONS_CONFIG_FILE \(rule-actions-config.json\)"):
        (tmp_path / "rule-actions-config.json").write_text('{"dry_run": "yes"}')
        Settings.from_env(env)


def test_to_json_keeps_the_order_of_rules_which_decides_the_glob():
    # Given two globs that both match "LossNotDecreasing", the first one written first
    config = Config.from_dict({"rules": {"Loss*": ["stoptraining"], "*Decreasing": ["notify"], "*": []}})

    # When it goes through the function's environment and back
    again = Config.from_json(config.to_json())

    # Then the first glob in file order still wins
    assert again == config
    assert [a.kind for a in rule_status.actions_for(again, "LossNotDecreasing")] == ["stoptraining"]


# --- job_outcomes --------------------------------------------------------------------------------------------


def test_job_outcomes_map_each_outcome_to_actions_in_file_order():
    # Given job_outcomes with bare names, action objects and an empty list
    config = Config.from_dict({"job_outcomes": {
        "Interrupted": ["notify"],
        "Failed": ["notify", {"name": "email", "endpoint": "oncall@example.com"}, "notify"],
        "Completed": [],
    }})

    # Then each outcome has its actions (a repeat once), in file order, and the canonical form round-trips
    assert job_outcome.actions_for(config, TRAINING, "Failed") == (Action(NOTIFY), Action(EMAIL, "oncall@example.com"))
    assert job_outcome.actions_for(config, TRAINING, "Completed") == () and job_outcome.actions_for(config, TRAINING, "Stopped") == ()
    assert list(config.to_dict()["job_outcomes"]) == ["Interrupted", "Failed", "Completed"]
    assert Config.from_json(config.to_json()) == config


def test_job_outcomes_default_to_none():
    assert Config().value("job_outcomes") == () and Config().to_dict()["job_outcomes"] == {}


@pytest.mark.parametrize(("outcomes", "mentions"), [
    ({"failed": ["notify"]}, ['job_outcomes["failed"]', 'unknown job outcome; did you mean "Failed"?']),
    ({"Timeout": ["notify"]}, ['job_outcomes["Timeout"]', "unknown job outcome"]),
    ({"Failed": ["stoptraining"]}, ['job_outcomes["Failed"][0].name', "cannot be attached to a job outcome",
                                   "attach it to a rule"]),
    ({"Failed": [{"name": "StopTraining", "training_job_prefix": "exp-"}]}, ["cannot be attached to a job outcome"]),
    ({"Failed": [{"name": "email", "endpoint": "not-an-email"}]}, ['job_outcomes["Failed"][0].endpoint',
                                                                  "not an email address"]),
    ({"Failed": "notify, email"}, ['job_outcomes["Failed"].name', "unknown action"]),
    (["Failed"], ["job_outcomes", "must be an object of job outcome -> actions"]),
])
def test_invalid_job_outcomes_name_the_field_and_what_is_allowed(outcomes, mentions):
    message = config_error({"job_outcomes": outcomes})
    for text in mentions:
        assert text in message, message


def test_job_outcome_endpoints_follow_the_allowlist():
    message = config_error({"allowed_endpoints": ["*@example.com"],
                            "job_outcomes": {"Failed": [{"name": "sms", "endpoint": "+15555550100"}]}})
    assert 'rule_actions.job_outcomes["Failed"]: +15555550100 is not in allowed_endpoints' in message


def test_rule_statuses_follow_notify_on_rule_error():
    assert rule_status.statuses(Config()) == ("IssuesFound", "Error")
    assert rule_status.statuses(Config.from_dict({"notify_on_rule_error": False})) == ("IssuesFound",)


# --- warnings: valid, but probably not meant -----------------------------------------------------------------


def test_builtin_rules_are_the_sdks():
    # Given the real smdebug-rulesconfig 1.0.1: its Debugger rule functions and Profiler rule classes
    import inspect

    import smdebug_rulesconfig.debugger_rules.builtin_rules as debugger
    import smdebug_rulesconfig.profiler_rules.rules as profiler

    names = [f()["DebugRuleConfiguration"]["RuleConfigurationName"] for n, f in vars(debugger).items()
             if inspect.isfunction(f) and f.__module__ == debugger.__name__ and not n.startswith("_")]
    names += [n for n, c in vars(profiler).items()
              if inspect.isclass(c) and issubclass(c, profiler.ProfilerRuleBase) and c is not profiler.ProfilerRuleBase]

    # Then the configuration knows the same names
    assert sorted(names) == sorted(BUILTIN_RULES)


def rule_warnings(data) -> list[str]:
    return [w for w in Config.from_dict(data).warnings() if ".rules[" in w]


@pytest.mark.parametrize(("key", "named"), [("profiler*", "ProfilerReport"), ("stalled*", "StalledTraining"),
                                            ("*gpu*", "LowGPUUtilization")])
def test_a_rule_glob_that_matches_a_known_rule_only_in_another_case_is_warned(key, named):
    warnings = rule_warnings({"rules": {key: ["notify"], "*": []}})
    assert len(warnings) == 1
    assert json.dumps(key) in warnings[0] and named in warnings[0] and "fall through" in warnings[0]


@pytest.mark.parametrize("key", ["VanishingGradient", "Loss*", "*", "StalledTraining", "Budget", "Stalled*",
                                 "StalledTrainingRule", "Low?PUUtilization"])
def test_keys_that_name_or_match_a_builtin_or_monitor_rule_as_written_are_not_warned(key):
    assert rule_warnings({"rules": {key: ["notify"]}}) == []


@pytest.mark.parametrize(("key", "meant"), [
    ("StaledTraining", "StalledTraining"),  # the issue's: its notification never went
    ("stalledtraining", "StalledTraining"),  # another case: names are matched with their case
    ("VanishingGradinet", "VanishingGradient"),  # two letters swapped
    ("vanishinggradient", "VanishingGradient"),
    ("LOSSNOTDECREASING", "LossNotDecreasing"),
    ("LowGPUUtilisation", "LowGPUUtilization"),
    ("StalledTrainingRul", "StalledTrainingRule"),
    ("Overfitt", "Overfit"),  # a short name: one edit
    ("Budgte", "Budget"),
])
def test_a_rule_name_a_typo_away_from_a_known_rule_is_an_error_naming_it(key, meant):
    # Given a rules key one or two edits from a built-in or monitor rule's name
    # When the configuration is read / Then it is refused, the key meant named and the way out given
    message = config_error({"rules": {key: ["notify"], "*": ["notify"]}})
    assert (f'rule_actions.rules[{json.dumps(key)}]: no built-in or monitor rule is named {json.dumps(key)}; '
            f'did you mean {json.dumps(meant)}? (A custom Debugger rule of exactly this name: list it in '
            "rule_actions.custom_rules.)") in message


def test_a_custom_rule_named_a_typo_away_is_accepted_when_custom_rules_lists_it():
    # Given a custom Debugger rule really named one letter from a built-in one, listed in custom_rules
    config = Config.from_dict({"rules": {"Overfitt": ["notify"], "MyRule": ["notify"], "My*": ["notify"]},
                               "custom_rules": ["Overfitt", "MyRule"]})
    # Then it is read, nothing is warned of, and its actions are attached to that name
    assert rule_warnings({"rules": {"Overfitt": ["notify"], "MyRule": ["notify"], "My*": ["notify"]},
                          "custom_rules": ["Overfitt", "MyRule"]}) == []
    assert rule_status.actions_for(config, "Overfitt") == (Action("notify"),)
    assert config.to_dict()["custom_rules"] == ["Overfitt", "MyRule"]
    assert Config.from_json(config.to_json()) == config
    # and custom_rules is a list of names
    assert 'rule_actions.custom_rules: "Overfitt" is not a list of non-empty strings' in config_error(
        {"custom_rules": "Overfitt"})


@pytest.mark.parametrize(("key", "said"), [
    ("MyCustomRule", 'no built-in or monitor rule is named "MyCustomRule": it acts only for a custom Debugger rule '
                     "of that name. If it is one, list it in rule_actions.custom_rules; if not, correct the name."),
    ("Overfitting", 'no built-in or monitor rule is named "Overfitting" (did you mean "Overfit"?): it acts only for '
                    "a custom Debugger rule of that name"),
    ("LossNotDecreasingCustom", '(did you mean "LossNotDecreasing"?)'),
])
def test_a_rule_name_no_rule_has_and_no_typo_is_warned_as_a_custom_rule(key, said):
    # Given a rules key that names no known rule and is too far from each to be a typo
    # When the configuration is read / Then it is valid (a custom Debugger rule may be named anything), and warned
    [warning] = rule_warnings({"rules": {key: ["notify"]}})
    assert warning.startswith(f"rule_actions.rules[{json.dumps(key)}]: ") and said in warning


def test_a_glob_that_matches_no_known_rule_is_warned():
    [warning] = rule_warnings({"rules": {"Staled*": ["notify"]}})
    assert warning == ('rule_actions.rules["Staled*"] matches no built-in or monitor rule: it acts only for the '
                       "custom Debugger rules it matches. If that is meant, list them in rule_actions.custom_rules.")
    assert rule_warnings({"rules": {"Staled*": ["notify"]}, "custom_rules": ["StaledCheck"]}) == []


def test_a_configuration_of_builtin_rule_names_never_imports_the_monitor_rules():
    # Given rules naming built-in rules, globs matching them and custom rules listed (the Lambda's cold start)
    config = Config.from_dict({"rules": {"VanishingGradient": [], "Loss*": [], "Mine": [], "*": []},
                               "custom_rules": ["Mine"]})
    asked = []
    # When its names are checked / Then the monitor rules' names are never asked for
    assert rule_status.rule_names(config, "w", lambda: asked.append(1) or ()) == ([], [])
    assert asked == []


@pytest.mark.parametrize(("field", "key", "meant"), [
    ("job_outcomes", "Faild", "Failed"),
    ("job_outcomes", "MaxRuntimeExceded", "MaxRuntimeExceeded"),
    ("tuning_job_outcomes", "failed", "Failed"),
    ("processing_job_outcomes", "Stoped", "Stopped"),
    ("transform_job_outcomes", "Complete", "Completed"),
    ("pipeline_outcomes", "CompletedWithFailure", "CompletedWithFailures"),
])
def test_a_misspelt_job_outcome_is_an_error_naming_the_outcome_meant(field, key, meant):
    message = config_error({field: {key: ["notify"]}})
    assert f'rule_actions.{field}[{json.dumps(key)}]: unknown ' in message
    assert f"did you mean {json.dumps(meant)}?" in message


@pytest.mark.parametrize(("name", "said"), [
    ("StaledTraining", '"StaledTraining" is not a rule rule-actions evaluates; did you mean "StalledTraining"?'),
    ("StalledTrainingRule", "it is called StalledTraining here"),
    ("lowgpuutilization", 'did you mean "LowGPUUtilization"?'),
    ("VanishingGradient", "cannot be computed without Debugger"),
    ("Nope", "is not a rule rule-actions evaluates; rules: StalledTraining, LowGPUUtilization"),
])
def test_a_misspelt_monitor_rule_is_an_error_naming_the_rule_meant(name, said):
    message = config_error({"monitor": {"rules": {name: {}}}})
    assert f'rule_actions.monitor.rules[{json.dumps(name)}]: {json.dumps(name)} ' in message and said in message


def test_synth_warns_what_a_default_configuration_leaves_unreachable_and_allows():
    # Given rule-actions.json's defaults: no team, no allowlist
    warnings = Config.from_dict({}).warnings()
    # Then: notify and the alarms reach nobody; action_json may email any address, text only configured numbers
    [unreachable, allows] = warnings
    assert unreachable.startswith("unreachable: rule_actions.notify lists no emails or sms")
    assert "`notify` is skipped" in unreachable and "the alarms" in unreachable and "OpsTopicArn" in unreachable
    assert allows.startswith("allows: rule_actions.allowed_endpoints is empty")
    assert "email any address" in allows and "allow_any_sms is false" in allows


def test_a_team_and_an_allowlist_leave_nothing_to_warn_of():
    config = Config.from_dict({"notify": {"emails": ["ml@example.com"]}, "allowed_endpoints": ["*@example.com"]})
    assert config.warnings() == []


def test_allow_any_sms_is_warned_of_as_a_cost_and_as_useless_beside_an_allowlist():
    [_, allows] = Config.from_dict({"allow_any_sms": True}).warnings()
    assert "any phone number" in allows and "billed" in allows
    [useless] = Config.from_dict({"notify": {"emails": ["a@example.com"]}, "allow_any_sms": True,
                                  "allowed_endpoints": ["*@example.com"]}).warnings()
    assert useless == "rule_actions.allow_any_sms has no effect: allowed_endpoints is set, and every number must match it."


def test_can_text_when_a_number_is_configured_any_is_allowed_or_the_allowlist_may_match_one():
    assert not can_text(Config.from_dict({}))
    assert not can_text(Config.from_dict({"allowed_endpoints": ["*@example.com"]}))
    for data in ({"notify": {"sms": ["+15555550100"]}}, {"allow_any_sms": True}, {"allowed_endpoints": ["+44*"]},
                 {"rules": {"*": [{"name": "sms", "endpoint": "+15555550100"}]}}):
        assert can_text(Config.from_dict(data)), data


SWITCHES_QUIET = {"notify": {"emails": ["ml@example.com"]}, "allowed_endpoints": ["*@example.com"]}  # no other warning
TRIALS_FAIL_SILENTLY = (
    "rule_actions.job_outcomes.Failed has actions, but a tuning job's trials report through their tuning job "
    "(rule_actions.tuning_trials_alert is false and rule_actions.tuning_job_outcomes attaches actions) and "
    "rule_actions.tuning_job_outcomes.Failed attaches nothing: a tuning job whose trials fail reports nothing on "
    "failure. Give tuning_job_outcomes.Failed actions (one message per tuning job, naming its failed trials), or set "
    "tuning_trials_alert true (every trial's failure alerts through job_outcomes).")
STEPS_ALERT_ALONE = (
    "rule_actions.pipeline_step_jobs_alert is false, but rule_actions.pipeline_outcomes attaches no actions: no "
    "pipeline execution reports for the jobs its steps launch, so they report their outcomes on their own, through "
    "their family's outcomes (job_outcomes, processing_job_outcomes...). Give pipeline_outcomes actions (Failed, "
    "CompletedWithFailures: one message per execution, naming every failed step) for only the execution to report "
    "them, or set pipeline_step_jobs_alert true.")

BATCH_OFF = (
    "rule_actions.batch_job_outcomes gives actions to Failed, Preempted, but rule_actions.batch_queues names no job "
    "queue: the AWS Batch family is off and none of them is ever told. Name the queues to follow in batch_queues.")


@pytest.mark.parametrize(("settings", "warned"), [
    # a failed trial is held back for its tuning job, which says nothing when it fails
    ({"job_outcomes": {"Failed": ["notify"]}, "tuning_job_outcomes": {"Completed": ["notify"]}}, [TRIALS_FAIL_SILENTLY]),
    # the fixes: the tuning job reports its failure, the trials alert on their own, or the tuning family is off
    ({"job_outcomes": {"Failed": ["notify"]}, "tuning_job_outcomes": {"Completed": ["notify"], "Failed": ["notify"]}}, []),
    ({"job_outcomes": {"Failed": ["notify"]}, "tuning_job_outcomes": {"Completed": ["notify"]},
      "tuning_trials_alert": True}, []),
    ({"job_outcomes": {"Failed": ["notify"]}}, []),
    # nothing to lose: job_outcomes says nothing of failures
    ({"job_outcomes": {"Completed": ["notify"]}, "tuning_job_outcomes": {"Completed": ["notify"]}}, []),
    # pipeline_step_jobs_alert false with nothing reporting for the step jobs
    ({"pipeline_step_jobs_alert": False}, [STEPS_ALERT_ALONE]),
    ({"pipeline_step_jobs_alert": False, "job_outcomes": {"Failed": ["notify"]},
      "pipeline_outcomes": {"Succeeded": []}}, [STEPS_ALERT_ALONE]),
    ({"pipeline_step_jobs_alert": False, "pipeline_outcomes": {"Failed": ["notify"]}}, []),
    ({"pipeline_outcomes": {"Failed": ["notify"]}}, []),
    # Batch outcomes with no queue followed: the family is off, none of them is ever told
    ({"batch_job_outcomes": {"Failed": ["notify"], "Preempted": ["notify"], "Succeeded": []}}, [BATCH_OFF]),
    ({"batch_job_outcomes": {"Failed": ["notify"]}, "batch_queues": ["gpu-training"]}, []),
    ({"batch_job_outcomes": {"Failed": []}}, []),
])
def test_synth_warns_where_an_outcome_switch_would_surprise(settings, warned):
    assert Config.from_dict({**SWITCHES_QUIET, **settings}).warnings() == warned


# --- chat channels and webhooks --------------------------------------------------------------------------------

SLACK = {"workspace_id": "T0123ABCD", "channel_id": "C0123ABCD"}
TEAMS = {"tenant_id": "0a1b2c3d-0000-4000-8000-000000000001", "team_id": "0a1b2c3d-0000-4000-8000-000000000002",
         "channel_id": "19%3aabc%40thread.tacv2"}
HOOKS = {"ml-alerts": {"secret": "rule-actions/ml-alerts", "format": "json"},
         "oncall": {"secret": "arn:aws:secretsmanager:eu-west-1:111122223333:secret:oncall-AbCdEf", "format": "slack"}}


def test_chat_and_webhooks_round_trip():
    data = {"chat": {"slack": [SLACK], "teams": [TEAMS]}, "webhooks": HOOKS,
            "job_outcomes": {"Failed": ["notify", {"name": "webhook", "endpoint": "ml-alerts"}]}}
    config = Config.from_dict(data)
    assert [c.platform for c in config.chat] == ["slack", "teams"]
    assert [(w.name, w.format) for w in config.value("webhooks")] == [("ml-alerts", "json"), ("oncall", "slack")]
    assert Config.from_json(config.to_json()) == config
    assert config.to_dict()["chat"] == {"slack": [SLACK], "teams": [TEAMS]}
    assert config.to_dict()["webhooks"] == HOOKS


@pytest.mark.parametrize(("data", "message"), [
    ({"chat": {"slack": [{"workspace_id": "t0123", "channel_id": "C0123ABCD"}]}},
     "rule_actions.chat.slack[0].workspace_id: \"t0123\" is not the Slack workspace id"),
    ({"chat": {"slack": [{"channel_id": "C0123ABCD"}]}}, "rule_actions.chat.slack[0]: "),
    ({"chat": {"teams": [{**TEAMS, "channel_id": "19:abc@thread.tacv2"}]}},
     "rule_actions.chat.teams[0].channel_id: \"19:abc@thread.tacv2\" is not the channel id"),
    ({"chat": {"teams": [{**TEAMS, "tenant_id": "1234"}]}}, "rule_actions.chat.teams[0].tenant_id: \"1234\" is not a Microsoft tenant id"),
    ({"chat": {"discord": []}}, "rule_actions.chat.discord: unknown key; allowed: slack, teams"),
    ({"chat": {"slack": [SLACK, SLACK]}}, "rule_actions.chat: a channel is listed twice"),
    ({"webhooks": {"bad name!": {"secret": "s", "format": "json"}}}, "rule_actions.webhooks[\"bad name!\"]: a webhook name"),
    ({"webhooks": {"a": {"secret": "s", "format": "xml"}}}, "rule_actions.webhooks[\"a\"].format: \"xml\" is not one of slack, teams, json"),
    ({"webhooks": {"a": {"secret": "arn:aws:s3:::bucket", "format": "json"}}}, "rule_actions.webhooks[\"a\"].secret: \"arn:aws:s3:::bucket\" is not a Secrets Manager"),
    ({"webhooks": {"a": {"secret": "s", "format": "json", "url": "https://x"}}}, "must be an object with exactly the keys secret, format"),
    ({"job_outcomes": {"Failed": [{"name": "webhook", "endpoint": "nope"}]}},
     "rule_actions.job_outcomes[\"Failed\"]: webhook \"nope\" is not declared in webhooks (declared: none)"),
    ({"rules": {"*": [{"name": "webhook"}]}}, "rule_actions.rules[\"*\"][0].endpoint: null is not a webhook name"),
])
def test_bad_chat_and_webhooks_are_named(data, message):
    with pytest.raises(ConfigError) as err:
        Config.from_dict(data)
    assert message in str(err.value)


def test_a_webhook_is_refused_in_action_json():
    from rule_actions.grammar import parse_action_json

    actions, invalid = parse_action_json('[{"name": "webhook", "endpoint": "ml-alerts"}]')
    assert not actions and "only for the stack's configuration" in invalid[0].reason


def test_settings_need_the_chat_topic_when_chat_is_configured():
    env = {"RULE_ACTIONS_TOPIC_ARN": "arn:aws:sns:us-east-1:1:t", "RULE_ACTIONS_LEDGER_TABLE": "t",
           "RULE_ACTIONS_CONFIG": json.dumps({"chat": {"slack": [SLACK]}})}
    with pytest.raises(ConfigError, match="RULE_ACTIONS_CHAT_TOPIC_ARN"):
        Settings.from_env(env)
    assert Settings.from_env({**env, "RULE_ACTIONS_CHAT_TOPIC_ARN": "arn:chat"}).chat_topic_arn == "arn:chat"


def test_without_a_team_notify_still_reaches_the_chat_channels_and_the_warning_says_so():
    # Given no team emails or numbers, but a Slack channel
    [unreachable, _] = Config.from_dict({"chat": {"slack": [SLACK]}}).warnings()
    # Then the warning says notify reaches the channels only (not that it is skipped)
    assert "`notify` reaches only the chat channels" in unreachable and "is skipped" not in unreachable
