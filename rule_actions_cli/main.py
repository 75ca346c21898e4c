"""The `rule-actions` command: replay events on the embedded AWS, or send them to a deployed function."""

from __future__ import annotations

import argparse
import contextlib
import gc
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from rule_actions_cli import check as check_command
from rule_actions_cli import (
    files,
    html_report,
    inputs,
    receiver,
    replay_table,
    report,
    subscriptions,
    terminal,
    testnotify,
)
from rule_actions_cli import template as template_command
from rule_actions_cli.inputs import refuse
from rule_actions_cli.options import Formatter, add_target_options, examples

TOP_EPILOG = """\
exit status, the same convention for every command (each command's --help says its own cases):

0 when the command did its work and found no problem (replay, invoke: every event processed or answered, whatever
the actions' outcomes; test-notify: every destination reached; check: the deployment proved; report: printed;
subscriptions: listed, and removed with --remove; init, schema, samples, template: written).

1 when it ran but found a problem, each on its own row or line (replay: an input that is not an event or a
timeline, or has a wrong field, every other input still replayed; test-notify, check: a destination or the
deployment; template: the synthesis).

2 when it could not start: a usage error, the configuration, an input invoke or report cannot read, a place to
write or AWS is unusable (one line saying what, before anything runs).
"""
EPILOG = """\
exit status: 0 when every input was an event or timeline that could be read (whatever the actions' outcomes:
--json gives them to scripts); 1 when some input was a problem: a path that names nothing, a file that is not
JSON (a CSV) or holds no event, an event or timeline with a wrong field (each on its own row, naming the field
and its value; every other input still replayed); 2 when the configuration, --secrets or the command line is
unusable (one line per problem, nothing is replayed).

The first line says what is replayed and against what (not with --json). On a terminal, stderr's status
line says each slow step (synthesis, the embedded deploy, each event, each timeline's minute) and is cleared before
the table; nothing of it on a pipe, a file, with --json or --verbose. The table (BY: who asked for each action,
job, config or test) fits the terminal's width (COLUMNS), in colour on a terminal unless NO_COLOR is set.

""" + examples("rule-actions samples", "rule-actions replay events/ events/timelines/",
               "rule-actions replay --all --config rule-actions.json events/timelines/")
INVOKE_EPILOG = """\
exit status: 0 when every event was sent and answered (a function error, e.g. failed actions, is reported in
the output, not as the exit status), 2 when an input is unusable (one line per problem, nothing is sent) or
AWS cannot be configured or reached, or refuses a call (one line saying what is missing; the events answered
before it are still reported).

AWS settings, as the AWS CLI reads them: --profile or AWS_PROFILE; --region or AWS_REGION / AWS_DEFAULT_REGION
or the profile's region; credentials from the profile (`aws configure`, `aws sso login`) or AWS_ACCESS_KEY_ID
and AWS_SECRET_ACCESS_KEY; AWS_ENDPOINT_URL for another endpoint.

""" + examples("rule-actions invoke --stack RuleActions events/no-issues-found.json")


class CommandParser(argparse.ArgumentParser):
    """The command's parser (and, as their parser_class, its subcommands'): a flag or choice it does not know is
    refused (exit status 2) with the usage of the command it was given to, not the top level's, and "did you mean"
    the closest one it knows (`rule-actions replay --reciever`: did you mean --receiver?)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.given: list[str] = []  # what the last parse was given (a subcommand's parser: its own arguments)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(self.given, namespace)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        given = list(sys.argv[1:] if args is None else args)
        parsed, extras = self.parse_known_args(given, namespace)
        if extras:
            owner = self._owner(given, extras[0], getattr(parsed, "command", None))
            owner.error(_unrecognized(extras, owner))
        return parsed

    def _owner(self, given: list[str], first: str, command: str | None) -> argparse.ArgumentParser:
        """The parser whose argument `first` was: the subcommand's, unless it came before the command's name."""
        commands = next((a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), {})
        sub = commands.get(command) if command else None
        if sub is None or command not in given:
            return self
        return self if first in given and given.index(first) < given.index(command) else sub

    def error(self, message: str) -> NoReturn:
        """argparse's error; an invalid choice ("repaly") with the closest choice, and a required argument missing
        with the flags given that it does not know (`report --stak X`: did you mean --stack?)."""
        from rule_actions.text import closest  # an error's only

        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        near = closest(found.group(1), re.findall(r"'([^']*)'", found.group(2))) if found else None
        if near:
            message = f"{message}; did you mean {near}?"
        elif "required" in message:
            given = self.given[:self.given.index("--")] if "--" in self.given else self.given
            flags = _flags(self)
            strays = [a for a in given if a.startswith("--") and not any(f.startswith(a.partition("=")[0])
                                                                         for f in flags)]
            if strays:
                message += f"; {_unrecognized(strays, self)}"
        super().error(message)


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions for option in action.option_strings if option.startswith("--")]


def _unrecognized(extras: list[str], parser: argparse.ArgumentParser) -> str:
    """The arguments `parser` does not know, and the flags of its they probably are: "unrecognized arguments:
    --reciever; did you mean --receiver?" (with several: "did you mean --days (for --dayz), --json (for --jsn)?")."""
    from rule_actions.text import closest  # an error's only

    flags = [extra.partition("=")[0] for extra in extras if extra.startswith("--")]
    near = {flag: found for flag in dict.fromkeys(flags) if (found := closest(flag, _flags(parser)))}
    said = f"unrecognized arguments: {' '.join(extras)}"
    if len(near) == 1:
        return f"{said}; did you mean {next(iter(near.values()))}?"
    return f"{said}; did you mean {', '.join(f'{v} (for {k})' for k, v in near.items())}?" if near else said


