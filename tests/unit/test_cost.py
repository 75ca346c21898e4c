"""What a job costs (cost.py, pure) and where its prices come from (effects/pricing.py: the AWS Price List API, its
response parsed as AWS returns it and checked against botocore's model; the configuration's prices over it).

Every figure here is computed by hand in the test: price x instances x time."""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from pathlib import Path

import boto3
import botocore.session
import jsonschema
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber
from builders import monitor_event, sample
from hypothesis import given, settings
from hypothesis import strategies as st
from planning import parse_event

from rule_actions import cost, registry
from rule_actions.config import Config, ConfigError
from rule_actions.contract import ENV_SERVICE, SERVICE, SERVICE_DIMENSION, WARNING_KEY, Outcome
from rule_actions.cost import PriceSettings, Unknown
from rule_actions.effects.pricing import PriceListApi as PriceList
from rule_actions.effects.pricing import endpoint_region, filters, parse
from rule_actions.jobs.processing import FAMILY as PROCESSING
from rule_actions.jobs.training import FAMILY as TRAINING
from rule_actions.jobs.transform import FAMILY as TRANSFORM
from rule_actions.jobs.tuning import FAMILY as TUNING
from rule_actions.messages import MessageOccasion
from rule_actions.privacy import redact
from rule_actions.records import JobEffect, Origin, Planned, Result, TrialRun, TrialRuns, Unread
from rule_actions.records import PriceList as PriceNeed

START = int(datetime(2026, 11, 24, 8, 0, tzinfo=UTC).timestamp())
H, MIN = 3600, 60
REGION = "us-east-1"
P4D, C5, M5 = "ml.p4d.24xlarge", "ml.c5.2xlarge", "ml.m5.xlarge"
LIST = {P4D: 37.688, C5: 0.408, M5: 0.23}


def listed(*types: str, region: str = REGION, component: str = "Training") -> dict:
    """What the Price List reader answers for these instance types (the price list's own figures here)."""
    return {PriceNeed(t, region): {component: LIST[t]} for t in types}


def ms(epoch: int) -> str:
    return str(epoch * 1000)  # an event's times: epoch-millisecond strings


def training(resources: dict, started=START, ended=None, runtime=None, **more) -> dict:
    detail = {"TrainingJobName": "job-1", "ResourceConfig": resources, "TrainingStartTime": ms(started), **more}
    if ended is not None:
        detail["TrainingEndTime"] = ms(ended)
    if runtime is not None:
        detail["StoppingCondition"] = {"MaxRuntimeInSeconds": runtime}
    return detail


DEFAULT = PriceSettings()


def of(family, detail, found, at, prices=DEFAULT):
    return cost.of(family.billing, detail, REGION, prices, found, at, detail.get("TrainingJobName", "job-1"))


# ---------------------------------------------------------------- the sum


def test_one_instance_costs_its_price_for_its_time_and_the_rest_of_a_day_bounds_the_stop():
    # Given a training job on one p4d running for 3 h 12 min, no MaxRuntimeInSeconds (AWS's default: 1 day)
    detail = training({"InstanceType": P4D, "InstanceCount": 1})
    # When its cost is computed now
    found = of(TRAINING, detail, listed(P4D), START + 3 * H + 12 * MIN)
    # Then it is price x 1 x 3.2 h, its inputs say so, and a stop now saves at most the rest of the day
    assert found.usd == round(37.688 * 3.2, 2) == 120.6
    assert found.so_far.inputs() == "1 x ml.p4d.24xlarge at $37.688/h for 3 h 12 min"
    assert found.saved_usd == round(37.688 * (24 - 3.2), 2)
    assert found.running and found.source == "price list"


def test_instance_groups_sum_their_terms():
    # Given a heterogeneous cluster: 2 p4d and 4 c5.2xlarge, 2 hours in, with a MaxRuntimeInSeconds of 5 hours
    groups = {"InstanceCount": 0, "InstanceGroups": [
        {"InstanceGroupName": "gpu", "InstanceType": P4D, "InstanceCount": 2},
        {"InstanceGroupName": "cpu", "InstanceType": C5, "InstanceCount": 4}]}
    found = of(TRAINING, training(groups, runtime=5 * H), listed(P4D, C5), START + 2 * H)
    # Then each group counts its instances, and the rest of the 5 hours bounds the saving
    assert found.usd == round(2 * 37.688 * 2 + 4 * 0.408 * 2, 2)
    assert found.so_far.inputs() == ("2 x ml.p4d.24xlarge at $37.688/h for 2 h 00 min + "
                                     "4 x ml.c5.2xlarge at $0.408/h for 2 h 00 min")
    assert found.saved_usd == round((2 * 37.688 + 4 * 0.408) * 3, 2)


