"""moto's CloudWatch and CloudWatch Logs, extended where a scheduled evaluation (the monitor rules) reads, and what
SageMaker publishes put there at simulated times.

The gaps it fills are `GAPS` below. Percentile statistics still fail, as in moto: the rules compute percentiles
themselves. ``lastEventTimestamp`` is exact in moto; AWS updates it "typically in less than an hour":
``lag_last_event`` makes the embedded account answer like AWS (the evaluation never reads it; a test proves it).

Seeding (``put_metrics``, ``put_log_lines``) writes into moto's backends directly: PutLogEvents would refuse
events older than 14 days, and a timeline replays at fixed simulated times.
"""

from __future__ import annotations

import bisect
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import moto.logs.models as logs_models
from moto.cloudwatch.models import CloudWatchBackend, MetricDatum, Statistics, cloudwatch_backends
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.logs.models import LogStream, logs_backends
from moto.logs.responses import LogsResponse

from rule_actions.effects.logs import QUERY
from rule_actions_cli.emulator import Gap

GAPS = (
    Gap("cloudwatch", "GetMetricData", "ignores the Namespace when Dimensions are given (one metric name and "
                                       "dimensions in two namespaces are mixed), and scans every datapoint of the "
                                       "account for every query and period (minutes for a thousand jobs): an index on "
                                       "(namespace, name, dimensions) answers instead"),
    Gap("logs", "FilterLogEvents", "ignores logStreamNamePrefix (every stream's events come back) and interleaves "
                                   "streams only when asked: the prefix selects, events come in time order"),
    Gap("logs", "StartQuery", "Logs Insights knows only fields, sort and limit: its stats returns one row per event "
                              "with nothing but @ptr; the evaluation's own query (rule_actions.effects.logs.QUERY: per "
                              "stream, its first and last event in epoch ms and how many) is answered as AWS does"),
    Gap("logs", "StopQuery", "not implemented (a query here completes as it starts: stopping one answers success "
                             "false)"),
)

_MARK = "_rule_actions_monitoring"
_INDEX = "_rule_actions_metric_index"  # a backend's kept _Index


def _naive(moment: datetime) -> datetime:
    """UTC without a zone, as moto keeps most of its times (its parsed request times may carry one)."""
    return moment if moment.tzinfo is None else moment.astimezone(UTC).replace(tzinfo=None)


Points = tuple[list[datetime], list[Any]]  # one metric's datapoints in time order: their times, the data
MetricKey = tuple[Any, Any, frozenset[tuple[Any, Any]]]  # (namespace, name, dimensions' (name, value)s)


class _Index:
    """The datapoints of a backend's ``metric_data`` by (namespace, name, dimensions), in time order (a stable sort:
    equal times keep the order they were put in), kept between GetMetricData calls. moto only appends to that list
    (PutMetricData, and ``put_metrics`` here): each call indexes what was appended since the last, and re-sorts
    only the metrics that gained datapoints. A list replaced, shortened or rewritten is indexed anew."""

    def __init__(self, data: list[Any]) -> None:
        self.data, self.count, self.last = data, 0, None
        self.points: dict[MetricKey, Points] = {}

    def current(self, data: list[Any]) -> bool:
        return data is self.data and len(data) >= self.count and (
            self.count == 0 or data[self.count - 1] is self.last)

    def update(self) -> None:
        for key, added in _grouped(self.data[self.count:]).items():
            self.points[key] = _merged(self.points.get(key, ([], [])), added)
        self.count = len(self.data)
        self.last = self.data[-1] if self.data else None


def _key_of(datum: Any) -> MetricKey:
    return datum.namespace, datum.name, frozenset((d.name, d.value) for d in datum.dimensions)


def _grouped(data: Iterable[Any]) -> dict[MetricKey, list[tuple[datetime, Any]]]:
    grouped: dict[MetricKey, list[tuple[datetime, Any]]] = defaultdict(list)
    for datum in data:
        grouped[_key_of(datum)].append((_naive(datum.timestamp), datum))
    return grouped


