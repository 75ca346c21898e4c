"""MetricHosts: the Host dimension values a namespace's metric was published with in the last 3 hours (ListMetrics:
one call per 500 series, for the whole namespace, once per run): a transform job's instances, which no API names."""

from __future__ import annotations

from rule_actions.readers.base import Reader
from rule_actions.records import MetricHosts


class MetricHostsReader(Reader):
    need = MetricHosts

    def read(self, need, ports):
        return ports.metrics.hosts(need.namespace, need.metric)

    def failure(self, need):
        return "ListMetrics failed"


READER = MetricHostsReader()