def test_a_managed_spot_job_that_ended_costs_its_billable_time_and_says_what_spot_saved():
    # Given a spot job that trained 5000 s and was billed 1000 s (AWS's example: 80% saved)
    detail = training({"InstanceType": M5, "InstanceCount": 2}, ended=START + 5000, BillableTimeInSeconds=1000,
                      EnableManagedSpotTraining=True)
    found = of(TRAINING, detail, listed(M5), START + 9000)
    # Then it costs price x 2 x its billable time, and spot's saving is 1 - billable / trained
    assert found.usd == round(0.23 * 2 * 1000 / 3600, 2)
    assert found.spot == pytest.approx(0.8) and found.rest is None and not found.running
    assert cost.lines(found, stopped=False)[0].endswith("in all (2 x ml.m5.xlarge at $0.23/h for 16 min)")
    assert "80% of its training time not billed" in "\n".join(cost.lines(found, stopped=False))


def test_a_running_spot_job_is_counted_at_on_demand_rates_and_says_so():
    detail = training({"InstanceType": M5, "InstanceCount": 1}, EnableManagedSpotTraining=True)
    found = of(TRAINING, detail, listed(M5), START + H)
    assert found.usd == 0.23 and found.spot is None
    assert any("its billed time so far counted at on-demand rates until it ends" in note for note in found.notes)


def transition(status: str, at: int) -> dict:
    return {"Status": status, "StartTime": ms(at)}


def test_a_running_spot_job_is_not_counted_while_it_waits_for_capacity_nor_while_it_is_repaired():
    # Given a spot job billed from minute 3, interrupted at minute 40, relaunched at 100 (Starting), training again at
    # 103, its cluster repaired from minute 120 to 130 (Restarting), training since
    phases = [("Starting", 0), ("Downloading", 3), ("Training", 5), ("Interrupted", 40), ("Starting", 100),
              ("Training", 103), ("Restarting", 120), ("Training", 130)]
    detail = training({"InstanceType": M5, "InstanceCount": 2}, started=START + 3 * MIN, EnableManagedSpotTraining=True,
                      SecondaryStatusTransitions=[transition(s, START + m * MIN) for s, m in phases])
    # When its cost is computed at minute 150, and at minute 70 (while it waits)
    found, waiting = (of(TRAINING, detail, listed(M5), START + m * MIN) for m in (150, 70))
    # Then only its billed minutes count: 3-40, 103-120 and 130-150 (74 minutes), and none while it waits
    assert found.so_far.inputs() == "2 x ml.m5.xlarge at $0.23/h for 1 h 14 min"
    assert found.usd == round(2 * 0.23 * 74 / 60, 2)
    assert waiting.so_far.inputs() == "2 x ml.m5.xlarge at $0.23/h for 37 min"


def test_a_spot_job_that_ended_costs_its_billable_time_whatever_its_transitions_say():
    detail = training({"InstanceType": M5, "InstanceCount": 1}, ended=START + 2 * H, BillableTimeInSeconds=1800,
                      SecondaryStatusTransitions=[transition("Training", START), transition("Interrupted", START + H)])
    assert of(TRAINING, detail, listed(M5), START + 3 * H).so_far.inputs() == "1 x ml.m5.xlarge at $0.23/h for 30 min"


def test_a_warm_pool_kept_after_the_job_counts_its_billed_time_and_says_so():
    # Given a job that ended after an hour and kept its warm pool billed for 20 minutes more
    detail = training({"InstanceType": M5, "InstanceCount": 1}, ended=START + H, BillableTimeInSeconds=H,
                      WarmPoolStatus={"Status": "Terminated", "ResourceRetainedBillableTimeInSeconds": 20 * MIN})
    found = of(TRAINING, detail, listed(M5), START + 2 * H)
    # Then the pool's time is counted with the job's, and a note says it
    assert found.usd == round(0.23 * 80 / 60, 2)
    assert any(note.startswith("warm pool: 20 min kept after it ended") for note in found.notes)


