"""`rule-actions init`, `schema` and `samples`: the configuration file, its JSON Schema, a CDK app reading it, and
the sample events, in any directory.

    rule-actions init     writes ./rule-actions.json (a starting configuration whose "$schema" line names the
                          schema beside it) and ./rule-actions.schema.json; with --cdk also ./app.py and ./cdk.json,
                          a CDK app whose stack is configured by rule-actions.json; refuses to overwrite any
    rule-actions schema   prints the schema (or writes it: --out FILE)
    rule-actions samples  writes the sample events and timelines shipped with the command (./events/), for replay

A place that cannot be written (a missing directory, a file where a directory is named, a directory named for a
file, a read-only or forbidden place) is one line naming it, with exit status 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from rule_actions_cli.inputs import refuse
from rule_actions_cli.options import Formatter, examples

SCHEMA_FILE = "rule-actions.schema.json"
CDK_CLI = "aws-cdk@2.1148.1"  # the CDK CLI this release is tested with (package.json), as the docs install it
STARTER: dict[str, Any] = {
    "$schema": f"./{SCHEMA_FILE}",
    "notify": {"emails": [], "sms": []},
    "rules": {"*": ["notify"]},
    "job_outcomes": {"Failed": ["notify"], "MaxRuntimeExceeded": ["notify"], "MaxWaitTimeExceeded": ["notify"],
                     "Interrupted": ["notify"]},
    "allowed_endpoints": [],
    "training_job_prefixes": [],
}  # then "stack": {"stack_name": the default stack name} (settings.DEFAULTS: read when init runs, not at import)
APP_FILE, CDK_FILE = "app.py", "cdk.json"
# The CDK app `init --cdk` writes (the README shows it as it is): its stack is named by rule-actions.json, as every
# command names it (one source: the file's stack.stack_name, else the default).
APP = """\
# A CDK app: `npx cdk synth` and `npx cdk deploy` run it (cdk.json). Its configuration is rule-actions.json, the
# file `rule-actions replay`, `template` and `test-notify` read too. The stack's name is its stack.stack_name
# (default RuleActions): the name `rule-actions template` writes and `rule-actions check --stack` takes.
from aws_cdk import App, Stack
from rule_actions_cdk import RuleActions, stack_name

