"""`rule-actions subscriptions --stack NAME`: the team topic's subscriptions, and the personal ones nobody needs
any more removed (a dry run unless --remove).

Every address or number a job's action_json names gets a subscription of its own on the team topic, filtered to its
own messages ({"to": [endpoint]}), and nothing removes it: a topic collects one per person who ever asked. Each
confirmed subscription is read (GetSubscriptionAttributes) and classed as effects/notify.py classes it for the
team audience:

    team      it may receive team messages (the stack's `notify` members, a chat channel or a list added by hand):
              always kept
    personal  one person's own messages: removed when the deployed configuration would no longer message it
              (allowed_endpoints, the SMS rule), when --endpoint names it, or with --all-personal
    other     it filters on attributes our messages do not carry: not ours, kept
    pending   not confirmed yet: it has no ARN to remove (SNS deletes unconfirmed subscriptions itself)

A removed personal subscription is made again the next time a job names its endpoint (an email address must then
confirm once more). The configuration is the deployed function's (its RULE_ACTIONS_CONFIG), the topic its
RULE_ACTIONS_TOPIC_ARN. Addresses and numbers are printed redacted.

Exit status: 0 when the listing (and with --remove, every removal) succeeded; 2 when AWS cannot be configured or
reached or refuses a call (one line, as `invoke`).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections import Counter
from typing import Any, TextIO

from rule_actions.privacy import redact
from rule_actions_cli.inputs import refuse
from rule_actions_cli.options import Formatter, add_target_options, examples

HELP = "list the team topic's subscriptions and remove the personal ones nobody needs (dry run unless --remove)"


def add_parser(commands: Any) -> None:
    command = commands.add_parser("subscriptions", help=HELP, description=__doc__.split("\n\n", 1)[1].rsplit(
        "\n\nExit status", 1)[0], epilog="exit status: 0 when the listing (and each removal) succeeded, 2 when AWS "
        "cannot be configured or reached or refuses a call\n\n" + examples(
            "rule-actions subscriptions --stack RuleActions --endpoint casey@example.com",
            "rule-actions subscriptions --stack RuleActions --all-personal --remove"),
        formatter_class=Formatter)
    add_target_options(command, required=True, stack_only=True)
    command.add_argument("--endpoint", action="append", default=[], metavar="GLOB",
                         help="also remove the personal subscriptions of endpoints matching this glob, any case "
                         "(repeatable; e.g. someone who left: 'casey@example.com')")
    command.add_argument("--all-personal", action="store_true",
                         help="remove every personal subscription (each is made again, confirmed anew, when a job "
                         "names its endpoint)")
    command.add_argument("--remove", action="store_true", help="unsubscribe them (without it: say what would go)")


def main(args: argparse.Namespace) -> int:
    from rule_actions_cli.invoke import InvokeError

    try:
        rows = run(args.stack, args.endpoint, args.all_personal, args.remove, profile=args.profile, region=args.region)
    except InvokeError as err:
        return refuse(err)
    write(rows, args.remove, sys.stdout)
    return 0


def run(stack: str, endpoints: list[str], all_personal: bool, remove: bool, *, profile: str | None,
        region: str | None) -> list[dict[str, Any]]:
    """One row per subscription: its audience, and whether it goes (removed, with `remove`)."""
    from rule_actions.config import Config
    from rule_actions.contract import ENV_TOPIC_ARN
    from rule_actions.effects.notify import PENDING, audience
    from rule_actions_cli.invoke import aws_errors, function_from_stack, lambda_client, open_session

    session = open_session(profile, region)
    function = function_from_stack(session, stack)
    with aws_errors("lambda", function=function):
        variables = lambda_client(session).get_function_configuration(FunctionName=function).get(
            "Environment", {}).get("Variables", {})
    with aws_errors("lambda", function=function):
        config = Config.from_json(deployed_configuration(lambda_client(session), function, variables))
    topic = variables[ENV_TOPIC_ARN]
    with aws_errors("sns"):
        sns = session.client("sns")
        rows = []
        for page in sns.get_paginator("list_subscriptions_by_topic").paginate(TopicArn=topic):
            for sub in page["Subscriptions"]:
                arn = sub["SubscriptionArn"]
                if not arn.startswith("arn:"):
                    rows.append(_row(sub, PENDING, None))
                    continue
                attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
                kind = audience(attributes)
                rows.append(_row(sub, kind, _why_unneeded(sub, attributes, kind, config, endpoints, all_personal)))
        if remove:
            for row in rows:
                if row["reason"]:
                    sns.unsubscribe(SubscriptionArn=row["arn"])
    return rows


def deployed_configuration(client: Any, function: str, variables: dict[str, str]) -> str | None:
    """The deployed function's configuration: from its environment, or from its code when it ships there (a
    configuration too large for the environment)."""
    import io
    import urllib.request
    import zipfile

    from rule_actions.contract import ENV_CONFIG, ENV_CONFIG_FILE

    name = variables.get(ENV_CONFIG_FILE)
    if not name:
        return variables.get(ENV_CONFIG)
    location = client.get_function(FunctionName=function)["Code"]["Location"]  # a presigned URL of the code zip
    with urllib.request.urlopen(location, timeout=30) as answer:
        return zipfile.ZipFile(io.BytesIO(answer.read())).read(name).decode("utf-8")


def _row(sub: dict[str, Any], kind: str, reason: str | None) -> dict[str, Any]:
    return {"arn": sub["SubscriptionArn"], "protocol": sub.get("Protocol", ""), "endpoint": sub.get("Endpoint", ""),
            "audience": kind, "reason": reason}


def _why_unneeded(sub: dict[str, Any], attributes: dict[str, str], kind: str, config: Any, endpoints: list[str],
                  all_personal: bool) -> str | None:
    """Why a personal subscription can go, or None (it stays)."""
    from rule_actions import registry
    from rule_actions.contract import ROUTING_ATTRIBUTE
    from rule_actions.effects.notify import PERSONAL

    if kind != PERSONAL:
        return None
    named = [v for v in json.loads(attributes["FilterPolicy"])[ROUTING_ATTRIBUTE] if isinstance(v, str)]
    protocol = sub.get("Protocol")
    if protocol in ("email", "sms") and named:
        deny = registry.kind(protocol).deny  # email's and sms's read no event: None stands for one
        if all(deny(v, None, config) for v in named):  # type: ignore[arg-type]
            return "the deployed configuration no longer lets the function message it"
    if any(fnmatch.fnmatchcase(v.casefold(), glob.casefold()) for v in named for glob in endpoints):
        return "named by --endpoint"
    if all_personal:
        return "--all-personal"
    return None


def write(rows: list[dict[str, Any]], removed: bool, out: TextIO) -> None:
    lines = [("SUBSCRIPTION", "PROTOCOL", "ENDPOINT", "AUDIENCE", "DECISION", "REASON")]
    goes = "removed" if removed else "would remove"
    for row in rows:
        name = row["arn"].rsplit(":", 1)[-1][:8] if row["arn"].startswith("arn:") else "(pending)"
        decision = goes if row["reason"] else "keep"
        lines.append((name, row["protocol"], redact(row["endpoint"]), row["audience"], decision, row["reason"] or ""))
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]) - 1)]
    for line in lines:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=False)) + "  " + line[-1] + "\n")
    counts = Counter(row["audience"] for row in rows)
    leaving = sum(1 for row in rows if row["reason"])
    tail = "" if removed else "; a dry run: pass --remove to unsubscribe them"
    out.write(f"{len(rows)} subscription(s): " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
              + f"; {leaving} {goes}{tail}\n")
