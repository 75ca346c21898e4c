"""The SDK's action classes, mirrored, so a rule's actions read the same in training and infrastructure code.

`serialize()` writes exactly what smdebug-rulesconfig 1.0.1 writes (JSON with every `"` as `\\"`); values are
checked with the grammar of `rule_actions.grammar` (which also takes ordinary addresses the SDK refuses),
`entries()` gives the grammar's dicts for the stack's configuration, and `prepare_actions` does for the raw
CreateTrainingJob API what the sagemaker v2 SDK does at `fit()`:

    from rule_actions_sdk import SMS, ActionList, Email, StopTraining, prepare_actions

    actions = ActionList(StopTraining(), Email("first.last@mail.example.co.uk"), SMS("+15555550100"))
    rule = {"RuleConfigurationName": "VanishingGradient", "RuleEvaluatorImage": image_uri,
            "RuleParameters": {"rule_to_invoke": "VanishingGradient"}}
    request["DebugRuleConfigurations"] = [prepare_actions(rule, "my-job-001", actions)]

Without Debugger, the monitor rules rule-actions evaluates itself are attached to a job with its tags (a tag cannot
hold JSON: the actions are written in the grammar's tag form), for `tags=` of an Estimator or a ModelTrainer:

    from rule_actions_sdk import ActionList, Email, StopTraining, monitor_tags

    tags = [*monitor_tags("StalledTraining", ActionList(StopTraining(), Email("ml@example.com")), threshold=1200),
            *monitor_tags("LowGPUUtilization")]       # no actions of its own: the stack's `rules` decide

`Restart()` is rule-actions' own (the SDK has none): after a StopTraining, the stopped job is relaunched from its
checkpoint (docs/restarts.md): `monitor_tags("StalledTraining", ActionList(StopTraining(), Restart()))`.
"""

from __future__ import annotations

import copy
import json
import re
from typing import TYPE_CHECKING, Any

from rule_actions import grammar, registry
from rule_actions.contract import JOB_NAME, JOB_NAME_PREFIX
from rule_actions.records import Action
from rule_actions.text import quoted

__all__ = ["SMS", "ActionList", "Email", "Restart", "StopTraining", "monitor_opt_out", "monitor_tags",
           "prepare_actions"]

STOP_KIND, EMAIL_KIND, SMS_KIND = "stoptraining", "email", "sms"  # the SDK's names (smdebug_rulesconfig.actions)
RESTART_KIND, SCRATCH = "restart", "scratch"  # rule-actions' own (the SDK has none; its rule container skips it)
PREFIX_RE = re.compile(JOB_NAME_PREFIX, re.ASCII)
JOB_NAME_RE = re.compile(JOB_NAME, re.ASCII)
MAX_PARAMETER_CHARS, MAX_PARAMETERS = 256, 100


def _show(value: Any) -> str:
    return quoted(value) if isinstance(value, str) else f"{type(value).__name__} {repr(value)[:40]}"


def _check_job_name(name: Any) -> str:
    if not (isinstance(name, str) and JOB_NAME_RE.fullmatch(name)):
        raise ValueError(f"training_job_name {_show(name)} is not a SageMaker training job name")
    return name


class _Base:
    if TYPE_CHECKING:  # what _Action and ActionList define; _Base itself is never built
        def serialize(self) -> str: ...

        def actions(self) -> list[Action]: ...

    def update_training_job_prefix_if_not_specified(self, training_job_name: str) -> None:
        """Fill a StopTraining's missing prefix; nothing to do for Email and SMS (the SDK's lack this method)."""

    def entries(self) -> list[dict[str, str]]:
        """The grammar's dicts, as the stack's configuration takes them."""
        return [grammar.as_dict(action) for action in self.actions()]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, _Base) and other.serialize() == self.serialize()


class _Action(_Base):
    _params: dict[str, str]  # in the SDK's key order

    def serialize(self) -> str:
        """The SDK's form: JSON with `, `/`: ` separators, every double quote preceded by a backslash."""
        return json.dumps(self._params).replace('"', '\\"')

    def actions(self) -> list[Action]:
        target = self._params.get("training_job_prefix", self._params.get("endpoint"))
        return [Action(self._params["name"], target)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(repr(v) for k, v in self._params.items() if k != 'name')})"


