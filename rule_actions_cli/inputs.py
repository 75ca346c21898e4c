"""What the commands read: event files (a file holds one event, an object, or a JSON list of events; a directory,
its *.json files in file-name order; every file is read and checked before anything is replayed; an element of a
list that is not an object is kept, under its FILE#INDEX, and reported on its own row by `not_an_event` while the
others still run; an entry of a directory that cannot be read, a symlink loop, a dangling link or a directory
named *.json, is kept the same way, under its path, and reported on its own row; for the replay, every unusable
input is: `load(..., as_rows=True)`), secrets, and the configuration a replay runs with; and `refuse`, how a command
refuses what it was given (a line each, exit status 2). One event file holds at most MAX_EVENT_FILE_BYTES, checked
by its size before it is read (a larger one is one error line, or the replay's row: the parsed JSON of a file takes
several times its size in memory)."""

from __future__ import annotations

import errno
import json
import os
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rule_actions.text import os_problem, quoted
from rule_actions_cli.terminal import TEXT, fit_width, shown

# json.loads raises RecursionError on input nested deeper than Python's recursion limit (about 1,000 levels):
# the file is then said to be nested too deeply, on one line, like any other unreadable file.
TOO_DEEP = "nested too deeply: JSON of more than about 1,000 levels"
MAX_EVENT_FILE_BYTES = 10_000_000  # 10 MB: some 40,000 events of SageMaker's size; the replay's memory stays bounded
# What an input that is not an event is told (a CSV, an object without "detail-type").
EVENT_SHAPE = ('an event is the JSON object EventBridge delivers, e.g. {"source": "aws.sagemaker", "detail-type": '
               '"SageMaker Training Job State Change", "detail": {"TrainingJobName": "...", "TrainingJobStatus": '
               '"Failed", ...}} (a file holds one, or a JSON list of them; the samples: docs/sample-events.md)')


def refuse(*problems: object) -> int:
    """Each problem on its own line of standard error, after the command's name; the exit status of bad input, 2."""
    for problem in problems:  # a problem's own lines (an invalid configuration's list) stay lines, each escaped
        lines = str(problem).split("\n")
        print("rule-actions: " + "\n".join(" " * (len(line) - len(line.lstrip(" "))) + shown(line, TEXT)
                                            for line in lines), file=sys.stderr)
    return 2


@dataclass(frozen=True)
class Unreadable:
    """An entry of an event directory that cannot be read: reported on its own row (`not_an_event`)."""

    reason: str


def _entry_problem(path: Path) -> str | None:
    """Why a directory's *.json entry is not a readable file, or None when it is one."""
    try:
        if path.is_file():
            return None
        os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "cannot be read (a symlink loop)"
        if err.errno == errno.ENOENT:
            return f"cannot be read (a link to {os.readlink(path)}, which does not exist)" if path.is_symlink() \
                else "cannot be read (it vanished)"
        return f"cannot be read ({err.strerror or type(err).__name__})"
    return "not a file (a directory or a device named like an event file): nothing to replay"


def expand(raw: str) -> tuple[list[Path], str | None]:
    """A path's event files (a directory: its *.json entries by name, those that are not readable files too:
    `read` keeps them as Unreadable), or why there are none."""
    path = Path(raw)
    if path.is_dir():
        found = sorted(path.glob("*.json"))
        return found, None if found else f"{raw}: directory holds no *.json file"
    if path.is_file():
        return [path], None
    return [], f"{raw}: no such file or directory"


