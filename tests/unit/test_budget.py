"""The Budget monitor rule: a job's cost against its budget (its tag's, or the configuration's by prefix), warnings at
the fractions its owner picks (each a finding that only warns, said once per job and fraction), the stop at 100 %,
never a judgement on an unknown cost; its tag form and its bad input, each on its own row; refused at synth when
no price can be known."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from builders import monitor_event
from planning import plan_all

from rule_actions import registry
from rule_actions.config import Config, ConfigError
from rule_actions.contract import WARNING_KEY, Outcome
from rule_actions.cost import Cost as Figure
from rule_actions.cost import JobCost, Term, Unknown
from rule_actions.monitors.block import MonitorSettings
from rule_actions.monitors.budget import budget_of
from rule_actions.monitors.evaluation import Verdict, _state_change
from rule_actions.monitors.job import RunningJob
from rule_actions.monitors.rule import Data, Reads, parameters
from rule_actions.monitors.tags import rules_of
from rule_actions.monitors.verdicts import Clear, Finding, NotJudged, Skipped

NOW = int(datetime(2026, 11, 24, 10, 0, tzinfo=UTC).timestamp())
BUDGET = registry.monitors()["Budget"]
SETTINGS = MonitorSettings()  # no stack-wide rule: what the job's tags attach


def job(name="ft-1", tags=None, family="training") -> RunningJob:
    return RunningJob(name, f"arn:aws:sagemaker:us-east-1:123456789012:training-job/{name}", "InProgress", "Training",
                      NOW - 3600, (), (), tags or {}, family=family,
                      billed_from=NOW - 3600 if family == "training" else None)


def spent(usd_per_hour: float, hours: float) -> JobCost:
    figure = Figure((Term(1, "ml.g5.12xlarge", usd_per_hour, hours * 3600),))
    return JobCost(figure, Figure((Term(1, "ml.g5.12xlarge", usd_per_hour, 3600),)), True, "price list")


def judged(p: dict, cost, name="ft-1"):
    values, errors = parameters(BUDGET, p, "test")
    assert not errors, errors
    need = BUDGET.reads(job(name), values, NOW)
    return need if not isinstance(need, Reads) else BUDGET.judge(job(name), values, NOW, Data({}, cost=cost))


def test_a_job_under_its_budget_is_clear_and_says_how_much_it_spent():
    verdict = judged({"usd": 10}, spent(7.09, 0.5))
    assert verdict == Clear("its cost $3.54 is 35% of its budget $10.00 (1 x ml.g5.12xlarge at $7.09/h for 30 min)")


def test_each_fraction_passed_is_a_warning_that_carries_its_level_and_the_budget_acts_at_100_percent():
    # Given a budget of $10 with warnings at 50% and 80%
    p = {"usd": 10, "warn_at": [0.8, 0.5]}
    # When the job has spent $5.32, $8.51, then $10.64
    half, most, all_of_it = (judged(p, spent(7.09, h)) for h in (0.75, 1.2, 1.6))
    # Then the first two are warnings at their level (the highest passed), the last acts
    assert half == Finding("its cost $5.32 passed 50% of its budget $10.00 (53%; 1 x ml.g5.12xlarge at $7.09/h "
                           "for 45 min): a warning, nothing is stopped", ((WARNING_KEY, "0.5"),))
    assert most.parameters == ((WARNING_KEY, "0.8"),) and "passed 80% of its budget" in most.reason
    assert all_of_it == Finding("its cost $11.34 passed its budget $10.00 (113%; 1 x ml.g5.12xlarge at $7.09/h for "
                                "1 h 36 min)")


def test_an_unknown_cost_is_never_judged_and_says_why():
    unknown = Unknown("the AWS Price List has no Training price for ml.p5.48xlarge in us-east-1")
    verdict = judged({"usd": 1}, JobCost(unknown, unknown, True))
    assert verdict == Skipped("unknown price, not judged: the AWS Price List has no Training price for "
                              "ml.p5.48xlarge in us-east-1")
    assert isinstance(judged({"usd": 1}, None), Skipped)


def test_a_job_no_budget_covers_is_not_judged_saying_how_to_give_it_one():
    verdict = judged({"by_prefix": {"llm-": 500}}, spent(7.09, 9), name="cv-1")
    assert isinstance(verdict, NotJudged) and "no budget for this job" in verdict.reason
    assert "rule-actions:Budget:parameters" in verdict.reason


def test_the_longest_prefix_wins_and_a_job_s_own_usd_wins_over_the_configuration():
    p = {"usd": None, "by_prefix": {"llm-": 500.0, "llm-pretrain-": 5000.0}}
    assert budget_of("llm-pretrain-7b", p) == 5000.0 and budget_of("llm-ft-1", p) == 500.0
    assert budget_of("cv-1", p) is None
    # a tag's usd over the configuration's by_prefix: rules_of lays the tag's parameters over the configuration's
    settings = MonitorSettings(rules=(("Budget", (("by_prefix", {"llm-": 500.0}),)),))
    applied, problems = rules_of(job("llm-1", {"rule-actions:Budget:parameters": "usd=20"}), settings,
                                 registry.monitors())
    assert problems == [] and budget_of("llm-1", applied[0].params) == 20.0


def test_the_tag_form_attaches_the_budget_with_its_actions_fractions_and_act_mode():
    tags = {"rule-actions:Budget": "stoptraining", "rule-actions:Budget:parameters": "usd=400 warn_at=0.5/0.8"}
    applied, problems = rules_of(job(tags=tags), SETTINGS, registry.monitors())
    assert problems == []
    [budget] = applied
    assert (budget.actions, budget.params["usd"], budget.params["warn_at"], budget.params["mode"]) == (
        "stoptraining", 400.0, (0.5, 0.8), "act")
    # and the SDK's tags write the same form back
    assert registry.monitor_tags("Budget", "stoptraining", {"usd": 400, "warn_at": [0.8, 0.5]}) == [
        {"Key": "rule-actions:Budget", "Value": "stoptraining"},
        {"Key": "rule-actions:Budget:parameters", "Value": "usd=400 warn_at=0.5/0.8"}]


@pytest.mark.parametrize(("value", "named"), [
    ("usd=-5", "usd: \"-5\" is not a number above 0, at most 1e+07 USD"),
    ("usd=0", "usd: \"0\" is not a number above 0"),
    ("usd=ten", "usd: \"ten\" is not a number"),
    ("usd=10 warn_at=1.5", "warn_at: \"1.5\" is not a list of at most 5 fractions above 0 and below 1"),
    ("usd=10 warn_at=0/0.5", "warn_at: \"0/0.5\" is not a list"),
    ("usd=10 by_prefix=llm-:5", "by_prefix: is set in the configuration only"),
])
def test_bad_input_in_the_tag_is_a_problem_on_the_job_s_own_row_and_its_other_rules_go_on(value, named):
    # Given a job whose tags attach the budget with a bad parameter, and StalledTraining too
    tags = {"rule-actions:Budget": "stoptraining", "rule-actions:Budget:parameters": value,
            "rule-actions:StalledTraining": "notify"}
    # When its rules are read
    applied, problems = rules_of(job(tags=tags), SETTINGS, registry.monitors())
    # Then the budget is not evaluated, the problem names the tag, the parameter and its value; the other rule runs
    assert [a.rule.name for a in applied] == ["StalledTraining"]
    assert len(problems) == 1 and problems[0].startswith("tag rule-actions:Budget:parameters.")
    assert named in problems[0] and problems[0].endswith("Budget is not evaluated for this job")


@pytest.mark.parametrize(("rule", "named"), [
    ({"usd": -1}, 'monitor.rules["Budget"].usd: -1 is not a number above 0'),
    ({"usd": True}, 'monitor.rules["Budget"].usd: true is not a number'),
    ({"warn_at": [0.5, 1]}, 'monitor.rules["Budget"].warn_at: [0.5, 1] is not a list of at most 5 fractions'),
    ({"warn_at": 0.5}, 'monitor.rules["Budget"].warn_at: 0.5 is not a list'),
    ({"by_prefix": {"llm*": 5}}, 'monitor.rules["Budget"].by_prefix: "llm*" is not a job name prefix'),
    ({"by_prefix": {"llm-": 0}}, 'monitor.rules["Budget"].by_prefix: ["llm-"]: 0 is not a number above 0'),
    ({"usd": 5, "by_prefix": {"llm-": 5}}, 'monitor.rules["Budget"]: sets both usd and by_prefix'),
])
def test_bad_input_in_the_configuration_is_a_config_error_naming_the_field_and_value(rule, named):
    with pytest.raises(ConfigError) as caught:
        Config.from_dict({"monitor": {"rules": {"Budget": rule}}})
    assert f"rule_actions.{named}" in str(caught.value)


def test_a_budget_with_no_way_of_knowing_prices_is_refused_at_synth_and_accepted_with_rates():
    with pytest.raises(ConfigError) as caught:
        Config.from_dict({"prices": {"price_list": False}, "monitor": {"rules": {"Budget": {"usd": 100}}}})
    assert 'rule_actions.monitor.rules["Budget"]: a budget needs the jobs\' prices, and none can be known' in \
        str(caught.value)
    assert "prices.price_list is false" in str(caught.value)
    Config.from_dict({"prices": {"price_list": False, "usd_per_hour": {"ml.p4d.24xlarge": 25}},
                      "monitor": {"rules": {"Budget": {"usd": 100}}}})
    Config.from_dict({"monitor": {"rules": {"Budget": {"usd": 100}}}})  # the price list, by default


# ---------------------------------------------------------------- a warning's finding, as the pipeline acts on it


def warning_event(level: str | None, job_name="ft-1"):
    """The state change an evaluation hands over for a budget finding (a warning carries its level)."""
    raw = monitor_event("act", rule="Budget", job=job_name)
    raw["detail"]["MonitorRuleConfigurations"][0]["RuleParameters"].update(
        action_json='[{"name": "stoptraining"}]', **({WARNING_KEY: level} if level else {}))
    return raw


def test_a_warning_notifies_and_skips_its_stop_saying_why_and_each_level_has_its_own_ledger_key():
    # Given the budget's warning at 50%, then its finding at 100%
    warned = plan_all(warning_event("0.5"), {"rules": {"Budget": ["notify"]}}, running=("ft-1",))
    acted = plan_all(warning_event(None), {"rules": {"Budget": ["notify"]}}, running=("ft-1",))
    # Then the warning's stop is skipped, its message goes out; the finding at 100% stops the job
    assert [(p.kind, p.outcome) for p in warned] == [("stoptraining", Outcome.SKIPPED), ("notify", None)]
    assert "Budget warns at 50%: a warning only notifies, it never stops" in warned[0].reason
    assert [(p.kind, p.outcome) for p in acted] == [("stoptraining", None), ("notify", None)]
    # And each level is its own trigger for the ledger: said once per job and level, never standing for the stop
    assert warned[0].trigger.ledger_fields == {"family": "Monitor", "rule": "Budget", WARNING_KEY: "0.5"}
    assert acted[0].trigger.ledger_fields == {"family": "Monitor", "rule": "Budget"}


def test_a_warning_level_that_is_no_fraction_is_no_warning():
    planned = plan_all(warning_event("1.5"), {}, running=("ft-1",))
    assert planned[0].kind == "stoptraining" and planned[0].outcome is None


def test_the_evaluation_writes_a_warning_s_level_into_the_rule_s_parameters():
    from rule_actions.jobs.training import FAMILY
    from rule_actions.monitors.evaluation import JobReport
    from rule_actions.monitors.tags import Applied

    applied = [Applied(BUDGET, {"mode": "act"}, "notify", "tag")]
    report = JobReport("ft-1", (Verdict("Budget", "IssuesFound", "half", ((WARNING_KEY, "0.5"),)),), ())
    change = _state_change(FAMILY, Config(), {"TrainingJobName": "ft-1", "TrainingJobArn": job().arn,
                                              "TrainingJobStatus": "InProgress"}, applied, report, NOW)
    [configuration] = change.detail["MonitorRuleConfigurations"]
    assert configuration["RuleParameters"][WARNING_KEY] == "0.5" and configuration["RuleParameters"]["mode"] == "act"


# ---------------------------------------------------------------- billed phases only; a tuning job's trials


@pytest.mark.parametrize("phase", ["Interrupted", "Pending", "Starting", "LaunchingMLInstances"])
def test_a_job_waiting_for_capacity_is_not_judged_saying_so_and_judged_again_when_it_runs(phase):
    # Given a job billed since an hour ago, now waiting for capacity for 12 minutes
    from rule_actions.monitors.rule import in_phase

    waiting = job()._replace(secondary=phase, transitions=(("Training", NOW - 3600), (phase, NOW - 720)))
    # When the evaluation asks whether Budget judges its phase
    verdict = in_phase(waiting, BUDGET, NOW)
    # Then it is NotJudged: nothing is billed meanwhile; and once it trains again it is judged
    assert isinstance(verdict, NotJudged)
    assert verdict.reason.startswith("not judged: waiting for capacity (") and "for 12 min" in verdict.reason
    assert verdict.reason.endswith("nothing is billed meanwhile; judged again when it runs")
    assert in_phase(waiting._replace(secondary="Training"), BUDGET, NOW) is None


def test_a_cluster_repair_is_not_judged_and_a_job_not_yet_on_its_instances_is_not_judged_either():
    from rule_actions.monitors.rule import in_phase

    repair = in_phase(job()._replace(secondary="Restarting"), BUDGET, NOW)
    assert isinstance(repair, NotJudged) and repair.reason.startswith("not judged: restarting after a hardware")
    values, _ = parameters(BUDGET, {"usd": 10}, "test")
    early = BUDGET.reads(job()._replace(secondary="Downloading", billed_from=None), values, NOW)
    assert early == NotJudged("not judged: not started on its instances yet (downloading input data; no "
                              "TrainingStartTime): nothing is billed meanwhile; judged again when it runs")


def test_a_tuning_job_s_trial_is_covered_by_its_tuning_job_s_budget_unless_trials_is_each():
    # Given a trial of tuning job hpo-1 whose name a budget covers (by prefix, as its tuning job's)
    trial = job("hpo-1-001-a")._replace(parent="arn:aws:sagemaker:us-east-1:123456789012:hyper-parameter-tuning-job/"
                                               "hpo-1")
    covered, _ = parameters(BUDGET, {"by_prefix": {"hpo-": 5}}, "test")
    each, _ = parameters(BUDGET, {"by_prefix": {"hpo-": 5}, "trials": "each"}, "test")
    # Then by default it is not judged, saying why; with trials=each it is, against its own budget
    assert BUDGET.reads(trial, covered, NOW) == NotJudged(
        "a trial of tuning job hpo-1: its tuning job's budget covers its trials (Budget trials=each judges each trial "
        "on its own)")
    assert BUDGET.reads(trial, each, NOW) == Reads(cost=True)
    # and a tag may set it, a bad value naming the parameter
    assert parameters(BUDGET, {"trials": "each"}, "tag", from_tag=True)[0]["trials"] == "each"
    assert parameters(BUDGET, {"trials": "all"}, "tag", from_tag=True)[1] == [
        "tag.trials: \"all\" is not one of tuning_job, each"]
