"""`make bootstrap`, `make deploy`, `make destroy`: the CDK CLI, run so that it works as printed in any shell.

Before the CLI runs, and without it, in this order (each problem is one line on stderr, exit status 2):
  - the configuration (CONFIG=FILE, else ./rule-actions.json) and the stack settings are validated;
  - a deploy without a terminal needs APPROVE (never | broadening | any-change: cdk's --require-approval),
    a destroy needs CONFIRM=yes (cdk's --force): the CLI would otherwise stop asking a question nobody can answer;
  - the account (STS GetCallerIdentity) and region come from the usual AWS settings (AWS_PROFILE, AWS_REGION /
    AWS_DEFAULT_REGION or the profile's region, AWS_ENDPOINT_URL) and are stated, with the stack's name;
  - a deploy checks that the account and region are bootstrapped for the CDK.
Then the CLI runs with the region pinned to the one stated (AWS_REGION and AWS_DEFAULT_REGION), and its exit
status is returned.

    python -m rule_actions_cli.deploy deploy --config my.json --approve broadening [-- cdk arguments]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rule_actions_cli.inputs import refuse

if TYPE_CHECKING:
    from rule_actions.config import Config
    from rule_actions_cdk.settings import StackSettings

ROOT = Path(__file__).resolve().parent.parent
CDK = ROOT / "node_modules" / ".bin" / "cdk"
APPROVALS = ("never", "broadening", "any-change")
BOOTSTRAP_PARAMETER = "/cdk-bootstrap/hnb659fds/version"  # the default qualifier's
# The AWS SDK for JavaScript inside the CLI warns at every start that its releases after January 2027 need
# Node.js 22: the pinned CLI keeps working on Node.js 20, and the docs say which Node.js to use.
QUIET_CLI = {"AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED": "true"}


class Refused(Exception):
    """One line for the user; nothing ran."""


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m rule_actions_cli.deploy", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("command", choices=("bootstrap", "deploy", "destroy"))
    top.add_argument("--config", default="", metavar="FILE", help="the configuration file (default: ./rule-actions.json)")
    top.add_argument("--approve", default="", help=f"deploy: cdk's --require-approval ({', '.join(APPROVALS)})")
    top.add_argument("--confirm", default="", help="destroy: 'yes' deletes without asking (cdk's --force)")
    return top


def main(argv: Sequence[str] | None = None, interactive: bool | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser().parse_args(argv[:split])
    args.cdk_args = argv[split + 1:]  # everything after --, for cdk as given
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    try:
        command = cdk_command(args, interactive)
        region, account = where(region_hint(args))
        stack, needs_bootstrap, scope = addressed_stack(args, account, region)
        if args.command == "deploy" and needs_bootstrap:
            check_bootstrapped(account, region)
    except Refused as err:
        return refuse(err)
    what = {"bootstrap": "bootstrapping the CDK in", "deploy": f"deploying stack {stack} to",
            "destroy": f"destroying stack {stack} in"}[args.command]
    print(f"rule-actions: {what} account {account}, region {region} ({scope})", file=sys.stderr, flush=True)
    if args.command == "bootstrap":
        command.append(f"aws://{account}/{region}")
    env = {**os.environ, "AWS_REGION": region, "AWS_DEFAULT_REGION": region, **QUIET_CLI}
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


def cdk_command(args: argparse.Namespace, interactive: bool) -> list[str]:
    """The CLI's arguments, after validating the configuration and the approval; Refused otherwise."""
    from rule_actions.config import ConfigError

    command = [str(CDK), args.command, "--no-notices"]
    if args.command == "bootstrap":
        return command + list(args.cdk_args)
    try:
        read(args)
    except ConfigError as err:
        raise Refused(str(err)) from None
    if args.config:
        command += ["-c", f"rule_actions_file={args.config}"]
    if args.command == "deploy":
        if args.approve and args.approve not in APPROVALS:
            raise Refused(f"APPROVE={args.approve} is not one of {', '.join(APPROVALS)}")
        if not args.approve and not interactive:
            raise Refused("no terminal to approve security-related changes (IAM, key and topic policies): pass "
                          "APPROVE=never (deploy without asking; a first deploy needs it) or APPROVE=broadening (stop "
                          "if an update widens permissions)")
        if args.approve:
            command += ["--require-approval", args.approve]
    if args.command == "destroy":
        if args.confirm and args.confirm != "yes":
            raise Refused(f"CONFIRM={args.confirm}: only CONFIRM=yes deletes the stack without asking")
        if not args.confirm and not interactive:
            raise Refused("no terminal to confirm the deletion: pass CONFIRM=yes")
        if args.confirm:
            command.append("--force")
    return command + list(args.cdk_args)


