"""Fuzzing with hypothesis: event details and action_json strings through the real handler on moto, and the
pure parsers on their own.

Properties checked on every example that reaches the handler:
  (a) the handler raises nothing but ActionsFailed, and (moto being healthy) ActionsFailed never, except when an
      AWS call really failed (a mutated event naming a job the account does not have) and for the input class
      pinned below as a BUG (a lone surrogate in a name: `explained`);
  (b) it executes nothing the input did not validly declare: every StopTrainingJob / Publish / Subscribe call
      belongs to a `done` outcome whose (kind, target) is recomputed here from the rule's action_json
      (`parse_action_json`) and the configuration, with the policy (prefix coverage, allowed_endpoints, replay,
      dry_run, job status) holding; the jobs stopped are exactly the ones the outcomes name;
  (c) every `invalid` outcome's reason starts with its field path, and they are exactly the ones the grammar gives.

The other job families' events (tuning, processing, pipeline, transform; sometimes running and carrying monitor
rules that hold, with a tag's actions as their action_json) with hostile edits through the handler: nothing raised
but ActionsFailed, every problem one line, nothing stopped but by a `done` stop, no address in a result. A job's
tags (hostile keys and values, every family): each unusable tag one line naming it, the others applied within their
rule's families and parameter ranges. Timelines, text messages and monitor parameters, pure.

Default run: 150 examples per property. `make stress` (or `pytest -m stress`): the same
properties with 2,500 / 1,000 examples: 13,500 cases.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from builders import ACCOUNT, REGION, event, function_resources, rule_config, rule_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context, note
from hypothesis.control import event as statistic
from moto import mock_aws
from moto.dynamodb.models import dynamodb_backends
from moto.sagemaker.models import sagemaker_backends
from moto.sns.models import sns_backends
from planning import find, parse_event

from rule_actions import handler, registry
from rule_actions.config import Config, ConfigError, Settings
from rule_actions.contract import IN_PROGRESS, TEAM
from rule_actions.grammar import parse_action_json, tag_entries
from rule_actions.handler import ActionsFailed
from rule_actions.jobs.training import FAMILY as TRAINING
from rule_actions.kinds.endpoint import EMAIL_RE, PHONE_RE
from rule_actions.kinds.endpoint import allowed as endpoint_allowed
from rule_actions.kinds.stoptraining import PREFIX_RE
from rule_actions.plan import Plan
from rule_actions.privacy import redact
from rule_actions.records import Action, IgnoredEvent, JobEvent
from rule_actions.triggers.rule_status import NOT_GIVEN, RULE_ERROR, actions_for
from rule_actions_cli.embedded import LocalContext
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.seeding import seeder

EMAIL, NOTIFY, SMS, STOP = "email", "notify", "sms", "stoptraining"

TABLE = "rule-actions-fuzz-ledger"
FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=150)
PURE = settings(FUZZ, max_examples=150)
STRESS_HANDLER = settings(FUZZ, max_examples=2_500)
STRESS_PURE = settings(FUZZ, max_examples=1_000)
CONTEXT = LocalContext("rule-actions", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:rule-actions")
API_NAME_MAX = 63  # ListTrainingJobs NameContains (and TrainingJobName): SageMaker refuses longer values

# --------------------------------------------------------------------------- the embedded account


@dataclass
class Embedded:
    """One moto account for a whole test function; `run` resets it and invokes the real handler once."""

    topic_arn: str
    effects: Any
    settings: Settings | None = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (operation, parameters)

    def reset(self) -> None:
        sagemaker_backends[ACCOUNT][REGION].training_jobs.clear()
        dynamodb_backends[ACCOUNT][REGION].tables[TABLE].items.clear()
        ledger = self.effects.ledger  # and the records the execution environment keeps (Powertools' local cache)
        ledger.__init__(ledger.table_name, ledger.ttl_seconds // 3600, ledger.client)
        sns = sns_backends[ACCOUNT][REGION]
        sns.subscriptions.clear()
        sns.topics[self.topic_arn].sent_notifications.clear()
        self.calls.clear()

    def run(self, case: Case) -> tuple[dict[str, Any] | None, ActionsFailed | None]:
        self.reset()
        for name, status, configs in case.jobs:
            moto_sagemaker.put_training_job(name, status, debug_rule_configurations=configs.get("Debug"),
                                            profiler_rule_configurations=configs.get("Profiler"))
        self.settings = Settings(case.config, self.topic_arn, TABLE, REGION)
        self.deploy_team(case.config)
        try:
            return handler.lambda_handler(case.raw, CONTEXT), None
        except ActionsFailed as err:  # anything else propagates and fails the property
            return None, err

    def deploy_team(self, config: Config) -> None:
        """What the stack does for the configuration's team: subscribe it with the filter to=team; and, as in a new
        execution environment, nothing known yet of the team audience."""
        sns = self.effects.notifier.client
        for protocol, endpoints in zip(("email", "sms"), config.value("notify"), strict=True):
            for endpoint in endpoints:
                sns.subscribe(TopicArn=self.topic_arn, Protocol=protocol, Endpoint=endpoint,
                              Attributes={"FilterPolicy": json.dumps({"to": [TEAM]})})
        self.effects.notifier.__init__(self.effects.notifier.client, self.topic_arn)
        self.calls.clear()

    def named(self, operation: str) -> list[dict[str, Any]]:
        return [params for op, params in self.calls if op == operation]

    def changed(self, case: Case) -> dict[str, str]:
        """The jobs whose status the invocation changed, with their status now."""
        jobs = sagemaker_backends[ACCOUNT][REGION].training_jobs
        return {name: jobs[name].training_job_status for name, status, _ in case.jobs
                if jobs[name].training_job_status != status}


@pytest.fixture
def embedded(monkeypatch):
    with mock_aws():
        topic_arn = function_resources(monkeypatch, "rule-actions-fuzz", TABLE)
        monkeypatch.delenv("RULE_ACTIONS_CONFIG", raising=False)
        runtime = handler.runtime
        runtime.cache_clear()
        _, effects = runtime()  # the clients, as at cold start
        account = Embedded(topic_arn, effects)
        for client in (effects.jobs.client, effects.notifier.client, effects.ledger.client):
            client.meta.events.register(
                "before-parameter-build", lambda params, model, **_: account.calls.append((model.name, dict(params)))
            )
        # The handler reads its settings per example (the clients stay those of the cold start).
        monkeypatch.setattr(handler, "runtime", lambda: (account.settings, effects))
        yield account
    runtime.cache_clear()


# --------------------------------------------------------------------------- strategies

JOBS = ["demo-job-001", "exp-a-1", "exp-a-2", "NLP-Bert-Finetune-Exp7", "hpo-xgb-trial-07", "cv-detr-ablation-03"]
RULES = ["VanishingGradient", "LossNotDecreasing", "Overfit", "ProfilerReport", "LowGPUUtilization", "Vanishing-2"]
EMAILS = ["ml@example.com", "ML@Example.COM", "first.last@mail.example.co.uk", "x@evil.test", "team@example.com",
          "a+b@sub.example.org"]
PHONES = ["+15555550100", "+15555550123", "+445555550100"]
BAD_ENDPOINTS = ["+7", "+0123", "15555550100", "ml@", "@example.com", "ml@example", "ml@exämple.com", "ml@example.com\n",
                 "ml example@example.com", "", " ", "a" * 300 + "@example.com", "+1555555010012345"]
TRICKY = ["\u202e", "\u2067", "\u200f", "\x00", "\x1b[31m", "\r\n", "\u2028", "\ufeff", "\ud800", "<script>", "\\", '"',
          "\\\"", "%s", "{{7*7}}", "ı", "İ", "ſ", "\u212a", "ｓｔｏｐ", "😀"]
KEY_TYPOS = ["training_job_prefx", "Training_Job_Prefix", "prefix", "Endpoint", "end_point", "NAME", "Name", " name",
             "name ", "target", "training-job-prefix"]
NAME_VARIANTS = ["StopTraining", "STOPTRAINING", "Email", "SMS", "Sms", "stop_training", "stop-training", "e-mail",
                 "notify", "Notify", "stoptraining ", " email", "stoptrainıng", "ＥＭＡＩＬ", "", "stop"]

texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)  # every category, surrogates too
tricky_text = st.lists(st.one_of(st.sampled_from(TRICKY), texts), min_size=1, max_size=4).map("".join)


def huge(n_min: int = 1_000, n_max: int = 100_000) -> st.SearchStrategy[str]:
    sizes = st.integers(n_min, n_max)
    return st.one_of(
        sizes.map(lambda n: "a" * n),
        sizes.map(lambda n: "[" * n + "]" * n),
        sizes.map(lambda n: '{"name": ' * n),
        sizes.map(lambda n: "\\" * n),
        sizes.map(lambda n: "9" * n),
        sizes.map(lambda n: json.dumps([{"name": "email", "endpoint": "x" * n + "@example.com"}])),
        sizes.map(lambda n: json.dumps([{"name": "stoptraining"}] * (n // 25))),
        sizes.map(lambda n: ("\u202e" * n)),
    )


json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(10**30), 10**30),
                        st.floats(allow_nan=True, allow_infinity=True), texts, st.sampled_from(TRICKY))
json_keys = st.one_of(st.sampled_from(["name", "endpoint", "training_job_prefix", *KEY_TYPOS]), texts)
json_trees = st.recursive(
    json_leaves,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(json_keys, children, max_size=4)),
    max_leaves=12,
)
hostile_values = st.one_of(json_trees, huge(100, 20_000), st.integers(1, 3_000).map(lambda n: _nested(n)))


class Deep(list):
    """A list nested `depth` deep, shown short (hypothesis' printer would recurse as deep as the value)."""

    def __init__(self, depth: int):
        value: Any = []
        for _ in range(depth - 1):
            value = [value]
        super().__init__([value])
        self.depth = depth

    def __repr__(self) -> str:
        return f"Deep({self.depth})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


def _nested(depth: int) -> Any:
    return Deep(depth)


def prefixes(job: str) -> st.SearchStrategy[str]:
    return st.one_of(
        st.just(job),
        st.integers(1, len(job)).map(lambda k: job[:k]),
        st.sampled_from(["exp-", "exp-a-", "other-team", "nlp-bert-", "hpo-xgb-", "demo-job-0010"]),
        st.from_regex(r"[A-Za-z0-9-]{1,80}", fullmatch=True),
    )


def valid_entries(job: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"name": "stoptraining"}),
        prefixes(job).map(lambda p: {"name": "stoptraining", "training_job_prefix": p}),
        st.sampled_from(EMAILS).map(lambda e: {"endpoint": e, "name": "email"}),
        st.emails().filter(lambda e: len(e) <= 254).map(lambda e: {"endpoint": e, "name": "email"}),
        st.sampled_from(PHONES).map(lambda p: {"endpoint": p, "name": "sms"}),
    )


