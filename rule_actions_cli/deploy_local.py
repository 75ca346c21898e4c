"""`make deploy-local`: the deploy commands of docs/operations.md, as printed, against moto server on 127.0.0.1.

Starts moto server on a free port, then runs, with AWS_ENDPOINT_URL pointing at it (as `localhost`: moto reads
only template URLs that contain it), fake credentials, us-east-1 and no terminal:

    make bootstrap
    make deploy CONFIG=<file> APPROVE=never       (a first deploy adds IAM: broadening would stop it)
    (the stack's outputs, read back with DescribeStacks, and the resources they name)
    make destroy CONFIRM=yes

With a configuration in organization mode, as docs/organization.md orders it: the central stack
in organization.central_account and central_region (bootstrap, then `make deploy ARGS=<central>`), then a member
stack in the first listed member account (`ARGS=<member>`, no bootstrap), both read back, then both destroyed,
the member first. Each account's credentials are moto's: its default account's, else a role assumed there.

Exit status 0 when every step succeeded and the stacks' outputs name resources that exist; else the failing
step's status. What moto skips (it reports CREATE_COMPLETE all the same) is in docs/operations.md ("Deploy locally").
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REGION = "us-east-1"
DEFAULT_CONFIG = "examples/demo-config.json"
MOTO_ACCOUNT = "123456789012"  # the account of moto's own credentials
SAMPLE_MEMBER = "111122223333"  # the member account used when the configuration lists none (org_id alone)
ADMIN_ROLE = "OrganizationAccountAccessRole"  # assumed in another account (moto's STS lets anyone assume it)

# What each output names, and the call that proves it exists.
CHECKS: dict[str, tuple[str, Any]] = {
    "FunctionName": ("lambda", lambda c, v: c.get_function(FunctionName=v)),
    "TopicArn": ("sns", lambda c, v: c.get_topic_attributes(TopicArn=v)),
    "LedgerTable": ("dynamodb", lambda c, v: c.describe_table(TableName=v)),
    "FailedEventsQueueUrl": ("sqs", lambda c, v: c.get_queue_attributes(QueueUrl=v)),
    "EventBusArn": ("events", lambda c, v: c.describe_event_bus(Name=v.rsplit("/", 1)[-1])),
    "FunctionRoleArn": ("iam", lambda c, v: c.get_role(RoleName=v.rsplit("/", 1)[-1])),
    "ExecutorRoleArn": ("iam", lambda c, v: c.get_role(RoleName=v.rsplit("/", 1)[-1])),
    "ForwardDeadLetterQueueUrl": ("sqs", lambda c, v: c.get_queue_attributes(QueueUrl=v)),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]  # (typeshed's socket addresses are Any)
        return port


def local_environment(port: int, region: str = REGION, account: str = MOTO_ACCOUNT) -> dict[str, str]:
    """This environment pointed at moto: no profile, credentials of `account`, one region."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "AWS_ENDPOINT_URL": f"http://localhost:{port}", **credentials(port, account),
            "AWS_REGION": region, "AWS_DEFAULT_REGION": region}


def credentials(port: int, account: str) -> dict[str, str]:
    """Environment variables of credentials in `account`: moto's static ones for its default account, else those
    of a role assumed there."""
    static = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}
    if account == MOTO_ACCOUNT:
        return static
    import boto3

    sts = boto3.client("sts", region_name=REGION, endpoint_url=f"http://localhost:{port}",
                       aws_access_key_id="local", aws_secret_access_key="local")
    found = sts.assume_role(RoleArn=f"arn:aws:iam::{account}:role/{ADMIN_ROLE}",
                            RoleSessionName="deploy-local")["Credentials"]
    return {"AWS_ACCESS_KEY_ID": found["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": found["SecretAccessKey"],
            "AWS_SESSION_TOKEN": found["SessionToken"]}


def step(title: str, command: list[str], env: dict[str, str]) -> None:
    print(f"\n== {title}: {' '.join(command)}", flush=True)
    start = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, check=False)
    print(f"== {title}: exit status {done.returncode} ({time.monotonic() - start:.1f} s)", flush=True)
    if done.returncode:
        raise SystemExit(done.returncode)


