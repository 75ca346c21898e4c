"""Settings only the stack needs (rule-actions.json's "stack", or the context key `rule_actions_stack`), the
configuration file's schema, and reading context values.

`cdk synth -c key=value` hands the app a string, a context file an object: `context_object` accepts both. Every
problem raises `ConfigError` (the same error as the function's configuration) naming the key and what is
allowed, so `app.py` prints one message and exits 1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, TypeVar

from rule_actions.config import ConfigError
from rule_actions.text import os_problem, quoted, unknown

CONFIG_KEY = "rule_actions"  # a context value: the configuration as a JSON object (tests, `-c` overrides)
CONFIG_FILE_KEY = "rule_actions_file"  # a context value: the configuration file (make deploy CONFIG=...)
STACK_KEY = "rule_actions_stack"  # a context value: the stack settings (else the file's "stack")
FILE_NAME = "rule-actions.json"  # the configuration file, found in the current directory when none is named
FILE_STACK, FILE_SCHEMA = "stack", "$schema"  # the file's keys besides the configuration's

# The Python versions the function may run on: Lambda's managed Python runtimes on Amazon Linux 2023 (python3.12,
# deprecated on 2028-10-31; python3.13 and python3.14 on 2029-06-30). python3.11 is left out although Lambda still
# lists it: it runs on Amazon Linux 2, whose end of life was 2026-06-30, and Lambda blocks creating its functions a
# month after the runtime's deprecation (a stack synthesized today must still deploy next year).
LAMBDA_PYTHONS = ("3.12", "3.13", "3.14")
SYNTHESIZING_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
RUNTIME_PYTHON_ENV = "RULE_ACTIONS_RUNTIME_PYTHON"  # an interpreter (path or command) that decides the runtime
HEADERS = ("invalid configuration:\n  ", "invalid stack settings:\n  ")  # a ConfigError listing fields begins so
C = TypeVar("C")
S = TypeVar("S")


@dataclass(frozen=True)
class RuntimePython:
    """The function's Python version and the interpreter of that version that compiles its code asset's bytecode
    (infra/rule_actions_cdk/bundle.py: only that version reads it; None: none was found, the asset ships sources
    and every cold start compiles them), and how it was chosen (synth's note, cdk-nag's acknowledgment)."""

    version: str
    interpreter: str | None
    chosen: str


def runtime_python(environ: Mapping[str, str] | None = None, executable: str = sys.executable,
                   synthesizing: str = SYNTHESIZING_PYTHON) -> RuntimePython:
    """In order: the interpreter `RULE_ACTIONS_RUNTIME_PYTHON` names (a path or a command on PATH, run once to
    read its version; an error unless it is one of LAMBDA_PYTHONS); the synthesizing interpreter when its version
    is one; the newest of python3.14, 3.13, 3.12 found on PATH (not through pyenv's or asdf's shims, which fail
    outside their own version) or installed by pyenv or uv; else python3.14 without an interpreter."""
    env = os.environ if environ is None else environ
    named = env.get(RUNTIME_PYTHON_ENV, "").strip()
    if named:
        found = shutil.which(named, path=env.get("PATH")) or named
        version = _version_of(found)
        if version not in LAMBDA_PYTHONS:
            raise ConfigError(f"{RUNTIME_PYTHON_ENV}={quoted(named)}: "
                              + (f"is Python {version}" if version else "does not run as a Python interpreter")
                              + f"; the function's runtime must be one of {', '.join(LAMBDA_PYTHONS)}")
        return RuntimePython(version, found, f"{RUNTIME_PYTHON_ENV} names {found}")
    if synthesizing in LAMBDA_PYTHONS:
        return RuntimePython(synthesizing, executable, "the Python that synthesizes")
    for version in reversed(LAMBDA_PYTHONS):
        installed = _installed(version, env)
        if installed:
            return RuntimePython(version, installed, f"the newest Lambda Python found on this machine ({installed})")
    return RuntimePython(LAMBDA_PYTHONS[-1], None, f"no Python {', '.join(LAMBDA_PYTHONS)} was found on this machine")


def _version_of(interpreter: str) -> str | None:
    """'3.13' for an interpreter that runs, else None."""
    try:
        done = subprocess.run([interpreter, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _installed(version: str, env: Mapping[str, str]) -> str | None:
    """An interpreter of `version`: on PATH (shims left out), else the newest pyenv or uv installation of it."""
    name = f"python{version}"
    for folder in env.get("PATH", "").split(os.pathsep):
        candidate = Path(folder or ".") / name
        if "shims" not in candidate.parts and candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    home = Path(env.get("HOME") or Path.home())
    pyenv = Path(env.get("PYENV_ROOT") or home / ".pyenv") / "versions"
    uv = Path(env.get("UV_PYTHON_INSTALL_DIR") or home / ".local" / "share" / "uv" / "python")
    release = re.compile(rf"(?:cpython-)?{re.escape(version)}\.(\d+)(?:-.*)?")  # not 3.13.0t nor 3.13-dev
    installs = {}
    for candidate in (*pyenv.glob(f"*/bin/{name}"), *uv.glob(f"*/bin/{name}")):
        matched = release.fullmatch(candidate.parent.parent.name)
        if matched and os.access(candidate, os.X_OK):
            installs[candidate] = int(matched.group(1))
    return str(max(installs, key=installs.__getitem__)) if installs else None


RUNTIME = runtime_python()
PYTHON_VERSION = RUNTIME.version

# Retention periods CloudWatch Logs accepts (and aws-cdk-lib's RetentionDays names); null keeps logs forever.
LOG_RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557,
                      2922, 3288, 3653)
STACK_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,39}")  # CloudFormation's rule, capped so derived names fit
MAX_RESERVED_CONCURRENCY = 1000
DEFAULTS: dict[str, Any] = {
    "stack_name": "RuleActions",
    "reserved_concurrency": None,
    "log_retention_days": 90,
    "sms_delivery_logs": True,
    "dashboard": True,
}
# Keys of earlier releases, refused with what replaced them.
REMOVED = {
    "powertools_layer": "removed: Powertools is bundled into the function's code from this environment (the "
                        "version the tests ran), in every region; delete the key",
}


@dataclass(frozen=True)
class StackSettings:
    """What the stack is called and how the function is provisioned (the function never reads these)."""

    stack_name: str = DEFAULTS["stack_name"]
    # None: no reservation. New accounts often have a concurrency quota of 10, and Lambda keeps 10 unreserved,
    # so any reservation there fails the deploy.
    reserved_concurrency: int | None = DEFAULTS["reserved_concurrency"]
    log_retention_days: int | None = DEFAULTS["log_retention_days"]
    # When the configuration can send texts: set the account's SMS delivery status role in the stack's region
    # (an account-wide setting; false leaves it to whoever manages it).
    sms_delivery_logs: bool = DEFAULTS["sms_delivery_logs"]
    # The CloudWatch dashboard <name>-dashboard: what the stack did and saved, and the evaluator's health (CloudWatch
    # bills a dashboard beyond an account's first three; false: none).
    dashboard: bool = DEFAULTS["dashboard"]

    @classmethod
    def from_dict(cls, data: Any, where: str = STACK_KEY) -> StackSettings:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}: must be an object with the keys {', '.join(DEFAULTS)}; got {quoted(data)}")
        errors = [f"{where}.{key}: {REMOVED[key]}" if key in REMOVED else f"{where}.{key}: {unknown(key, DEFAULTS)}"
                  for key in data if key not in DEFAULTS]
        values = {**DEFAULTS, **{k: v for k, v in data.items() if k in DEFAULTS}}

        name = values["stack_name"]
        if not isinstance(name, str) or not STACK_NAME_RE.fullmatch(name):
            errors.append(f"{where}.stack_name: {quoted(name)} is not a stack name (a letter, then letters, digits "
                          f"or '-', at most 40 characters: resource names are derived from it)")
        reserved = values["reserved_concurrency"]
        if isinstance(reserved, float) and reserved.is_integer():  # 2.0 is the whole number 2 (JSON's one number type)
            reserved = values["reserved_concurrency"] = int(reserved)
        if reserved is not None and (isinstance(reserved, bool) or not isinstance(reserved, int)
                                     or not 1 <= reserved <= MAX_RESERVED_CONCURRENCY):
            errors.append(f"{where}.reserved_concurrency: {quoted(reserved)} is not null (no reservation) or a whole "
                          f"number from 1 to {MAX_RESERVED_CONCURRENCY}")
        retention = values["log_retention_days"]
        if retention is not None and (isinstance(retention, bool) or retention not in LOG_RETENTION_DAYS):
            errors.append(f"{where}.log_retention_days: {quoted(retention)} is not a retention CloudWatch Logs "
                          f"allows: null (never expire) or one of {', '.join(map(str, LOG_RETENTION_DAYS))}")
        for key in ("sms_delivery_logs", "dashboard"):
            if not isinstance(values[key], bool):
                errors.append(f"{where}.{key}: {quoted(values[key])} is not true or false")
        if errors:
            raise ConfigError("invalid stack settings:\n  " + "\n  ".join(errors))
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in DEFAULTS}

    @property
    def member_stack_name(self) -> str:
        """Organization mode: the stack each member account deploys (infra/rule_actions_cdk/member_stack.py)."""
        return f"{self.stack_name}Member"


STACK_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"], "additionalProperties": False, "default": None,
    "description": "Settings of the stack only (the function never reads them); null: the defaults.",
    "properties": {
        "stack_name": {"type": "string", "pattern": f"^(?:{STACK_NAME_RE.pattern})$(?![\\s\\S])",
                       "default": DEFAULTS["stack_name"],
                       "description": "Names the stack and every resource (a letter, then letters, digits or '-')."},
        "reserved_concurrency": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_RESERVED_CONCURRENCY,
                                 "default": None, "description": "The function's reserved concurrency (null: none; "
                                 "a new account's quota of 10 refuses any reservation)."},
        "log_retention_days": {"enum": [None, *LOG_RETENTION_DAYS],
                               "default": DEFAULTS["log_retention_days"],
                               "description": "Days the functions' logs are kept (null: never expire)."},
        "sms_delivery_logs": {"type": "boolean", "default": True,
                              "description": "When the configuration can text, set the account's SMS delivery status "
                                             "role in the stack's region so failed texts are logged."},
        "dashboard": {"type": "boolean", "default": True,
                      "description": "The CloudWatch dashboard <stack_name>-dashboard: actions, triggers, jobs "
                                     "stopped, dollars saved and the evaluator's health (billed by CloudWatch "
                                     "beyond an account's first three dashboards)."},
    },
}


def file_schema() -> dict[str, Any]:
    """The JSON Schema of a configuration file (schemas/config.schema.json, `rule-actions schema`): the
    configuration's, generated from the plug-ins' declarations, with the stack settings and the "$schema" line."""
    from rule_actions.config import schema

    found = schema()
    found["title"] = "rule-actions configuration file (rule-actions.json)"
    found["properties"] = {FILE_SCHEMA: {"type": "string", "description": "This schema's path or URL, for editors."},
                           **found["properties"], FILE_STACK: STACK_SCHEMA}
    return found


def both(config: Callable[[], C], settings: Callable[[], S], named: str | None = None) -> tuple[C, S]:
    """A file's configuration and its "stack" block validated together: one ConfigError naming every bad field of
    both (the configuration's first), so a file with a misspelt rule and a bad stack name is told both at once, not
    one per run; `named` (the file's name) begins the message, as every command and `cdk synth` name the file."""
    read: list[Any] = []
    said: list[str] = []
    for part in (config, settings):
        try:
            read.append(part())
        except ConfigError as err:
            said.append(str(err))
    if said:
        lines = [line for text in said for line in _fields(text)]
        text = said[0] if len(said) == 1 else HEADERS[0] + "\n  ".join(lines)
        raise ConfigError(f"{named}: {text}" if named and not text.startswith(named) else text)
    return read[0], read[1]


def _fields(said: str) -> list[str]:
    """The lines of a ConfigError naming fields, without its header (a one-line refusal: itself)."""
    for header in HEADERS:
        if said.startswith(header):
            return said[len(header):].split("\n  ")
    return [said]


def read_config_file(path: str | PathLike[str]) -> Any:
    """The object in a configuration file; ConfigError naming the file when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot be read ({os_problem(err)})") from None
    try:
        return json.loads(text)
    except ValueError as err:
        raise ConfigError(f"{path}: not JSON ({err}): a configuration file is one JSON object, as `rule-actions "
                          "init` writes it") from None
    except RecursionError:  # json.loads on input nested deeper than Python's recursion limit
        raise ConfigError(f"{path}: not a readable JSON file (nested too deeply: JSON of more than about 1,000 "
                          "levels)") from None


def shown_path(path: str | PathLike[str]) -> str:
    """A configuration file's name as the user knows it: relative to the current directory when under it (the
    ./rule-actions.json found there: `rule-actions.json`), else as given."""
    given = Path(path)
    if given.is_absolute():
        try:
            return str(given.relative_to(Path.cwd()))
        except ValueError:
            pass
    return str(path)


def stack_name(path: str | PathLike[str] = FILE_NAME) -> str:
    """The stack name a configuration file gives (its "stack" block's stack_name, else the default: RuleActions),
    the one every command names the stack by (`template`, `report --replay`, the replay): the app `rule-actions
    init --cdk` writes names its stack with it. ConfigError naming the file and the field when it is invalid."""
    from rule_actions.config import Config

    config, stack = split_file(read_config_file(path), str(path))
    _, settings = both(lambda: Config.from_dict(config, str(path)),
                       lambda: StackSettings.from_dict(stack, f"{path}.{FILE_STACK}"), str(path))
    return settings.stack_name


def split_file(data: Any, where: str) -> tuple[Any, Any]:
    """A configuration file's object -> (the configuration, the stack settings): its "stack" apart, its
    "$schema" (an editor's completion) dropped."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: must be a JSON object with the configuration's keys; got {quoted(data)}")
    config = {key: value for key, value in data.items() if key not in (FILE_STACK, FILE_SCHEMA)}
    schema = data.get(FILE_SCHEMA, "")
    if not isinstance(schema, str):
        raise ConfigError(f"{where}.{FILE_SCHEMA}: {quoted(schema)} is not a string (the schema's path or URL)")
    return config, data.get(FILE_STACK)


def context_object(value: Any, key: str) -> Any:
    """A context value as a context file (an object) or `-c key='{...}'` (a JSON string) gives it."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as err:
            raise ConfigError(f"{key}: the context value is not JSON ({err}); pass a JSON object, "
                              f"e.g. -c {key}='{{...}}'") from None
    return value