def test_a_tuning_job_prices_each_trial_from_its_own_description_when_its_definition_does_not_say():
    # Given a tuning job whose definition lets SageMaker choose among two instance types (its trials' summaries do
    # not say which), and its trials' own descriptions: one on m5.xlarge, one on c5.2xlarge (interrupted 10 min)
    detail = {"HyperParameterTuningJobName": "hpo-1", "CreationTime": ms(START),
              "TrainingJobDefinition": {"HyperParameterTuningResourceConfig": {"InstanceConfigs": [
                  {"InstanceType": M5, "InstanceCount": 1}, {"InstanceType": C5, "InstanceCount": 1}]}}}
    own = [{"ResourceConfig": {"InstanceType": M5, "InstanceCount": 1}, "TrainingStartTime": ms(START),
            "TrainingEndTime": ms(START + 30 * MIN), "TrainingJobStatus": "Completed"},
           {"ResourceConfig": {"InstanceType": C5, "InstanceCount": 1}, "TrainingStartTime": ms(START),
            "TrainingJobStatus": "InProgress", "SecondaryStatusTransitions": [
                transition("Training", START), transition("Interrupted", START + 20 * MIN),
                transition("Training", START + 30 * MIN)]}]
    trials = (TrialRun("hpo-1-001-a", "", "Completed", START, START + 30 * MIN, own[0]),
              TrialRun("hpo-1-002-b", "", "InProgress", START, None, own[1]))
    # When its cost reads the trials, then the prices of the types they name
    first = cost.needs(TUNING.billing, detail, REGION, DEFAULT, "hpo-1")
    after = cost.needs(TUNING.billing, detail, REGION, DEFAULT, "hpo-1", {TrialRuns("hpo-1"): trials})
    found = cost.of(TUNING.billing, detail, REGION, DEFAULT, {**listed(M5, C5), TrialRuns("hpo-1"): trials},
                    START + 40 * MIN, "hpo-1")
    # Then each trial is priced on its own instances for its own billed time (30 min each)
    assert TrialRuns("hpo-1") in first and {PriceNeed(M5, REGION), PriceNeed(C5, REGION)} <= after
    assert found.so_far.inputs() == ("1 x ml.c5.2xlarge at $0.408/h for 30 min + "
                                     "1 x ml.m5.xlarge at $0.23/h for 30 min")
    # and a trial whose description was not read, with no definition saying its instances, makes it unknown, saying
    # why
    bare = {"HyperParameterTuningJobName": "hpo-1", "CreationTime": ms(START)}
    unread = (TrialRun("hpo-1-001-a", "", "InProgress", START, None, None, "DescribeTrainingJob failed: Throttling"),)
    unknown = cost.of(TUNING.billing, bare, REGION, DEFAULT, {TrialRuns("hpo-1"): unread}, START + H, "hpo-1")
    assert isinstance(unknown.so_far, Unknown)
    assert "hpo-1-001-a's instances are not known" in unknown.so_far.reason
    assert "DescribeTrainingJob failed: Throttling" in unknown.so_far.reason


def test_a_tuning_job_sums_its_trials_and_bounds_the_rest_by_what_it_may_still_launch():
    # Given a tuning job (one definition: 1 m5.xlarge, trials stopped after 1 hour at most) with 3 trials so far,
    # 10 at most, 2 at a time
    detail = {"HyperParameterTuningJobName": "hpo-1", "CreationTime": ms(START),
              "TrainingJobDefinition": {"ResourceConfig": {"InstanceType": M5, "InstanceCount": 1},
                                        "StoppingCondition": {"MaxRuntimeInSeconds": H}},
              "HyperParameterTuningJobConfig": {"ResourceLimits": {"MaxNumberOfTrainingJobs": 10,
                                                                   "MaxParallelTrainingJobs": 2}},
              "TrainingJobStatusCounters": {"Completed": 2, "InProgress": 1}}
    trials = (TrialRun("hpo-1-001-a", "", "Completed", START, START + 30 * MIN),
              TrialRun("hpo-1-002-b", "", "Completed", START, START + 40 * MIN),
              TrialRun("hpo-1-003-c", "", "InProgress", START + 40 * MIN, None))
    found = {**listed(M5), TrialRuns("hpo-1"): trials}
    # When its cost is computed 60 minutes after it was created
    result = cost.of(TUNING.billing, detail, REGION, PriceSettings(), found, START + 60 * MIN, "hpo-1")
    # Then it is the sum of its trials (30 + 40 + 20 minutes of one m5.xlarge), merged into one term
    assert result.usd == round(0.23 * 90 / 60, 2)
    assert result.so_far.inputs() == "1 x ml.m5.xlarge at $0.23/h for 1 h 30 min, 3 trials"
    # And the rest: the running trial's 40 minutes left, and 7 trials it may still launch, an hour each
    assert result.saved_usd == round(0.23 * (40 / 60 + 7), 2)
    assert cost.needs(TUNING.billing, detail, REGION, PriceSettings(), "hpo-1") == {PriceNeed(M5, REGION), TrialRuns("hpo-1")}


def test_a_tuning_job_whose_trials_cannot_be_read_has_an_unknown_cost_naming_the_read():
    detail = {"TrainingJobDefinition": {"ResourceConfig": {"InstanceType": M5, "InstanceCount": 1}}}
    found = {**listed(M5), TrialRuns("hpo-1"): Unread("ListTrainingJobsForHyperParameterTuningJob failed: Throttling")}
    result = cost.of(TUNING.billing, detail, REGION, PriceSettings(), found, START, "hpo-1")
    assert isinstance(result.so_far, Unknown) and "Throttling" in result.so_far.reason and result.usd is None


