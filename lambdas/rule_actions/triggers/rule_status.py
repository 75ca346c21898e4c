"""Debugger and Profiler rule statuses: a training job's DebugRuleEvaluationStatuses and
ProfilerRuleEvaluationStatuses (training-specific: no other job family carries them); and the statuses of the
Monitor family, the rules rule-actions evaluates itself on a schedule (monitors/), which a scheduled evaluation
hands over as a state change of the job's family (any) carrying MonitorRuleEvaluationStatuses (never matched on
EventBridge: no clause).

A rule's status is a trigger when it is IssuesFound, or Error with `notify_on_rule_error`. Its actions: the
rule's `action_json` when `honor_action_json` (from the event's rule configurations, else DescribeTrainingJob),
then what `rules` attaches to the rule by name or glob (its exact name first, else the first glob in file order,
`*` last; `rule_names` checks the names against the rules known). An Error notifies the team and runs nothing else. A monitor rule in watch mode (its RuleParameters'
`mode`, which the evaluation writes; a Debugger rule's are the user's, never read so) is `watched`: its stops are
reported as what they would do, and its messages say so.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

from rule_actions import cost as costs
from rule_actions.contract import MODE_KEY, MONITOR_RULE_FAMILY, WARNING_KEY, WATCH, Outcome
from rule_actions.fields import ActionMap, Flag, TextList
from rule_actions.ports import Configured, Occasion
from rule_actions.records import (
    Action,
    Capability,
    Declared,
    Described,
    EventFamily,
    Invalid,
    JobEvent,
    Message,
    Need,
    Origin,
    Place,
    Planned,
    Result,
    Trigger,
    TriggerFacts,
    Unread,
)
from rule_actions.text import (
    DETAILS_MAX,
    NAME_MAX,
    closest,
    indented,
    line,
    log_link,
    plain,
    quoted,
    timestamp,
    typo_of,
)
from rule_actions.triggers.base import (
    FOOTER,
    Entry,
    TriggerFamily,
    account_lines,
    link_lines,
    subject,
    tag,
    text_message,
)

PATTERN_FAMILIES = ("Debug", "Profiler")  # SageMaker's: their statuses arrive on EventBridge
RULE_FAMILIES = (*PATTERN_FAMILIES, MONITOR_RULE_FAMILY)
ISSUES_FOUND, RULE_ERROR = "IssuesFound", "Error"
APPLIES_TO = "training"  # the job family whose events carry rule statuses
NOT_GIVEN: Any = object()  # a rule whose configuration the event does not carry
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

RULES = ActionMap(
    "rules", (("*", (Action("notify"),)),),
    "Rule name or glob -> actions (notify, stoptraining, stop, {name: email|sms, endpoint}, {name: webhook, "
    "endpoint}): "
    "a rule's exact name first, else the first glob in file order, '*' last. A name is a built-in Debugger or "
    "Profiler rule's, a monitor rule's or one of custom_rules: one a typo away from a known name is refused, any "
    "other is warned of (docs/attaching-actions.md, Names are checked).",
    Place.RULES, "rule name or glob")
CUSTOM_RULES = TextList(
    "custom_rules", "The names (RuleConfigurationName) of your custom Debugger rules that `rules` names. A `rules` "
    "key one or two letters away from a built-in or monitor rule's name (or differing only in case) is refused as a "
    "typo, and one naming no rule known is warned of, unless it is listed here. Changes nothing else.")
HONOR_ACTION_JSON = Flag("honor_action_json", True, "Also run the actions a rule's action_json declares "
                         "(rule_configs.ActionList in the SageMaker SDK).")
NOTIFY_ON_RULE_ERROR = Flag("notify_on_rule_error", True, "Notify the team when a rule's evaluation ends in Error.")


@dataclass(frozen=True)
class RuleStatus(Trigger):
    """A rule's evaluation status; `parameters`: the rule's RuleParameters when the event carries its configuration."""

    TYPE = "rule_status"
    rule_family: str  # Debug | Profiler | Monitor
    name: str  # RuleConfigurationName
    status: str  # RuleEvaluationStatus
    details: str = ""
    evaluation_job_arn: str = ""
    last_modified: datetime | None = None
    parameters: Any = field(default=NOT_GIVEN, compare=False, repr=False)

    @property
    def label(self) -> str:
        return self.name

    @property
    def rule(self) -> str | None:
        return self.name

    @property
    def watch(self) -> bool:
        """A monitor rule in watch mode (the mode the evaluation carries in its RuleParameters)."""
        return (self.rule_family == MONITOR_RULE_FAMILY and isinstance(self.parameters, Mapping)
                and self.parameters.get(MODE_KEY) == WATCH)

    @property
    def warning(self) -> str | None:
        """A monitor rule's finding that only warns: its level (a budget's fraction, "0.8"), which the evaluation
        carries in its RuleParameters; None for a finding that acts."""
        level = self.parameters.get(WARNING_KEY) if (self.rule_family == MONITOR_RULE_FAMILY
                                                     and isinstance(self.parameters, Mapping)) else None
        return level if isinstance(level, str) and _fraction(level) is not None else None

    @property
    def ledger_fields(self) -> dict[str, str]:
        found = {"family": self.rule_family, "rule": self.name}  # unchanged since the first release
        # A watching rule's actions are its own: once it acts, its stop and the message saying so are not duplicates.
        found = {**found, MODE_KEY: WATCH} if self.watch else found
        # Each warning's level is its own: said once per job and level, and never standing for the rule's stop.
        return {**found, WARNING_KEY: self.warning} if self.warning else found

    @property
    def metric(self) -> str:
        return f"rule:{self.status}"


def _it(event: JobEvent, jobs: Sequence[str]) -> list[str]:
    """Jobs as a text message names them after naming the event's job: that one as "it"."""
    return ["it" if job == event.job_name else job for job in jobs]


