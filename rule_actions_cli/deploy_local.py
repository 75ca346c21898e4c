"""`make deploy-local`: the README's deploy commands, as printed, against moto server on 127.0.0.1.

Starts moto server on a free port, then runs, with AWS_ENDPOINT_URL pointing at it (as `localhost`: moto reads
only template URLs that contain it), fake credentials, us-east-1 and no terminal:

    make bootstrap
    make deploy CONFIG=<file> APPROVE=never       (a first deploy adds IAM: broadening would stop it)
    (the stack's outputs, read back with DescribeStacks, and the resources they name)
    make destroy CONFIRM=yes

Exit status 0 when every step succeeded and the stack's outputs name resources that exist; else the failing
step's status. What moto skips (it reports CREATE_COMPLETE all the same) is in the README's "Deploy locally".
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

ROOT = Path(__file__).resolve().parent.parent
REGION = "us-east-1"
DEFAULT_CONFIG = "examples/demo-config.json"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def local_environment(port: int) -> dict[str, str]:
    """This environment pointed at moto: no profile, fake credentials, one region."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "AWS_ENDPOINT_URL": f"http://localhost:{port}", "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION}


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
    deployed template's Outputs (each a Ref) and the stack's resources, and said so."""
    import boto3

    session = boto3.Session(region_name=REGION, aws_access_key_id="local", aws_secret_access_key="local")
    url = env["AWS_ENDPOINT_URL"]
    cloudformation = session.client("cloudformation", endpoint_url=url)
    [described] = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    found = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs") or []}
    resources = cloudformation.describe_stack_resources(StackName=stack)["StackResources"]
    template = json.loads(json.dumps(cloudformation.get_template(StackName=stack)["TemplateBody"]))
    template = json.loads(template) if isinstance(template, str) else template
    note = ""
    if not found:
        physical = {r.get("LogicalResourceId"): r.get("PhysicalResourceId") for r in resources}
        found = {key: physical[output["Value"]["Ref"]] for key, output in template.get("Outputs", {}).items()}
        note = " (moto returns none after a change set: resolved from the template's Outputs)"
    print(f"\n== outputs of {stack}, {described['StackStatus']}{note}:")
    for key, value in sorted(found.items()):
        print(f"   {key:<26} {value}")
    session.client("lambda", endpoint_url=url).get_function(FunctionName=found["FunctionName"])
    session.client("sns", endpoint_url=url).get_topic_attributes(TopicArn=found["TopicArn"])
    session.client("dynamodb", endpoint_url=url).describe_table(TableName=found["LedgerTable"])
    session.client("sqs", endpoint_url=url).get_queue_attributes(QueueUrl=found["FailedEventsQueueUrl"])
    print("== the function, topic, ledger table and failed-events queue they name exist")
    created = Counter(r.get("ResourceType") for r in resources if r.get("LogicalResourceId"))
    declared = Counter(r["Type"] for r in template.get("Resources", {}).values())
    skipped = {kind: n - created.get(kind, 0) for kind, n in sorted(declared.items()) if n > created.get(kind, 0)}
    print("== moto created", sum(created.values()), "of", sum(declared.values()), "resources; skipped: "
          + ", ".join(f"{kind} ({n})" for kind, n in skipped.items()))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m rule_actions_cli.deploy_local", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--config", default=DEFAULT_CONFIG, metavar="FILE", help=f"default: {DEFAULT_CONFIG}")
    args = cli.parse_args(argv)

    import logging

    from moto.server import ThreadedMotoServer

    from infra.app import cdk_json_context, read_context

    stack = read_context(cdk_json_context())[1].stack_name
    port = free_port()
    import warnings

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    # moto warns of each resource type it skips; the skipped types are listed once after the deploy
    logging.getLogger("moto").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="Tried to parse AWS::", category=UserWarning)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = local_environment(port)
    start = time.monotonic()
    try:
        step("bootstrap", ["make", "--no-print-directory", "bootstrap"], env)
        step("deploy", ["make", "--no-print-directory", "deploy", f"CONFIG={args.config}", "APPROVE=never"], env)
        outputs(env, stack)
        step("destroy", ["make", "--no-print-directory", "destroy", "CONFIRM=yes"], env)
    except SystemExit as failed:
        return int(failed.code or 1)
    finally:
        server.stop()
    print(f"\ndeploy-local: bootstrap, deploy, outputs and destroy on moto server in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
