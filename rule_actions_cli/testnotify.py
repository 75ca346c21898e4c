"""`rule-actions test-notify`: one clearly marked test message to every destination the stack reaches (the team
topic, its chat channels, each webhook) plus the --email / --sms given, and each destination's outcome.

Locally (the default) the function runs on the embedded account, deployed from the synthesized stack; with
--stack or --function-name it is the deployed function, invoked with the documented test request
({"rule_actions_test_notification": {"id", "emails", "sms"}}), never an EventBridge event. The function decides
each destination as it decides real actions (allowed_endpoints, dry_run, a team without subscribers), keys the
ledger by the request's id (so a real event's exactly-once record is never used, and a retried request sends
nothing twice) and never stops anything.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from typing import Any, TextIO

from rule_actions.contract import TEST_EVENT_KEY
from rule_actions.privacy import redact
from rule_actions_cli import inputs, receiver, replay_table
from rule_actions_cli.inputs import refuse
from rule_actions_cli.options import Formatter, add_target_options, examples
from rule_actions_cli.terminal import json_line

HELP = "send one test message to every configured destination and report each destination's outcome"
EPILOG = """\
exit status: 0 when every destination received the test (outcome done, or dry_run), 1 when any did not
(failed, skipped, denied, invalid: see its reason), 2 when an input is unusable or AWS cannot be configured or
reached (one line saying what is missing, as for `invoke`).

Locally, --secrets seeds the embedded Secrets Manager with the webhooks' secrets and --receiver listens on the
loopback addresses their URLs name, checks each signature and prints what arrived. Deployed, the usual AWS
settings apply: --profile or AWS_PROFILE, --region or AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL.

""" + examples("rule-actions test-notify --email me@example.com",
               "rule-actions test-notify --stack RuleActions --email me@example.com")


def add_parser(commands: Any) -> None:
    command = commands.add_parser("test-notify", help=HELP, description=HELP[0].upper() + HELP[1:] + ".",
                                  epilog=EPILOG, formatter_class=Formatter)
    command.add_argument("--email", action="append", default=[], metavar="ADDRESS",
                         help="also send the test to this address (repeatable; it must confirm the subscription)")
    command.add_argument("--sms", action="append", default=[], metavar="NUMBER",
                         help="also text this E.164 number (repeatable)")
    command.add_argument("--json", action="store_true", help="the function's answer as one JSON object")
    add_target_options(command, required=False)  # without them: locally, on the embedded account
    command.add_argument("--config", metavar="FILE", help="locally: the configuration file (default: "
                         "./rule-actions.json if there is one, else the defaults)")
    receiver.add_options(command, "locally: ")
    command.add_argument("--verbose", action="store_true", help="locally: the handler's structured logs (stderr)")


def request(emails: list[str], sms: list[str]) -> dict[str, Any]:
    return {TEST_EVENT_KEY: {"id": str(uuid.uuid4()), "emails": emails, "sms": sms}}


def run(args: argparse.Namespace) -> int:
    from rule_actions.grammar import endpoint_problem

    wrong = [f"--{kind}: {problem}" for kind, given in (("email", args.email), ("sms", args.sms)) for value in given
             if (problem := endpoint_problem(kind, value))]
    if wrong:  # an unusable input, refused as the configuration's fields are, before anything is sent
        return refuse(*wrong)
    payload = request(args.email, args.sms)
    deployed = bool(args.stack or args.function_name)
    if deployed:
        from rule_actions_cli.invoke import InvokeError, deployed_function, invoke_once

        try:
            client, function = deployed_function(args.function_name, args.stack, args.profile, args.region)
            result = invoke_once(client, function, payload)
        except InvokeError as err:
            return refuse(err)
        return finish(result, args.json, [], f"ran on the deployed function {function}")
    errors = [f"{flag} is only for a deployed function (--stack or --function-name)"
              for flag, value in (("--profile", args.profile), ("--region", args.region)) if value]

    context, secrets, read_errors = inputs.context_and_secrets(args.config, args.secrets)
    errors += read_errors
    if errors:
        return refuse(*errors)
    from rule_actions.config import ConfigError
    from rule_actions_cli.embedded_organization import embedded_from

    try:
        with receiver.receiving(secrets, args.receiver) as receivers:
            with embedded_from(context, secrets) as world:
                result = world.invoke(payload, log=sys.stderr if args.verbose else None)
                deliveries = world.deliveries() if args.receiver else None
    except (receiver.ReceiverError, ConfigError) as err:  # a port in use; what synthesis refuses
        return refuse(err)
    return finish(result, args.json, receivers, LOCALLY, deliveries)


LOCALLY = ("ran locally, on the embedded account (moto): no email, text or chat message left this machine; "
           "--stack NAME tests a deployed stack")


def finish(result: Any, as_json: bool, receivers: list[receiver.Receiver], where: str,
           deliveries: list[replay_table.Delivery] | None = None) -> int:
    """Print the outcome per destination, and where it ran (`where`: stderr with --json), what the receivers and
    the topics' destinations got (`deliveries`, with --receiver locally); 0 when each got the test."""
    result = redact(result) if isinstance(result, dict) else {"ignored": f"unexpected answer: {result!r}"}
    if as_json:
        sys.stdout.write(json_line(result) + "\n")
        print(where, file=sys.stderr)
    else:
        write_table(result, sys.stdout)
        print(where)
    receiver.report(receivers, sys.stderr if as_json else sys.stdout)
    if deliveries is not None:
        replay_table.write_deliveries(deliveries, sys.stderr if as_json else sys.stdout)
    actions = result.get("actions") or []
    return 0 if actions and all(a["outcome"] in ("done", "dry_run") for a in actions) else 1


def destination(action: dict[str, Any]) -> str:
    if action["kind"] == "notify":
        return "chat channels" if action["target"] == "chat" else "team topic"
    return f"{action['kind']} {action['target']}"


def write_table(result: dict[str, Any], out: TextIO) -> None:
    actions = result.get("actions") or []
    if not actions:
        out.write(f"test notification not sent: {result.get('ignored') or result.get('error') or 'no destination'}\n")
        return
    lines = [("DESTINATION", "OUTCOME", "REASON")] + [(destination(a), a["outcome"], a["reason"]) for a in actions]
    widths = [max(len(line[i]) for line in lines) for i in range(2)]
    for line in lines:
        out.write(f"{line[0]:<{widths[0]}}  {line[1]:<{widths[1]}}  {line[2]}\n")
    received = sum(a["outcome"] in ("done", "dry_run") for a in actions)
    out.write(f"test notification {result.get('test_notification')}: {received} of {len(actions)} destinations "
              "reached\n")