class StopTraining(_Action):
    """Stop the job whose name starts with `training_job_prefix` (default: the job's own name)."""

    def __init__(self, training_job_prefix: str | None = None):
        self._default_prefix = training_job_prefix is None
        if self._default_prefix:
            self._params = {"name": STOP_KIND}
            return
        if not isinstance(training_job_prefix, str):
            raise ValueError(f"training_job_prefix must be a string, got {_show(training_job_prefix)}")
        if not PREFIX_RE.fullmatch(training_job_prefix):
            why = "is empty: it would match every training job" if training_job_prefix == "" else \
                "is not a training job name prefix (letters, digits and '-', at most 63)"
            raise ValueError(f"training_job_prefix {quoted(training_job_prefix)} {why}")
        self._params = {"training_job_prefix": training_job_prefix, "name": STOP_KIND}  # the SDK's order

    def update_training_job_prefix_if_not_specified(self, training_job_name: str) -> None:
        """As the SDK: a prefix given at construction stays; otherwise the (latest) job name is the prefix."""
        if self._default_prefix:
            self._params["training_job_prefix"] = _check_job_name(training_job_name)


def _endpoint(kind: str, argument: str, value: Any) -> dict[str, str]:
    if not isinstance(value, str):
        raise ValueError(f"{argument}: must be a string, got {_show(value)}")
    problem = grammar.endpoint_problem(kind, value)
    if problem:
        raise ValueError(f"{argument}: {problem}")
    return {"endpoint": value, "name": kind}


class Email(_Action):
    """Email `email_address` when the rule fires."""

    def __init__(self, email_address: str):
        self._params = _endpoint(EMAIL_KIND, "email_address", email_address)


class SMS(_Action):
    """Text `phone_number` (E.164, like +15555550100) when the rule fires."""

    def __init__(self, phone_number: str):
        self._params = _endpoint(SMS_KIND, "phone_number", phone_number)


class Restart(_Action):
    """Restart the job once this rule's stop has stopped it, as a copy resuming from its checkpoint
    (`from_scratch=True`: even without one). rule-actions' own: the SageMaker SDK has no such class, and the
    Debugger rule container skips it; it goes in a monitor rule's tags or action_json, after a StopTraining."""

    def __init__(self, from_scratch: bool = False):
        if not isinstance(from_scratch, bool):
            raise ValueError(f"from_scratch must be true or false, got {_show(from_scratch)}")
        self._params = {"name": RESTART_KIND, **({"from": SCRATCH} if from_scratch else {})}

    def actions(self) -> list[Action]:
        return [Action(RESTART_KIND, self._params.get("from", "checkpoint"))]

    def __repr__(self) -> str:
        return "Restart(from_scratch=True)" if "from" in self._params else "Restart()"


class ActionList(_Base):
    """Several actions; serializes as a list (an empty ActionList as `[]`, as the SDK does)."""

    def __init__(self, *actions: _Action):
        for position, action in enumerate(actions):
            if not isinstance(action, _Action):
                raise TypeError(f"ActionList: action {position} is a {type(action).__module__}."
                                f"{type(action).__qualname__}, not a rule_actions_sdk StopTraining, Email, SMS or "
                                "Restart")
        self._actions = actions

    def update_training_job_prefix_if_not_specified(self, training_job_name: str) -> None:
        for action in self._actions:
            action.update_training_job_prefix_if_not_specified(training_job_name)

    def serialize(self) -> str:
        return "[" + ", ".join(action.serialize() for action in self._actions) + "]"

    def actions(self) -> list[Action]:
        return [parsed for action in self._actions for parsed in action.actions()]

    def __repr__(self) -> str:
        return f"ActionList({', '.join(map(repr, self._actions))})"