def statuses(config: Configured) -> tuple[str, ...]:
    """The rule evaluation statuses that are triggers: IssuesFound, and Error with notify_on_rule_error."""
    return (ISSUES_FOUND, RULE_ERROR) if config[NOTIFY_ON_RULE_ERROR] else (ISSUES_FOUND,)


def actions_for(config: Configured, rule: str) -> tuple[Action, ...]:
    """The entry for a rule: its exact name first, else the first glob in file order, `*` last."""
    rules = config[RULES]
    entries = dict(rules)
    if rule in entries:
        return entries[rule]
    for pattern, actions in rules:
        if pattern != "*" and fnmatch.fnmatchcase(rule, pattern):
            return actions
    return entries.get("*", ())


def configurations(detail: Mapping[str, Any], problems: list[str]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """(rule family, rule name) -> RuleParameters of the rule configurations in an event's detail or a
    DescribeTrainingJob answer (the same members)."""
    parameters: dict[tuple[str, str], Mapping[str, Any]] = {}
    for family in RULE_FAMILIES:
        where = f"detail.{family}RuleConfigurations"
        items = detail.get(f"{family}RuleConfigurations")
        if items is None:
            continue
        if not isinstance(items, list):
            problems.append(f"{where}: not a list ({quoted(items)})")
            continue
        for index, item in enumerate(items):
            name = item.get("RuleConfigurationName") if isinstance(item, Mapping) else None
            if not (isinstance(name, str) and name):
                problems.append(f"{where}[{index}]: no RuleConfigurationName string ({quoted(item)})")
                continue
            params = item.get("RuleParameters")
            parameters[(family, name)] = params if isinstance(params, Mapping) else {}
    return parameters


def _statuses(value: Any, family: str, problems: list[str]) -> list[RuleStatus]:
    """Rule evaluation statuses; an entry without a name or status cannot trigger anything: it is reported."""
    where = f"detail.{family}RuleEvaluationStatuses"
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"{where}: not a list ({quoted(value)})")
        return []
    found = []
    for index, item in enumerate(value):
        name = item.get("RuleConfigurationName") if isinstance(item, Mapping) else None
        status = item.get("RuleEvaluationStatus") if isinstance(item, Mapping) else None
        if not (isinstance(name, str) and name and isinstance(status, str)):
            problems.append(f"{where}[{index}]: no RuleConfigurationName and RuleEvaluationStatus strings "
                            f"({quoted(item)})")
            continue
        details, job = item.get("StatusDetails"), item.get("RuleEvaluationJobArn")
        found.append(RuleStatus(rule_family=family, name=name, status=status,
                                details=details if isinstance(details, str) else "",
                                evaluation_job_arn=job if isinstance(job, str) else "",
                                last_modified=timestamp(item.get("LastModifiedTime"))))
    return found


