"""`rule-actions init` and `rule-actions schema`: the configuration file and its JSON Schema, in any directory.

    rule-actions init     writes ./rule-actions.json (a starting configuration whose "$schema" line names the
                          schema beside it) and ./rule-actions.schema.json; refuses to overwrite either
    rule-actions schema   prints the schema (or writes it: --out FILE)

A place that cannot be written (a missing directory, a file where a directory is named, a directory named for a
file, a read-only or forbidden place) is one line naming it, with exit status 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
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


def _refuse(problem: str) -> int:
    print(f"rule-actions: {problem}", file=sys.stderr)
    return 2


def _write(path: Path, content: str) -> str | None:
    try:
        path.write_text(content, encoding="utf-8")
    except OSError as err:
        return f"{path}: cannot write it ({err.strerror or type(err).__name__})"
    return None


def init(args: argparse.Namespace) -> int:
    from rule_actions_cdk.settings import FILE_NAME

    folder = Path(args.directory)
    problem = directory_problem(folder)
    if problem:
        return _refuse(problem)
    targets = {folder / FILE_NAME: json.dumps(STARTER, indent=2) + "\n", folder / SCHEMA_FILE: text()}
    existing = [str(path) for path in targets if os.path.lexists(path)]
    if existing:
        print(f"rule-actions: {', '.join(existing)} already exist: nothing was written", file=sys.stderr)
        return 2
    for path, content in targets.items():
        problem = _write(path, content)
        if problem:
            return _refuse(problem)
        print(f"wrote {path}")
    print("next: add the team's addresses to notify.emails, then `rule-actions replay EVENTS` to try it locally")
    return 0


def schema(args: argparse.Namespace) -> int:
    if args.out:
        problem = file_problem(Path(args.out)) or _write(Path(args.out), text())
        if problem:
            return _refuse(problem)
    else:
        sys.stdout.write(text())
    return 0
