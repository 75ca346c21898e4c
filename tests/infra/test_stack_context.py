"""Reading the context: the configuration file and its blocks, `-c` overrides as JSON strings, and the one clear message
(exit status 1, no traceback) that `cdk synth` shows for an invalid block."""

import json
import os
import subprocess
import sys

import pytest
from stack_helpers import ROOT

from rule_actions.config import Config, ConfigError
from rule_actions_cdk.app import build_app, feature_flags, project_context, read_context
from rule_actions_cdk.settings import LOG_RETENTION_DAYS, StackSettings, context_object


def test_the_configuration_file_is_the_defaults_with_the_useful_job_outcomes():
    # rule-actions.json: Config's defaults, but for the job outcomes it notifies (none by default), and its stack
    context = project_context(ROOT / "rule-actions.json")
    config, settings = read_context(context)
    outcomes = {"Failed": ["notify"], "MaxRuntimeExceeded": ["notify"], "MaxWaitTimeExceeded": ["notify"],
                "Interrupted": ["notify"]}
    assert Config().value("job_outcomes") == () and config == Config.from_dict({"job_outcomes": outcomes})
    assert settings == StackSettings() and settings.stack_name == "RuleActions"
    assert settings.reserved_concurrency is None and settings.log_retention_days == 90
    assert json.loads((ROOT / "rule-actions.json").read_text())["$schema"] == "schemas/config.schema.json"


def test_cdk_json_holds_only_cdks_feature_flags_the_package_ships_too():
    cdk_json = json.loads((ROOT / "cdk.json").read_text())
    assert cdk_json["app"] == ".venv/bin/python app.py"
    flags = cdk_json["context"]
    assert all(key.startswith("@aws-cdk") for key in flags), [k for k in flags if not k.startswith("@aws-cdk")]
    assert "@aws-cdk/core:validateAgainstDefaultRules" in flags and len(flags) > 80
    assert feature_flags() == flags  # the command synthesizes with the same flags wherever it runs


def test_json_strings_from_the_command_line_are_accepted():
    assert context_object('{"dry_run": true}', "rule_actions") == {"dry_run": True}
    assert context_object({"dry_run": True}, "rule_actions") == {"dry_run": True}
    assert context_object(None, "rule_actions") is None
    config, _ = read_context({"rule_actions": '{"notify": {"emails": ["ml@example.com"]}}'})
    assert config.value("notify")[0] == ("ml@example.com",)


def test_a_value_that_is_not_json_names_the_key():
    with pytest.raises(ConfigError, match=r"^rule_actions_stack: the context value is not JSON .*-c rule_actions_stack="):
        read_context({"rule_actions_stack": "{stack_name: x}"})


@pytest.mark.parametrize(("block", "message"), [
    ({"stack_name": "1st"}, "rule_actions_stack.stack_name: \"1st\" is not a stack name"),
    ({"stack_name": "x" * 41}, "at most 40 characters"),
    ({"reserved_concurrency": 0}, "rule_actions_stack.reserved_concurrency: 0 is not null (no reservation) or a whole number from 1 to 1000"),
    ({"reserved_concurrency": True}, "rule_actions_stack.reserved_concurrency: true"),
    ({"log_retention_days": 2}, "rule_actions_stack.log_retention_days: 2 is not a retention CloudWatch Logs allows"),
    ({"powertools_layer": None}, "rule_actions_stack.powertools_layer: removed: Powertools is bundled into the function's code"),
    ({"stack": "x"}, 'rule_actions_stack.stack: unknown key; did you mean "stack_name"?'),
        ({"colour": "x"}, "rule_actions_stack.colour: unknown key; allowed: stack_name, reserved_concurrency, log_retention_days"),
    ([], "rule_actions_stack: must be an object"),
])
def test_invalid_stack_settings_name_the_key_and_what_is_allowed(block, message):
    with pytest.raises(ConfigError) as failure:
        StackSettings.from_dict(block)
    assert message in str(failure.value)


def test_valid_stack_settings():
    assert StackSettings.from_dict({"reserved_concurrency": 2, "log_retention_days": None}).log_retention_days is None
    for days in LOG_RETENTION_DAYS:
        assert StackSettings.from_dict({"log_retention_days": days}).log_retention_days == days


def test_every_problem_is_reported_at_once():
    with pytest.raises(ConfigError) as failure:
        StackSettings.from_dict({"stack_name": "", "reserved_concurrency": -1, "log_retention_days": "90"})
    assert str(failure.value).count("\n  rule_actions_stack.") == 3