def rule_log_link(region: str, evaluation_job_arn: str) -> str | None:
    """CloudWatch Logs of the rule's evaluation (a processing job), from its ARN; None when there is no ARN."""
    name = evaluation_job_arn.rpartition("/")[2] if ":processing-job/" in evaluation_job_arn else ""
    return log_link(region, "/aws/sagemaker/ProcessingJobs", name) if name else None


class RuleStatuses(TriggerFamily[RuleStatus]):
    type = RuleStatus.TYPE
    record = RuleStatus
    fields = (RULES, HONOR_ACTION_JSON, NOTIFY_ON_RULE_ERROR, CUSTOM_RULES)
    places = frozenset({Place.ACTION_JSON, Place.RULES})

    def metric_values(self, outcomes: Sequence[str]) -> tuple[str, ...]:
        return tuple(RuleStatus("", "", status).metric for status in (ISSUES_FOUND, RULE_ERROR))

    def observe(self, event: JobEvent) -> tuple[list[RuleStatus], list[str]]:
        if event.family is None:
            return [], []
        # Debugger and Profiler statuses come with training jobs only; the monitor rules' with any family's job.
        families = RULE_FAMILIES if event.job_family.name == APPLIES_TO else (MONITOR_RULE_FAMILY,)
        problems: list[str] = []
        found = [rule for family in families
                 for rule in _statuses(event.detail.get(f"{family}RuleEvaluationStatuses"), family, problems)]
        given = configurations(event.detail, problems)
        found = [_with(rule, given.get((rule.rule_family, rule.name), NOT_GIVEN)) for rule in found]
        return found, problems

    def select(self, found: list[RuleStatus], event: JobEvent, config: Configured) -> list[RuleStatus]:
        return [rule for rule in found if rule.status in statuses(config)]

    def entries(self, trigger: RuleStatus, event: JobEvent, config: Configured,
                answers: dict[Need, Any]) -> list[Entry] | Need:
        if trigger.status == RULE_ERROR:
            return [(Action("notify"), Origin.CONFIGURATION)]
        entries: list[Entry] = []
        if config[HONOR_ACTION_JSON]:
            params = trigger.parameters
            if params is NOT_GIVEN:  # the event lacks the rule's configuration: DescribeTrainingJob has it
                need = Described(event.job_family.api, event.job_name)
                if need not in answers:
                    return need
                described = answers[need]
                if isinstance(described, Unread):
                    entries.append((Unread(f"action_json unknown: {described.reason}"), Origin.ACTION_JSON))
                    params = {}
                else:
                    params = configurations(described, []).get((trigger.rule_family, trigger.name), {})
            action_json = params.get("action_json") if isinstance(params, Mapping) else None
            if action_json is not None:
                actions, invalid = config.grammar.action_json(action_json)
                declared: list[Action | Invalid] = [*actions, *invalid]
                entries += [(item, Origin.ACTION_JSON) for item in declared]
        return entries + [(action, Origin.CONFIGURATION) for action in actions_for(config, trigger.name)]

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: dict[Need, Any]) -> Planned:
        """A warning's stops are skipped (it notifies only; the rule's stop comes when its finding acts)."""
        rule = _rule(item.trigger)
        if rule.warning and item.jobs is not None:
            return item.decided(Outcome.SKIPPED, f"{rule.name} warns at {_level(rule.warning)}: a "
                                                 "warning only notifies, it never stops")
        return item

    def watched(self, trigger: RuleStatus) -> str | None:
        return "watch mode" if trigger.watch else None

    def words(self, occasion: Occasion) -> Message:
        event, rule, region = occasion.event, _rule(occasion.trigger), occasion.region
        links = [event.job_family.console(region, event.job_name)] if event.family else []
        evaluation = rule_log_link(region, rule.evaluation_job_arn)
        if evaluation:
            links.append(("Rule evaluation logs", evaluation))
        if rule.rule_family == MONITOR_RULE_FAMILY and event.family:
            links.append(event.job_family.logs(region, event.job_name))  # what the finding was read from
        what = "rule error" if rule.status == RULE_ERROR else (
            f"warning ({_level(rule.warning)})" if rule.warning else "issues found")
        stopped = [job for result in occasion.stops for job in result.stopped]
        # the text message names the event's own job once: "stopped it" (its name, again, cut SMS's 140 characters)
        tail = f"; stopped {', '.join(_it(event, stopped))}" if stopped else ""
        would = would_stop(occasion.stops)
        tail += f"; would stop {', '.join(_it(event, would))} (watch mode)" if would else ""
        own = event.job_name in stopped
        return _message(event, rule, region, occasion.stops, tuple(links),
                        subject(event, rule.name, f" {what} in ", event.job_name),
                        text_message(f"{tag(event)}: {rule.name} {what} in {event.job_name} ({event.job_status}){tail}",
                                     costs.short(occasion.cost, own)),
                        costs.lines(occasion.cost, own))

    def facts(self, trigger: RuleStatus, event: JobEvent) -> TriggerFacts:
        status = plain(trigger.status, 64)
        return TriggerFacts(
            type=self.type,
            fields={"outcome": None, "rule": plain(trigger.name, NAME_MAX), "rule_family": trigger.rule_family,
                    "rule_status": status},
            keywords=(f"{trigger.rule_family} rule", "IssuesFound" if status == ISSUES_FOUND else "rule error",
                      *(("watch mode",) if trigger.watch else ()), *(("warning",) if trigger.warning else ())),
            reason=plain(trigger.details.strip(), DETAILS_MAX, multiline=True) or None,
            mark="\u26a0\ufe0f",
            watch=trigger.watch,
            warning=_fraction(trigger.warning) if trigger.warning else None,
        )

    def clauses(self, config: Configured, family: EventFamily) -> list[dict[str, Any]]:
        if family.name != APPLIES_TO:
            return []
        return [{f"{rule_family}RuleEvaluationStatuses": {"RuleEvaluationStatus": list(statuses(config))}}
                for rule_family in PATTERN_FAMILIES]

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        return frozenset({Capability.DESCRIBE}) if config[HONOR_ACTION_JSON] else frozenset()

    def reads_action_json(self, config: Configured) -> bool:
        return config[HONOR_ACTION_JSON]

    def implied(self, config: Configured, where: str) -> tuple[Declared, ...]:
        if not config[NOTIFY_ON_RULE_ERROR]:
            return ()
        return (Declared(f"{where}.{NOTIFY_ON_RULE_ERROR.key}", Place.RULES, Action("notify")),)