@st.composite
def near_valid_entry(draw, job: str) -> Any:
    """A valid entry with one or two SDK-plausible mistakes."""
    entry = dict(draw(valid_entries(job)))
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(["rename", "name", "drop", "extra", "number", "null", "bad_endpoint", "space"]))
        keys = sorted(entry)
        if op == "rename" and keys:
            key = draw(st.sampled_from(keys))
            entry[draw(st.sampled_from(KEY_TYPOS))] = entry.pop(key)
        elif op == "name":
            entry["name"] = draw(st.sampled_from(NAME_VARIANTS))
        elif op == "drop" and keys:
            entry.pop(draw(st.sampled_from(keys)))
        elif op == "extra":
            entry[draw(st.sampled_from(["training_job_prefix", "endpoint", "foo", "actions"]))] = draw(
                st.sampled_from(["x@example.com", "exp-", 1, None, [], {}])
            )
        elif op == "number" and keys:
            entry[draw(st.sampled_from(keys))] = draw(st.one_of(st.integers(), st.floats(), st.booleans()))
        elif op == "null" and keys:
            entry[draw(st.sampled_from(keys))] = None
        elif op == "bad_endpoint":
            entry["endpoint"] = draw(st.sampled_from(BAD_ENDPOINTS))
        elif op == "space" and keys:
            key = draw(st.sampled_from(keys))
            entry[key] = f" {entry[key]}" if isinstance(entry[key], str) else entry[key]
    return entry


@st.composite
def encoded(draw, value: Any) -> str:
    """JSON text in one of the forms action_json arrives in: plain, the SDK's escaped form, a JSON string of
    either, or a half-escaped mix."""
    separators = draw(st.sampled_from([(", ", ": "), (",", ":")]))
    text = json.dumps(value, separators=separators, ensure_ascii=draw(st.booleans()))
    form = draw(st.sampled_from(["plain", "escaped", "string", "escaped-string", "half-escaped"]))
    if form == "escaped":
        return text.replace('"', '\\"')
    if form == "string":
        return json.dumps(text)
    if form == "escaped-string":
        return json.dumps(text.replace('"', '\\"'))
    if form == "half-escaped":
        cut = draw(st.integers(0, len(text)))
        return text[:cut].replace('"', '\\"') + text[cut:]
    return text


@st.composite
def valid_action_json(draw, job: str) -> str:
    entries = draw(st.lists(valid_entries(job), min_size=1, max_size=4))
    return draw(encoded(entries[0] if len(entries) == 1 and draw(st.booleans()) else entries))