def test_processing_and_transform_jobs_read_their_own_members_and_a_transform_job_has_no_bound():
    processing = {"ProcessingJobName": "prep-1", "ProcessingStartTime": ms(START),
                  "ProcessingResources": {"ClusterConfig": {"InstanceType": M5, "InstanceCount": 3,
                                                            "VolumeSizeInGB": 30}},
                  "StoppingCondition": {"MaxRuntimeInSeconds": 2 * H}}
    found = cost.of(PROCESSING.billing, processing, REGION, PriceSettings(), listed(M5, component="Processing"),
                    START + H, "prep-1")
    assert found.usd == round(0.23 * 3, 2) and found.saved_usd == round(0.23 * 3, 2)
    transform = {"TransformJobName": "score-1", "TransformStartTime": ms(START),
                 "TransformResources": {"InstanceType": M5, "InstanceCount": 2}}
    found = cost.of(TRANSFORM.billing, transform, REGION, PriceSettings(), listed(M5, component="BatchTransform"),
                    START + H, "score-1")
    assert found.usd == 0.46 and isinstance(found.rest, Unknown) and found.saved_usd is None
    assert "sets no MaxRuntimeInSeconds" in found.rest.reason


# ---------------------------------------------------------------- a price that cannot be known


@pytest.mark.parametrize(("prices", "found", "why"), [
    (PriceSettings(price_list=False), {}, "prices.price_list is false"),
    (PriceSettings(), {PriceNeed(P4D, REGION): Unread("the AWS Price List (GetProducts): AccessDeniedException: no")},
     "AccessDeniedException"),
    (PriceSettings(), {PriceNeed(P4D, REGION): {"Hosting": 40.0}}, "has no Training price"),
    (PriceSettings(), {}, "was not read"),
])
def test_an_unknown_price_is_an_unknown_figure_with_its_reason_never_a_number(prices, found, why):
    detail = training({"InstanceType": P4D, "InstanceCount": 2})
    result = of(TRAINING, detail, found, START + H, prices)
    assert isinstance(result.so_far, Unknown) and why in result.so_far.reason
    assert result.usd is None and result.saved_usd is None  # never 0, never made up
    assert cost.short(result, stopped=True) == "" and cost.stop_note(result) == ""
    assert cost.payload(result, stopped=True)["usd"] is None and why in cost.payload(result, True)["unknown"]
    assert cost.lines(result, stopped=True)[0].startswith("Cost:           unknown (")


def test_a_description_that_does_not_say_the_instances_is_unknown_naming_the_member():
    result = of(TRAINING, {"TrainingJobName": "job-1"}, {}, START)
    assert isinstance(result.so_far, Unknown) and "ResourceConfig" in result.so_far.reason


def test_a_pipeline_execution_has_no_cost_of_its_own():
    assert cost.of(None, {}, REGION, PriceSettings(), {}, START, "x") is None
    assert cost.payload(None, stopped=False) is None and cost.lines(None, stopped=False) == []


# ---------------------------------------------------------------- the configuration's prices over the price list


def test_the_prices_block_overrides_the_price_list_region_first_and_is_not_looked_up():
    config = Config.from_dict({"prices": {"usd_per_hour": {P4D: 25.0}, "regions": {"eu-west-1": {P4D: 28.0}}}})
    prices = config.prices
    detail = training({"InstanceType": P4D, "InstanceCount": 1})
    assert cost.needs(TRAINING.billing, detail, REGION, prices, "job-1") == frozenset()
    found = of(TRAINING, detail, {}, START + H, prices)
    assert found.usd == 25.0 and found.source == "configuration"
    assert cost.of(TRAINING.billing, detail, "eu-west-1", prices, {}, START + H, "job-1").usd == 28.0
    # a type it does not name is read from the price list
    assert cost.needs(TRAINING.billing, training({"InstanceType": M5, "InstanceCount": 1}), REGION, prices,
                      "job-1") == {PriceNeed(M5, REGION)}


@pytest.mark.parametrize(("prices", "named"), [
    ({"usd_per_hour": {"p4d": 1}}, 'prices.usd_per_hour["p4d"]: "p4d" is not a SageMaker instance type'),
    ({"usd_per_hour": {P4D: 0}}, f'prices.usd_per_hour["{P4D}"]: 0 is not a price'),
    ({"usd_per_hour": {P4D: "25"}}, f'prices.usd_per_hour["{P4D}"]: "25" is not a price'),
    ({"regions": {"mars": {}}}, 'prices.regions["mars"]: "mars" is not an AWS region name'),
    ({"price_list": "yes"}, 'prices.price_list: "yes" is not true or false'),
    ({"usd": 1}, "prices.usd: unknown key"),
    ([], "prices: [] must be an object"),
])
def test_a_bad_prices_block_is_a_config_error_naming_the_field_and_value(prices, named):
    with pytest.raises(ConfigError) as caught:
        Config.from_dict({"prices": prices})
    assert f"rule_actions.{named}" in str(caught.value)


def test_the_prices_block_round_trips_through_its_canonical_form():
    config = Config.from_dict({"prices": {"price_list": False, "usd_per_hour": {P4D: 25}}})
    assert Config.from_json(config.to_json()) == config and config.prices.known
    assert not Config.from_dict({"prices": {"price_list": False}}).prices.known


# ---------------------------------------------------------------- the words


