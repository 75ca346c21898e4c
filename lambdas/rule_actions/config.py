"""The configuration: every plug-in's fields (fields.py declarations, collected through the registry) assembled,
read from a configuration file (rule-actions.json), a construct's mapping, or the function's environment.

`Config.from_dict` reads every field, runs every plug-in's cross-checks, and raises one `ConfigError` naming each
bad field, its value and what is allowed: every error at once. `Config.to_dict` is the canonical form the stack
passes to the function; `schema()` is the JSON Schema `schemas/config.schema.json` publishes, from the same
declarations. A plug-in reads its own values back with `config[FIELD]`; nothing here knows a plug-in by name.

The core's own fields (the ledger's memory, the dry run, archive replays, organization mode, and `prices`, declared
in cost.py beside what reads it) are assembled here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from rule_actions import grammar, registry
from rule_actions.contract import (
    ENV_CHAT_TOPIC_ARN,
    ENV_CONFIG,
    ENV_CONFIG_FILE,
    ENV_LEDGER_TABLE,
    ENV_TOPIC_ARN,
    ChatChannel,
)
from rule_actions.cost import PRICES, PriceSettings
from rule_actions.fields import ActionMap, Field, Flag, Whole
from rule_actions.organization import ORGANIZATION, Organization
from rule_actions.ports import WebhookFormat
from rule_actions.records import Action, Declared, Invalid, Place
from rule_actions.text import quoted, unknown_keys

T = TypeVar("T")
WHERE = "rule_actions"
MAX_TTL_HOURS = 24 * 365
DEDUP_TTL_HOURS = Whole("dedup_ttl_hours", 72, "How long the ledger remembers an action (each is done once in "
                        "that time) and a decision not to act (each is reported once).", 1, MAX_TTL_HOURS, "hours")
ACT_ON_REPLAYS = Flag("act_on_replays", False, "Act on events replayed from an EventBridge archive (false: they "
                      "are decided and skipped).")
DRY_RUN = Flag("dry_run", False, "Decide and report every action, change nothing (the ledger records what was "
               "reported).")
CORE = (DEDUP_TTL_HOURS, ACT_ON_REPLAYS, DRY_RUN, ORGANIZATION, PRICES)
# The canonical form keeps the keys of the first releases in their order (a deployed function's environment stays
# what it was); keys added since follow, in registry order.
FIRST_ORDER = ("notify", "rules", "job_outcomes", "chat", "webhooks", "allowed_endpoints", "training_job_prefixes",
               "dedup_ttl_hours", "honor_action_json", "stop_all_matching", "allow_cross_job_stop", "act_on_replays",
               "notify_on_rule_error", "dry_run", "allow_any_sms", "organization")


def all_fields() -> tuple[Field[Any], ...]:
    found = {f.key: f for f in (*registry.fields(), *CORE)}
    duplicates = len(registry.fields()) + len(CORE) - len(found)
    if duplicates:
        raise RuntimeError("two plug-ins declare the same configuration key")
    return (*(found.pop(key) for key in FIRST_ORDER if key in found), *found.values())


FIELDS = all_fields()
KEYS = tuple(f.key for f in FIELDS)


class ConfigError(ValueError):
    """Invalid configuration; the message names every bad field."""


class _Context:
    """What fields.py's fields borrow from the grammar (fields stay free of plug-ins)."""

    def actions(self, data: Any, path: str, place: Place) -> tuple[list[Action], list[Invalid]]:
        return grammar.parse_entries(data, path, place)

    def action_dict(self, action: Action) -> dict[str, str]:
        return grammar.as_dict(action)

    def action_schema(self, place: Place) -> dict[str, Any]:
        return grammar.action_reference(place)

    def destinations(self) -> dict[str, str]:
        return {name: destination.doc for name, destination in registry.destinations().items()}


CONTEXT = _Context()


