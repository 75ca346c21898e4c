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
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from rule_actions.records import Heartbeat, Span

PAGE = 10_000  # FilterLogEvents' largest limit
ENV_TPS = "RULE_ACTIONS_LOGS_TPS"
DEFAULT_TPS = 5.0


def tps_from_env() -> float:
    try:
        return max(0.0, float(os.environ.get(ENV_TPS, DEFAULT_TPS)))
    except ValueError:
        return DEFAULT_TPS


class Logs:
    """`client`: a factory of the CloudWatch Logs client, called on first use (an event invocation never makes one)."""

    def __init__(self, client: Callable[[], Any], tps: float | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self._factory, self._client = client, None
        self.tps = tps_from_env() if tps is None else tps
        self._clock, self._sleep, self._last = clock, sleep, None

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


def span(stream: str, stamps: list[int]) -> Span:
    """A stream's Span from its events' timestamps (in any order: a page interleaves streams)."""
    ordered = sorted(stamps)
    gap = max((b - a for a, b in pairwise(ordered)), default=0)
    return Span(stream, ordered[0], ordered[-1], len(ordered), gap)