def synth(context):
    """`cdk synth` runs app.py with the merged context in CDK_CONTEXT_JSON; so does this."""
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps(context), "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"}
    return subprocess.run([sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_an_invalid_rule_actions_block_stops_synth_with_one_clear_message():
    context = {**project_context(), "rule_actions": '{"rules": {"*": ["reboot"]}, "dedup_ttl_hours": 0}'}
    result = synth(context)
    assert result.returncode == 1
    assert result.stderr.startswith("invalid configuration:\n  rule_actions.")
    assert "rule_actions.dedup_ttl_hours: 0 is not a whole number of hours from 1 to 8760" in result.stderr
    assert "rule_actions.rules[\"*\"]" in result.stderr and "reboot" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_misspelt_rule_name_stops_synth_naming_the_rule_meant():
    # Given the configuration: its notification would never go
    result = synth({**project_context(), "rule_actions": {"rules": {"StaledTraining": ["notify"]}}})
    # Then synth fails, naming the rule meant and the way out for a custom rule so named
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr == (
        'invalid configuration:\n  rule_actions.rules["StaledTraining"]: no built-in or monitor rule is named '
        '"StaledTraining"; did you mean "StalledTraining"? (A custom Debugger rule of exactly this name: list it in '
        "rule_actions.custom_rules.)\n")


def test_an_invalid_rule_actions_stack_block_stops_synth_with_one_clear_message():
    result = synth({**project_context(), "rule_actions_stack": {"log_retention_days": 45}})
    assert result.returncode == 1
    assert result.stderr == (
        "invalid stack settings:\n  rule_actions_stack.log_retention_days: 45 is not a retention CloudWatch Logs "
        f"allows: null (never expire) or one of {', '.join(map(str, LOG_RETENTION_DAYS))}\n"
    )


def test_synth_warns_of_a_rule_glob_in_the_wrong_case_and_still_synthesizes(tmp_path, capsys):
    # Given a rules glob that matches a built-in rule only in another case (a name in another case is an error)
    context = {**project_context(), "rule_actions": {"rules": {"vanishing*": ["stoptraining"], "*": ["notify"]}}}

    # When the app synthesizes with cdk-nag, as app.py does (into a folder of its own; in this process: a process of
    # its own starts jsii and CDK's template validation anew, 13 s of CPU; app.py's exit status and stderr on a
    # configuration's problems are the tests above)
    app, _ = build_app(context, outdir=str(tmp_path))
    app.synth()

    # Then it succeeds, and one readable block names the key and the rule it probably means
    assert (tmp_path / "manifest.json").is_file()
    err = capsys.readouterr().err
    assert "rule-actions: the configuration is valid, but:" in err
    assert 'rule_actions.rules["vanishing*"]' in err and "VanishingGradient" in err


def test_a_null_stack_setting_given_as_an_object_keeps_its_meaning():
    # Given the stack settings as an object (as `rule-actions template` and the replay pass a file's "stack" block),
    # with log_retention_days null: never expire (jsii drops an object's null members on the way into cdk.App)
    from aws_cdk.assertions import Template

    context = {**project_context(), "rule_actions_stack": {"stack_name": "Forever", "log_retention_days": None}}

    # When the app is built from it
    _, stack = build_app(context, nag=False)

    # Then the function's log group never expires, as it does with the same block read from the file
    groups = Template.from_stack(stack).find_resources("AWS::Logs::LogGroup")
    handler = [g["Properties"] for g in groups.values() if g["Properties"]["LogGroupName"] == "/aws/lambda/Forever-handler"]
    assert handler and "RetentionInDays" not in handler[0], handler


def test_a_configuration_file_nested_too_deeply_is_a_config_error_naming_it(tmp_path):
    # Given a configuration file nested more deeply than JSON can be read (a user's app reads it with
    # read_config_file, as the repository's app does)
    from rule_actions.config import ConfigError
    from rule_actions_cdk.app import read_config_file

    deep = tmp_path / "rule-actions.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    # When it is read / Then the error is one line naming the file, not a RecursionError
    with pytest.raises(ConfigError) as caught:
        read_config_file(deep)
    assert str(deep) in str(caught.value) and "nested too deeply" in str(caught.value)
    assert "\n" not in str(caught.value)