def is_glob(key: str) -> bool:
    """A `rules` key that is a glob (fnmatch's *, ? or [...]), not a name."""
    return any(c in key for c in "*?[")


def rule_names(config: Configured, where: str,
               monitor_names: Callable[[], Collection[str]]) -> tuple[list[str], list[str]]:
    """(errors, warnings) of the names `rules` attaches actions to, against the rules known: Debugger's and
    Profiler's built-in rules, the monitor rules (`monitor_names`, asked only when a key is none of the built-in
    ones: a configuration of built-in names never imports the monitor rules) and `custom_rules`.

    A name one or two edits from a known one (or in another case) is an error naming it: a custom Debugger rule
    named one letter away from a built-in is far less likely than a typo, and such a rule is listed in
    custom_rules. Any other unknown name is a warning: it acts only for a custom Debugger rule of that name. A
    glob that matches no known name as written is a warning, naming the rules it matches in another case."""
    custom = config[CUSTOM_RULES]
    errors: list[str] = []
    warnings: list[str] = []
    listed: list[str] = []

    def known() -> list[str]:
        if not listed:
            listed.extend(dict.fromkeys([*BUILTIN_RULES, *monitor_names()]))
        return listed

    for key, _ in config[RULES]:
        path = f"{where}.rules[{json.dumps(key)}]"
        if key == "*" or key in BUILTIN_RULES or key in custom:
            continue
        if is_glob(key):
            if (any(fnmatch.fnmatchcase(name, key) for name in (*BUILTIN_RULES, *custom))
                    or any(fnmatch.fnmatchcase(name, key) for name in known())):
                continue
            cased = [name for name in known() if fnmatch.fnmatchcase(name.casefold(), key.casefold())]
            warnings.append(
                f"{path} matches no rule name as written (names are matched with their case), but {', '.join(cased[:5])}"
                f" in another case: those rules fall through to the next glob or '*'. Write {json.dumps(cased[0])} if "
                "that is meant." if cased else
                f"{path} matches no built-in or monitor rule{' nor any of custom_rules' if custom else ''}: it acts "
                f"only for the custom Debugger rules it matches. If that is meant, list them in {where}.custom_rules.")
            continue
        if key in known():
            continue
        typo = typo_of(key, known())
        if typo:
            errors.append(f"{path}: no built-in or monitor rule is named {quoted(key)}; did you mean {quoted(typo)}? "
                          f"(A custom Debugger rule of exactly this name: list it in {where}.custom_rules.)")
            continue
        near = closest(key, known())
        guess = f" (did you mean {quoted(near)}?)" if near else ""
        warnings.append(f"{path}: no built-in or monitor rule is named {quoted(key)}{guess}: it acts only for a custom "
                        f"Debugger rule of that name. If it is one, list it in {where}.custom_rules; if not, correct "
                        "the name.")
    return errors, warnings


