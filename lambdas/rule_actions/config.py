"""The typed configuration: read by the handler from its environment and by the stack from `cdk.json`.

Both sides call `Config.from_dict`, which checks every key and raises one `ConfigError` naming each bad
field, its value and what is allowed. `Config.to_dict` is the canonical form the stack passes to the function.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rule_actions.actions import (
    EMAIL,
    JOB_OUTCOMES,
    PREFIX_RE,
    RULES,
    SMS,
    STOP,
    WEBHOOK,
    WEBHOOK_NAME_RE,
    Action,
    as_dict,
    endpoint_problem,
    parse_entries,
)
from rule_actions.contract import (
    ENV_CHAT_TOPIC_ARN,
    ENV_CONFIG,
    ENV_LEDGER_TABLE,
    ENV_TOPIC_ARN,
    ISSUES_FOUND,
    RULE_ERROR,
    WEBHOOK_FORMATS,
)
from rule_actions.contract import JOB_OUTCOMES as OUTCOMES
from rule_actions.organization import Organization
from rule_actions.records import show

DEFAULT_RULES: dict[str, list[Any]] = {"*": ["notify"]}
_FLAGS = {
    "honor_action_json": True,
    "stop_all_matching": False,
    "allow_cross_job_stop": False,
    "act_on_replays": False,
    "notify_on_rule_error": True,
    "dry_run": False,
    "allow_any_sms": False,
}
KEYS = ("notify", "rules", "job_outcomes", "chat", "webhooks", "allowed_endpoints", "training_job_prefixes",
        "dedup_ttl_hours", *_FLAGS, "organization")
MAX_TTL_HOURS = 24 * 365
# The built-in rules of SageMaker Debugger and Profiler (smdebug-rulesconfig 1.0.1; a test checks the package):
# a `rules` key that names one of them in another case never matches it (rule names are matched with their case).
BUILTIN_RULES = (
    "AllZero", "BatchSize", "CPUBottleneck", "CheckInputImages", "ClassImbalance", "Confusion", "CreateXgboostReport",
    "Dataloader", "DeadRelu", "ExplodingTensor", "FeatureImportanceOverweight", "GPUMemoryIncrease", "IOBottleneck",
    "LoadBalancing", "LossNotDecreasing", "LowGPUUtilization", "MaxInitializationTime", "NLPSequenceRatio",
    "OverallSystemUsage", "Overfit", "Overtraining", "PoorWeightInitialization", "ProfilerReport",
    "SaturatedActivation", "SimilarAcrossRuns", "StalledTrainingRule", "StepOutlier", "TensorVariance", "TreeDepth",
    "UnchangedTensor", "VanishingGradient", "WeightUpdateRatio",
)


# Chat channel ids as Amazon Q Developer in chat applications (CloudFormation) accepts them.
SLACK_WORKSPACE_RE = re.compile(r"[0-9A-Z]{1,255}")
SLACK_CHANNEL_RE = re.compile(r"[A-Za-z0-9]{1,255}")
GUID_RE = re.compile(r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")
TEAMS_CHANNEL_RE = re.compile(r"[A-Za-z0-9_=+/.,-]*%3[aA][A-Za-z0-9_=+/.,-]*%40[A-Za-z0-9_=+/.,-]*")
CHAT_KEYS = {"slack": {"workspace_id": SLACK_WORKSPACE_RE, "channel_id": SLACK_CHANNEL_RE},
             "teams": {"tenant_id": GUID_RE, "team_id": GUID_RE, "channel_id": TEAMS_CHANNEL_RE}}
CHAT_HINTS = {"workspace_id": "the Slack workspace id (capitals and digits, e.g. T0123ABCD)",
              "channel_id": "the channel id (Slack: letters and digits, e.g. C0123ABCD; Teams: the id from the "
                            "channel's link, URL-encoded, e.g. 19%3a...%40thread.tacv2)",
              "tenant_id": "a Microsoft tenant id (a GUID)", "team_id": "a Microsoft team id (a GUID)"}
# A Secrets Manager secret: its name, or its ARN.
SECRET_NAME_RE = re.compile(r"[A-Za-z0-9/_+=.@-]{1,512}")
SECRET_ARN_RE = re.compile(r"arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}")


class ConfigError(ValueError):
    """Invalid configuration; the message names every bad field."""


@dataclass(frozen=True)
class ChatChannel:
    """A Slack or Microsoft Teams channel that receives the team's messages through Amazon Q Developer."""

    platform: str  # slack | teams
    ids: tuple[tuple[str, str], ...]  # (key, value) in CHAT_KEYS[platform] order


