"""A job's tags as the monitor rules read them: `rule-actions:<Rule>` attaches a rule with its actions (the action
grammar's tag form), `rule-actions:<Rule>:parameters` sets its parameters, `rule-actions:opt-out=true` opts the job
out of the stack-wide rules (`rules_of`: the rules that apply to one job); and the tags the SDK writes
(`tags_for`, `opt_out_tags`: rule_actions_sdk's monitor_tags and monitor_opt_out, through the registry)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from rule_actions.contract import ACT, RESTART_TAGS, WATCH
from rule_actions.monitors.block import MonitorSettings
from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.params import MODE, num
from rule_actions.monitors.rule import REFUSED, Monitor, parameters, refusal
from rule_actions.text import closest, quoted

# Tags: one per rule (its actions, in the tag form of the action grammar), one per rule's parameters, the opt-out.
TAG_PREFIX = "rule-actions:"
PARAMETERS_SUFFIX = ":parameters"
OPT_OUT = "opt-out"
# The tags a restart gives its copy (contract.RESTART_TAGS: its chain, attempt, ...): the restart's bookkeeping under
# the same prefix, never rules; a copy carries them beside the rule tags it keeps from its job.
CHAIN_TAGS = frozenset(tag.removeprefix(TAG_PREFIX) for tag in RESTART_TAGS)
TAG_VALUE_MAX = 256  # SageMaker's limit on a tag value
TAG_KEY_MAX = 128  # and on a tag key
# SageMaker's tag value characters: letters, separators, digits and _ . : / = + - @ (no quotes, brackets or commas:
# a tag cannot hold JSON, so the actions are written `stoptraining email=a@example.com`).
TAG_VALUE_RE = re.compile(r"[\w .:/=+\-@]*")


class Applied(NamedTuple):
    """A rule for one job: its parameters (its mode resolved among them) and, when a tag attaches it, the tag's
    actions (the action grammar's tag form, or None: the configuration's `rules` alone)."""

    rule: Monitor
    params: Mapping[str, Any]
    actions: str | None
    source: str  # "tag" | "config"



OPTED_OUT = f"opted out (tag {TAG_PREFIX}{OPT_OUT}=true): not judged by the stack-wide rules"


def is_opted_out(job: RunningJob) -> bool:
    """The job's tag opts it out of the stack-wide rules (read whatever job_tags says)."""
    return job.tags.get(TAG_PREFIX + OPT_OUT, "").strip().lower() == "true"