def read(path: Path) -> tuple[list[tuple[str, Any]], str | None]:
    """The events in one file, with source FILE or FILE#INDEX, or why it is unusable (a directory's entry that is
    not a readable file: one Unreadable under its path, reported on its row)."""
    problem = _entry_problem(path)
    if problem:
        return [(str(path), Unreadable(problem))], None
    try:
        size = path.stat().st_size
        if size > MAX_EVENT_FILE_BYTES:
            return [], (f"{path}: {size:,} bytes, more than an event file may hold "
                        f"({MAX_EVENT_FILE_BYTES // 1_000_000} MB): split it into smaller files")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        return [], f"{path}: cannot be read ({os_problem(err)})"
    except ValueError as err:
        return [], f"{path}: not JSON ({err}): {EVENT_SHAPE}"
    except RecursionError:
        return [], f"{path}: not readable JSON ({TOO_DEEP})"
    if isinstance(data, dict):
        return [(str(path), data)], None
    if isinstance(data, list) and data:
        return [(f"{path}#{index}", item) for index, item in enumerate(data)], None
    if isinstance(data, list):
        return [], f"{path}: holds an empty list: no event to replay"
    return [], f"{path}: must hold an event (a JSON object) or a list of events, not {_kind(data)}: {EVENT_SHAPE}"


def not_an_event(item: Any) -> str | None:
    """Why an element of an events file is not an event (the problem on its row), or None for an object."""
    if isinstance(item, dict):
        return None
    if isinstance(item, Unreadable):
        return item.reason
    return f"not an event: an element of the list must be a JSON object, this one is {_kind(item)} {quoted(item, 40)}"


def _kind(value: Any) -> str:
    return {str: "a string", int: "a number", float: "a number", bool: "a boolean", list: "a list",
            type(None): "null"}.get(type(value), type(value).__name__)


def load(paths: list[str], as_rows: bool = False) -> tuple[list[tuple[str, Any]], list[str]]:
    """Every event in the order given (with the list elements that are not objects: see `not_an_event`), and
    one error line per unusable input, also in that order. With `as_rows` (the replay), an unusable input (a path
    that names nothing, a file that is not JSON, such as a CSV, or holds no event) is kept in its place instead, as
    an Unreadable under its path, to be reported on its own row while the other inputs go on: no errors then."""
    events: list[tuple[str, Any]] = []
    errors: list[str] = []

    def unusable(source: str, problem: str) -> None:
        if as_rows:
            events.append((source, Unreadable(problem.removeprefix(f"{source}: "))))
        else:
            errors.append(problem)

    for raw in paths:
        files, problem = expand(raw)
        if problem:
            unusable(raw, problem)
        for path in files:
            found, problem = read(path)
            events += found
            if problem:
                unusable(str(path), problem)
    return events, errors


def problem_status(rows: list[dict[str, Any]]) -> int:
    """The replay's exit status once every input was processed: 1 when any input was a problem (a row with
    `problems`: a file or event that could not be read, a timeline with a wrong field), else 0. The actions'
    outcomes never change it (--json gives them to scripts)."""
    return 1 if any(item.get("problems") for item in rows) else 0


def _readable_by_others(mode: int) -> str:
    """Who besides the owner has any access to a file of this mode ("" when nobody, or on Windows, whose modes do
    not say)."""
    if os.name == "nt" or not mode & 0o077:
        return ""
    who = [name for name, bits in (("group", 0o070), ("others", 0o007)) if mode & bits]
    return "readable by " + " and ".join(who) if mode & 0o044 else "open to " + " and ".join(who)


def context_and_secrets(config_file: str | None, secrets_file: str | None) -> tuple[dict[str, Any], dict[str, str],
                                                                                  list[str]]:
    """What a command run on the embedded AWS reads first (`report --replay`, `test-notify`): the configuration's
    synthesis context and the --secrets file, with every error of both."""
    context, config_errors = replay_context(config_file, False)
    secrets, secret_errors = load_secrets(secrets_file)
    return context, secrets, config_errors + secret_errors


