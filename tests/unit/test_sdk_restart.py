"""rule_actions_sdk.Restart: rule-actions' own action (the SageMaker SDK has none), in action_json and a monitor
rule's tags, read back as the restart kind."""

from __future__ import annotations

import pytest

from rule_actions.config import Config
from rule_actions.records import Action
from rule_actions_sdk import ActionList, Restart, StopTraining, monitor_tags, prepare_actions


def test_restart_serializes_as_the_grammar_reads_it_and_its_tag_form_is_short():
    actions = ActionList(StopTraining(), Restart(), Restart(from_scratch=True))
    assert actions.serialize() == ('[{\\"name\\": \\"stoptraining\\"}, {\\"name\\": \\"restart\\"}, '
                                   '{\\"name\\": \\"restart\\", \\"from\\": \\"scratch\\"}]')
    assert monitor_tags("StalledTraining", actions) == [
        {"Key": "rule-actions:StalledTraining", "Value": "stoptraining restart restart=scratch"}]
    grammar = Config().grammar
    assert grammar.action_json(actions.serialize())[0] == [Action("stoptraining"), Action("restart", "checkpoint"),
                                                           Action("restart", "scratch")]


def test_prepare_actions_keeps_a_restart_through_a_round_trip():
    rule = {"RuleConfigurationName": "Overfit", "RuleParameters": {"rule_to_invoke": "Overfit"}}
    prepared = prepare_actions(rule, "llm-001", ActionList(StopTraining(), Restart()))
    assert prepare_actions(prepared, "llm-001") == prepared  # read back from its action_json, unchanged


def test_restart_refuses_what_is_not_a_flag():
    with pytest.raises(ValueError, match="from_scratch must be true or false"):
        Restart(from_scratch="yes")  # type: ignore[arg-type]


def test_monitor_tags_refusing_a_written_action_names_every_class_it_takes_restart_included():
    # Given an action written as the configuration's text, not as one of the SDK's classes
    # When monitor_tags is given it, Then the refusal names the classes it takes, Restart among them
    with pytest.raises(TypeError) as refused:
        monitor_tags("Budget", "stoptraining")  # type: ignore[arg-type]
    for name in ("StopTraining", "Restart", "Email", "SMS", "ActionList"):
        assert name in str(refused.value)
    assert "builtins.str" in str(refused.value)
