"""MetricData: the one-minute datapoints of every series a scheduled evaluation needs, in as few GetMetricData calls
as its limits allow (500 series a call)."""

from __future__ import annotations

from rule_actions.readers.base import Reader
from rule_actions.records import MetricData


class MetricsReader(Reader):
    need = MetricData

    def read(self, need, ports):
        return ports.metrics.data(need.queries, need.start, need.end)

    def failure(self, need):
        return "GetMetricData failed"


READER = MetricsReader()