def _rule(trigger: Trigger) -> RuleStatus:
    """A trigger of this family (the registry hands each family its own)."""
    return cast(RuleStatus, trigger)


def _with(rule: RuleStatus, parameters: Any) -> RuleStatus:
    return replace(rule, parameters=parameters)


def would_stop(stops: Sequence[Result]) -> list[str]:
    """The jobs the trigger's watched stops would have stopped."""
    return [job for result in stops if result.outcome == Outcome.WATCHED for job in result.planned.jobs or ()]


def _fraction(text: str) -> float | None:
    """A warning's level: a fraction above 0 and below 1 ("0.8"), else None (no warning: the finding acts)."""
    try:
        level = float(text)
    except ValueError:
        return None
    return level if 0 < level < 1 else None


def _level(warning: str) -> str:
    """A warning's level as people read it: "0.8" -> "80%"."""
    return f"{float(warning) * 100:g}%"


def _message(event: JobEvent, rule: RuleStatus, region: str, stops: Sequence[Result], links: tuple[tuple[str, str], ...],
             subject_line: str, short: str, cost_lines: Sequence[str] = ()) -> Message:
    """The email body: what happened, what was done, where to look."""
    when = rule.last_modified.isoformat() if rule.last_modified else event.time or "unknown"
    job, name = plain(event.job_name, NAME_MAX), plain(rule.name, NAME_MAX)
    state = plain(event.job_status, 64) + (f" ({plain(event.secondary_status, 64)})" if event.secondary_status else "")
    noun = event.job_family.noun if event.family else "job"
    monitor = rule.rule_family == MONITOR_RULE_FAMILY
    first = (f"rule-actions found that rule {name} holds for {noun} {job} (evaluated from its CloudWatch metrics and "
             "logs, without Debugger)." if monitor else
             f"SageMaker Debugger rule {name} reported {plain(rule.status, 64)} for {noun} {job}.")
    would = would_stop(stops)
    watching = [f"Watch mode: the rule would have stopped {', '.join(plain(j, NAME_MAX) for j in would)}; nothing was "
                "stopped (set the rule's mode to act to let it stop jobs)."] if would else []
    lines = [
        first,
        *watching,
        "",
        line(event.job_family.label if event.family else "Job", job),
        *account_lines(event),
        line("Job status", state),
        line("Rule", f"{name} ({rule.rule_family} rule)"),
        line("Rule status", plain(rule.status, 64)),
        line("Time", plain(when, 64)),
        line("Region", plain(region, 64)),
        *cost_lines,
        "Finding:" if monitor else "Status details:",
        indented(rule.details.strip() or "(none)"),
        "",
        "Actions taken for this rule:",
    ]
    taken = [r.as_dict() for r in stops]
    lines += [f"  - {a['kind']} {plain(str(a['target']), NAME_MAX)}: {a['outcome']} ({plain(str(a['reason']), 512)})"
              for a in taken] or ["  (none besides this message)"]
    source = ("the rules it evaluates on this job's metrics and logs (monitor rules)" if monitor else
              "the SageMaker Debugger rule actions attached to this job")
    lines += ["", *link_lines(links), "", f"{FOOTER} for {source}."]
    return Message(subject_line, "\n".join(lines), short, links)


FAMILY = RuleStatuses()