def read(args: argparse.Namespace) -> tuple[Config, StackSettings]:
    """The configuration and stack settings this deploy synthesizes (the file: CONFIG, else ./rule-actions.json;
    -c values)."""
    from rule_actions_cdk.app import file_context, read_context

    return read_context({**file_context(args.config or None), **cli_context(args.cdk_args)})


def cli_context(cdk_args: Sequence[str]) -> dict[str, str]:
    """The `-c key=value` / `--context key=value` values among cdk's arguments."""
    found, items = {}, list(cdk_args)
    for i, item in enumerate(items):
        value = items[i + 1] if item in ("-c", "--context") and i + 1 < len(items) else (
            item.split("=", 1)[1] if item.startswith("--context=") else None)
        if value and "=" in value:
            key, text = value.split("=", 1)
            found[key] = text
    return found


def addressed_stack(args: argparse.Namespace, account: str, region: str) -> tuple[str, bool, str]:
    """The stack a deploy or destroy addresses, whether it needs the CDK's bootstrap, and what it serves.
    One account: the stack. Organization mode (two stacks): the one named among cdk's arguments; the central stack
    only with the credentials of its configured account and region (it is pinned there), the member stack
    anywhere, bootstrapped or not (no assets, no CDK roles). Refused, naming both choices, when none or both are
    named."""
    own_region = "the stack sees the training jobs of its own region only"
    org = organization_of(args)
    if args.command == "bootstrap":
        return "?", False, "the central stack needs it; member stacks do not" if org else own_region
    settings = read(args)[1]  # valid: cdk_command read it first
    if org is None:
        return settings.stack_name, True, own_region
    central, member = settings.stack_name, settings.member_stack_name
    named = [name for name in (central, member) if name in args.cdk_args]
    if len(named) != 1:
        raise Refused(f"organization mode has two stacks: name one, ARGS={central} (first, with the credentials of "
                      f"the central account {org.central_account} in {org.central_region}) or ARGS={member} (then, "
                      "in each member account and region where jobs train)")
    if named == [member]:
        return member, False, "a member stack: it forwards this region's training job events to the central bus"
    if (account, region) != (org.central_account, org.central_region):
        raise Refused(f"{central} is the organization's central stack, pinned to account {org.central_account}, "
                      f"region {org.central_region} (organization.central_account / central_region); these "
                      f"credentials are account {account}, region {region}")
    return central, True, "the central stack: it acts for the member stacks' accounts and regions"


def organization_of(args: argparse.Namespace) -> Any:
    """The configuration's organization block, or None (also when the configuration is invalid: bootstrap does
    not need it, and the other commands refuse it before this is asked)."""
    from rule_actions.config import ConfigError

    try:
        return read(args)[0].organization
    except ConfigError:
        return None


def region_hint(args: argparse.Namespace) -> str:
    """What the region decides, for the line that asks for one."""
    org = organization_of(args)
    if org is None:
        return "the stack is deployed to one region and serves the training jobs of that region"
    return (f"organization mode: the central stack goes to organization.central_region ({org.central_region}) and "
            "serves every region, a member stack to each region where its account trains")


def where(hint: str = "") -> tuple[str, str]:
    """(region, account) from the usual AWS settings; Refused with one line saying what is missing (`hint`:
    what the region decides)."""
    from rule_actions_cli.invoke import InvokeError, aws_errors, open_session

    try:
        session = open_session(None, None)
        if not session.region_name:
            raise Refused("no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or the profile's region)"
                          + (f"; {hint}" if hint else ""))
        with aws_errors("sts"):
            account = session.client("sts").get_caller_identity()["Account"]
    except InvokeError as err:
        raise Refused(str(err)) from None
    return session.region_name, account


def check_bootstrapped(account: str, region: str) -> None:
    """Refused when the CDK's bootstrap parameter is missing; any other answer is left to the CLI."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        boto3.client("ssm", region_name=region).get_parameter(Name=BOOTSTRAP_PARAMETER)
    except ClientError as err:
        if err.response.get("Error", {}).get("Code") == "ParameterNotFound":
            raise Refused(f"account {account}, region {region} is not bootstrapped for the CDK: run `make bootstrap` "
                          "once (with the same AWS settings)") from None
    except BotoCoreError:
        pass


if __name__ == "__main__":
    sys.exit(main())