@st.composite
def near_valid_action_json(draw, job: str) -> str:
    entries = draw(st.lists(st.one_of(valid_entries(job), near_valid_entry(job)), min_size=1, max_size=4))
    return draw(encoded(entries))


@st.composite
def hostile_action_json(draw, job: str) -> Any:
    """Anything at all where action_json belongs, mostly strings, some not strings (the event carries JSON)."""
    return draw(
        st.one_of(
            tricky_text,
            texts,
            huge(),
            json_trees.flatmap(encoded),
            st.lists(st.one_of(near_valid_entry(job), json_trees), min_size=1, max_size=3).flatmap(encoded),
            json_trees,  # not a string at all
            st.integers(1, 5_000).map(lambda n: json.dumps(_nested(min(n, 900)))),
        )
    )


@st.composite
def configs(draw) -> Config:
    team = draw(st.sampled_from([{}, {"emails": ["team@example.com"]}, {"sms": ["+15555550100"]}]))
    allowed = draw(st.sampled_from([[], ["*@example.com", "+1555555*"], ["*"], ["*@example.com", "team@example.com"]]))
    if team and allowed and not endpoint_allowed(Config.from_dict({"allowed_endpoints": allowed}),
                                                 (team.get("emails") or team.get("sms"))[0]):
        allowed = []
    rule_entries = st.lists(
        st.one_of(
            st.sampled_from(["stoptraining", "notify"]),
            st.sampled_from([*JOBS, "exp-"]).map(lambda p: {"name": "stoptraining", "training_job_prefix": p}),
            st.sampled_from(["team@example.com", "ml@example.com"]).map(lambda e: {"name": "email", "endpoint": e}),
        ),
        max_size=3,
    )
    rules = draw(st.dictionaries(st.sampled_from(["*", "Vanishing*", "Overfit", "Profiler*", "?oss*"]), rule_entries,
                                 max_size=3))
    data = {
        "notify": team,
        "rules": rules or {"*": ["notify"]},
        "allowed_endpoints": allowed,
        "training_job_prefixes": draw(st.sampled_from([[]] * 6 + [["exp-", "demo-"], ["NLP-"]])),
        "honor_action_json": draw(st.integers(0, 9)) > 0,
        **{flag: draw(st.booleans()) for flag in
           ("stop_all_matching", "allow_cross_job_stop", "act_on_replays", "notify_on_rule_error")},
        "dry_run": draw(st.integers(0, 9)) == 0,
    }
    if "email" in json.dumps(rules) and data["allowed_endpoints"] and "ml@example.com" in json.dumps(rules):
        data["allowed_endpoints"] = [*data["allowed_endpoints"], "ml@example.com"]
    return Config.from_dict(data)


@dataclass(frozen=True)
class Case:
    raw: Any
    config: Config
    jobs: tuple[tuple[str, str, dict[str, list[dict[str, Any]]]], ...]  # (name, status, {family: configurations})


STATUSES = ["InProgress"] * 8 + ["Completed", "Stopping", "Stopped", "Failed"]


@st.composite
def cases(draw, action_json, mutate: bool = False) -> Case:
    """A "SageMaker Training Job State Change" event with 1-3 rules, the account's jobs, a configuration."""
    job = draw(st.sampled_from(JOBS) | st.from_regex(r"[a-zA-Z0-9](-?[a-zA-Z0-9]){0,30}", fullmatch=True))
    statuses: dict[str, list[dict[str, Any]]] = {"Debug": [], "Profiler": []}
    in_event: dict[str, list[dict[str, Any]]] = {"Debug": [], "Profiler": []}
    in_account: dict[str, list[dict[str, Any]]] = {"Debug": [], "Profiler": []}
    for _ in range(draw(st.integers(1, 3))):
        family = draw(st.sampled_from(["Debug", "Profiler"]))
        name = draw(st.sampled_from(RULES) | tricky_text)
        status = draw(st.sampled_from(["IssuesFound", "IssuesFound", "IssuesFound", "Error", "InProgress", "NoIssuesFound"]))
        statuses[family].append(rule_status(name, status, job=job))
        value = draw(action_json(job))
        configuration = rule_config(name)
        if value is not None:
            configuration["RuleParameters"]["action_json"] = value
        where = draw(st.sampled_from(["event", "event", "event", "account", "account", "nowhere"]))
        if where == "event":
            in_event[family].append(configuration)
        elif where == "account" and isinstance(value, str):  # the API returns strings only
            in_account[family].append(configuration)
    raw = event(
        job=job,
        status=draw(st.sampled_from(STATUSES)),
        debug=statuses["Debug"] or None,
        profiler=statuses["Profiler"] or None,
        debug_configs=in_event["Debug"] or None,
        profiler_configs=in_event["Profiler"] or None,
        event_id=draw(st.uuids()).hex,
    )
    if draw(st.integers(0, 19)) == 0:
        raw["replay-name"] = "archive-replay-1"
    if mutate:
        raw = draw(mutated(raw))
    # Other jobs in the account: some of the family, and some under each prefix the actions name, so that a stop
    # that lists jobs often finds exactly one other job (the case a wrong cross-job decision would act on)
    declared_prefixes = sorted({
        action.target
        for family in in_event.values() for c in family
        for action in parse_action_json(c["RuleParameters"].get("action_json"))[0]
        if action.kind == STOP and action.target and action.target != job
    })
    pool = [job + "-2", job[: max(1, len(job) // 2)] + "x", "other-team-1", "exp-a-9", job.upper(), job + "0"]
    pool += [prefix + "z9" for prefix in declared_prefixes]
    jobs = [(job, draw(st.sampled_from(STATUSES)), in_account)]
    for sibling in draw(st.lists(st.sampled_from(pool), max_size=3, unique=True)):
        if sibling != job:
            jobs.append((sibling, draw(st.sampled_from(STATUSES)), {}))
    return Case(raw, draw(configs()), tuple(jobs))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, Deep):
        return found
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


@st.composite
def mutated(draw, raw: dict[str, Any]) -> Any:
    """The event with 1-4 hostile edits anywhere: a key deleted, a value of the wrong type, huge or unicode, an
    extra key, a value turned into its JSON text; sometimes not an object at all."""
    if draw(st.integers(0, 19)) == 0:
        return draw(hostile_values)
    raw = copy.deepcopy(raw)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(_paths(raw)[1:]))
        *parents, last = path
        container = raw
        for step in parents:
            container = container[step]
        op = draw(st.sampled_from(["delete", "replace", "replace", "extra", "stringify", "unicode"]))
        if op == "delete":
            del container[last]
        elif op == "replace":
            container[last] = draw(hostile_values)
        elif op == "extra" and isinstance(container[last], dict):
            container[last][draw(json_keys)] = draw(hostile_values)
        elif op == "stringify":
            try:
                container[last] = json.dumps(container[last])
            except RecursionError:  # a Deep value inside: leave it as it is
                pass
        elif op == "unicode" and isinstance(container[last], str):
            container[last] = draw(tricky_text) + container[last] + draw(tricky_text)
    return raw


# --------------------------------------------------------------------------- the oracle

READ_ONLY = {"DescribeTrainingJob", "ListTrainingJobs", "ListSubscriptionsByTopic", "GetSubscriptionAttributes", "GetItem"}
SAID = {"PutItem", "UpdateItem"}  # the ledger's records of decisions reported (each said once)
INVALID_FIELD = re.compile(r"action_json(\[\d+\])?([.:]|$)")
SAID_INVALID = re.compile(r"already reported: invalid \((.*)\); ledger record until \S+$", re.DOTALL)


def declared(event: JobEvent, config: Config, described: Mapping[tuple[str, str], Any] | str | None):
    """Per rule name: the (kind, target) pairs validly declared by action_json or the configuration, and the
    invalid-entry reasons the grammar gives for its action_json."""
    allowed: dict[str, set[tuple[str, str]]] = {}
    invalid: dict[str, list[str]] = {}
    for rule in find(event, config):
        name = redact(rule.name)  # as a result names it (a hostile name may look like an address)
        pairs = allowed.setdefault(name, set())
        if rule.status == RULE_ERROR:
            pairs.add((NOTIFY, TEAM))
            continue
        if config.value("honor_action_json"):
            params = rule.parameters
            if params is NOT_GIVEN:
                params = {} if isinstance(described, str) else (described or {}).get((rule.rule_family, rule.name), {})
            text = params.get("action_json") if isinstance(params, Mapping) else None
            if text is not None:
                actions, bad = parse_action_json(text)
                pairs |= {_pair(a, event) for a in actions}
                invalid.setdefault(name, []).extend(redact(f"{b.field}: {b.reason}") for b in bad)
        pairs |= {_pair(a, event) for a in actions_for(config, rule.name)}
    return allowed, invalid


def _pair(action: Action, event: JobEvent) -> tuple[str, str]:
    """As a result names it: endpoints redacted (privacy.redact)."""
    if action.kind == NOTIFY:
        return NOTIFY, TEAM
    return action.kind, redact(action.target or event.job_name)


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Deep):
        return 0
    if isinstance(value, dict):
        return max([0, *map(_longest_string, value.keys()), *map(_longest_string, value.values())])
    if isinstance(value, list):
        return max([0, *map(_longest_string, value)])
    return 0