app = App()
stack = Stack(app, stack_name("rule-actions.json"))
RuleActions(stack, "TrainingActions", config="rule-actions.json")
app.synth()
"""


def add_parsers(commands: Any) -> None:
    init = commands.add_parser(
        "init", help="write a starting rule-actions.json and its JSON Schema in this directory (--cdk: and a CDK app)",
        description="Writes ./rule-actions.json (notify the team on every rule's IssuesFound and on failed, timed "
        "out or interrupted jobs; add the team's addresses to notify.emails) and ./" + SCHEMA_FILE + ", which "
        "its \"$schema\" line names so that editors complete and check it. Nothing is overwritten.",
        epilog=examples("rule-actions init", "rule-actions init --cdk"),
        formatter_class=Formatter)
    init.add_argument("--directory", default=".", metavar="DIR", help="where to write them (default: here)")
    init.add_argument("--cdk", action="store_true", help=f"also write ./{APP_FILE}, a CDK app whose stack (named "
                      "by rule-actions.json's stack.stack_name, default RuleActions) holds the "
                      f"construct configured by rule-actions.json, and ./{CDK_FILE}, which runs it with this Python "
                      "(python3) and the feature flags the construct is tested with")
    schema = commands.add_parser("schema", help="print the configuration file's JSON Schema",
                                 description="The JSON Schema of rule-actions.json, generated from what the "
                                 "installed version declares.",
                                 epilog=examples("rule-actions schema --out rule-actions.schema.json"),
                                 formatter_class=Formatter)
    schema.add_argument("--out", metavar="FILE", help="write it to FILE instead of printing it")
    samples = commands.add_parser(
        "samples", help="write the sample events and timelines shipped with the command, to replay them",
        description="Writes the sample events (what SageMaker sends; docs/sample-events.md says what each shows) "
        "and the sample timelines (timelines/: jobs minute by minute, for the monitor rules) shipped with the "
        "command into a new directory, as the repository's events/ holds them.",
        epilog=examples("rule-actions samples", "rule-actions replay events/timelines/hung-job.json"),
        formatter_class=Formatter)
    samples.add_argument("--directory", default="events", metavar="DIR",
                         help="where to write them (default: ./events; it must not exist or be empty)")


def samples(args: argparse.Namespace) -> int:
    """Copy the shipped samples (rule_actions_cli/samples, or a checkout's events/) into a new directory."""
    from rule_actions_cli.check import samples_folder

    folder, source = Path(args.directory), samples_folder()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        return refuse(f"{folder}: already exists and is not an empty directory: nothing was written (name "
                       "another with --directory)")
    problem = directory_problem(folder, create=True)
    if problem:
        return refuse(problem)
    files = sorted(p for pattern in ("*.json", "*/*.json", "*/*/*.json") for p in source.glob(pattern))
    for path in files:
        target = folder / path.relative_to(source)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
        except OSError as err:
            return refuse(f"{target}: cannot write it ({err.strerror or type(err).__name__})")
    print(f"wrote {len(files)} sample files in {folder}/ (timelines in {folder / 'timelines'}/)")
    print(f"next: rule-actions replay {shlex.quote(str(folder))}/ {shlex.quote(str(folder / 'timelines'))}/")
    return 0


def text() -> str:
    from rule_actions_cdk.settings import file_schema

    return json.dumps(file_schema(), indent=2, ensure_ascii=False) + "\n"


def directory_problem(folder: Path, create: bool = False) -> str | None:
    """Why files cannot be written in `folder` (one line naming it), or None; with `create`, a missing folder is
    fine when its nearest existing parent is a writable directory (it is made later, nothing is made here).
    Checked by writing a probe file, which is what tells (root ignores permission bits; a read-only file system
    refuses all)."""
    if folder.exists() and not folder.is_dir():
        return f"{folder}: not a directory (a file is there)"
    place = folder
    if not folder.exists():
        if not create:
            return f"{folder}: no such directory (create it first)"
        place = next(p for p in folder.absolute().parents if p.exists())
        if not place.is_dir():
            return f"{folder}: not a directory ({place} on its path is a file)"
    try:
        with tempfile.NamedTemporaryFile(dir=place, prefix=".rule-actions-"):
            pass
    except OSError as err:
        return f"{folder}: cannot write there ({err.strerror or type(err).__name__})"
    return None


def file_problem(path: Path) -> str | None:
    """Why `path` cannot be written (one line naming it), or None."""
    if path.is_dir():
        return f"{path}: is a directory (name a file)"
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        return f"{path}: {parent} is not a directory"
    if not parent.exists():
        return f"{path}: no such directory {parent} (create it first)"
    return directory_problem(parent)


def _write(path: Path, content: str) -> str | None:
    try:
        path.write_text(content, encoding="utf-8")
    except OSError as err:
        return f"{path}: cannot write it ({err.strerror or type(err).__name__})"
    return None


def cdk_json() -> str:
    """cdk.json of the app `init --cdk` writes: the app, run through `python3 -m rule_actions_cdk` (no Node.js
    end-of-life banner, a configuration error in one message), and the feature flags the construct is tested with."""
    from rule_actions_cdk.app import feature_flags

    return json.dumps({"app": f"python3 -m rule_actions_cdk {APP_FILE}", "context": feature_flags()}, indent=2) + "\n"


def init(args: argparse.Namespace) -> int:
    from rule_actions_cdk.settings import DEFAULTS, FILE_NAME

    folder = Path(args.directory)
    problem = directory_problem(folder)
    if problem:
        return refuse(problem)
    starter = {**STARTER, "stack": {"stack_name": DEFAULTS["stack_name"]}}  # the one default (settings.py)
    targets = {folder / FILE_NAME: json.dumps(starter, indent=2) + "\n", folder / SCHEMA_FILE: text()}
    if args.cdk:
        targets.update({folder / APP_FILE: APP, folder / CDK_FILE: cdk_json()})
    existing = [str(path) for path in targets if os.path.lexists(path)]
    if existing:
        return refuse(f"{', '.join(existing)} already exist: nothing was written")
    for path, content in targets.items():
        problem = _write(path, content)
        if problem:
            return refuse(problem)
        print(f"wrote {path}")
    print("next: add the team's addresses to notify.emails; try it locally with `rule-actions samples` (writes "
          "./events) and `rule-actions replay events/`" + ("; synthesize with `npx cdk synth` (the CDK CLI: npm "
                                                            f"install {CDK_CLI})" if args.cdk else ""))
    return 0


def schema(args: argparse.Namespace) -> int:
    if args.out:
        problem = file_problem(Path(args.out)) or _write(Path(args.out), text())
        if problem:
            return refuse(problem)
    else:
        sys.stdout.write(text())
    return 0
