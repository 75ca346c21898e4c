"""`rule-actions check --stack NAME`: prove a deployed stack, without acting on any real job.

1. The rule: the EventBridge rule(s) targeting the stack's function (ListRuleNamesByTarget, DescribeRule; on the
   central bus in organization mode) are tested against the sample events (events/, or the files given) with
   EventBridge's own TestEventPattern, and each verdict is compared with the local matcher's
   (rule_actions_cli.matcher, which the replay uses): a difference means the replay would mislead.
2. The function: a synthetic "IssuesFound" event for a job under the configured training_job_prefixes (in
   organization mode, of the first listed member account), which
   must match the deployed rule, is sent to the function (synchronously, the rule bypassed). It carries
   `replay-name`, so the function treats it as an archive replay: it parses it, finds its trigger and plans the
   configured actions, then skips every one ("act_on_replays is false") before anything is read, stopped, sent
   or recorded. The invocation proves the deployed code loads (Powertools bundled), reads its configuration and
   runs, with no side effect. When the deployed configuration has act_on_replays true, the invocation would
   act, so it is not made (said so).

Exit status: 0 when both checks passed; 1 when one did not (each finding on its own line); 2 when AWS cannot be
configured or reached or refuses a call (one line, as `invoke`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rule_actions_cli.matcher import matches
from rule_actions_cli.options import Formatter, add_target_options, examples

CHECK_RULE = "RuleActionsCheck"
REPLAY_NAME = "rule-actions-check"
SOURCE, DETAIL_TYPE = "aws.sagemaker", "SageMaker Training Job State Change"
BUS_OUTPUT = "EventBusArn"  # organization mode: the central stack's bus (infra/rule_actions_cdk/stack.py)


def run(stack: str, events: list[tuple[str, Any]], *, profile: str | None, region: str | None,
        say: Callable[[str], None] = print) -> int:
    """Both checks, their findings said line by line; 0 / 1, or InvokeError (AWS unusable) for the caller."""
    from rule_actions_cli.invoke import aws_errors, function_from_stack, lambda_client, open_session

    session = open_session(profile, region)
    function = function_from_stack(session, stack)
    lambda_ = lambda_client(session)
    with aws_errors("lambda", region=lambda_.meta.region_name, function=function):
        configuration = lambda_.get_function_configuration(FunctionName=function)
    with aws_errors("events"):
        eventbridge = session.client("events")
    bus = event_bus(session, stack)
    with aws_errors("events", region=eventbridge.meta.region_name):
        names = eventbridge.list_rule_names_by_target(TargetArn=configuration["FunctionArn"],
                                                      EventBusName=bus).get("RuleNames", [])
        patterns = {name: json.loads(eventbridge.describe_rule(Name=name, EventBusName=bus).get("EventPattern") or "{}")
                    for name in names}
    account = configuration["FunctionArn"].split(":")[4]
    say(f"stack {stack}: function {configuration['FunctionName']}, rule(s) {', '.join(names) or '(none)'}, "
        f"region {lambda_.meta.region_name}")
    if not patterns:
        say("FAILED: no EventBridge rule targets the function: it is never invoked")
        return 1
    ok = check_patterns(eventbridge, patterns, events, account, lambda_.meta.region_name, say)
    ok &= check_invocation(lambda_, eventbridge, configuration, patterns, account, say)
    say("ok" if ok else "FAILED: see the lines above")
    return 0 if ok else 1


def event_bus(session: Any, stack: str) -> str:
    """The bus the stack's rule is on: in organization mode the central bus (the EventBusArn output), else the
    default one."""
    from rule_actions_cli.invoke import output_of, stack_outputs

    arn = output_of(stack_outputs(session, stack), BUS_OUTPUT)  # <construct id>EventBusArn in a user's app
    return arn.rsplit("/", 1)[1] if arn else "default"


def for_eventbridge(event: Any, account: str, region: str) -> Any:
    """The event as TestEventPattern takes it: in the caller's account and region (the sample events name
    example ones; the rule's pattern does not look at either)."""
    if not isinstance(event, dict):
        return event
    return {**event, "account": account, "region": region}