def explained(case: Case, event: JobEvent, failed: dict[str, Any]) -> bool:
    """Why a failure may occur with a healthy moto:
    - BUG (pinned below): a lone surrogate (valid in JSON, not encodable in UTF-8) in a rule or job name makes the
      message's links fail to build (urllib.parse.quote raises UnicodeEncodeError) on every delivery;
    - BUG (pinned below): a name tens of thousands of characters long is repeated uncut in the message, which then
      exceeds SNS's 256 KB (InvalidParameter: Message too long) on every delivery;
    - an AWS call really failed: the (mutated) event names a job the account does not have."""
    if "surrogates not allowed" in failed["reason"]:
        return True
    if "Message too long" in failed["reason"]:  # BUG (pinned below): no bound on the names in a message
        return _longest_string(case.raw) > 10_000
    in_account = {name for name, _, _ in case.jobs}
    return event.job_name not in in_account and "Could not find training job" in failed["reason"]


def allowlisted(config: Config, endpoint: str) -> bool:
    """allowed_endpoints as docs/destinations.md states it (globs, any case, empty: any), computed here independently."""
    patterns = config.value("allowed_endpoints")
    return not patterns or any(fnmatch.fnmatchcase(endpoint.casefold(), p.casefold()) for p in patterns)


def _note(text: str) -> None:
    if currently_in_test_context():
        note(text)


def _statistic(label: str) -> None:
    """Shown by --hypothesis-show-statistics: how often each path was taken."""
    if currently_in_test_context():
        statistic(label)


def permitted_stop(a: dict[str, Any], event: JobEvent, config: Config, allowed) -> bool:
    """A stop the input declared and the policy lets run: InProgress event, the prefix covers the own job (or
    cross-job stops are allowed), not a replay (or replays are acted on), not a dry run."""
    return (
        (STOP, a["target"]) in allowed[a["rule"]]
        and event.job_status == IN_PROGRESS
        and (config.value("allow_cross_job_stop") or event.job_name.startswith(a["target"]))
        and (config.act_on_replays or not event.replay_name)
        and not config.dry_run
    )