def test_money_rates_and_spans_read_as_people_write_them():
    assert cost.money(1499.221) == "$1,499.22" and cost.money(0.004) == "$0.00"
    assert [cost.per_hour(r) for r in (37.688, 0.23, 5.0, 0.1152)] == ["$37.688/h", "$0.23/h", "$5.00/h", "$0.1152/h"]
    assert [cost.span(s) for s in (30, 60 * 34, 3 * H + 12 * MIN)] == ["less than a minute", "34 min", "3 h 12 min"]


def test_a_stop_says_what_it_cost_until_the_stop_and_what_it_saved_at_most():
    found = of(TRAINING, training({"InstanceType": P4D, "InstanceCount": 2}, runtime=24 * H), listed(P4D),
               START + 3 * H + 12 * MIN)
    lines = cost.lines(found, stopped=True)
    assert lines[0] == "Cost:           $241.20 until the stop (2 x ml.p4d.24xlarge at $37.688/h for 3 h 12 min)"
    assert lines[1] == ("Saved:          at most $1,567.82: the rest of its MaxRuntimeInSeconds (2 x "
                        "ml.p4d.24xlarge at $37.688/h for 20 h 48 min)")
    assert lines[2] == "Prices:         the AWS Price List (on-demand); storage and data transfer not included"
    assert cost.short(found, stopped=True) == "; cost $241.20, saved <=$1,567.82"
    assert cost.stop_note(found) == " (cost $241.20 until the stop; saved at most $1,567.82)"
    assert cost.payload(found, stopped=True) == {
        "currency": "USD", "usd": 241.2, "until": "stop",
        "inputs": "2 x ml.p4d.24xlarge at $37.688/h for 3 h 12 min", "saved_usd": 1567.82, "rest_usd": None,
        "rest_inputs": "2 x ml.p4d.24xlarge at $37.688/h for 20 h 48 min", "spot_unbilled": None,
        "prices": "price list", "unknown": None}


# ---------------------------------------------------------------- the Price List API, as AWS answers it

PRODUCT = {
    "product": {"productFamily": "ML Instance", "sku": "ABCDEF1234567890", "attributes": {
        "servicecode": "AmazonSageMaker", "regionCode": REGION, "location": "US East (N. Virginia)",
        "instanceName": P4D, "platoinstancetype": "Training", "usagetype": f"USE1-Train:{P4D}"}},
    "serviceCode": "AmazonSageMaker",
    "terms": {"OnDemand": {"ABCDEF1234567890.JRTCKXETXF": {
        "offerTermCode": "JRTCKXETXF", "sku": "ABCDEF1234567890", "effectiveDate": "2026-11-01T00:00:00Z",
        "termAttributes": {}, "priceDimensions": {"ABCDEF1234567890.JRTCKXETXF.6YS6EN2CT7": {
            "unit": "Hrs", "endRange": "Inf", "beginRange": "0", "appliesTo": [],
            "rateCode": "ABCDEF1234567890.JRTCKXETXF.6YS6EN2CT7", "description": "$37.688 per hour",
            "pricePerUnit": {"USD": "37.6880000000"}}}}}},
    "version": "20261101000000", "publicationDate": "2026-11-01T00:00:00Z",
}


def product(component: str, usd: str, unit: str = "Hrs") -> str:
    found = json.loads(json.dumps(PRODUCT))
    found["product"]["attributes"]["platoinstancetype"] = component
    dimension = next(iter(next(iter(found["terms"]["OnDemand"].values()))["priceDimensions"].values()))
    dimension["pricePerUnit"]["USD"], dimension["unit"] = usd, unit
    return json.dumps(found)


def stubbed(*pages: dict) -> tuple[PriceList, Stubber]:
    """The adapter over a real botocore client whose answers are stubbed: Stubber checks every response against
    botocore's `pricing` model (PriceList: a list of strings) and every request against the expected one."""
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    stubber = Stubber(client)
    for index, page in enumerate(pages):
        request = {"ServiceCode": "AmazonSageMaker", "Filters": filters(P4D, REGION), "FormatVersion": "aws_v1",
                   "MaxResults": 100, **({"NextToken": str(index)} if index else {})}
        stubber.add_response("get_products", page, request)
    stubber.activate()
    return PriceList(lambda endpoint: client), stubber


def test_the_price_list_answer_is_parsed_as_aws_returns_it_one_call_per_type_and_region():
    # Given GetProducts' answer as botocore's model states it: JSON strings, the rate a decimal string per hour,
    # products of other components beside the training one, on two pages
    first = {"FormatVersion": "aws_v1", "NextToken": "1",
             "PriceList": [product("Training", "37.6880000000"), product("Hosting", "40.3000000000")]}
    second = {"FormatVersion": "aws_v1", "PriceList": [product("BatchTransform", "38.0000000000")]}
    prices, stubber = stubbed(first, second)
    # When the prices of p4d in us-east-1 are asked twice
    found = prices.products(P4D, REGION)
    again = prices.products(P4D, REGION)
    # Then each component has its hourly rate, and the second answer came from the environment's memory
    assert found == again == {"Training": 37.688, "Hosting": 40.3, "BatchTransform": 38.0}
    stubber.assert_no_pending_responses()
    assert prices.calls == 2  # the two pages of the one read


