"""MetricHosts: the Host dimension values a namespace's metric was published with in the last 3 hours (ListMetrics:
one call per 500 series, for the whole namespace, once per run): a transform job's instances, which no API names."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader, metrics_of
from rule_actions.records import MetricHosts


class MetricHostsReader(Reader[MetricHosts]):
    need = MetricHosts

    def read(self, need: MetricHosts, ports: Ports) -> object:
        return metrics_of(ports).hosts(need.namespace, need.metric)

    def failure(self, need: MetricHosts) -> str:
        return "ListMetrics failed"


READER = MetricHostsReader()