def load_secrets(path: str | None) -> tuple[dict[str, str], list[str]]:
    """--secrets FILE: a JSON object of secret name -> secret string (an object is taken as its JSON string).
    The values are never printed, not even in an error."""
    if not path:
        return {}, []
    try:
        with open(path, encoding="utf-8") as file:
            mode = stat.S_IMODE(os.fstat(file.fileno()).st_mode)
            data = json.loads(file.read())
    except (OSError, UnicodeDecodeError) as err:
        return {}, [f"{path}: cannot be read ({os_problem(err)})"]
    except ValueError:
        return {}, [f"{path}: not JSON"]
    except RecursionError:
        return {}, [f"{path}: not readable JSON ({TOO_DEEP})"]
    exposed = _readable_by_others(mode)
    if exposed:  # used all the same (a demo's placeholders are public anyway), but said, before anything runs
        print(f"rule-actions: warning: {path} is {exposed} (mode {mode:04o}) and holds secrets: run "
              f"chmod 600 {shlex.quote(path)}", file=sys.stderr)
    if not isinstance(data, dict):
        return {}, [f"{path}: must hold a JSON object of secret name -> secret string"]
    secrets, errors = {}, []
    for name, value in data.items():
        if isinstance(value, dict):
            value = json.dumps(value)
        if not name or not isinstance(value, str):
            errors.append(f"{path}: secret {name!r}: its value must be a string or an object")
        else:
            secrets[name] = value
    return secrets, errors


def replay_context(config_file: str | None, dry_run: bool) -> tuple[dict[str, Any], list[str]]:
    """The synthesis context of the configuration file (--config, else ./rule-actions.json, else the defaults),
    validated; errors as lines, each field named by its path in the file (`rule-actions.json.rules["X"]`), as the
    construct and `cdk synth` name it."""
    from rule_actions.config import ConfigError
    from rule_actions_cdk.app import file_context, project_context, read_context

    where = config_source(config_file) or "the default configuration"
    try:
        context = project_context(config_file)
    except ConfigError as err:  # the file unreadable: the error names it
        return {}, [str(err)]
    except RecursionError:
        return {}, [f"{config_file}: not a readable JSON file ({TOO_DEEP})"]
    if dry_run:
        context["rule_actions"] = {**(context.get("rule_actions") or {}), "dry_run": True}
    try:
        if config_source(config_file):
            read_context(file_context(config_file))  # the file itself: its fields named from its name
        read_context(context)
    except ConfigError as err:
        said = str(err)
        return context, [said if said.startswith(where) else f"{where}: {said}"]
    except RecursionError:
        return context, [f"{where}: not a readable JSON file ({TOO_DEEP})"]
    return context, []


def config_source(config_file: str | None) -> str | None:
    """The configuration file as the user names it: --config's, else ./rule-actions.json when there is one (None:
    the defaults)."""
    from rule_actions_cdk.settings import FILE_NAME, shown_path

    if config_file:
        return shown_path(config_file)
    return FILE_NAME if (Path.cwd() / FILE_NAME).is_file() else None


def warnings_block(context: dict[str, Any], config_file: str | None = None) -> str | None:
    """The configuration's warnings as synth prints them ("the configuration is valid, but:"), for a context
    `replay_context` accepted, each field named from the file (--config, else ./rule-actions.json), wrapped to the
    terminal when it is narrower than synth's 110 columns; None when there is none."""
    from rule_actions_cdk.app import read_context
    from rule_actions_cdk.plugins import warning_block, warnings

    config, _ = read_context(context)
    found = warnings(config, config_source(config_file) or config.where)
    return warning_block(found, min(110, fit_width(110))) if found else None  # synth's width, or a narrower terminal's


def is_timeline(event: Any) -> bool:
    """Whether an input is a timeline (events/timelines/: its "timeline" and "jobs"), not an event."""
    return isinstance(event, dict) and "timeline" in event and "jobs" in event


def job_of(event: Any) -> tuple[str | None, str | None]:
    """(the job an event names, its family's name), as its job family reads them (None when it names none)."""
    from rule_actions import registry

    family = registry.job_family(event)
    detail = event.get("detail") if family else None
    name = family.name_of(detail) if family and isinstance(detail, dict) else None
    return (name if isinstance(name, str) else None), (family.name if family else None)
