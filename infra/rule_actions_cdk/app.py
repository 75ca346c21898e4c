"""Builds the CDK app of this repository (`app.py`, run by `cdk synth`) and of the `rule-actions` command.

The configuration is a file, `rule-actions.json` (the configuration's keys, "stack" for the stack settings, and a
"$schema" line for editors), read from the current directory unless the context names another:

    rule_actions_file   the configuration file (`make deploy CONFIG=my.json` passes it)
    rule_actions        the configuration as a JSON object instead (tests; `cdk synth -c rule_actions='{...}'`)
    rule_actions_stack  the stack settings instead of the file's "stack"

cdk.json holds CDK's feature flags only; the same flags ship in this package (cdk-context.json) for the command's
synthesis, wherever it runs. An invalid value stops synth with one message on stderr and exit status 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rule_actions.config import Config, ConfigError
from rule_actions_cdk.settings import (
    CONFIG_FILE_KEY,
    CONFIG_KEY,
    FILE_NAME,
    FILE_STACK,
    STACK_KEY,
    StackSettings,
    both,
    context_object,
    read_config_file,
    shown_path,
    split_file,
)

if TYPE_CHECKING:
    import aws_cdk as cdk

    from rule_actions_cdk.stack import RuleActionsStack

FEATURE_FLAGS = Path(__file__).resolve().with_name("cdk-context.json")
CODE_BUCKET = "CodeBucket"  # the portable template's parameter: where its code zips were uploaded


def feature_flags() -> dict[str, Any]:
    """CDK's feature flags this stack is written and tested with (the repository's cdk.json holds the same)."""
    return dict(json.loads(FEATURE_FLAGS.read_text()))


def file_context(path: str | Path | None = None) -> dict[str, Any]:
    """The context a synthesis of the configuration file `path` gets (the feature flags and the file; without a
    file: ./rule-actions.json if there is one, else the defaults)."""
    found = Path(path) if path else Path.cwd() / FILE_NAME
    return {**feature_flags(), **({CONFIG_FILE_KEY: str(found)} if path or found.is_file() else {})}


def project_context(path: str | Path | None = None) -> dict[str, Any]:
    """The file's context with its blocks spelled out (`rule_actions`, `rule_actions_stack`): for callers that
    change a block before synthesizing (tests, `replay --dry-run`)."""
    context = file_context(path)
    config_file = context.pop(CONFIG_FILE_KEY, None)
    config, stack = split_file(read_config_file(config_file), shown_path(config_file)) if config_file else ({}, None)
    return {**context, CONFIG_KEY: config, **({STACK_KEY: stack} if stack is not None else {})}


def read_context(context: Mapping[str, Any]) -> tuple[Config, StackSettings]:
    """Validate the configuration and the stack settings (from `rule_actions_file` when given, else from the
    `rule_actions` block); raises ConfigError naming every bad key by its path: in the user's file, from its name
    (`rule-actions.json.rules["StaledTraining"]`, as the construct names them), in a context value from its key."""
    config_file = context.get(CONFIG_FILE_KEY)
    stack = context_object(context.get(STACK_KEY), STACK_KEY)
    if config_file:
        name = shown_path(config_file)
        try:
            data, in_file = split_file(read_config_file(config_file), name)
        except ConfigError as err:
            raise ConfigError(str(err) if str(err).startswith(f"{name}") else f"{name}: {err}") from None
        return both(lambda: Config.from_dict(data, name),
                    lambda: StackSettings.from_dict(stack if stack is not None else in_file,
                                                    STACK_KEY if stack is not None else f"{name}.{FILE_STACK}"), name)
    return both(lambda: Config.from_dict(context_object(context.get(CONFIG_KEY), CONFIG_KEY), CONFIG_KEY),
                lambda: StackSettings.from_dict(stack, STACK_KEY))


def quiet_node() -> None:
    """Before the jsii runtime starts: no end-of-life banner for the Node.js it runs on. jsii prints it unless
    JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION lists the running major version, and its Python side relays
    it as bytes literals. Everything runs on the Node.js the docs ask for; the banner tells a user nothing
    they can act on here (the Makefile sets the same for the CLI)."""
    name = "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION"
    try:
        major = subprocess.run([os.environ.get("JSII_NODE", "node"), "-p", "process.versions.node.split('.')[0]"],
                               capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return  # no Node.js: jsii will say so itself
    listed = [v.strip() for v in os.environ.get(name, "").split(",") if v.strip()]
    if major and major not in listed:
        os.environ[name] = ",".join([*listed, major])


def app_context(context: Mapping[str, Any]) -> dict[str, Any]:
    """The context as `cdk.App` is given it: the configuration and the stack settings as their JSON text (as
    `-c key='{...}'` gives them), since jsii drops an object's null members on the way, and a null means something
    there (`"log_retention_days": null`: never expire, else read as absent, the default 90 days)."""
    return {key: json.dumps(value) if key in (CONFIG_KEY, STACK_KEY) and isinstance(value, Mapping) else value
            for key, value in context.items()}


def build_app(context: Mapping[str, Any] | None = None, outdir: str | None = None, nag: bool = True,
              portable: bool = False, warn: bool = True) -> tuple[cdk.App, RuleActionsStack]:
    """The app with its stack (and, in organization mode, the member stack) and cdk-nag's AwsSolutions checks;
    `context=None` reads what the CLI passes. Returns the app and the (central) stack.

    `portable`: a template for CloudFormation alone (`rule-actions template`): its code zips are read from the
    bucket its CODE_BUCKET parameter names (their keys are the assets' hashes), no CDK bootstrap is needed. `warn`:
    the construct prints the configuration's warnings on stderr (not for the replay, which prints them itself,
    once, before its rows)."""
    quiet_node()
    import aws_cdk as cdk  # the jsii runtime starts here
    from cdk_nag import AwsSolutionsChecks

    from rule_actions_cdk.stack import RuleActionsStack

    app = cdk.App(context=app_context(context), outdir=outdir) if context is not None else cdk.App(outdir=outdir)
    given = {key: app.node.try_get_context(key) for key in (CONFIG_KEY, CONFIG_FILE_KEY, STACK_KEY)}
    if context is None and given[CONFIG_KEY] is None and not given[CONFIG_FILE_KEY]:  # `cdk synth` of this app
        given[CONFIG_FILE_KEY] = file_context().get(CONFIG_FILE_KEY)  # ./rule-actions.json, if there is one
    config, settings = read_context(given)
    extra: dict[str, Any] = {}
    if portable:  # the assets' bucket is the parameter's value (the synthesizer writes it into an Fn::Sub)
        extra["synthesizer"] = cdk.DefaultStackSynthesizer(file_assets_bucket_name="${" + CODE_BUCKET + "}",
                                                           generate_bootstrap_version_rule=False)
    stack = RuleActionsStack(app, config=config, settings=settings, warn=warn, **extra)
    if portable:
        cdk.CfnParameter(stack, CODE_BUCKET, type="String", allowed_pattern=r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]",
                         description="The S3 bucket, in this stack's region, holding the code zips "
                                     "`rule-actions template` wrote (at their names, under no prefix)")
    if config.organization:  # organization mode: the stack each member account deploys (infra/rule_actions_cdk/member_stack.py)
        from rule_actions_cdk.member_stack import RuleActionsMemberStack

        RuleActionsMemberStack(app, config=config, settings=settings)
    if nag:
        # cdk-nag 3 is a policy validation plugin: findings not acknowledged fail synth.
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return app, stack


def main() -> int:
    try:
        app, _ = build_app()  # the construct prints the configuration's warnings
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    try:
        app.synth()
    except RuntimeError as err:  # the validation report (cdk-nag findings) is already printed above
        if "ValidationFailed" not in str(err):
            raise
        print("synth failed: cdk-nag findings above are neither fixed nor acknowledged (Validations.of(construct)"
              ".acknowledge, with a reason, in the part of infra/rule_actions_cdk/ that makes the resource)",
              file=sys.stderr)
        return 1
    return 0