def check_patterns(eventbridge: Any, patterns: dict[str, dict[str, Any]], events: list[tuple[str, Any]], account: str,
                   region: str, say: Callable[[str], None]) -> bool:
    """EventBridge's verdict on each event against each rule's pattern, compared with the local matcher's."""
    from rule_actions_cli.invoke import InvokeError, aws_errors

    tested = matched = refused = unverified = 0
    differences = []
    for name, pattern in patterns.items():
        for source, event in events:
            candidate = for_eventbridge(event, account, region)
            ours = isinstance(candidate, dict) and matches(pattern, candidate)
            try:
                with aws_errors("events", region=region):
                    answer = eventbridge.test_event_pattern(EventPattern=json.dumps(pattern),
                                                            Event=json.dumps(candidate))
            except InvokeError as err:
                if "InvalidEventPatternException" in str(err) or "ValidationException" in str(err):
                    refused += 1  # not an event EventBridge accepts (a malformed sample): nothing to compare
                    continue
                raise
            if "Result" not in answer:
                unverified += 1
                continue
            tested += 1
            matched += bool(answer["Result"])
            if bool(answer["Result"]) != ours:
                differences.append(f"  {source} ({name}): EventBridge says {'match' if answer['Result'] else 'no match'}, "
                                   f"the local matcher says {'match' if ours else 'no match'}")
    line = (f"rule: {len(events)} sample events tested with EventBridge's TestEventPattern: {matched} match the "
            f"deployed pattern, {tested - matched} do not")
    if refused:
        line += f"; {refused} refused by EventBridge as events"
    if unverified:
        line += f"; {unverified} without a verdict (the endpoint returned none)"
    say(f"{line}; the local matcher {'agrees on every one' if not differences else 'differs on ' + str(len(differences))}")
    for difference in differences:
        say(difference)
    return not differences