def rules_of(job: RunningJob, settings: MonitorSettings, monitors: Mapping[str, Monitor]) -> tuple[list[Applied], list[str]]:
    """The rules that apply to a job: the stack-wide ones (unless the job opts out), and those its tags attach
    (when job_tags); with their parameters (the configuration's, then the job's parameters tag) and their mode:
    the one set (the tag's over the configuration's), else act for a rule the job's tag attaches (its owner asked
    for it, even when the rule is stack-wide too) and watch for a rule only the configuration turns on. The opt-out
    tag is read whatever job_tags says: job_tags only stops tags from adding rules, actions or parameters. Every tag
    that cannot be used is a problem naming the tag and its value; the job's other rules go on."""
    problems: list[str] = []
    tags = {k: v for k, v in job.tags.items() if k.startswith(TAG_PREFIX)}
    opted_out = is_opted_out(job)
    if TAG_PREFIX + OPT_OUT in tags:
        value = tags.pop(TAG_PREFIX + OPT_OUT)
        if value.strip().lower() not in ("true", "false"):
            problems.append(f"tag {TAG_PREFIX}{OPT_OUT}: {quoted(value)} is not true or false (the stack-wide rules "
                            "apply)")
    for key in [k for k in tags if k[len(TAG_PREFIX):] in CHAIN_TAGS]:
        del tags[key]
    if not settings.job_tags:
        tags = {}
    stack_wide = {} if opted_out else {name: dict(given) for name, given in settings.rules
                                       if job.family in monitors[name].families}
    tagged: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for key, value in sorted(tags.items()):
        name = key[len(TAG_PREFIX):]
        target = overrides if name.endswith(PARAMETERS_SUFFIX) else tagged
        name = name.removesuffix(PARAMETERS_SUFFIX)
        if name not in monitors:  # the key as SageMaker allows it, else quoted (it may hold any character)
            shown = key if len(key) <= TAG_KEY_MAX and TAG_VALUE_RE.fullmatch(key) else quoted(key)
            problems.append(f"tag {shown}: {quoted(name)} {refusal(name)}{_meant(key, monitors)}; the job's other "
                            "rules go on")
            continue
        if job.family not in monitors[name].families:
            if job.parent and "tuning" in monitors[name].families:
                continue  # SageMaker copies a tuning job's tags to its trials: the rule judges the tuning job
            nouns = " and ".join(f"{noun}s" for noun in monitors[name].nouns)
            problems.append(f"tag {key}: {name} judges {nouns} only, not a {job.noun}"
                            "; the job's other rules go on")
            continue
        if len(value) > TAG_VALUE_MAX or not TAG_VALUE_RE.fullmatch(value):
            problems.append(f"tag {key}: {quoted(value)} is not a tag value (at most {TAG_VALUE_MAX} letters, digits, "
                            "spaces and _ . : / = + - @)")
            continue
        target[name] = value
    applied = []
    for name in dict.fromkeys([*stack_wide, *tagged]):
        rule = monitors[name]
        configured = stack_wide.get(name, {})
        given: dict[str, str] = {}
        params, errors = parameters(rule, configured, f"monitor.rules[{json.dumps(name)}]")
        if name in overrides:
            given, malformed = _pairs(overrides[name])
            where = f"tag {TAG_PREFIX}{name}{PARAMETERS_SUFFIX}"
            errors += [f"{where}: {quoted(item)} is not key=value" for item in malformed]
            params, more = parameters(rule, given, where, base=params, from_tag=True)
            errors += more
        if errors:
            problems += [f"{error}; {name} is not evaluated for this job" for error in errors]
            continue
        if MODE.key not in configured and MODE.key not in given:  # no mode set: who turned the rule on decides
            params[MODE.key] = ACT if name in tagged else WATCH  # the job's own tag asked for it: it acts
        applied.append(Applied(rule, params, tagged.get(name), "tag" if name in tagged else "config"))
    for name in overrides:
        if name not in stack_wide and name not in tagged:
            problems.append(f"tag {TAG_PREFIX}{name}{PARAMETERS_SUFFIX}: sets parameters of {name}, which no "
                            f"configuration or tag {TAG_PREFIX}{name} applies to this job")
    return applied, problems


def _meant(key: str, monitors: Mapping[str, Monitor]) -> str:
    """" (did you mean rule-actions:<Rule>?)" naming the tag a misspelt one probably is: a monitor rule's (its
    parameters' tag for a parameters tag), or the opt-out; "" when none is close or the name is Debugger's."""
    name = key[len(TAG_PREFIX):]
    suffix = PARAMETERS_SUFFIX if name.endswith(PARAMETERS_SUFFIX) else ""
    name = name.removesuffix(suffix)
    if name in REFUSED:
        return ""
    near = closest(name, [*monitors, *([] if suffix else [OPT_OUT])])
    return f" (did you mean {TAG_PREFIX}{near}{suffix}?)" if near else ""


def _pairs(text: str) -> tuple[dict[str, str], list[str]]:
    found, malformed = {}, []
    for item in text.split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            malformed.append(item)
        else:
            found[key] = value
    return found, malformed


def tags_for(rule: Monitor, actions: str | None, given: Mapping[str, Any]) -> list[dict[str, str]]:
    """The tags that attach `rule` to a training job: its actions in the tag form (None: the configuration's
    `rules` alone) and its parameters; ValueError naming what SageMaker or the evaluation would refuse."""
    params, errors = parameters(rule, given, f"{rule.name} parameters", from_tag=True)
    if errors:
        raise ValueError("; ".join(errors))
    tags = [{"Key": f"{TAG_PREFIX}{rule.name}", "Value": actions or ""}]
    if given:
        tags.append({"Key": f"{TAG_PREFIX}{rule.name}{PARAMETERS_SUFFIX}",
                     "Value": " ".join(f"{key}={num(params[key])}" for key in given)})
    for tag in tags:
        if len(tag["Value"]) > TAG_VALUE_MAX or not TAG_VALUE_RE.fullmatch(tag["Value"]):
            raise ValueError(f"tag {tag['Key']}: {quoted(tag['Value'])} is not a SageMaker tag value (at most "
                             f"{TAG_VALUE_MAX} letters, digits, spaces and _ . : / = + - @)")
    return tags


def opt_out_tags() -> list[dict[str, str]]:
    return [{"Key": TAG_PREFIX + OPT_OUT, "Value": "true"}]