def outputs(env: dict[str, str], stack: str) -> dict[str, str]:
    """The stack's outputs, and a check that each resource they name exists in the emulator. moto leaves the
    outputs of a stack made by a change set (as the CDK deploys) empty: they are then resolved here from the
    synthesized template's Outputs (a Ref, or a GetAtt of an Arn) and the stack's resources, and said so."""
    import boto3

    session = boto3.Session(region_name=env["AWS_REGION"], aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
                            aws_session_token=env.get("AWS_SESSION_TOKEN"))
    url = env["AWS_ENDPOINT_URL"]
    cloudformation = session.client("cloudformation", endpoint_url=url)
    [described] = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    found = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs") or []}
    resources = cloudformation.describe_stack_resources(StackName=stack)["StackResources"]
    # What was deployed, as synthesized (the CLI sends a small template as YAML: the JSON in cdk.out is the same)
    template = json.loads((ROOT / "cdk.out" / f"{stack}.template.json").read_text())
    note = ""
    if not found:
        found = {key: _resolve(output["Value"], resources, session, url)
                 for key, output in template.get("Outputs", {}).items()}
        note = " (moto returns none after a change set: resolved from the template's Outputs)"
    print(f"\n== outputs of {stack}, {described['StackStatus']}{note}:")
    for key, value in sorted(found.items()):
        print(f"   {key:<26} {value}")
    checked = [key for key in sorted(found) if key in CHECKS]
    for key in checked:
        service, call = CHECKS[key]
        call(session.client(service, endpoint_url=url), found[key])
    print(f"== what {', '.join(checked)} name exists")
    created = Counter(r.get("ResourceType") for r in resources if r.get("LogicalResourceId"))
    declared = Counter(r["Type"] for r in template.get("Resources", {}).values())
    skipped = {kind: n - created.get(kind, 0) for kind, n in sorted(declared.items()) if n > created.get(kind, 0)}
    print("== moto created", sum(created.values()), "of", sum(declared.values()), "resources; skipped: "
          + (", ".join(f"{kind} ({n})" for kind, n in skipped.items()) or "none"))
    return found


def _resolve(value: Any, resources: list[dict[str, Any]], session: Any, url: str) -> str:
    """An output's value from the stack's resources: a literal is itself (the ServiceName output); a Ref is the
    physical id; a GetAtt of an IAM role's or an event bus's Arn is read back from the service."""
    if isinstance(value, str):
        return value
    # boto3's responses are untyped (Any): CloudFormation's resources, IAM's and EventBridge's ARNs
    physical: dict[Any, tuple[Any, Any]] = {
        r.get("LogicalResourceId"): (r.get("ResourceType"), r.get("PhysicalResourceId")) for r in resources}
    resolved: str
    if "Ref" in value:
        resolved = physical[value["Ref"]][1]
        return resolved
    logical, attribute = value["Fn::GetAtt"]
    kind, name = physical[logical]
    if (kind, attribute) == ("AWS::IAM::Role", "Arn"):
        resolved = session.client("iam", endpoint_url=url).get_role(RoleName=name)["Role"]["Arn"]
        return resolved
    if (kind, attribute) == ("AWS::Events::EventBus", "Arn"):
        resolved = session.client("events", endpoint_url=url).describe_event_bus(Name=name.rsplit("/", 1)[-1])["Arn"]
        return resolved
    raise ValueError(f"cannot resolve {logical}.{attribute} ({kind})")


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m rule_actions_cli.deploy_local", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--config", default=DEFAULT_CONFIG, metavar="FILE", help=f"default: {DEFAULT_CONFIG}")
    args = cli.parse_args(argv)

    import logging

    from moto.server import ThreadedMotoServer

    from rule_actions_cdk.app import file_context, read_context
    from rule_actions_cli.emulator import dynamodb as moto_dynamodb
    from rule_actions_cli.emulator import organization as moto_organization

    config, settings = read_context(file_context(args.config))
    port = free_port()
    import warnings

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    # moto warns of each resource type it skips; the skipped types are listed once after the deploy
    logging.getLogger("moto").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="Tried to parse AWS::", category=UserWarning)
    moto_organization.install()  # a central bus's Ref is its name, as in CloudFormation (moto 5.2 lacks it)
    moto_dynamodb.install()  # conditional writes atomic under concurrent requests, as in AWS
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    start = time.monotonic()
    deploy = ["make", "--no-print-directory", "deploy", f"CONFIG={args.config}", "APPROVE=never"]
    destroy = ["make", "--no-print-directory", "destroy", f"CONFIG={args.config}", "CONFIRM=yes"]
    org = config.organization
    try:
        if org is None:
            env = local_environment(port)
            step("bootstrap", ["make", "--no-print-directory", "bootstrap"], env)
            step("deploy", deploy, env)
            outputs(env, settings.stack_name)
            step("destroy", destroy, env)  # the configuration deployed names the stack to destroy
        else:
            central, member = settings.stack_name, settings.member_stack_name
            member_account = (org.accounts or (SAMPLE_MEMBER,))[0]
            here = local_environment(port, org.central_region, org.central_account)
            there = local_environment(port, org.central_region, member_account)
            step(f"bootstrap (central account {org.central_account})",
                 ["make", "--no-print-directory", "bootstrap", f"CONFIG={args.config}"], here)
            step(f"deploy {central}", [*deploy, f"ARGS={central}"], here)
            step(f"deploy {member} (member account {member_account})", [*deploy, f"ARGS={member}"], there)
            outputs(here, central)
            outputs(there, member)
            step(f"destroy {member}", [*destroy, f"ARGS={member}"], there)
            step(f"destroy {central}", [*destroy, f"ARGS={central}"], here)
    except SystemExit as failed:
        return int(failed.code or 1)
    finally:
        server.stop()
    what = "bootstrap, deploy, outputs and destroy" + (" of the central and a member stack" if org else "")
    print(f"\ndeploy-local: {what} on moto server in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