class Config:
    """Every field's value, read once; `config[FIELD]` gives a plug-in its own."""

    grammar = grammar.GRAMMAR

    def __init__(self, values: Mapping[str, Any] | None = None, where: str = WHERE):
        self._values = {f.key: f.default for f in FIELDS} | dict(values or {})
        self.where = where

    def __getitem__(self, field: Field[T]) -> T:
        value: T = self._values[field.key]  # (each field's value as it read it)
        return value

    def value(self, key: str) -> Any:
        """A value by its key in the JSON form (typed as its field reads it): for tools and tests."""
        return self._values[key]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def __repr__(self) -> str:
        return f"Config({self.to_json()})"

    @classmethod
    def from_dict(cls, data: Any, where: str = WHERE) -> Config:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}: must be an object with the keys {', '.join(KEYS)}; got {quoted(data)}")
        errors = unknown_keys(data, KEYS, where)
        config = cls({f.key: f.load(data, where, errors, CONTEXT) for f in FIELDS}, where)
        errors += registry.config_checks(config, where)
        if errors:
            raise ConfigError("invalid configuration:\n  " + "\n  ".join(errors))
        return config

    @classmethod
    def from_json(cls, text: str | None, where: str = WHERE) -> Config:
        if not text:
            return cls()
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise ConfigError(f"{where}: not JSON ({err})") from None
        return cls.from_dict(data, where)

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON form (every key, defaults filled in)."""
        return {f.key: f.dump(self._values[f.key], CONTEXT) for f in FIELDS}

    def to_json(self) -> str:
        """Compact JSON, key order kept: the order of `rules` decides which glob wins. Without an organization the
        key is left out, and so is every key added since the first releases while it holds its default (the job
        families' outcomes, scopes and flags): a deployment that uses none of them keeps the environment it had."""
        data = self.to_dict()
        if data["organization"] is None:
            del data["organization"]
        for f in FIELDS:
            if f.key not in FIRST_ORDER and data[f.key] == f.dump(f.default, CONTEXT):
                del data[f.key]
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    # What plug-ins ask of the whole configuration (ports.Configured).

    @cached_property
    def declared(self) -> tuple[Declared, ...]:
        """Every action the configuration attaches (each action map's entries; a trigger family's implied ones)."""
        found = [Declared(f"{self.where}.{f.key}[{json.dumps(key)}]", f.place, action)
                 for f in FIELDS if isinstance(f, ActionMap) for key, actions in self._values[f.key]
                 for action in actions]
        return tuple(found) + tuple(d for t in registry.TRIGGERS for d in t.implied(self, self.where))

    @property
    def reads_action_json(self) -> bool:
        return any(t.reads_action_json(self) for t in registry.TRIGGERS)

    @property
    def follows_stops(self) -> tuple[dict[str, Any], ...]:
        return registry.follows_stops(self)

    @property
    def test_actions(self) -> tuple[Action, ...]:
        return tuple(action for kind in registry.KINDS.values() for action in kind.test_actions(self))

    def destination(self, name: str) -> WebhookFormat:
        return registry.destinations()[name]

    # The core's own values.

    @property
    def dedup_ttl_hours(self) -> int:
        return self[DEDUP_TTL_HOURS]

    @property
    def dry_run(self) -> bool:
        return self[DRY_RUN]

    @property
    def act_on_replays(self) -> bool:
        return self[ACT_ON_REPLAYS]

    @property
    def organization(self) -> Organization | None:
        return self[ORGANIZATION]

    @property
    def prices(self) -> PriceSettings:
        return self[PRICES]

    @property
    def chat(self) -> tuple[ChatChannel, ...]:
        """The chat channels the configuration names (the stack's chat topic exists for them)."""
        return tuple(p for kind in registry.KINDS.values() for p in kind.stack_parts(self) if isinstance(p, ChatChannel))

    def warnings(self, where: str = WHERE) -> list[str]:
        """What is valid but probably not meant: each plug-in's warnings, and organization mode's; what nobody
        receives first, then what the configuration allows, then the rest (the stack adds its own after them:
        rule_actions_cdk.plugins.warnings)."""
        found = [*(w for kind in registry.KINDS.values() for w in kind.warnings(self, where)),
                 *(w for trigger in registry.TRIGGERS for w in trigger.warnings(self, where)),
                 *registry.config_warnings(self, where),
                 *(w for family in registry.JOBS for w in family.warnings(self, where))]
        org = self.organization
        if org and org.org_id and not org.accounts:
            found.append(f"allows: {where}.organization.accounts is empty: the function acts for every account of "
                         f"the organization {org.org_id} whose member stack forwards events, including accounts "
                         "added later. List the accounts to act only for them (the others are refused and alarmed).")
        return sorted(found, key=lambda w: (not w.startswith("unreachable:"), not w.startswith("allows:")))


def schema() -> dict[str, Any]:
    """The JSON Schema of the configuration, from every field's declaration (schemas/config.schema.json)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "rule-actions configuration",
        "description": "The stack's configuration (rule-actions.json), generated from the fields the plug-ins "
                       "declare: `rule-actions schema` writes it.",
        "type": "object",
        "additionalProperties": False,
        "properties": {f.key: f.described(CONTEXT) for f in FIELDS},
        "$defs": grammar.schema_definitions(),
    }


class Settings(NamedTuple):
    """What the function reads from its environment, validated once at cold start."""

    config: Config
    topic_arn: str
    ledger_table: str
    region: str
    chat_topic_arn: str | None = None  # set by the stack when `chat` lists channels

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        missing = [name for name in (ENV_TOPIC_ARN, ENV_LEDGER_TABLE) if not env.get(name)]
        config = Config.from_json(*_configuration(env))
        if config.chat and not env.get(ENV_CHAT_TOPIC_ARN):
            missing.append(f"{ENV_CHAT_TOPIC_ARN} (chat lists channels)")
        if missing:
            raise ConfigError(f"environment: {', '.join(missing)} not set")
        return cls(
            config=config,
            topic_arn=env[ENV_TOPIC_ARN],
            ledger_table=env[ENV_LEDGER_TABLE],
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            chat_topic_arn=env[ENV_CHAT_TOPIC_ARN] if config.chat else None,  # read only where the stack sets it
        )


def _configuration(env: Mapping[str, str]) -> tuple[str | None, str]:
    """(the configuration's JSON, where it is): the environment's, or the code asset's file the environment names
    (a configuration too large for Lambda's 4 KB environment ships in the asset)."""
    name = env.get(ENV_CONFIG_FILE)
    if not name:
        return env.get(ENV_CONFIG), ENV_CONFIG
    path = Path(env.get("LAMBDA_TASK_ROOT") or os.getcwd()) / name
    try:
        return path.read_text(encoding="utf-8"), f"{ENV_CONFIG_FILE} ({name})"
    except OSError as err:
        raise ConfigError(f"{ENV_CONFIG_FILE}: {name} cannot be read from the function's code ({err.strerror})") from None