def _merged(points: Points, added: list[tuple[datetime, Any]]) -> Points:
    """`points` with `added` (in the order they were put) as a stable sort by time of both would hold them: appended
    when none is earlier than the last point (a timeline's minutes come in order), else sorted in."""
    times, data = points
    added = sorted(added, key=lambda item: item[0])
    if not times or added[0][0] >= times[-1]:
        return [*times, *(t for t, _ in added)], [*data, *(d for _, d in added)]
    merged = sorted([*zip(times, data, strict=True), *added], key=lambda item: item[0])
    return [t for t, _ in merged], [d for _, d in merged]


def _index(backend: CloudWatchBackend) -> _Index:
    """The backend's kept index, brought up to date with the datapoints put since the last call."""
    index = getattr(backend, _INDEX, None)
    if not isinstance(index, _Index) or not index.current(backend.metric_data):
        index = _Index(backend.metric_data)
        setattr(backend, _INDEX, index)
    if index.count != len(backend.metric_data):
        index.update()
    return index


def _get_metric_data(self: CloudWatchBackend, queries: list[dict[str, Any]], start_time: datetime,
                     end_time: datetime, scan_by: str = "TimestampAscending") -> list[dict[str, Any]]:
    """GetMetricData's metric queries as AWS answers them (namespace respected); expressions go to moto's own."""
    if any("MetricStat" not in q for q in queries):
        return _original_get_metric_data(self, queries, start_time, end_time, scan_by)
    start_time, end_time = _naive(start_time.replace(microsecond=0)), _naive(end_time.replace(microsecond=0))
    # moto's metric providers' datapoints (S3's bucket sizes) are computed at every call: merged in after the
    # kept index's, as one index of both would hold them.
    index, computed = _index(self), _grouped(self.aws_metric_data)
    results = []
    for query in queries:
        stat = query["MetricStat"]
        metric = stat["Metric"]
        key = (metric["Namespace"], metric["MetricName"],
               frozenset((d["Name"], d["Value"]) for d in metric.get("Dimensions", [])))
        times, points = index.points.get(key, ([], []))
        if key in computed:
            times, points = _merged((times, points), computed[key])
        period = timedelta(seconds=int(stat["Period"]))
        values, stamps = [], []
        bucket = start_time
        while bucket < end_time:
            low, high = bisect.bisect_left(times, bucket), bisect.bisect_left(times, min(bucket + period, end_time))
            if high > low:
                stats = Statistics([stat["Stat"]], bucket)
                stats.metric_data = points[low:high]
                values.append(stats.get_statistics_for_type(stat["Stat"]))
                stamps.append(bucket)
            bucket += period
        if scan_by == "TimestampDescending":
            values.reverse()
            stamps.reverse()
        stamps = [stamp.replace(tzinfo=UTC) for stamp in stamps]
        if query.get("ReturnData", True):
            results.append({"id": query["Id"], "label": query.get("Label") or f"{metric['MetricName']} {stat['Stat']}",
                            "values": values, "timestamps": stamps, "status_code": "Complete"})
    return results


_original_get_metric_data = CloudWatchBackend.get_metric_data


def _filter_log_events(self: LogsResponse) -> Any:
    """FilterLogEvents with logStreamNamePrefix honoured and the streams' events interleaved in time order."""
    prefix = self._get_param("logStreamNamePrefix")
    names = self._get_param("logStreamNames", [])
    group = self.logs_backend.groups.get(self._get_param("logGroupName"))
    if prefix and group is not None:
        names = [name for name in group.streams if name.startswith(prefix)]
        if not names:
            return json.dumps({"events": [], "searchedLogStreams": []})
    events, token, searched = self.logs_backend.filter_log_events(
        self._get_param("logGroupName"), names, self._get_param("startTime"), self._get_param("endTime"),
        self._get_param("limit"), self._get_param("nextToken"), self._get_param("filterPattern"), True)
    return json.dumps({"events": events, "nextToken": token, "searchedLogStreams": searched})