@dataclass(frozen=True)
class Webhook:
    """A named webhook: the Secrets Manager secret holding its URL and signing key, and its payload format."""

    name: str
    secret: str  # a secret's name or ARN
    format: str  # slack | teams | json


@dataclass(frozen=True)
class Config:
    team_emails: tuple[str, ...] = ()
    team_sms: tuple[str, ...] = ()
    rules: tuple[tuple[str, tuple[Action, ...]], ...] = (("*", (Action("notify"),)),)
    job_outcomes: tuple[tuple[str, tuple[Action, ...]], ...] = ()
    chat: tuple[ChatChannel, ...] = ()
    webhooks: tuple[Webhook, ...] = ()
    honor_action_json: bool = True
    allowed_endpoints: tuple[str, ...] = ()
    stop_all_matching: bool = False
    allow_cross_job_stop: bool = False
    act_on_replays: bool = False
    notify_on_rule_error: bool = True
    training_job_prefixes: tuple[str, ...] = ()
    dedup_ttl_hours: int = 72
    dry_run: bool = False
    # With allowed_endpoints empty, a text goes only to a number the configuration names unless this is true
    # (kinds/endpoint.py): texts are billed to the account and, unlike email, need no consent of the recipient.
    allow_any_sms: bool = False
    organization: Organization | None = None  # None: one account (rule_actions.organization)

    @classmethod
    def from_dict(cls, data: Any, where: str = "rule_actions") -> Config:
        errors: list[str] = []
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}: must be an object with the keys {', '.join(KEYS)}; got {show(data)}")
        for key in data:
            if key not in KEYS:
                errors.append(f"{where}.{key}: unknown key; allowed: {', '.join(KEYS)}")
        flags = {name: _bool(data, name, default, where, errors) for name, default in _FLAGS.items()}
        emails, sms = _notify(data.get("notify"), f"{where}.notify", errors)
        allowed = _strings(data.get("allowed_endpoints", []), f"{where}.allowed_endpoints", errors)
        prefixes = _strings(data.get("training_job_prefixes", []), f"{where}.training_job_prefixes", errors)
        # A prefix goes into the IAM resource ARN: anything but a job-name prefix (a `*`, say) would widen it.
        errors += [
            f"{where}.training_job_prefixes: {show(p)} is not a training job name prefix (letters, digits, '-'; "
            "at most 63)"
            for p in prefixes
            if not PREFIX_RE.fullmatch(p)
        ]
        ttl = data.get("dedup_ttl_hours", 72)
        if isinstance(ttl, bool) or not isinstance(ttl, int) or not 1 <= ttl <= MAX_TTL_HOURS:
            errors.append(f"{where}.dedup_ttl_hours: {show(ttl)} is not a whole number of hours from 1 to {MAX_TTL_HOURS}")
            ttl = 72
        config = cls(
            team_emails=emails,
            team_sms=sms,
            rules=_actions_by(data.get("rules", DEFAULT_RULES), f"{where}.rules", RULES, errors),
            job_outcomes=_actions_by(data.get("job_outcomes", {}), f"{where}.job_outcomes", JOB_OUTCOMES, errors),
            chat=_chat(data.get("chat"), f"{where}.chat", errors),
            webhooks=_webhooks(data.get("webhooks", {}), f"{where}.webhooks", errors),
            allowed_endpoints=allowed,
            training_job_prefixes=prefixes,
            dedup_ttl_hours=ttl,
            organization=Organization.from_dict(data.get("organization"), f"{where}.organization", errors),
            **flags,
        )
        errors += [f"{where}.notify: {e} is not in allowed_endpoints" for e in (*emails, *sms) if not config.endpoint_allowed(e)]
        for block, entries in (("rules", config.rules), ("job_outcomes", config.job_outcomes)):
            for key, actions in entries:
                for action in actions:
                    if action.kind in (EMAIL, SMS) and not config.endpoint_allowed(str(action.target)):
                        errors.append(f"{where}.{block}[{show(key)}]: {action.target} is not in allowed_endpoints")
                    if action.kind == WEBHOOK and config.webhook(str(action.target)) is None:
                        errors.append(f"{where}.{block}[{show(key)}]: webhook {show(action.target)} is not declared "
                                      f"in webhooks (declared: {', '.join(w.name for w in config.webhooks) or 'none'})")
        if errors:
            raise ConfigError("invalid configuration:\n  " + "\n  ".join(errors))
        return config

    @classmethod
    def from_json(cls, text: str | None, where: str = "rule_actions") -> Config:
        if not text:
            return cls()
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise ConfigError(f"{where}: not JSON ({err})") from None
        return cls.from_dict(data, where)

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON form (every key, defaults filled in)."""
        return {
            "notify": {"emails": list(self.team_emails), "sms": list(self.team_sms)},
            "rules": {pattern: [as_dict(a) for a in actions] for pattern, actions in self.rules},
            "job_outcomes": {outcome: [as_dict(a) for a in actions] for outcome, actions in self.job_outcomes},
            "chat": {platform: [dict(c.ids) for c in self.chat if c.platform == platform] for platform in CHAT_KEYS},
            "webhooks": {w.name: {"secret": w.secret, "format": w.format} for w in self.webhooks},
            "allowed_endpoints": list(self.allowed_endpoints),
            "training_job_prefixes": list(self.training_job_prefixes),
            "dedup_ttl_hours": self.dedup_ttl_hours,
            **{name: getattr(self, name) for name in _FLAGS},
            "organization": self.organization.to_dict() if self.organization else None,
        }

    def to_json(self) -> str:
        """Compact JSON, key order kept: the order of `rules` decides which glob wins. Without an organization the
        key is left out: a single-account deployment's environment stays what it was before organizations."""
        data = self.to_dict()
        if data["organization"] is None:
            del data["organization"]
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    def actions_for_rule(self, rule: str) -> tuple[Action, ...]:
        """The entry for a rule: its exact name first, else the first glob in file order, `*` last."""
        entries = dict(self.rules)
        if rule in entries:
            return entries[rule]
        for pattern, actions in self.rules:
            if pattern != "*" and fnmatch.fnmatchcase(rule, pattern):
                return actions
        return entries.get("*", ())

    @property
    def rule_statuses(self) -> tuple[str, ...]:
        """The rule evaluation statuses that are triggers: IssuesFound, and Error with notify_on_rule_error."""
        return (ISSUES_FOUND, RULE_ERROR) if self.notify_on_rule_error else (ISSUES_FOUND,)

    def actions_for_outcome(self, outcome: str) -> tuple[Action, ...]:
        """The actions `job_outcomes` attaches to a job outcome (none when it is not listed)."""
        return dict(self.job_outcomes).get(outcome, ())

    def endpoint_allowed(self, endpoint: str) -> bool:
        if not self.allowed_endpoints:
            return True
        folded = endpoint.casefold()
        return any(fnmatch.fnmatchcase(folded, pattern.casefold()) for pattern in self.allowed_endpoints)

    def warnings(self, where: str = "rule_actions") -> list[str]:
        """What is valid but probably not meant: what this configuration leaves unreachable (no team: `notify` and
        the alarms reach nobody), what it lets a rule's action_json do (any address or number), which accounts an
        organization's function acts for (every one, without `accounts`), a `rules` key that matches a built-in rule
        only in another case (its events fall through to the next glob or `*`)."""
        found = []
        if not self.has_team:
            subscribe = 'someone subscribes to the team topic (TopicArn) with the filter policy {"to": ["team"]}'
            uses = ("" if not self._uses_notify
                    else f" `notify` reaches only the chat channels until {subscribe}, and" if self.chat
                    else f" every `notify` is skipped (no team subscriber) until {subscribe}, and")
            found.append(f"unreachable: {where}.notify lists no emails or sms:{uses} the alarms (function errors, "
                         "throttles, undelivered or failed events) reach nobody until someone subscribes to the ops "
                         "topic (OpsTopicArn).")
        if self.honor_action_json and not self.allowed_endpoints:
            texts = ("and any phone number (allow_any_sms: texts are billed to this account)" if self.allow_any_sms
                     else "(SNS asks each address to confirm first); texts go only to numbers this configuration "
                          "names (allow_any_sms is false)")
            found.append(f"allows: {where}.allowed_endpoints is empty: a rule's action_json, which anyone who can "
                         f"start a training job writes, may email any address {texts}. List the addresses and "
                         "numbers allowed (globs) to restrict it.")
        if self.allow_any_sms and self.allowed_endpoints:
            found.append(f"{where}.allow_any_sms has no effect: allowed_endpoints is set, and every number must "
                         "match it.")
        org = self.organization
        if org and org.org_id and not org.accounts:
            found.append(f"allows: {where}.organization.accounts is empty: the function acts for every account of "
                         f"the organization {org.org_id} whose member stack forwards events, including accounts "
                         "added later. List the accounts to act only for them (the others are refused and alarmed).")
        for pattern, _ in self.rules:
            if pattern == "*" or any(fnmatch.fnmatchcase(rule, pattern) for rule in BUILTIN_RULES):
                continue
            near = [rule for rule in BUILTIN_RULES if fnmatch.fnmatchcase(rule.casefold(), pattern.casefold())]
            if near:
                found.append(f"{where}.rules[{json.dumps(pattern)}] matches no rule name as written (names are "
                             f"matched with their case), but {', '.join(near[:5])} in another case: those rules fall "
                             f"through to the next glob or '*'. Write {json.dumps(near[0])} if that is meant.")
        return found

    @property
    def lists_jobs(self) -> bool:
        """Whether a stop may name a prefix other than its own job's name, which ListTrainingJobs resolves: any rule's
        action_json may (when honored), and so does a configured stoptraining with a training_job_prefix."""
        return self.honor_action_json or any(a.kind == STOP and a.target for _, actions in self.rules for a in actions)

    @property
    def webhook_actions(self) -> tuple[Action, ...]:
        """One webhook action per declared webhook (what a test notification reaches)."""
        return tuple(Action(WEBHOOK, w.name) for w in self.webhooks)

    def webhook(self, name: str) -> Webhook | None:
        return next((w for w in self.webhooks if w.name == name), None)

    @property
    def _uses_notify(self) -> bool:
        return self.notify_on_rule_error or any(
            action.kind == "notify" for _, actions in (*self.rules, *self.job_outcomes) for action in actions)

    @property
    def configured_endpoints(self) -> frozenset[str]:
        """Every email address and phone number the configuration itself names (case folded, as allowed_endpoints
        compares them): the deployer's own, whatever a rule's action_json says."""
        named = [*self.team_emails, *self.team_sms]
        named += [str(a.target) for _, actions in (*self.rules, *self.job_outcomes) for a in actions
                  if a.kind in (EMAIL, SMS)]
        return frozenset(endpoint.casefold() for endpoint in named)

    @property
    def can_text(self) -> bool:
        """Whether any text message can be sent: a number is configured, allow_any_sms, or allowed_endpoints has
        a glob that may match a phone number (one without an '@')."""
        return (any(e.startswith("+") for e in self.configured_endpoints) or self.allow_any_sms
                or any("@" not in p for p in self.allowed_endpoints))

    def job_in_scope(self, job_name: str) -> bool:
        return not self.training_job_prefixes or job_name.startswith(self.training_job_prefixes)

    @property
    def has_team(self) -> bool:
        return bool(self.team_emails or self.team_sms)