def check(account: Embedded, case: Case) -> None:
    result, failure = account.run(case)
    config = case.config
    calls = [op for op, _ in account.calls]
    _note(f"calls: {calls}")
    try:
        event = parse_event(case.raw)
    except IgnoredEvent:
        _statistic("ignored event")
        assert failure is None and result["ignored"] and result["actions"] == [] and calls == []
        return
    own = re.fullmatch(r"arn:[a-z-]+:sagemaker:([^:]*):([^:]*):training-job/.+", event.job_arn)
    if not own or own.groups() != (event.region, event.account):
        # (docs/security.md: one account refuses a job ARN of another account or region than the event's envelope)
        _statistic("job ARN of another account or region than the event's")
        assert failure is None and "is not a training job of the event's account" in result["ignored"] and calls == []
        return
    if not TRAINING.in_scope(config, event.job_name):
        _statistic("job outside training_job_prefixes")
        assert failure is None and "training_job_prefixes" in result["ignored"] and calls == []
        return

    outcome = failure.result if failure else result
    actions = outcome["actions"]
    _note(f"actions: {actions}")
    failed = [a for a in actions if a["outcome"] == "failed"]
    labels = {f"{a['kind']} {a['outcome']}" for a in actions} | ({"ActionsFailed"} if failure else set())
    for label in labels:
        _statistic(label)
    # (a) ActionsFailed exactly when something failed, and with healthy moto only for the known bug class
    assert bool(failure) == bool(failed)
    assert all(explained(case, event, f) for f in failed), failed

    # What the input validly declared (DescribeTrainingJob read the account's configurations, when called)
    described: Any = None
    if "DescribeTrainingJob" in calls:
        configurations = {name: c for name, _, c in case.jobs}.get(event.job_name, {})
        described = {(f, c["RuleConfigurationName"]): c["RuleParameters"] for f, cs in configurations.items() for c in cs}
        if any(a["kind"] == "action_json" and a["outcome"] == "failed" for a in actions):
            described = "failed"
    allowed, invalid = declared(event, config, described)

    # (c) every invalid outcome names its field, and they are exactly the grammar's (one said twice in the event,
    # as by a rule listed twice, is said once: the second is a duplicate naming it)
    got_invalid: dict[str, list[str]] = {}
    for a in actions:
        assert a["rule"] in allowed, a
        if a["outcome"] == "invalid":
            assert a["origin"] == "action_json" and INVALID_FIELD.match(a["reason"]), a
            got_invalid.setdefault(a["rule"], []).append(a["reason"])
        elif a["outcome"] == "duplicate" and (said := SAID_INVALID.match(a["reason"])):
            assert said[1] in got_invalid.get(a["rule"], []), a
            got_invalid[a["rule"]].append(said[1])
    assert {r: Counter(v) for r, v in got_invalid.items()} == {r: Counter(v) for r, v in invalid.items() if v}

    # (b) every done action was validly declared and permitted
    done = [a for a in actions if a["outcome"] == "done"]
    for a in done:
        assert (a["kind"], a["target"]) in allowed[a["rule"]], a
        assert not config.dry_run and (config.act_on_replays or not event.replay_name), a
        if a["kind"] == NOTIFY:
            assert any(config.value("notify")), a
        if a["kind"] == STOP:
            assert permitted_stop(a, event, config, allowed), a
            assert all(job.startswith(a["target"]) for job in a["jobs"]), a
            assert config.value("stop_all_matching") or len(a["jobs"]) <= 1, a

    # (b) the calls: each stop and each message belongs to a done action, and nothing else was stopped or sent
    stopped_by_outcomes = [job for a in done if a["kind"] == STOP for job in a["jobs"]]
    assert account.changed(case) == {job: "Stopping" for job in stopped_by_outcomes}, stopped_by_outcomes
    assert len(set(stopped_by_outcomes)) == len(stopped_by_outcomes)
    tried = [a for a in actions if a["kind"] == STOP and a["outcome"] in ("done", "failed", "skipped")]
    for params in account.named("StopTrainingJob"):
        name = params["TrainingJobName"]
        assert any(name.startswith(a["target"]) and permitted_stop(a, event, config, allowed) for a in tried), params
    # (results name endpoints redacted: the calls, which carry them whole, are compared redacted; each endpoint
    # a call reached is checked whole against the declarations and the allowlist)
    recipients = [p["MessageAttributes"]["to"]["StringValue"] for p in account.named("Publish")]
    for endpoint in set(recipients) - {TEAM}:
        assert any((kind, redact(endpoint)) in pairs for pairs in allowed.values() for kind in (EMAIL, SMS))
        assert allowlisted(config, endpoint), endpoint
    sent = Counter(redact(recipients))
    delivered = Counter(a["target"] for a in done if a["kind"] in (EMAIL, SMS, NOTIFY))
    refused = Counter(a["target"] for a in failed if a["kind"] in (EMAIL, SMS, NOTIFY))  # SNS said no
    assert delivered <= sent <= delivered + refused, (sent, delivered)
    subscribed = {p["Endpoint"] for p in account.named("Subscribe")}
    tried = {a["target"] for a in actions if a["kind"] in (EMAIL, SMS) and a["outcome"] in ("done", "failed", "skipped")}
    assert {redact(e) for e in subscribed} <= tried
    for endpoint in subscribed:
        assert any((kind, redact(endpoint)) in pairs for pairs in allowed.values() for kind in (EMAIL, SMS))
        assert allowlisted(config, endpoint)
    if config.dry_run:
        assert set(calls) <= READ_ONLY | SAID, calls


# --------------------------------------------------------------------------- handler properties

valid_or_near = lambda job: st.one_of(valid_action_json(job), near_valid_action_json(job))  # noqa: E731
absent_or = lambda strategy: lambda job: st.one_of(st.none(), *[strategy(job)] * 3)  # noqa: E731


@FUZZ
@given(case=cases(absent_or(valid_or_near)))
def test_handler_on_valid_and_near_valid_action_json(embedded, case):
    # Given SDK-shaped (escaped or plain) or near-valid action_json in a generated event, account, configuration
    # When the real handler runs it on moto / Then (a), (b) and (c) hold
    check(embedded, case)


@FUZZ
@given(case=cases(absent_or(hostile_action_json)))
def test_handler_on_hostile_action_json(embedded, case):
    # Given anything at all where action_json belongs (wrong types, huge, unicode, deep, half-escaped)
    # When the real handler runs it on moto / Then (a), (b) and (c) hold
    check(embedded, case)


@FUZZ
@given(case=cases(absent_or(lambda job: st.one_of(valid_or_near(job), hostile_action_json(job))), mutate=True))
def test_handler_on_hostile_event_details(embedded, case):
    # Given an event with 1-4 hostile edits anywhere (keys deleted, wrong types, huge and unicode values)
    # When the real handler runs it on moto / Then (a), (b) and (c) hold
    check(embedded, case)


@pytest.mark.stress
@STRESS_HANDLER
@given(case=cases(absent_or(valid_or_near)))
def test_stress_handler_on_valid_and_near_valid_action_json(embedded, case):
    # Given SDK-shaped (escaped or plain) or near-valid action_json in a generated event, account, configuration
    # When the real handler runs it on moto / Then (a), (b) and (c) hold
    check(embedded, case)


@pytest.mark.stress
@STRESS_HANDLER
@given(case=cases(absent_or(hostile_action_json)))
def test_stress_handler_on_hostile_action_json(embedded, case):
    # Given anything at all where action_json belongs (wrong types, huge, unicode, deep, half-escaped)
    # When the real handler runs it on moto / Then (a), (b) and (c) hold
    check(embedded, case)


@pytest.mark.stress
@STRESS_HANDLER
@given(case=cases(absent_or(lambda job: st.one_of(valid_or_near(job), hostile_action_json(job))), mutate=True))
def test_stress_handler_on_hostile_event_details(embedded, case):
    # Given an event with 1-4 hostile edits anywhere (keys deleted, wrong types, huge and unicode values)
    # When the real handler runs it on moto / Then (a), (b) and (c) hold
    check(embedded, case)


# --------------------------------------------------------------------------- pure properties

any_event = st.one_of(
    cases(absent_or(lambda job: st.one_of(valid_or_near(job), hostile_action_json(job))), mutate=True).map(lambda c: c.raw),
    hostile_values,
)


def check_parse_event(raw: Any) -> None:
    try:
        parsed = parse_event(raw)
    except IgnoredEvent as err:
        assert re.match(r"(event: |not a state change of a SageMaker job this stack acts on \(|detail(\.\w+)?: )",
                        str(err)), err
        return
    assert isinstance(parsed.job_name, str) and parsed.job_name
    assert isinstance(parsed.job_arn, str) and isinstance(parsed.job_status, str)
    for rule in parsed.rules:
        assert rule.rule_family in ("Debug", "Profiler") and isinstance(rule.name, str) and rule.name
        assert isinstance(rule.status, str) and isinstance(rule.details, str)
    assert all(isinstance(r.parameters, Mapping) for r in parsed.rules if r.parameters is not NOT_GIVEN)
    assert all(p.startswith("detail.") for p in parsed.problems)