def test_a_failed_price_read_is_kept_for_the_environment_and_said_as_the_reason():
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    stubber = Stubber(client)
    stubber.add_client_error("get_products", "AccessDeniedException", "User is not authorized to perform: "
                             "pricing:GetProducts")
    stubber.activate()
    prices = PriceList(lambda endpoint: client)
    for _ in range(3):
        with pytest.raises(ClientError, match="pricing:GetProducts"):
            prices.products(P4D, REGION)
    assert prices.calls == 1


def test_the_filters_are_those_the_model_accepts_and_the_parse_skips_what_is_no_hourly_price():
    model = botocore.session.get_session().get_service_model("pricing").operation_model("GetProducts")
    assert set(model.input_shape.members["Filters"].member.members) == {"Type", "Field", "Value"}
    assert {f["Type"] for f in filters(P4D, REGION)} <= set(model.input_shape.members["Filters"].member.members[
        "Type"].enum)
    assert model.output_shape.members["PriceList"].member.type_name == "string"  # JSON strings, parsed by us
    assert parse([product("Training", "1.0", unit="GB-Mo"), "not json", json.dumps({"product": {}}),
                  product("Processing", "0.0000000000"), product("Training", "2.5")]) == {"Training": 2.5}
    # a component priced twice differently has no one price
    assert parse([product("Training", "2.5"), product("Training", "3.0")]) == {}


@pytest.mark.parametrize(("region", "endpoint"), [
    ("us-east-1", "us-east-1"), ("us-west-2", "us-east-1"), ("ca-central-1", "us-east-1"), ("sa-east-1", "us-east-1"),
    ("eu-west-1", "eu-central-1"), ("me-south-1", "eu-central-1"), ("af-south-1", "eu-central-1"),
    ("ap-southeast-2", "ap-south-1"), ("ap-south-1", "ap-south-1"), ("cn-north-1", None), ("us-gov-west-1", None),
])
def test_the_nearest_price_list_endpoint_is_asked_and_other_partitions_have_none(region, endpoint):
    assert endpoint_region(region) == endpoint


def test_a_region_of_another_partition_is_an_unknown_price_with_its_reason():
    prices = PriceList(lambda endpoint: pytest.fail("no client for another partition"))
    with pytest.raises(Exception, match="no AWS Price List Query API endpoint serves cn-north-1's partition"):
        prices.products(P4D, "cn-north-1")
    assert prices.calls == 0


# ---------------------------------------------------------------- every message says it


def stopped_occasion(job_name="llm-pretrain-2026-11-24-08-00-00-303", warning=None):
    """A monitor rule's finding that stopped its job (or a budget's warning), with what the job cost."""
    raw = monitor_event("act", job=job_name)
    if warning:
        raw["detail"]["MonitorRuleConfigurations"][0]["RuleParameters"][WARNING_KEY] = warning
    parsed = parse_event(raw)
    trigger = parsed.rules[0]
    found = of(TRAINING, training({"InstanceType": P4D, "InstanceCount": 2}), listed(P4D), START + 3 * H + 12 * MIN)
    taken = () if warning else (Result(Planned(trigger, "stoptraining", job_name, Origin.CONFIGURATION, jobs=(job_name,),
                                                effect=JobEffect.STOP),
                                       Outcome.DONE, f"stopped {job_name}", (job_name,)),)
    return MessageOccasion(Config(), parsed.event, trigger, REGION, taken, found)


def test_a_stop_s_message_says_the_cost_until_the_stop_its_inputs_and_what_it_saved_at_most():
    message = stopped_occasion().message
    assert "Cost:           $241.20 until the stop (2 x ml.p4d.24xlarge at $37.688/h for 3 h 12 min)" in message.body
    assert "Saved:          at most $1,567.82: the rest of its MaxRuntimeInSeconds" in message.body
    assert message.short.endswith("; cost $241.20, saved <=$1,567.82") and len(message.short) <= 140


def test_a_text_message_keeps_its_cost_within_one_part_whatever_the_job_s_name():
    message = stopped_occasion(job_name="x" * 63).message
    assert len(message.short) <= 140 and message.short.endswith("; cost $241.20, saved <=$1,567.82")
    assert message.short.isascii()