def _from_action_json(rule: str, text: Any) -> _Action | ActionList:
    """The objects an `action_json` value declares; a stoptraining's key order in the seed is kept."""
    parsed, invalid = grammar.parse_action_json(text)
    if invalid:
        problems = "; ".join(f"{bad.field}: {bad.reason}" for bad in invalid)
        raise ValueError(f"rule {rule!r}: RuleParameters action_json is invalid: {problems}")
    data = grammar.decode_action_json(text)
    built: list[_Action] = []
    for action, entry in zip(parsed, data if isinstance(data, list) else [data], strict=False):
        if action.kind == RESTART_KIND:
            built.append(Restart(action.target == SCRATCH))
            continue
        if action.kind != STOP_KIND:
            assert action.target is not None  # the grammar gives every email and sms action its endpoint
            built.append((Email if action.kind == EMAIL_KIND else SMS)(action.target))
            continue
        name_first = action.target is not None and next(iter(entry)) == "name"
        stop = StopTraining(None if name_first else action.target)
        built.append(stop)
        if name_first and action.target is not None:  # written as the SDK writes a prefix it filled in; it stays
            stop._params["training_job_prefix"], stop._default_prefix = action.target, False
    return built[0] if isinstance(data, dict) else ActionList(*built)


def prepare_actions(rule_configuration: dict[str, Any], training_job_name: str,
                    actions: _Base | None = None) -> dict[str, Any]:
    """A copy of one Debug/ProfilerRuleConfigurations entry with `action_json` set as the sagemaker v2 SDK sets it.

    With `actions` (not modified), a missing StopTraining prefix becomes the job name and the serialization
    replaces any `action_json`; without, an existing `action_json` is validated, completed and re-serialized.
    """
    _check_job_name(training_job_name)
    result = copy.deepcopy(rule_configuration)
    rule = str(result.get("RuleConfigurationName", "<unnamed rule>"))
    params = result.get("RuleParameters") or {}
    if actions is not None and not isinstance(actions, _Base):
        raise TypeError(f"rule {rule!r}: actions must be a rule_actions_sdk StopTraining, Email, SMS or "
                        f"ActionList, not {type(actions).__module__}.{type(actions).__qualname__}")
    if actions is None and "action_json" in params:
        actions = _from_action_json(rule, params["action_json"])
    if actions is not None:
        actions = copy.deepcopy(actions)
        actions.update_training_job_prefix_if_not_specified(training_job_name)
        result["RuleParameters"] = {**params, "action_json": actions.serialize()}
        params = result["RuleParameters"]
    if len(params) > MAX_PARAMETERS:
        raise ValueError(f"rule {rule!r}: {len(params)} RuleParameters, the service allows {MAX_PARAMETERS}")
    for key, value in params.items():
        if not isinstance(value, str):
            raise ValueError(f"rule {rule!r}: RuleParameters {key!r} must be a string, got {_show(value)}")
        if len(value) > MAX_PARAMETER_CHARS:
            raise ValueError(f"rule {rule!r}: RuleParameters {key!r} is {len(value)} characters long, "
                             f"the service allows {MAX_PARAMETER_CHARS}")
    return result


def monitor_tags(rule: str, actions: _Base | None = None, **parameters: Any) -> list[dict[str, str]]:
    """The tags that attach monitor rule `rule` to a training job (`[{"Key", "Value"}]`, as `tags=` takes them):
    `rule-actions:<rule>`, whose value is its actions in the tag form (`stoptraining email=ml@example.com`; a
    StopTraining without a prefix stops the job itself; no actions: the stack's `rules` alone decide), and
    `rule-actions:<rule>:parameters` (`threshold=1200`) when parameters are given (`mode="watch"`: its stops are
    reported as "would stop <job>" and nothing is stopped; a rule a tag attaches acts by default). Raises ValueError
    for an unknown rule, one that cannot be computed without Debugger, a parameter out of range or not one of its
    values, or a value over SageMaker's 256 characters or outside its tag characters; TypeError when `actions` is
    not one of this module's classes."""
    if actions is not None and not isinstance(actions, _Base):
        raise TypeError(f"rule {rule!r}: actions must be a rule_actions_sdk StopTraining, Restart, Email, SMS or "
                        f"ActionList, not {type(actions).__module__}.{type(actions).__qualname__}")
    text = " ".join(grammar.tag_form(action) for action in actions.actions()) if actions is not None else None
    return registry.monitor_tags(rule, text, parameters)


def monitor_opt_out() -> list[dict[str, str]]:
    """The tag that keeps a training job out of the stack-wide monitor rules (those its own tags attach still run)."""
    return registry.monitor_opt_out_tags()