def parser() -> argparse.ArgumentParser:
    top = CommandParser(
        prog="rule-actions",
        description="Actions for SageMaker jobs, on Debugger and Profiler rule statuses (IssuesFound, Error), on "
        "the monitor rules' findings and on job outcomes (training, tuning, processing, pipeline, transform): replay "
        "events on an embedded AWS, invoke a deployed function, send test notifications, check a deployed stack, "
        "report what it did and saved, clean up its topic's subscriptions; write a starting configuration file (and a "
        "CDK app), its schema, the sample events, or the stack as a CloudFormation template.",
        epilog=TOP_EPILOG,
        formatter_class=Formatter,
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    replay = commands.add_parser(
        "replay",
        help="replay events through the stack's rule pattern and the real handler, on an embedded AWS (moto)",
        description="Replays events in the order given (a directory: its *.json files by name; a file: one event "
        "or a JSON list) through the EventBridge rule(s) of the synthesized stack and, when they match, through "
        "the real handler, in an embedded account (moto) deployed from the stack's template. The jobs the events "
        "name (every family) exist there with the status each event states, but never move back: a late event "
        "(EventBridge keeps no order) finds a job that ended still ended, and nothing acts on it. A timeline (events/timelines/: jobs "
        "minute by minute, their phases, metrics and logs) runs the monitor rules' evaluator at each tick of a "
        "simulated clock; a row shows what changed (a finding, an action, a phase not judged). No AWS account is "
        "used.",
        epilog=EPILOG,
        formatter_class=Formatter,
    )
    replay.add_argument("paths", nargs="+", metavar="EVENT_FILE_OR_DIR")
    replay.add_argument("--json", action="store_true", help="one JSON object per event instead of the table")
    replay.add_argument("--all", action="store_true", help="list every event in the table, also those the rule does "
                        "not match and repeated deliveries that change nothing (without it they are counted)")
    replay.add_argument("--config", metavar="FILE", help="the configuration file (default: ./rule-actions.json if "
                        "there is one, else the defaults)")
    replay.add_argument("--dry-run", action="store_true", help="set dry_run: decide and report, change nothing")
    replay.add_argument("--verbose", action="store_true", help="show the handler's structured logs (stderr)")
    replay.add_argument("--html", metavar="FILE", help="also write the replay as one self-contained HTML page (no "
                        "script, nothing loaded from elsewhere): per timeline job, a chart of its phases, log "
                        "silences, GPU use, findings, the run that stopped or notified, and its cost against its "
                        "budget with what a stop saved; then every other event's row")
    receiver.add_options(replay)
    invoke = commands.add_parser(
        "invoke",
        help="send events to a deployed function and report its answers",
        description="Invokes a deployed rule-actions function synchronously with each event (the EventBridge "
        "rule is bypassed) and prints the same report. Uses the usual AWS settings: profile, region, "
        "AWS_ENDPOINT_URL.",
        epilog=INVOKE_EPILOG,
        formatter_class=Formatter,
    )
    add_target_options(invoke, required=True)
    invoke.add_argument("paths", nargs="+", metavar="EVENT_FILE_OR_DIR")
    invoke.add_argument("--json", action="store_true", help="one JSON object per event instead of the table")
    invoke.add_argument("--all", action="store_true", help="list every event in the table, also repeated deliveries "
                        "that change nothing (without it they are counted)")
    testnotify.add_parser(commands)
    check_command.add_parser(commands)
    subscriptions.add_parser(commands)
    files.add_parsers(commands)
    template_command.add_parser(commands)
    report.add_parser(commands)
    return top


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("rule-actions")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


# The cyclic garbage collector's thresholds while a command runs (Python's are 700, 10, 10): see fewer_collections.
COLLECTOR_THRESHOLDS = (50_000, 20, 100)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """The garbage collector run less often while the command runs, as before after. A replay builds millions of
    objects it keeps to the end (moto and its backends, botocore's service models, the embedded account's state) and
    makes little cyclic garbage: at Python's thresholds the collector walked them all again and again, a fifth of a
    one-event replay's CPU and a tenth of `make demo`'s (docs/performance.md). Garbage is still collected, in fewer,
    larger rounds; the peak memory stays within a few MB."""
    before = gc.get_threshold()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def main(argv: list[str] | None = None) -> int:
    """The command's run, every line it prints guarded (terminal.py): no value it shows can drive the terminal."""
    with terminal.guarded(), fewer_collections():
        return _main(argv)


def cli() -> int:
    """The `rule-actions` console script: main(), then the process ends. What it built is frozen (gc.freeze) first:
    the interpreter's last collection, as it exits, would otherwise walk every object a replay kept only to free
    them all (0.15 s of a one-event replay); the memory is the process's to give back anyway."""
    status = main()
    gc.freeze()
    return status


def _main(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    if args.command == "test-notify":
        return testnotify.run(args)
    if args.command == "check":
        return check_command.main(args)
    if args.command == "subscriptions":
        return subscriptions.main(args)
    if args.command in ("init", "schema", "samples"):
        command: Callable[[argparse.Namespace], int] = getattr(files, args.command)
        return command(args)
    if args.command == "template":
        return template_command.run(args)
    if args.command == "report":
        return report.main(args)
    events, errors = inputs.load(args.paths, as_rows=args.command == "replay")
    context: dict[str, Any] | None = None
    secrets: dict[str, str] = {}
    if args.command == "replay":
        context, config_errors = inputs.replay_context(args.config, args.dry_run)
        secrets, secret_errors = inputs.load_secrets(args.secrets)
        errors += config_errors + secret_errors + html_report.unwritable(args.html)
    if errors:
        return refuse(*errors)
    if context is not None and not args.json:  # the table's first line (--json: the rows only, for scripts)
        print(replay_table.heading(events, args.paths, context, args.config), flush=True)
    said = inputs.warnings_block(context, args.config) if context is not None else None
    if said:  # what synth says of the configuration, before its rows (stderr: --json's output stays JSON)
        print(said, file=sys.stderr)
    if args.command == "invoke":
        return run_invoke(events, args)
    from rule_actions.config import ConfigError  # here: the other commands never load the plug-ins

    assert context is not None  # replay, the one command left, read it

    try:
        with receiver.receiving(secrets, args.receiver) as receivers:
            deliveries: list[replay_table.Delivery] = []
            rows = run_replay(events, context, args.verbose, secrets, deliveries, progress=not args.json)
    except (receiver.ReceiverError, ConfigError) as err:  # a port in use; what synthesis refuses
        return refuse(err)
    write(args)(rows, sys.stdout)
    if args.html:
        try:
            html_report.write(args.html, events, rows)
        except OSError as err:
            return refuse(html_report.problem(args.html, err))
    side = sys.stderr if args.json else sys.stdout
    receiver.report(receivers, side)
    if args.receiver:
        replay_table.write_deliveries(deliveries, side)
    return inputs.problem_status(rows)


def write(args: argparse.Namespace) -> Any:
    """How rows are printed: --json, or the table fitted to the terminal (colour only on one)."""
    if args.json:
        return replay_table.write_json
    return lambda rows, out: replay_table.write_table(rows, out, colour=replay_table.colour_wanted(out), show_all=args.all)


def run_replay(events: list[tuple[str, Any]], context: dict[str, Any], verbose: bool,
               secrets: dict[str, str] | None = None, deliveries: list[replay_table.Delivery] | None = None,
               progress: bool = False) -> list[dict[str, Any]]:
    """The rows; `deliveries`, when given, receives what the stack's topics delivered. `progress`: the slow steps
    said on stderr's status line when stderr is a terminal (terminal.StatusLine; nothing on a pipe or a file)."""
    from rule_actions_cli.embedded_organization import embedded_from

    status = terminal.StatusLine(sys.stderr)
    try:
        # No command reads the replay's stack back from CloudFormation: its resources are created without it.
        with embedded_from(context, secrets, status.show if progress and not verbose else None,
                           cloudformation=False) as world:
            rows = world.replay(events, log=sys.stderr if verbose else None)
            if deliveries is not None:
                deliveries += world.deliveries()
            return rows
    finally:
        status.clear()


def run_invoke(events: list[tuple[str, Any]], args: argparse.Namespace) -> int:
    """Send the events and print the report: 0; AWS not configured, unreachable or refusing: the rows answered
    before, one line on stderr, 2."""
    from rule_actions_cli.invoke import InvokeError, send

    write_rows = write(args)
    try:
        rows = send(events, function_name=args.function_name, stack=args.stack, profile=args.profile, region=args.region)
    except InvokeError as err:
        if err.rows:
            write_rows(err.rows, sys.stdout)
        return refuse(err)
    write_rows(rows, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(cli())
