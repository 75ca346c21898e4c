"""Builds the CDK app from context: `cdk.json` (and `-c` overrides) under the CLI, or a dict in tests.

    rule_actions        the function's configuration (rule_actions.config.Config), validated here
    rule_actions_file   a JSON file holding that configuration instead (`make deploy CONFIG=my.json` passes it);
                        the same file `rule-actions replay --config` reads
    rule_actions_stack  stack-only settings (infra.settings.StackSettings)

An invalid value stops synth with one message on stderr and exit status 1 (no traceback).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from infra.settings import CONFIG_FILE_KEY, CONFIG_KEY, STACK_KEY, StackSettings, context_object
from rule_actions.config import Config, ConfigError

CDK_JSON = Path(__file__).resolve().parent.parent / "cdk.json"


def cdk_json_context(path: Path = CDK_JSON) -> dict[str, Any]:
    """The context `cdk synth` gives the app from cdk.json (feature flags and the two blocks)."""
    return dict(json.loads(path.read_text())["context"])


def read_config_file(path: str | Path) -> Any:
    """The configuration object in a JSON file; ConfigError naming the file when it cannot be read."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: not a readable JSON file ({err})") from None


def read_context(context: Mapping[str, Any]) -> tuple[Config, StackSettings]:
    """Validate both blocks (the configuration from `rule_actions_file` when given); raises ConfigError naming
    every bad key, and the file."""
    config_file = context.get(CONFIG_FILE_KEY)
    if config_file:
        try:
            config = Config.from_dict(read_config_file(config_file), CONFIG_KEY)
        except ConfigError as err:
            raise ConfigError(str(err) if str(err).startswith(f"{config_file}: ") else f"{config_file}: {err}") from None
    else:
        config = Config.from_dict(context_object(context.get(CONFIG_KEY), CONFIG_KEY), CONFIG_KEY)
    settings = StackSettings.from_dict(context_object(context.get(STACK_KEY), STACK_KEY), STACK_KEY)
    return config, settings


def quiet_node() -> None:
    """Before the jsii runtime starts: no end-of-life banner for the Node.js it runs on. jsii prints it unless
    JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION lists the running major version, and its Python side relays
    it as bytes literals. Everything runs on the Node.js the README asks for; the banner tells a user nothing
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


def build_app(context: Mapping[str, Any] | None = None, outdir: str | None = None, nag: bool = True):
    """The app with its stack (and, in organization mode, the member stack) and cdk-nag's AwsSolutions checks;
    `context=None` reads what the CLI passes. Returns the app and the (central) stack."""
    quiet_node()
    import aws_cdk as cdk  # the jsii runtime starts here
    from cdk_nag import AwsSolutionsChecks

    from infra.stack import RuleActionsStack

    app = cdk.App(context=dict(context), outdir=outdir) if context is not None else cdk.App(outdir=outdir)
    config, settings = read_context({key: app.node.try_get_context(key) for key in (CONFIG_KEY, CONFIG_FILE_KEY, STACK_KEY)})
    stack = RuleActionsStack(app, config=config, settings=settings)
    if config.organization:  # organization mode: the stack each member account deploys (infra/member_stack.py)
        from infra.member_stack import RuleActionsMemberStack

        RuleActionsMemberStack(app, config=config, settings=settings)
    if nag:
        # cdk-nag 3 is a policy validation plugin: findings not acknowledged fail synth.
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return app, stack


def warning_block(warnings: list[str], width: int = 110) -> str:
    """One readable block: a heading, then each finding as a wrapped bullet."""
    items = [textwrap.fill(w, width, initial_indent="  - ", subsequent_indent="    ") for w in warnings]
    return "\n".join(["rule-actions: the configuration is valid, but:", *items])


def main() -> int:
    try:
        app, stack = build_app()
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    warnings = stack.actions.config.warnings(CONFIG_KEY)
    if warnings:
        print(warning_block(warnings), file=sys.stderr)
    try:
        app.synth()
    except RuntimeError as err:  # the validation report (cdk-nag findings) is already printed above
        if "ValidationFailed" not in str(err):
            raise
        print("synth failed: cdk-nag findings above are neither fixed nor acknowledged "
              "(Validations.of(construct).acknowledge in infra/construct.py, with a reason)", file=sys.stderr)
        return 1
    return 0