def _bool(data: Mapping[str, Any], name: str, default: bool, where: str, errors: list[str]) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        errors.append(f"{where}.{name}: {show(value)} is not true or false")
        return default
    return value


def _strings(value: Any, where: str, errors: list[str]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        errors.append(f"{where}: {show(value)} is not a list of non-empty strings")
        return ()
    return tuple(value)


def _notify(value: Any, where: str, errors: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if value is None:
        return (), ()
    if not isinstance(value, Mapping) or set(value) - {"emails", "sms"}:
        errors.append(f"{where}: {show(value)} must be an object with the keys emails, sms")
        return (), ()
    found: dict[str, tuple[str, ...]] = {}
    for key, kind in (("emails", EMAIL), ("sms", SMS)):
        found[key] = _strings(value.get(key, []), f"{where}.{key}", errors)
        problems = (endpoint_problem(kind, endpoint) for endpoint in found[key])
        errors += [f"{where}.{key}: {problem}" for problem in problems if problem]
    return found["emails"], found["sms"]


def _actions_by(value: Any, where: str, place: str, errors: list[str]) -> tuple[tuple[str, tuple[Action, ...]], ...]:
    """`rules` (rule name or glob -> actions) or `job_outcomes` (outcome -> actions), in file order."""
    what = "rule name or glob" if place == RULES else "job outcome"
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {show(value)} must be an object of {what} -> actions")
        return ()
    found = []
    for key, entries in value.items():
        path = f"{where}[{json.dumps(key)}]"
        if not isinstance(key, str) or not key:
            errors.append(f"{path}: a {what} must be a non-empty string")
            continue
        if place == JOB_OUTCOMES and key not in OUTCOMES:
            errors.append(f"{path}: unknown job outcome; allowed: {', '.join(OUTCOMES)}")
            continue
        if hasattr(entries, "entries"):  # rule_actions.client objects
            entries = entries.entries()
        actions, invalid = parse_entries(entries, path, place)
        errors += [f"{bad.field}: {bad.reason}" for bad in invalid]
        found.append((key, tuple(dict.fromkeys(actions))))
    return tuple(found)


def _chat(value: Any, where: str, errors: list[str]) -> tuple[ChatChannel, ...]:
    """`chat`: {"slack": [{workspace_id, channel_id}], "teams": [{tenant_id, team_id, channel_id}]}."""
    if value is None:
        return ()
    if not isinstance(value, Mapping) or set(value) - set(CHAT_KEYS):
        errors.append(f"{where}: {show(value)} must be an object with the keys {', '.join(CHAT_KEYS)}")
        return ()
    found: list[ChatChannel] = []
    for platform, keys in CHAT_KEYS.items():
        entries = value.get(platform, [])
        if not isinstance(entries, list):
            errors.append(f"{where}.{platform}: {show(entries)} is not a list of channels")
            continue
        for index, entry in enumerate(entries):
            path = f"{where}.{platform}[{index}]"
            if not isinstance(entry, Mapping) or set(entry) != set(keys):
                errors.append(f"{path}: {show(entry)} must be an object with exactly the keys {', '.join(keys)}")
                continue
            bad = [key for key, pattern in keys.items() if not (isinstance(entry[key], str) and pattern.fullmatch(entry[key]))]
            errors += [f"{path}.{key}: {show(entry[key])} is not {CHAT_HINTS[key]}" for key in bad]
            if not bad:
                found.append(ChatChannel(platform, tuple((key, entry[key]) for key in keys)))
    if len(set(found)) < len(found):
        errors.append(f"{where}: a channel is listed twice")
    return tuple(found)


def _webhooks(value: Any, where: str, errors: list[str]) -> tuple[Webhook, ...]:
    """`webhooks`: name -> {"secret": a Secrets Manager secret name or ARN, "format": slack | teams | json}."""
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {show(value)} must be an object of name -> {{secret, format}}")
        return ()
    found = []
    for name, spec in value.items():
        path = f"{where}[{json.dumps(name)}]"
        if not isinstance(name, str) or not WEBHOOK_NAME_RE.fullmatch(name):
            errors.append(f"{path}: a webhook name is 1 to 64 letters, digits, '-', '_' or '.'")
            continue
        if not isinstance(spec, Mapping) or set(spec) != {"secret", "format"}:
            errors.append(f"{path}: {show(spec)} must be an object with exactly the keys secret, format")
            continue
        secret, fmt = spec["secret"], spec["format"]
        if not (isinstance(secret, str) and (SECRET_ARN_RE.fullmatch(secret) or
                                             (not secret.startswith("arn:") and SECRET_NAME_RE.fullmatch(secret)))):
            errors.append(f"{path}.secret: {show(secret)} is not a Secrets Manager secret name (letters, digits, "
                          "/_+=.@-; at most 512) or ARN")
            continue
        if fmt not in WEBHOOK_FORMATS:
            errors.append(f"{path}.format: {show(fmt)} is not one of {', '.join(WEBHOOK_FORMATS)}")
            continue
        found.append(Webhook(name, secret, fmt))
    return tuple(found)


@dataclass(frozen=True)
class Settings:
    """What the function reads from its environment, validated once at cold start."""

    config: Config
    topic_arn: str
    ledger_table: str
    region: str
    chat_topic_arn: str | None = None  # set by the stack when `chat` lists channels

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        missing = [name for name in (ENV_TOPIC_ARN, ENV_LEDGER_TABLE) if not env.get(name)]
        config = Config.from_json(env.get(ENV_CONFIG), ENV_CONFIG)
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