STATS_QUERY = " ".join(QUERY.split())


def _execute_query(log_groups: list[Any], query: str, start_time: int, end_time: int) -> list[dict[str, Any]]:
    """The evaluation's Insights query (per stream: first, last, events in the range, both ends included, in whole
    seconds), as AWS computes it; any other query as moto does."""
    if " ".join(query.split()) != STATS_QUERY:
        return _original_execute_query(log_groups, query, start_time, end_time)
    rows = []
    for group in log_groups:
        for name, stream in group.streams.items():
            stamps = [e.timestamp for e in stream.events if start_time * 1000 <= e.timestamp <= end_time * 1000 + 999]
            if stamps:
                rows.append({"@logStream": name, "first": min(stamps), "last": max(stamps), "events": len(stamps)})
    return rows


_original_execute_query = logs_models.execute_query  # type: ignore[attr-defined]  # (moto imports it there, unexported)


def _stop_query(self: LogsResponse) -> Any:
    """StopQuery: a query of the embedded account completes as it starts, so there is never one to stop."""
    query = self.logs_backend.queries.get(self._get_param("queryId"))
    running = query is not None and query.status in ("Scheduled", "Running")
    if running and query is not None:
        query.status = "Cancelled"
    return json.dumps({"success": running})


def install() -> None:
    """Idempotent; for in-process mocks and a ThreadedMotoServer in this process alike."""
    if getattr(CloudWatchBackend.get_metric_data, _MARK, False):
        return
    for cls, name, function in ((CloudWatchBackend, "get_metric_data", _get_metric_data),
                                (LogsResponse, "filter_log_events", _filter_log_events),
                                (LogsResponse, "stop_query", _stop_query),
                                (logs_models, "execute_query", _execute_query)):
        setattr(function, _MARK, True)
        setattr(cls, name, function)


# ---------------------------------------------------------------- seeding at simulated times


def put_metrics(datapoints: Iterable[tuple[str, str, Mapping[str, str], float, float]],
                account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> None:
    """(namespace, metric name, dimensions, epoch seconds, value) datapoints, straight into moto's CloudWatch."""
    backend = cloudwatch_backends[account_id][region]
    for namespace, name, dimensions, stamp, value in datapoints:
        backend.metric_data.append(MetricDatum(namespace, name, float(value),
                                               [{"Name": k, "Value": v} for k, v in dimensions.items()],
                                               datetime.fromtimestamp(stamp, UTC).replace(tzinfo=None)))


def put_log_lines(group: str, stream: str, lines: Iterable[tuple[float, str]],
                  account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> None:
    """(epoch seconds, message) log events, straight into moto's CloudWatch Logs (group and stream made if new)."""
    backend = logs_backends[account_id][region]
    if group not in backend.groups:
        backend.create_log_group(group, {})
    log_group = backend.groups[group]
    if stream not in log_group.streams:
        log_group.create_log_stream(stream)
    events: list[dict[str, Any]] = sorted(({"timestamp": int(stamp * 1000), "message": message} for stamp, message in lines),
                    key=lambda e: e["timestamp"])
    if events:
        log_group.streams[stream].put_log_events(events)


def lag_last_event(by: timedelta = timedelta(hours=1)) -> Any:
    """Make DescribeLogStreams' lastEventTimestamp lag as AWS's may: returns a function that undoes it."""
    original = LogStream._update

    def lagging(self: LogStream) -> None:
        original(self)
        if self.events:
            cutoff = max(e.timestamp for e in self.events) - int(by.total_seconds() * 1000)
            older = [e.timestamp for e in self.events if e.timestamp <= cutoff]
            self.last_event_timestamp = max(older) if older else self.first_event_timestamp

    LogStream._update = lagging  # type: ignore[method-assign]
    return lambda: setattr(LogStream, "_update", original)