config_values = st.one_of(hostile_values, st.booleans(), st.integers(-5, 10_000), st.sampled_from([[], {}, "", "*"]))
config_dicts = st.one_of(
    hostile_values,
    st.dictionaries(
        st.one_of(st.sampled_from(["notify", "rules", "allowed_endpoints", "training_job_prefixes", "dedup_ttl_hours", "honor_action_json", "stop_all_matching", "allow_cross_job_stop", "act_on_replays", "notify_on_rule_error", "dry_run", *KEY_TYPOS]), texts),
        st.one_of(
            config_values,
            st.dictionaries(st.sampled_from(["emails", "sms", "*", "Overfit", "Vanishing*"]) | texts,
                            st.one_of(config_values, st.lists(st.one_of(st.sampled_from(EMAILS + PHONES + BAD_ENDPOINTS
                                                                                        + ["stoptraining", "notify"]),
                                                                        json_trees), max_size=3)),
                            max_size=3),
            st.lists(st.one_of(st.sampled_from(EMAILS + PHONES + ["exp-", "*@example.com", ""]), json_leaves), max_size=3),
        ),
        max_size=6,
    ),
    configs().map(lambda c: c.to_dict()),
)


def check_config(data: Any) -> None:
    try:
        config = Config.from_dict(data)
    except ConfigError as err:
        assert str(err)
        return
    # A configuration accepted once is accepted again in its canonical forms, unchanged
    assert Config.from_dict(config.to_dict()) == config
    assert Config.from_json(config.to_json()) == config


def check_action_json(text: Any) -> None:
    actions, invalid = parse_action_json(text)
    for action in actions:
        assert action.kind in (STOP, EMAIL, SMS)
        if action.kind == STOP:
            assert action.target is None or PREFIX_RE.fullmatch(action.target)
        elif action.kind == EMAIL:
            assert EMAIL_RE.fullmatch(action.target) and len(action.target) <= 254
        else:
            assert PHONE_RE.fullmatch(action.target)
    for bad in invalid:
        assert INVALID_FIELD.match(bad.field + ":"), bad
        assert bad.reason


any_action_json = st.one_of(
    valid_action_json("exp-a-1"), near_valid_action_json("exp-a-1"), hostile_action_json("exp-a-1")
)


@PURE
@given(raw=any_event)
def test_parse_event_raises_only_ignored_event(raw):
    # Given any event, generated or hostile
    # When it is parsed / Then a JobEvent with well-typed fields, or IgnoredEvent naming the field
    check_parse_event(raw)


@PURE
@given(data=config_dicts)
def test_config_from_dict_raises_only_config_error_and_round_trips(data):
    # Given any configuration value, valid or hostile
    # When it is read / Then a Config that round-trips through its canonical forms, or ConfigError
    check_config(data)


@PURE
@given(text=any_action_json)
def test_parse_action_json_never_raises_and_names_every_invalid_field(text):
    # Given any action_json, valid, near-valid or hostile
    # When it is parsed / Then only grammatical actions, and every invalid entry named by its field path
    check_action_json(text)


@pytest.mark.stress
@STRESS_PURE
@given(raw=any_event)
def test_stress_parse_event(raw):
    # Given any event, generated or hostile
    # When it is parsed / Then a JobEvent with well-typed fields, or IgnoredEvent naming the field
    check_parse_event(raw)


@pytest.mark.stress
@STRESS_PURE
@given(data=config_dicts)
def test_stress_config_from_dict(data):
    # Given any configuration value, valid or hostile
    # When it is read / Then a Config that round-trips through its canonical forms, or ConfigError
    check_config(data)


@pytest.mark.stress
@STRESS_PURE
@given(text=any_action_json)
def test_stress_parse_action_json(text):
    # Given any action_json, valid, near-valid or hostile
    # When it is parsed / Then only grammatical actions, and every invalid entry named by its field path
    check_action_json(text)


# --------------------------------------------------------------------------- what the fuzzing found


def _one(embedded: Embedded, raw: dict[str, Any], config: Config, jobs=()) -> Case:
    return Case(raw, config, tuple((name, "InProgress", {}) for name in jobs))


def test_a_prefix_longer_than_the_api_allows_is_invalid_not_a_retried_failure(embedded):
    # Given SageMaker's documented length check on NameContains (moto does not check it), a cross-job stop
    # permitted, and a 64-character prefix (letters, digits, '-': the grammar accepts it)
    limits = embedded.effects.jobs.client.meta.service_model.operation_model("ListTrainingJobs").input_shape
    assert limits.members["NameContains"].metadata["max"] == API_NAME_MAX

    def service_validation(params, **_):
        if len(params.get("NameContains", "")) > API_NAME_MAX:
            raise ClientError({"Error": {"Code": "ValidationException", "Message": "1 validation error detected: "
                               "Value at 'nameContains' failed to satisfy constraint: Member must have length less "
                               "than or equal to 63"}}, "ListTrainingJobs")

    embedded.effects.jobs.client.meta.events.register_first(
        "before-parameter-build.sagemaker.ListTrainingJobs", service_validation
    )
    prefix = "exp-" + "a" * 60
    raw = event(job="exp-a-1", debug=[rule_status("Overfit", job="exp-a-1")],
                debug_configs=[rule_config("Overfit", json.dumps([{"name": "stoptraining", "training_job_prefix": prefix}]))])

    # When the rule fires
    result, failure = embedded.run(_one(embedded, raw, Config.from_dict({"allow_cross_job_stop": True}), ["exp-a-1"]))

    # Then it is reported invalid (a retry cannot help), not failed
    if failure:
        raise failure
    assert result["actions"][0]["outcome"] == "invalid"


def test_a_rule_name_with_a_lone_surrogate_still_notifies(embedded):
    # Given a team to notify and a rule whose name holds a lone surrogate (as json.loads gives for "\ud800")
    raw = event(debug=[rule_status("Overfit\ud800")], debug_configs=[rule_config("Overfit\ud800")])

    # When it fires
    result, failure = embedded.run(_one(embedded, raw, Config.from_dict({"notify": {"emails": ["team@example.com"]}}), ["demo-job-001"]))

    # Then the team is notified (the name shown with a replacement character)
    if failure:
        raise failure
    assert [a["outcome"] for a in result["actions"]] == ["done"]


def test_a_very_long_rule_name_still_notifies(embedded):
    # Given a team to notify and a rule name of 100,000 characters (shown twice in the body, the body twice)
    rule = "R" * 100_000
    raw = event(debug=[rule_status(rule)], debug_configs=[rule_config(rule)])

    # When it fires
    result, failure = embedded.run(_one(embedded, raw, Config.from_dict({"notify": {"emails": ["team@example.com"]}}), ["demo-job-001"]))

    # Then the team is notified (the name cut in the message)
    if failure:
        raise failure
    assert [a["outcome"] for a in result["actions"]] == ["done"]


