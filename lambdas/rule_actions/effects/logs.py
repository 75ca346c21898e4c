"""CloudWatch Logs: a job's heartbeat, from one FilterLogEvents call over a window of its log streams.

`lastEventTimestamp` (DescribeLogStreams) is not used: AWS updates it eventually ("typically in less than an hour"),
which would hide a stall of 30 minutes. The window's events are read instead, one page (at most 10,000 events or
1 MB): the first and last event of each stream in it, how many, the longest gap between two of them (a host's
rhythm), and whether that page held every event of the window.
FilterLogEvents may answer an empty page with a token while it has not searched every stream: that page is
incomplete, never evidence of silence.

FilterLogEvents is limited to 5 requests a second per account and region (a quota shared with everyone reading
logs there): calls are paced to `tps` a second (RULE_ACTIONS_LOGS_TPS, default 5; 0 does not pace, for the
embedded account); botocore's standard retries absorb a throttle when others read logs at the same time.

Many jobs at once (`latest`): one CloudWatch Logs Insights query over the log group's window,

    fields @logStream, toMillis(@timestamp) as t | stats min(t) as first, max(t) as last, count(*) as events
        by @logStream

answers the latest line of every stream in it (one row a stream; up to 100,000 rows a query, read 10,000 a
GetQueryResults page), then GetQueryResults is polled every `poll` seconds (1; 0 with `tps` 0) until the query is
Complete, for at most `wait` seconds (QUERY_WAIT, 60), after which it is stopped (StopQuery) and the read fails
(the evaluation then reads those jobs one FilterLogEvents call each). A query whose rows reach the limit fails
too: a stream it left out would look silent. Insights is charged per GB scanned (the whole window of the group,
whatever the filter), FilterLogEvents is not: docs/performance.md ("Reads that scale") has the figures.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from rule_actions.records import Heartbeat, Span

PAGE = 10_000  # FilterLogEvents' largest limit
QUERY = ("fields @logStream, toMillis(@timestamp) as t "
         "| stats min(t) as first, max(t) as last, count(*) as events by @logStream")
ROWS = 100_000  # StartQuery's largest limit (botocore's model: EventsLimitStartQuery)
RESULTS_PAGE = 10_000  # GetQueryResults' largest maxItems
QUERY_WAIT = 60.0  # seconds a run waits for its query before it reads the jobs one by one
POLL = 1.0  # seconds between two GetQueryResults while the query runs
RUNNING = frozenset({"Scheduled", "Running"})


class QueryUnfinished(RuntimeError):
    """A Logs Insights query that did not answer in full (its status, the run's wait, or its row limit)."""
ENV_TPS = "RULE_ACTIONS_LOGS_TPS"
DEFAULT_TPS = 5.0
ENV_INSIGHTS_FROM = "RULE_ACTIONS_LOGS_INSIGHTS_FROM"
DEFAULT_INSIGHTS_FROM = 500  # jobs from which one Insights query reads them: FilterLogEvents would take 100 s of quota


def insights_from_env() -> int:
    try:
        return max(1, int(os.environ.get(ENV_INSIGHTS_FROM, DEFAULT_INSIGHTS_FROM)))
    except ValueError:
        return DEFAULT_INSIGHTS_FROM


def tps_from_env() -> float:
    try:
        return max(0.0, float(os.environ.get(ENV_TPS, DEFAULT_TPS)))
    except ValueError:
        return DEFAULT_TPS


class CloudWatchLogs:
    """`client`: a factory of the CloudWatch Logs client, called on first use (an event invocation never makes one);
    `insights_from`: how many jobs a run must read for one Logs Insights query to read them (RULE_ACTIONS_LOGS_INSIGHTS_FROM,
    default 500: below it, FilterLogEvents calls take at most 100 s of its quota and cost nothing)."""

    def __init__(self, client: Callable[[], Any], tps: float | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, wait: float = QUERY_WAIT, poll: float | None = None):
        self._factory, self._client = client, None
        self.tps = tps_from_env() if tps is None else tps
        self._clock, self._sleep = clock, sleep
        self._last: float | None = None
        self.wait, self.poll = wait, (POLL if self.tps > 0 else 0.0) if poll is None else poll
        self.insights_from = insights_from_env()  # jobs from which a run reads them by one Insights query

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._factory()
        return self._client

    def _pace(self) -> None:
        if self.tps <= 0:
            return
        if self._last is not None:
            wait = self._last + 1 / self.tps - self._clock()
            if wait > 0:
                self._sleep(wait)
        self._last = self._clock()

    def heartbeat(self, group: str, prefix: str, start: int, end: int) -> Heartbeat:
        """One FilterLogEvents call over the streams starting with `prefix`, from `start` to `end` (epoch ms)."""
        self._pace()
        page = self.client.filter_log_events(logGroupName=group, logStreamNamePrefix=prefix, startTime=start,
                                             endTime=end, limit=PAGE)
        stamps: dict[str, list[int]] = {}
        for event in page.get("events", []):
            name, stamp = event.get("logStreamName"), event.get("timestamp")
            if isinstance(name, str) and isinstance(stamp, int) and not isinstance(stamp, bool):
                stamps.setdefault(name, []).append(stamp)
        return Heartbeat(tuple(span(name, found) for name, found in sorted(stamps.items())),
                         complete=not page.get("nextToken"))


    def latest(self, group: str, windows: tuple[tuple[str, int], ...], end: int) -> dict[str, Heartbeat]:
        """One Logs Insights query over `group` from the earliest window's start to `end` (epoch ms; the query's
        range in whole seconds, both ends included): prefix -> Heartbeat of its streams with a line from its start."""
        start = min(begin for _, begin in windows)
        query = self.client.start_query(logGroupName=group, startTime=start // 1000, endTime=-(-end // 1000),
                                        queryString=QUERY, limit=ROWS)["queryId"]
        spans = parse_rows(self._results(query))
        by_job: dict[str, list[Span]] = {}  # streams by their name up to the first "/": a job's prefix, at once
        for found in spans:
            head, slash, _ = found.stream.partition("/")
            by_job.setdefault(head + slash, []).append(found)
        answers = {}
        for prefix, begin in windows:
            among = by_job.get(prefix, ()) if prefix.find("/") == len(prefix) - 1 else spans
            answers[prefix] = Heartbeat(tuple(found for found in among if found.stream.startswith(prefix)
                                              and found.last >= begin), complete=True)
        return answers

    def _results(self, query: str) -> list[Any]:
        """The query's rows once it is Complete (every page); QueryUnfinished when it ended otherwise, did not end
        within `wait` seconds (it is then stopped), or reached its row limit."""
        ends = self._clock() + self.wait
        while True:
            try:
                page = self.client.get_query_results(queryId=query, maxItems=RESULTS_PAGE)
            except Exception:  # a throttle past its retries, or no time left in the invocation: not left to run
                self._stop(query)
                raise
            status = page.get("status")
            if status == "Complete":
                break
            if status not in RUNNING:
                raise QueryUnfinished(f"the Logs Insights query ended {status}")
            if self._clock() + self.poll > ends:
                self._stop(query)
                raise QueryUnfinished(f"the Logs Insights query did not complete within {self.wait:g} s (stopped)")
            self._sleep(self.poll)
        rows = list(page.get("results") or [])
        while page.get("nextToken"):
            page = self.client.get_query_results(queryId=query, maxItems=RESULTS_PAGE, nextToken=page["nextToken"])
            rows += page.get("results") or []
        if len(rows) >= ROWS:
            raise QueryUnfinished(f"the Logs Insights query reached its {ROWS:,} rows: streams may be missing")
        return rows


    def _stop(self, query: str) -> None:
        """StopQuery, so that a query the run no longer waits for does not go on scanning (and charging) for up to
        an hour; it may have ended meanwhile: the run goes on without it either way."""
        try:
            self.client.stop_query(queryId=query)
        except Exception:
            pass


def parse_rows(rows: list[Any]) -> list[Span]:
    """The Spans of GetQueryResults' rows (each a list of {field, value}, values as strings); a row without a
    stream or a readable `last` is left out."""
    spans = []
    for row in rows:
        fields = {item.get("field"): item.get("value") for item in row if isinstance(item, dict)}
        stream, last = fields.get("@logStream"), millis(fields.get("last"))
        if not isinstance(stream, str) or last is None:
            continue
        first = millis(fields.get("first"))
        events = millis(fields.get("events"))
        spans.append(Span(stream, last if first is None else first, last, 1 if events is None else events))
    return sorted(spans)


def millis(value: Any) -> int | None:
    """A number as Insights writes it ("1763978400000", "1.7639784E12"), or a timestamp ("2026-11-24
    10:00:00.000", UTC): epoch ms; None when it is neither."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return int(float(value))
    except (ValueError, OverflowError):
        pass
    try:
        moment = datetime.fromisoformat(value.replace(" ", "T").replace("Z", "+00:00"))
    except ValueError:
        return None
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000)


def span(stream: str, stamps: list[int]) -> Span:
    """A stream's Span from its events' timestamps (in any order: a page interleaves streams)."""
    ordered = sorted(stamps)
    gap = max((b - a for a, b in pairwise(ordered)), default=0)
    return Span(stream, ordered[0], ordered[-1], len(ordered), gap)
