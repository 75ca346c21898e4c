"""`rule-actions init` and `rule-actions schema`: the configuration file and its JSON Schema, in any directory.

    rule-actions init     writes ./rule-actions.json (a starting configuration whose "$schema" line names the
                          schema beside it) and ./rule-actions.schema.json; refuses to overwrite either
    rule-actions schema   prints the schema (or writes it: --out FILE)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SCHEMA_FILE = "rule-actions.schema.json"
STARTER: dict[str, Any] = {
    "$schema": f"./{SCHEMA_FILE}",
    "notify": {"emails": [], "sms": []},
    "rules": {"*": ["notify"]},
    "job_outcomes": {"Failed": ["notify"], "MaxRuntimeExceeded": ["notify"], "MaxWaitTimeExceeded": ["notify"],
                     "Interrupted": ["notify"]},
    "allowed_endpoints": [],
    "training_job_prefixes": [],
    "stack": {"stack_name": "RuleActions"},
}


def add_parsers(commands: Any) -> None:
    init = commands.add_parser(
        "init", help="write a starting rule-actions.json and its JSON Schema in this directory",
        description="Writes ./rule-actions.json (notify the team on every rule's IssuesFound and on failed, timed "
        "out or interrupted jobs; add the team's addresses to notify.emails) and ./" + SCHEMA_FILE + ", which "
        "its \"$schema\" line names so that editors complete and check it. Nothing is overwritten.")
    init.add_argument("--directory", default=".", metavar="DIR", help="where to write them (default: here)")
    schema = commands.add_parser("schema", help="print the configuration file's JSON Schema",
                                 description="The JSON Schema of rule-actions.json, generated from what the "
                                 "installed version declares.")
    schema.add_argument("--out", metavar="FILE", help="write it to FILE instead of printing it")


def text() -> str:
    from rule_actions_cdk.settings import file_schema

    return json.dumps(file_schema(), indent=2, ensure_ascii=False) + "\n"


def init(args: argparse.Namespace) -> int:
    from rule_actions_cdk.settings import FILE_NAME

    folder = Path(args.directory)
    targets = {folder / FILE_NAME: json.dumps(STARTER, indent=2) + "\n", folder / SCHEMA_FILE: text()}
    existing = [str(path) for path in targets if path.exists()]
    if existing:
        print(f"rule-actions: {', '.join(existing)} already exist: nothing was written", file=sys.stderr)
        return 2
    for path, content in targets.items():
        path.write_text(content, encoding="utf-8")
        print(f"wrote {path}")
    print("next: add the team's addresses to notify.emails, then `rule-actions replay EVENTS` to try it locally")
    return 0


def schema(args: argparse.Namespace) -> int:
    if args.out:
        Path(args.out).write_text(text(), encoding="utf-8")
    else:
        sys.stdout.write(text())
    return 0