def test_the_oracle_catches_an_action_the_input_did_not_declare(embedded, monkeypatch):
    # Given a planner that (wrongly) adds an email to an address nobody declared
    aws_event = event(debug=[rule_status("Overfit")], debug_configs=[rule_config("Overfit", '[{"name": "stoptraining"}]')])
    real_decide = Plan.decide

    def leaky(plan):
        planned = real_decide(plan)
        return [*planned, replace(planned[0], kind=EMAIL, target="intruder@evil.test", outcome=None)]

    monkeypatch.setattr(Plan, "decide", leaky)

    # When / Then the property fails on it
    with pytest.raises(AssertionError):
        check(embedded, _one(embedded, aws_event, Config(), ["demo-job-001"]))


# --------------------------------------------------------------------------- timelines, texts, monitor parameters (issue 27)

TIMELINE = {"timeline": "t", "description": "d", "start": "2026-11-24T08:00:00Z", "minutes": 30, "every": 5,
            "jobs": [{"name": "train-1", "instance_type": "ml.m5.large", "instance_count": 2, "stream_epoch": 1,
                      "phases": [{"at": 0, "secondary": "Starting"}, {"at": 2, "secondary": "Training"}],
                      "tags": {"rule-actions:StalledTraining": ""}, "metric_definitions": ["train:loss"],
                      "metrics": [{"metric": "CPUUtilization", "hosts": ["algo-2"], "from": 0, "to": 9,
                                   "value": [10, 50], "jitter": 2.5, "every": 2}],
                      "logs": [{"hosts": "all", "from": 0, "to": 9, "every": 3, "text": "[{host}] {minute} {{x}}"}],
                      "expect": [{"rule": "StalledTraining", "begins": 5}]},
                     {"family": "tuning", "name": "hpo-1", "instance_type": "ml.m5.large", "phases": [{"at": 0}],
                      "trials": [{"name": "hpo-1-001-a", "from": 1, "to": 5, "status": "Completed", "objective": 0.5}]}]}


def check_timeline(data: Any) -> None:
    from rule_actions_cli.timeline import read

    timeline, problems = read(data, "t.json")
    assert (timeline is None) == bool(problems)
    assert all(p.startswith("t.json: ") and "\n" not in p for p in problems), problems
    if timeline is not None:  # what it publishes can be computed, minute by minute, without an error
        for job in timeline.jobs:
            list(timeline.datapoints(job, 0, min(timeline.minutes, 60)))
            list(timeline.log_lines(job, 0, min(timeline.minutes, 60)))


@PURE
@given(data=mutated(TIMELINE))
def test_a_timeline_is_read_or_its_problems_named_never_an_exception(data):
    # Given a timeline with hostile edits anywhere (wrong types, huge values, deep nesting, unicode)
    # When it is read and replayed minute by minute / Then a timeline or its problems, never an exception
    check_timeline(data)


@pytest.mark.stress
@STRESS_PURE
@given(data=mutated(TIMELINE))
def test_stress_timeline_read(data):
    check_timeline(data)


@PURE
@given(text=st.one_of(texts, tricky_text, st.text()))
def test_a_text_message_is_printable_ascii_whatever_the_text(text):
    from rule_actions.text import SMS_MAX, one_line

    # Given any text / When it is made one line for an SMS / Then printable ASCII, at most 140 characters
    line = one_line(text, SMS_MAX)
    assert len(line) <= SMS_MAX and re.fullmatch(r"[\x20-\x7e]*", line)


@PURE
@given(value=st.one_of(hostile_values, st.integers(-(10**400), 10**400), st.integers().map(str)))
def test_a_monitor_parameter_is_read_or_refused_never_an_exception(value):
    from rule_actions.monitors.params import Param

    # Given any value for a whole and a fractional parameter, from the configuration or a tag
    # When it is read / Then the value, or the reason it is refused (one line)
    for param in (Param("w", 1, "d", 0, 10, whole=True), Param("f", 0.5, "d", 0, 1)):
        for from_tag in (False, True):
            read, problem = param.read(value, from_tag)
            assert (read is None) == (problem is not None) and (problem is None or "\n" not in problem)


# --------------------------------------------------------------------------- the other families' events (issue 27)

SAMPLES = Path(__file__).resolve().parents[2] / "events"
FAMILY_EVENTS = [raw for folder in ("tuning", "processing", "pipelines", "transform")
                 for path in sorted((SAMPLES / folder).glob("*.json")) for raw in json.loads(path.read_text())]
# Every family's outcomes notify the team; every rule status notifies and stops (`stop`: the job's own family's
# call), so that a stop the input did not validly bring about would show as a call.
FAMILY_CONFIG = Config.from_dict({
    "notify": {"emails": ["team@example.com"]},
    "rules": {"*": ["notify", "stop"]},
    "job_outcomes": {"Failed": ["notify"], "MaxRuntimeExceeded": ["notify"]},
    "tuning_job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"], "Completed": ["notify"]},
    "processing_job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"]},
    "pipeline_outcomes": {"Failed": ["notify"], "CompletedWithFailures": ["notify"]},
    "transform_job_outcomes": {"Failed": ["notify"]},
})
STOP_CALLS = {"StopTrainingJob", "StopProcessingJob", "StopTransformJob", "StopHyperParameterTuningJob",
              "StopPipelineExecution"}
STATUS_MEMBERS = {"tuning": "HyperParameterTuningJobStatus", "processing": "ProcessingJobStatus",
                  "transform": "TransformJobStatus"}
TAG_ACTIONS = ["stop", "notify", "stop notify", "stoptraining", "stop job=tuning_job", "email=team@example.com",
               "sms=15555550100", "stop job=pipeline_execution", "[{\"name\": \"stop\"}]", "page", ""]


@st.composite
def family_events(draw) -> tuple[Any, Any]:
    """(the sample event as SageMaker sent it, the event the handler is given): a tuning, processing, pipeline or
    transform event, sometimes running and carrying monitor rules that hold (as the evaluator hands them on, with a
    tag's actions as their action_json), then with 1-4 hostile edits anywhere."""
    raw = copy.deepcopy(draw(st.sampled_from(FAMILY_EVENTS)))
    family = registry.job_family(raw)
    member = STATUS_MEMBERS.get(family.name if family else "")
    if member and draw(st.booleans()):
        raw["detail"][member] = "InProgress"
        rules = draw(st.lists(st.sampled_from(["StalledJob", "IdleInstances", "RuntimeOverrun", "FailingTrials"]),
                              min_size=1, max_size=2, unique=True))
        raw["detail"]["MonitorRuleEvaluationStatuses"] = [
            {"RuleConfigurationName": rule, "RuleEvaluationStatus": "IssuesFound", "StatusDetails": "holds",
             "LastModifiedTime": "1764000000000"} for rule in rules]
        raw["detail"]["MonitorRuleConfigurations"] = [
            {"RuleConfigurationName": rule, "RuleParameters": {
                "rule_to_invoke": rule, "mode": draw(st.sampled_from(["act", "watch"])),
                **({"action_json": json.dumps(tag_entries(draw(st.sampled_from(TAG_ACTIONS))))}
                   if draw(st.booleans()) else {})}} for rule in rules]
    return raw, draw(mutated(raw))


