"""The embedded CloudWatch's GetMetricData (rule_actions_cli.emulator.monitoring) keeps its index of the datapoints
between calls: what it answers after datapoints are added (seeded, or put through PutMetricData, in time order or
not, at equal times) is what an index built anew from all of them answers."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.cloudwatch.models import cloudwatch_backends
from moto.core import DEFAULT_ACCOUNT_ID

from rule_actions_cli.emulator import monitoring as moto_monitoring

REGION = "us-east-1"
NAMESPACE = "/aws/sagemaker/TrainingJobs"
T0 = datetime(2026, 11, 24, 8, 0, tzinfo=UTC)


@pytest.fixture
def cloudwatch() -> Iterator[Any]:
    with mock_aws():
        moto_monitoring.install()
        yield boto3.client("cloudwatch", region_name=REGION)


def backend() -> Any:
    return cloudwatch_backends[DEFAULT_ACCOUNT_ID][REGION]


def seed(host: str, minutes: range, value: float, namespace: str = NAMESPACE) -> None:
    moto_monitoring.put_metrics((namespace, "GPUUtilization", {"Host": host}, (T0 + timedelta(minutes=m)).timestamp(),
                                 value + m) for m in minutes)


def answer(cloudwatch: Any, stat: str = "Average", period: int = 300) -> list[tuple[str, list[Any], list[Any]]]:
    queries = [{"Id": f"q{i}", "MetricStat": {"Metric": {"Namespace": namespace, "MetricName": "GPUUtilization",
                                                         "Dimensions": [{"Name": "Host", "Value": host}]},
                                              "Period": period, "Stat": stat}}
               for i, (namespace, host) in enumerate([(NAMESPACE, "a/algo-1"), (NAMESPACE, "b/algo-1"),
                                                      ("Custom/Decoy", "a/algo-1")])]
    found = cloudwatch.get_metric_data(MetricDataQueries=queries, StartTime=T0, EndTime=T0 + timedelta(hours=2))
    return [(r["Id"], r["Values"], r["Timestamps"]) for r in found["MetricDataResults"]]


def afresh(cloudwatch: Any, **kwargs: Any) -> list[tuple[str, list[Any], list[Any]]]:
    """The answer of an index built anew from every datapoint (the kept one dropped first)."""
    vars(backend()).pop(moto_monitoring._INDEX, None)
    return answer(cloudwatch, **kwargs)


@pytest.mark.parametrize("stat", ["Average", "Maximum", "SampleCount"])
def test_datapoints_added_between_calls_are_answered_as_a_fresh_index_answers(cloudwatch, stat):
    # Given datapoints of two jobs and a decoy namespace, read once (the index is kept)
    seed("a/algo-1", range(0, 30), 10)
    seed("b/algo-1", range(0, 30), 50)
    seed("a/algo-1", range(0, 30), 99, namespace="Custom/Decoy")
    first = answer(cloudwatch, stat)
    kept = vars(backend())[moto_monitoring._INDEX]
    # When later minutes are seeded, earlier ones after them (out of order), equal times twice, and one through
    # PutMetricData, each followed by a read
    seed("a/algo-1", range(30, 60), 20)
    later = answer(cloudwatch, stat)
    seed("b/algo-1", range(5, 15), 0)
    seed("a/algo-1", range(58, 62), 70)
    cloudwatch.put_metric_data(Namespace=NAMESPACE, MetricData=[{
        "MetricName": "GPUUtilization", "Dimensions": [{"Name": "Host", "Value": "b/algo-1"}],
        "Timestamp": T0 + timedelta(minutes=3), "Value": 1000.0}])
    last = answer(cloudwatch, stat)
    # Then the same index answered every read, each as an index built anew from all the datapoints answers
    assert vars(backend())[moto_monitoring._INDEX] is kept
    assert later != first and last != later
    assert last == afresh(cloudwatch, stat=stat)
    seed("a/algo-1", range(60, 70), 5)
    assert answer(cloudwatch, stat) == afresh(cloudwatch, stat=stat)


def test_a_list_of_datapoints_replaced_or_shortened_is_indexed_anew(cloudwatch):
    # Given an index kept over seeded datapoints
    seed("a/algo-1", range(0, 30), 10)
    seed("b/algo-1", range(0, 30), 50)
    answer(cloudwatch)
    # When the backend's datapoints are cut to one job's, then replaced by a new list
    del backend().metric_data[30:]
    shortened = answer(cloudwatch)
    backend().metric_data = list(backend().metric_data[:10])
    replaced = answer(cloudwatch)
    # Then each answer is that of the datapoints left
    assert shortened[1][1] == [] and len(shortened[0][1]) == 6
    assert len(replaced[0][1]) == 2 and replaced == afresh(cloudwatch)
