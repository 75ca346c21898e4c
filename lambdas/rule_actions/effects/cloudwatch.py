"""CloudWatch metrics: the datapoints of many series at once (GetMetricData, 500 queries and 100,800 datapoints a
call at most). Percentiles are computed by the rules from one-minute datapoints: CloudWatch's percentile statistics
are not used (Metrics Insights has none, and the embedded account's moto has none either)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from rule_actions.effects import LazyClient
from rule_actions.records import MetricQuery

MAX_QUERIES = 500  # GetMetricData: metrics a call
MAX_DATAPOINTS = 100_800  # GetMetricData: datapoints a call


class CloudWatchMetrics(LazyClient):
    """`client`: a factory of the CloudWatch client, called on first use (an event invocation never makes one)."""

    def hosts(self, namespace: str, metric: str) -> tuple[str, ...]:
        """The Host dimension values of `metric` in `namespace` that published in the last 3 hours (ListMetrics,
        500 a page, every page)."""
        pages = self.client.get_paginator("list_metrics").paginate(
            Namespace=namespace, MetricName=metric, Dimensions=[{"Name": "Host"}], RecentlyActive="PT3H")
        return tuple(sorted({d["Value"] for page in pages for m in page.get("Metrics", [])
                             for d in m.get("Dimensions", []) if d.get("Name") == "Host"}))

    def data(self, queries: Sequence[MetricQuery], start: int, end: int) -> dict[MetricQuery, tuple[tuple[int, float], ...]]:
        """Each query's datapoints from `start` to `end` (epoch seconds), oldest first; as few calls as the limits
        allow (each call's queries times its periods stay under 100,800 datapoints)."""
        queries = list(dict.fromkeys(queries))
        found: dict[MetricQuery, list[tuple[int, float]]] = {query: [] for query in queries}
        if not queries:
            return {}
        periods = max(1, (end - start) // min(q.period for q in queries))
        size = max(1, min(MAX_QUERIES, MAX_DATAPOINTS // periods))
        for offset in range(0, len(queries), size):
            batch = queries[offset:offset + size]
            ids = {f"q{index}": query for index, query in enumerate(batch)}
            request: dict[str, Any] = {
                "MetricDataQueries": [{"Id": key, "ReturnData": True, "MetricStat": {
                    "Metric": {"Namespace": q.namespace, "MetricName": q.name,
                               "Dimensions": [{"Name": k, "Value": v} for k, v in q.dimensions]},
                    "Period": q.period, "Stat": q.stat}} for key, q in ids.items()],
                "StartTime": datetime.fromtimestamp(start, UTC), "EndTime": datetime.fromtimestamp(end, UTC),
                "ScanBy": "TimestampAscending",
            }
            while True:
                page = self.client.get_metric_data(**request)
                for result in page.get("MetricDataResults", []):
                    query = ids.get(result.get("Id"))
                    if query is not None:
                        found[query] += [(int(ts.timestamp()), float(value))
                                         for ts, value in zip(result.get("Timestamps", []), result.get("Values", []),
                                                              strict=False)]
                token = page.get("NextToken")
                if not token:
                    break
                request["NextToken"] = token
        return {query: tuple(sorted(points)) for query, points in found.items()}