def test_the_json_payload_carries_the_cost_object_and_a_warning_s_level_as_its_schema_states():
    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "webhook-json-v1.schema.json").read_text())
    for occasion, warning, until in ((stopped_occasion(), None, "stop"),
                                     (stopped_occasion(warning="0.5"), 0.5, "now")):
        body = json.loads(registry.destinations()["json"].body(occasion, "f" * 32, {}))
        jsonschema.Draft202012Validator(schema).validate(body)
        assert body["trigger"]["warning"] == warning and body["cost"]["until"] == until
        assert body["cost"]["usd"] == 241.2
        assert body["cost"]["saved_usd"] == (1567.82 if until == "stop" else None)
        assert body["cost"]["rest_usd"] == (None if until == "stop" else 1567.82)
    # a warning's subject and text say it warns, and the message still says the cost so far
    message = stopped_occasion(warning="0.5").message
    assert "StalledTraining warning (50%) in llm-pretrain" in message.subject
    assert "Cost:           $241.20 so far" in message.body and "Left to run:" in message.body


def test_a_failure_s_message_says_what_the_job_cost_in_all():
    parsed = parse_event(sample("lifecycle-failed-algorithm-error.json")[5])
    detail = parsed.event.detail
    found = of(TRAINING, detail, {PriceNeed(t, REGION): {"Training": 1.0} for t in
                                  cost.instance_types(TRAINING.billing, detail)}, START)
    message = MessageOccasion(Config(), parsed.event, parsed.outcome, REGION, (), found).message
    assert f"Cost:           {cost.money(found.usd)} in all (" in message.body and found.usd > 0
    assert message.short.endswith(f"; cost {cost.money(found.usd)}")


def test_dollar_figures_and_their_sums_are_not_taken_for_phone_numbers_by_the_redaction():
    message = stopped_occasion().message
    figures = [line for line in message.body.splitlines() if line.startswith(("Cost:", "Saved:"))]
    many = "3 x ml.g5.48xlarge at $20.36/h for 12 h 00 min + 16 x ml.p4d.24xlarge at $37.688/h for 1 h 05 min"
    for text in (*figures, message.short, many, cost.stop_note(stopped_occasion().cost), "cost $1,234,567.89"):
        assert redact(text) == text


# ---------------------------------------------------------------- the contract's metrics


def emitted(capsys) -> list[tuple[str, float, list, str, str | None, str | None]]:
    """The EMF metrics printed: (name, value, dimension names, unit, family, service)."""
    found = []
    for text in capsys.readouterr().out.splitlines():
        if not text.startswith("{"):
            continue
        record = json.loads(text)
        for directive in record["_aws"]["CloudWatchMetrics"]:
            assert directive["Namespace"] == "RuleActions"
            for metric in directive["Metrics"]:
                value = record[metric["Name"]]
                found.append((metric["Name"], value[0] if isinstance(value, list) else value, directive["Dimensions"],
                              metric["Unit"], record.get("family"), record.get(SERVICE_DIMENSION)))
    return found


def test_a_stop_done_emits_what_it_saved_and_what_the_job_cost_once_by_family_and_service(capsys, monkeypatch):
    from rule_actions.observability import emit

    # Given the function of a deployment whose service name (its construct's name) is TrainingActions
    monkeypatch.setenv(ENV_SERVICE, "TrainingActions")
    occasion = stopped_occasion()
    notify = Result(Planned(occasion.trigger, "notify", "team", Origin.CONFIGURATION), Outcome.DONE, "sent")
    emit([occasion.trigger], [*occasion.stops, notify], occasion.event, occasion.cost)
    dollars = [m for m in emitted(capsys) if m[0].endswith("Dollars")]
    assert dollars == [("SavedDollars", 1567.82, [["family", "service"]], "None", "training", "TrainingActions"),
                       ("CostDollars", 241.2, [["family", "service"]], "None", "training", "TrainingActions")]
    # Outside a stack (no service name in the environment), the records carry the default one
    monkeypatch.delenv(ENV_SERVICE)
    emit([occasion.trigger], list(occasion.stops), occasion.event, occasion.cost)
    assert {m[5] for m in emitted(capsys)} == {SERVICE}


def test_no_dollar_metric_without_a_done_stop_or_a_known_cost(capsys):
    from rule_actions.observability import emit

    occasion = stopped_occasion()
    duplicate = Result(occasion.stops[0].planned, Outcome.DUPLICATE, "already done", ("x",))
    emit([occasion.trigger], [duplicate], occasion.event, occasion.cost)  # a duplicate: said before
    unknown = Unknown("no price")
    emit([occasion.trigger], list(occasion.stops), occasion.event, cost.JobCost(unknown, unknown, True))
    assert not [m for m in emitted(capsys) if m[0].endswith("Dollars")]


def test_a_reported_outcome_emits_what_the_job_cost(capsys):
    from rule_actions.observability import emit

    parsed = parse_event(sample("lifecycle-failed-algorithm-error.json")[5])
    found = of(TRAINING, parsed.event.detail, {PriceNeed(t, REGION): {"Training": 1.0} for t in
                                               cost.instance_types(TRAINING.billing, parsed.event.detail)}, START)
    sent = Result(Planned(parsed.outcome, "notify", "team", Origin.CONFIGURATION), Outcome.DONE, "sent")
    emit([parsed.outcome], [sent], parsed.event, found)
    assert [m[:2] for m in emitted(capsys) if m[0].endswith("Dollars")] == [("CostDollars", found.usd)]