def synthetic_event(prefixes: list[str], account: str, region: str, now: float | None = None) -> dict[str, Any]:
    """An IssuesFound event of a job that does not exist, under the first configured prefix, marked as an
    archive replay; its rule declares no action_json (so nothing is read to plan it)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    job = f"{prefixes[0] if prefixes else ''}rule-actions-check-{stamp}"[:63]
    arn = f"arn:aws:sagemaker:{region}:{account}:training-job/{job.lower()}"
    when = str(int((now or time.time()) * 1000))
    return {
        "version": "0", "id": f"rule-actions-check-{stamp}", "detail-type": DETAIL_TYPE, "source": SOURCE,
        "account": account, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), "region": region,
        "resources": [arn], "replay-name": REPLAY_NAME,
        "detail": {
            "TrainingJobName": job, "TrainingJobArn": arn, "TrainingJobStatus": "InProgress",
            "SecondaryStatus": "Training", "CreationTime": when, "LastModifiedTime": when,
            "DebugRuleConfigurations": [{"RuleConfigurationName": CHECK_RULE,
                                         "RuleParameters": {"rule_to_invoke": CHECK_RULE}}],
            "DebugRuleEvaluationStatuses": [{"RuleConfigurationName": CHECK_RULE, "RuleEvaluationStatus": "IssuesFound",
                                             "StatusDetails": "rule-actions check", "LastModifiedTime": when}],
        },
    }


def check_invocation(lambda_: Any, eventbridge: Any, configuration: dict[str, Any], patterns: dict[str, dict[str, Any]],
                     account: str, say: Callable[[str], None]) -> bool:
    """The synthetic event: routed by the deployed rule (TestEventPattern), then answered by the function with
    every action skipped as an archive replay."""
    from rule_actions_cli.invoke import aws_errors, read_answer

    config = json.loads((configuration.get("Environment") or {}).get("Variables", {}).get("RULE_ACTIONS_CONFIG") or "{}")
    region = lambda_.meta.region_name
    # Organization mode: a job of a member account the function acts for (the central one may not be listed).
    members = (config.get("organization") or {}).get("accounts") or [account]
    event = synthetic_event(list(config.get("training_job_prefixes") or []), members[0], region)
    job = event["detail"]["TrainingJobName"]
    routed = []
    for pattern in patterns.values():
        with aws_errors("events", region=region):
            answer = eventbridge.test_event_pattern(EventPattern=json.dumps(pattern), Event=json.dumps(event))
        routed.append(answer.get("Result", matches(pattern, event)))
    if not any(routed):
        say(f"FAILED: the deployed rule does not route a rule status IssuesFound of job {job}: the function would "
            "never see one")
        return False
    if config.get("act_on_replays"):
        say("invoke: not made: the deployed configuration has act_on_replays true, so the synthetic event would be "
            "acted on (test with `rule-actions invoke` and an event of your own)")
        return True
    start = time.monotonic()
    with aws_errors("lambda", region=region, function=configuration["FunctionName"]):
        response = lambda_.invoke(FunctionName=configuration["FunctionName"], InvocationType="RequestResponse",
                                  Payload=json.dumps(event))
        payload = read_answer(response, configuration["FunctionName"], region)
    seconds = time.monotonic() - start
    if response.get("FunctionError") or not isinstance(payload, dict):
        message = payload.get("errorMessage") if isinstance(payload, dict) else payload
        say(f"FAILED: the function failed on the synthetic event: {message}")
        return False
    actions = payload.get("actions") or []
    acted = [a for a in actions if a.get("outcome") != "skipped"]
    if payload.get("training_job") != job or acted or payload.get("ignored"):
        say(f"FAILED: unexpected answer to the synthetic event: {json.dumps(payload)[:300]}")
        return False
    kinds = ", ".join(sorted({a.get("kind", "?") for a in actions})) or "none: no `rules` entry matches " + CHECK_RULE
    say(f"invoke: a synthetic IssuesFound event of job {job} (replay-name set: nothing acted on) matches the "
        f"deployed rule; the function answered in {seconds:.1f} s with {len(actions)} action(s) planned and "
        f"skipped ({kinds})")
    return True


def samples_folder() -> Path:
    """The sample events: shipped in the installed package (rule_actions_cli/samples), or the checkout's events/."""
    here = Path(__file__).resolve().parent
    shipped = here / "samples"
    return shipped if shipped.is_dir() else here.parent / "events"


def default_events() -> list[tuple[str, Any]]:
    from rule_actions_cli import inputs

    events, _ = inputs.load([str(samples_folder())])
    return events  # loaded afresh: the caller may change them


EPILOG = """\
exit status: 0 when the deployed rule matches what the local matcher matches and the function answered the
synthetic event without acting; 1 when one of those failed (each finding on its own line); 2 when an input is
unusable or AWS cannot be configured or reached, or refuses a call (one line saying what is missing).
AWS settings as for `invoke`. The caller needs cloudformation:DescribeStacks, lambda:GetFunctionConfiguration,
lambda:InvokeFunction, events:ListRuleNamesByTarget, events:DescribeRule and events:TestEventPattern.

""" + examples("rule-actions check --stack RuleActions --region us-east-1")


def add_parser(commands: Any) -> None:
    check = commands.add_parser(
        "check", help="prove a deployed stack: its rule against the sample events, its function on a synthetic event",
        description=__doc__.split("\n\n", 1)[1].rsplit("\n\nExit status", 1)[0],
        epilog=EPILOG, formatter_class=Formatter)
    add_target_options(check, required=True, stack_only=True)
    check.add_argument("paths", nargs="*", metavar="EVENT_FILE_OR_DIR", help="events to test the rule with "
                       "(default: the sample events shipped with the command, the repository's events/*.json)")


def main(args: Any) -> int:
    from rule_actions_cli import inputs
    from rule_actions_cli.invoke import InvokeError

    events, errors = inputs.load(args.paths) if args.paths else (default_events(), [])
    if errors:
        return inputs.refuse(*errors)
    try:
        return run(args.stack, events, profile=args.profile, region=args.region, say=print)
    except InvokeError as err:
        return inputs.refuse(err)
