"""MetricData: the one-minute datapoints of every series a scheduled evaluation needs, in as few GetMetricData calls
as its limits allow (500 series a call)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader, metrics_of
from rule_actions.records import MetricData


class MetricsReader(Reader[MetricData]):
    need = MetricData

    def read(self, need: MetricData, ports: Ports) -> object:
        return metrics_of(ports).data(need.queries, need.start, need.end)

    def failure(self, need: MetricData) -> str:
        return "GetMetricData failed"


READER = MetricsReader()