# ---------------------------------------------------------------- hostile descriptions

JUNK = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                              st.text(max_size=20), st.sampled_from([P4D, "ml.x", "1763799000000", "Training"])),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(st.sampled_from(
                                                ["InstanceType", "InstanceCount", "InstanceGroups", "InstanceConfigs",
                                                 "SelectedInstanceType", "ResourceConfig", "ClusterConfig",
                                                 "MaxRuntimeInSeconds", "TrainingJobDefinition",
                                                 "TrainingJobDefinitions", "DefinitionName", "ResourceLimits"]),
                                                inner, max_size=4)), max_leaves=12)
MEMBERS = ["ResourceConfig", "TrainingStartTime", "TrainingEndTime", "StoppingCondition", "BillableTimeInSeconds",
           "EnableManagedSpotTraining", "ProcessingResources", "ProcessingStartTime", "TransformResources",
           "CreationTime", "HyperParameterTuningJobConfig", "TrainingJobDefinition", "TrainingJobDefinitions",
           "TrainingJobStatusCounters", "HyperParameterTuningEndTime"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([TRAINING, PROCESSING, TRANSFORM, TUNING]), st.dictionaries(st.sampled_from(MEMBERS), JUNK),
       st.one_of(st.none(), st.lists(st.builds(TrialRun, st.text(max_size=5), st.text(max_size=3), st.text(max_size=3),
                                               st.one_of(st.none(), st.integers(0, 2 * 10**9)),
                                               st.one_of(st.none(), st.integers(0, 2 * 10**9))), max_size=3)))
def test_a_hostile_description_never_raises_and_never_makes_up_a_figure(family, detail, trials):
    found = {PriceNeed(P4D, REGION): {"Training": 37.688, "Processing": 37.688, "BatchTransform": 37.688},
             **({TrialRuns("job-1"): tuple(trials)} if trials is not None else {})}
    result = cost.of(family.billing, detail, REGION, PriceSettings(), found, START, "job-1")
    assert isinstance(result.so_far, (cost.Cost, Unknown))
    assert result.usd is None or (result.usd >= 0 and isinstance(result.so_far, cost.Cost))
    cost.lines(result, stopped=True), cost.short(result, True), cost.payload(result, True)  # words never raise
    cost.needs(family.billing, detail, REGION, PriceSettings(), "job-1")


# ---------------------------------------------------------------- the members read, as botocore's model names them


@functools.cache
def sagemaker_model():
    return botocore.session.get_session().get_service_model("sagemaker")


def members(shape_name: str, *path: str):
    """The shape at `path` below `shape_name` in the SageMaker model (a list's member), or AssertionError naming it."""
    shape = sagemaker_model().shape_for(shape_name)
    for key in path:
        shape = shape.member if shape.type_name == "list" else shape
        assert key in shape.members, f"{shape_name}.{'.'.join(path)}: {key} is not in {shape.name}"
        shape = shape.members[key]
    return shape.member if shape.type_name == "list" else shape


@pytest.mark.parametrize("family", [TRAINING, PROCESSING, TRANSFORM, TUNING], ids=lambda f: f.name)
def test_every_member_a_family_s_cost_reads_is_in_botocore_s_model(family):
    output = f"{family.api.describe}Response"
    billing = family.billing
    for member in (billing.started, billing.ended, billing.billable, billing.spot):
        if member:
            members(output, member)
    if billing.runtime:
        assert members(output, *billing.runtime).type_name == "integer"
    if billing.resources:
        resources = members(output, *billing.resources)
        assert {"InstanceType", "InstanceCount"} <= set(resources.members)
    if family is TRAINING:
        assert {"InstanceGroups", "SelectedInstanceType", "SelectedInstanceCount"} <= set(resources.members)
        assert {"InstanceType", "InstanceCount"} <= set(members(output, "ResourceConfig", "InstanceGroups").members)
    if billing.trials:
        for definition in ("TrainingJobDefinition", "TrainingJobDefinitions"):
            for key in ("ResourceConfig", "HyperParameterTuningResourceConfig", "StoppingCondition", "DefinitionName"):
                members(output, definition, key)
        assert {"InstanceType", "InstanceCount", "InstanceConfigs"} <= set(
            members(output, "TrainingJobDefinition", "HyperParameterTuningResourceConfig").members)
        for key in ("MaxNumberOfTrainingJobs", "MaxParallelTrainingJobs", "MaxRuntimeInSeconds"):
            members(output, "HyperParameterTuningJobConfig", "ResourceLimits", key)
        members(output, "TrainingJobStatusCounters")
        summary = members("ListTrainingJobsForHyperParameterTuningJobResponse", "TrainingJobSummaries")
        assert {"TrainingJobName", "TrainingJobDefinitionName", "TrainingJobStatus", "TrainingStartTime",
                "TrainingEndTime"} <= set(summary.members)