def check_family_event(account: Embedded, seeded: Any, raw: Any) -> None:
    """The other families' properties: the handler raises nothing but ActionsFailed; every problem and ignored
    reason is one line naming the event's part; nothing is stopped but by a `done` stop, each once; no result holds
    an address."""
    sagemaker_backends[ACCOUNT][REGION].reset()
    account.reset()
    family = registry.job_family(seeded)
    seeder(family)(family, seeded["detail-type"], seeded["detail"], {}, account_id=ACCOUNT, region=REGION)
    account.settings = Settings(FAMILY_CONFIG, account.topic_arn, TABLE, REGION)
    account.deploy_team(FAMILY_CONFIG)
    try:
        result = handler.lambda_handler(raw, CONTEXT)
    except ActionsFailed as err:  # an AWS call that really failed: the mutated event names a job the account lacks
        result = err.result
    lines = [*result.get("problems", []), *([result["ignored"]] if result.get("ignored") else [])]
    for line in lines:
        assert isinstance(line, str) and "\n" not in line, line
    actions = result.get("actions", [])
    statistic(f"actions: {sorted({(a.get('kind'), a.get('outcome')) for a in actions})}"[:100])
    stops = [a for a in actions if a.get("kind") in ("stop", STOP) and (a.get("outcome") == "done" or (
        a.get("outcome") == "skipped" and " is already " in str(a.get("reason", ""))))]  # each a call
    calls = [params for op, params in account.calls if op in STOP_CALLS]
    assert len(calls) == len(stops), (calls, stops)
    assert "team@example.com" not in json.dumps(result) and "15555550100" not in json.dumps(result)


@FUZZ
@given(case=family_events())
def test_handler_on_hostile_events_of_every_family(embedded, case):
    # Given a tuning, processing, pipeline or transform event, sometimes carrying monitor rules that hold, with 1-4
    # hostile edits anywhere / When the real handler runs it on moto / Then check_family_event's properties hold
    check_family_event(embedded, *case)


@pytest.mark.stress
@STRESS_PURE
@given(case=family_events())
def test_stress_handler_on_hostile_events_of_every_family(embedded, case):
    check_family_event(embedded, *case)


# --------------------------------------------------------------------------- a job's tags (issue 27)

MONITOR_NAMES = ["StalledTraining", "LowGPUUtilization", "StalledJob", "IdleInstances", "RuntimeOverrun",
                 "FailingTrials", "NoImprovement", "VanishingGradient", "Nope"]
rule_tags = st.sampled_from(MONITOR_NAMES).flatmap(lambda name: st.sampled_from(
    [f"rule-actions:{name}", f"rule-actions:{name}:parameters"]))
tag_keys = st.one_of(rule_tags, rule_tags, rule_tags, st.just("rule-actions:opt-out"),
                     texts.map(lambda t: "rule-actions:" + t), texts)
TAG_PARAMETERS = ["true", "false", "TRUE", "maybe", "threshold=1200", "threshold=0", "threshold=" + "9" * 400,
                  "factor=1e308", "factor=nan", "expected_minutes=45", "mode=watch", "mode=act", "mode=loud", "x", "=",
                  "a=b=c", "per_host=true"]
tag_values = st.one_of(st.sampled_from(TAG_ACTIONS), st.sampled_from([*TAG_ACTIONS, *TAG_PARAMETERS]), tricky_text,
                       texts, huge(257, 2_000))
STACK_WIDE = [{}, {"StalledTraining": {}}, {"StalledJob": {"threshold": 1800}},
              {"RuntimeOverrun": {"expected_minutes": 10}}]


@PURE
@given(family=st.sampled_from(["training", "processing", "transform", "tuning"]),
       tags=st.dictionaries(tag_keys, tag_values, max_size=6),
       stack_wide=st.sampled_from(STACK_WIDE))
def test_a_jobs_tags_are_read_or_each_refused_on_its_own_never_an_exception(family, tags, stack_wide):
    check_tags(family, tags, stack_wide)


@pytest.mark.stress
@STRESS_PURE
@given(family=st.sampled_from(["training", "processing", "transform", "tuning"]),
       tags=st.dictionaries(tag_keys, tag_values, max_size=6), stack_wide=st.sampled_from(STACK_WIDE))
def test_stress_tags(family, tags, stack_wide):
    check_tags(family, tags, stack_wide)


def check_tags(family: str, tags: dict[str, str], stack_wide: dict[str, Any]) -> None:
    from rule_actions.monitors.block import read_settings
    from rule_actions.monitors.job import RunningJob
    from rule_actions.monitors.tags import rules_of

    # Given a running job of any family with hostile tags, under a configuration with or without stack-wide rules
    monitors = registry.monitors()
    errors: list[str] = []
    settings = read_settings({"rules": stack_wide, "families": ["processing", "transform", "tuning"]}, "monitor",
                             errors, monitors)
    assert not errors, errors
    record = {"Tags": [{"Key": k, "Value": v} for k, v in tags.items()], "TrainingJobName": "j",
              "ProcessingJobName": "j", "TransformJobName": "j", "HyperParameterTuningJobName": "j"}
    job = RunningJob.of(record, {f.name: f for f in registry.JOBS}[family])
    # When the rules that apply to it are read from its tags
    applied, problems = rules_of(job, settings, monitors)
    statistic(f"applied {min(len(applied), 2)}, refused {min(len(problems), 2)}, "
              f"tag actions {any(item.actions for item in applied)}")
    # Then each tag that cannot be used is one line naming its tag, the others apply, each within its family and
    # its parameters' ranges; a tag's actions are read by the grammar, each entry valid or named
    for problem in problems:
        assert problem.startswith(("tag rule-actions:", 'tag "rule-actions:')) and "\n" not in problem, problem
        assert "15555550100" not in redact(problem), problem
    for item in applied:
        assert family in item.rule.families
        for param in item.rule.params:
            value = item.params[param.key]
            assert param.read(value)[1] is None, (param.key, value)
        if item.actions is not None:
            _, invalid = parse_action_json(json.dumps(tag_entries(item.actions)))
            assert all(INVALID_FIELD.match(bad.field + ":") for bad in invalid)
