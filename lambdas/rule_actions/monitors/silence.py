"""The logic of the rules over a job's log lines (shared by StalledTraining and StalledJob, each in its own module).

StalledTraining: the job stopped making progress. After training started, no new log line in any of the job's
streams (or no datapoint of a named metric, `metric`) for `threshold` seconds; or one host that was logging fell
silent for `threshold` while the others go on (one stalled host of four is a stalled job), and for longer than its
own rhythm and GPUs allow. NCCL hangs often keep the GPUs at 100%: only a heartbeat like this catches them.

A quiet host: many jobs log steadily on rank 0 only, while the other hosts write a line at each checkpoint or
evaluation (every 30-60 minutes, the first often sooner). A host that falls silent for `threshold` while others log is
judged, in order, on:
- its GPUs (the median per GPU of its GPUUtilization over its last GPU_MINUTES of datapoints): busy (at least BUSY),
  it computes: not a stall, whatever its rhythm (a hung worker of a synchronous job stops the others too: the whole
  job's silence); idle (below IDLE), nothing runs there: a stall, whatever its rhythm;
- otherwise (no GPU, no datapoint, or between the two), its own rhythm: stalled when its silence also exceeds `rhythm`
  times the longest gap between two of its log lines earlier in this stretch of training (the silence before its
  first line counts as a gap), once that history is long enough to trust it: spanning at least HISTORY_MINUTES and
  HISTORY_GAPS times that gap (so holding at least that many gaps); a shorter history is compared with at least
  UNLEARNED_MINUTES (an hourly checkpoint) instead of its gap.
The rhythm and the GPUs are read when a host's silence first crosses the threshold, in the same run: one
FilterLogEvents call on that host's streams, from when training (re)started (at most RHYTHM_HOURS before its last
line) to its last line, one page (a host that wrote more than 10,000 lines there is learned from the first 10,000),
and the silent hosts' GPUUtilization (one GetMetricData call for every such job of the run). The history is reset
when training restarts (after a cluster repair or a spot interruption: the rule's clock). A job where every host falls
silent is stalled at the threshold, whatever the rhythms and the GPUs.

The logs are read as the window's events (one FilterLogEvents call per job and run), never as `lastEventTimestamp`,
which AWS updates up to an hour late. The window reaches LOOKBACK minutes before the threshold, so the run in which a
host's silence first crosses it still sees that host's last line and names how long it has been silent. A host is
watched once it logged after its first `startup` minutes of training (every host writes the toolkit's start-up
lines; workers whose script only logs on rank 0 are then not mistaken for stalled hosts). When one page (10,000
events) does not hold the window, nothing is judged in that run: as the window slides past the last lines of a
hung job, it holds them and the job is judged.

A job whose every watched host was heard (by an earlier run of the same execution environment) within the
threshold cannot be stalled yet: it is not queried again until then (about one query per job every `threshold`,
instead of one per run; FilterLogEvents allows 5 calls a second per account and region).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any, NamedTuple

from rule_actions.monitors.job import RunningJob, ago, began
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import STALE_AFTER, host_query, job_query, pct, percentile, user_metric, window
from rule_actions.monitors.verdicts import NOT_STARTED, Clear, Finding, Judgement, NotJudged, Pending, Skipped
from rule_actions.records import Heartbeat, MetricQuery

LOOKBACK = 15  # minutes before the threshold the window reaches back (three runs at the default schedule)
RHYTHM_HOURS = 6  # how far before a silent host's last line its rhythm is learned (at most)
# A silent host's own rhythm (its longest gap) is trusted once its history (from when training (re)started, or
# RHYTHM_HOURS before its last line, to that line) spans at least HISTORY_MINUTES and HISTORY_GAPS times that gap
# (the gaps add up to the history: it then holds at least that many); until then its silence is compared with at least
# UNLEARNED_MINUTES (an hourly checkpoint, the longest common rhythm), unless its GPUs decide.
HISTORY_MINUTES = 30
HISTORY_GAPS = 3
UNLEARNED_MINUTES = 60
# A silent host's GPUs, while another host logs: the median per-GPU GPUUtilization over its last GPU_MINUTES of
# datapoints. At or above BUSY it computes (a worker that writes only at checkpoints): not a stall, whatever its
# rhythm; below IDLE nothing runs on them: its silence past the threshold is a stall, whatever its rhythm; in between,
# or unknown (no GPU, no datapoint), its rhythm decides.
GPU_MINUTES = 10
BUSY = 50.0
IDLE = 10.0
GPU = "GPUUtilization"


class StalledTraining(Monitor):
    name = "StalledTraining"
    summary = "No log line (or no datapoint of `metric`) for `threshold` seconds after training started, from the " \
              "whole job or from one host that was logging."
    logs = True
    params = (Param("threshold", 1800, "Seconds without a log line (or a datapoint of `metric`) after which the "
                    "training is stalled (Debugger's default)", 60, 86400, "s", whole=True),
              Param("metric", "", "A metric of the job's MetricDefinitions to watch instead of its log lines (one "
                    "series for the job: no per-host view)", text=True),
              Param("startup", 10, "Minutes after training starts whose log lines do not make a host watched",
                    0, 120, "min", whole=True),
              Param("rhythm", 1.5, "A host silent while others log, its GPUs neither busy nor idle, is stalled "
                    "only when its silence also exceeds this many times its longest gap between two log lines earlier "
                    "in this stretch of training (times at least an hour while that history is too short to trust)",
                    1, 10, "x"))

    def _since(self, job: RunningJob, p: Mapping[str, Any], now: int) -> int:
        threshold: int = p["threshold"]  # (a whole number of seconds)
        return max(job.started_at, now - threshold - LOOKBACK * 60)

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        if job.started is None:
            return NOT_STARTED
        if now - job.started < p["threshold"]:
            return Pending(f"{began(job)} started {ago(now - job.started)} ago (threshold {ago(p['threshold'])})")
        start = self._since(job, p, now)
        floor = (now - p["threshold"]) * 1000
        watched = [ms for ms in job.heard.values() if ms >= (job.started + p["startup"] * 60) * 1000]
        if not p["metric"] and job.heard and max(job.heard.values()) >= floor and all(ms >= floor for ms in watched):
            return Clear(f"a log line {ago(now - max(job.heard.values()) / 1000)} ago (read by an earlier run): not "
                         "queried again before the threshold can pass")
        if p["metric"]:
            metric = user_metric(job, p["metric"], "", self.name, "metric")
            return metric if not isinstance(metric, str) else Reads((job_query(job, metric),), start)
        return Reads(logs=(start * 1000, now * 1000))

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        threshold, start = p["threshold"], self._since(job, p, now)
        limit = f"(threshold {ago(threshold)})"
        if p["metric"]:
            points = data.points(job_query(job, p["metric"]))
            if points and points[-1][0] >= now - threshold:
                return Clear()
            since = f"for {ago(now - points[-1][0])}" if points else self._before(job, start, now)
            return Finding(f"no datapoint of {p['metric']} {since} {limit}")
        beat = data.logs
        if not beat.complete:
            return Pending("one page of log events (10,000) does not hold the window: judged when it does")
        lasts = job.latest_per_host(beat.streams)
        latest = max(lasts.values(), default=None)
        if latest is None or latest < (now - threshold) * 1000:
            since = f"for {ago(now - latest / 1000)}" if latest is not None else self._before(job, start, now)
            return Finding(f"no log line from any host {since} {limit}")
        watched_after = (job.started_at + p["startup"] * 60) * 1000
        silent = sorted((host, last) for host, last in lasts.items()
                        if last < (now - threshold) * 1000 and last >= watched_after)
        if not silent:
            return Clear()
        windows = {host: self._history(job, host, last) for host, last in silent}
        unread = tuple(window for window in windows.values() if window[0] not in data.streams)
        if unread:  # the silent hosts' rhythms and GPUs, read in this run before the rule decides
            return Reads(gpu_queries(job, [host for host, _last in silent]), now - GPU_MINUTES * 60 - STALE_AFTER,
                         streams=unread)
        alive = sorted(host for host, last in lasts.items() if last >= (now - threshold) * 1000)
        stalled: list[str] = []
        within: list[str] = []
        for host, last in silent:
            prefix, begun = windows[host][0], windows[host][1]
            gap = rhythm(data.streams[prefix], begun)
            if gap is None:
                return Pending(f"{host}'s log lines before its silence could not be read: judged at a later run")
            held, reason = quiet_host(host, now - last / 1000, gap, (last - begun) / 1000,
                                      gpu_state(job, host, data, now), p, alive)
            (within if held else stalled).append(reason)
        if stalled:
            return Finding(f"{'; '.join(stalled)}, while {', '.join(alive)} still log{'s' if len(alive) == 1 else ''}")
        return Clear("; ".join(within))

    @staticmethod
    def _history(job: RunningJob, host: str, last: int) -> tuple[str, int, int]:
        """The window a silent host's rhythm is learned from: its streams since training (re)started, at most
        RHYTHM_HOURS before its last line, up to that line (epoch ms)."""
        start = max(job.started_at * 1000, last - RHYTHM_HOURS * 3600 * 1000)
        return f"{job.name}/{host}-", start, last

    @staticmethod
    def _before(job: RunningJob, start: int, now: int) -> str:
        if start <= job.started_at:
            return f"since {began(job)} started {ago(now - job.started_at)} ago"
        return f"for more than {ago(now - start)}"


def rhythm(beat: Heartbeat, start: int) -> float | None:
    """A host's longest gap (seconds) between two of its log lines in a window beginning at `start` (epoch ms),
    counting the silence before its first line; None when the window shows no line of it."""
    spans = sorted(beat.streams, key=lambda found: found.first)
    if not spans:
        return None
    gaps = [spans[0].first - start, *(found.gap for found in spans),
            *(later.first - earlier.last for earlier, later in pairwise(spans))]
    return max(0, *gaps) / 1000


def gpu_queries(job: RunningJob, hosts: list[str]) -> tuple[MetricQuery, ...]:
    """The GPUUtilization series of the silent hosts that have GPUs (a known, non-zero count)."""
    named = {host.name: host for host in job.hosts}
    return tuple(host_query(job, named[host], GPU) for host in hosts if host in named and named[host].gpus)


class Gpus(NamedTuple):
    """A silent host's GPUs: `state` busy | idle | partly | unknown, and what was seen (for the verdict's reason)."""

    state: str
    seen: str


def gpu_state(job: RunningJob, host: str, data: Data, now: int) -> Gpus:
    """How busy a silent host's GPUs were over their last GPU_MINUTES of datapoints (median per GPU)."""
    found = next((h for h in job.hosts if h.name == host and h.gpus), None)
    if found is None:
        return Gpus("unknown", "no GPU known")
    values = window(data.points(host_query(job, found, GPU)), GPU_MINUTES, now)
    if isinstance(values, str):
        return Gpus("unknown", f"its GPUs unknown: {values}")
    median = percentile(values[0], 50) / found.gpu_count
    seen = f"{pct(median)} over its last {GPU_MINUTES} min"
    return Gpus("busy" if median >= BUSY else "idle" if median < IDLE else "partly", seen)


def quiet_host(host: str, silence: float, gap: float, history: float, gpus: Gpus, p: Mapping[str, Any],
               alive: list[str]) -> tuple[bool, str]:
    """Whether a host silent past the threshold while `alive` log is held (not a stall), and why: its GPUs, then its
    own rhythm when its history is long enough to trust it (`gap`: its longest gap, `history`: how long the lines it
    was learned from span, seconds), else at least UNLEARNED_MINUTES."""
    threshold = ago(p["threshold"])
    if gpus.state == "busy":
        return True, (f"{host} silent for {ago(silence)}, its GPUs busy ({gpus.seen}) while {', '.join(alive)} "
                      f"log{'s' if len(alive) == 1 else ''}: not a stall")
    if gpus.state == "idle":
        return False, f"no log line from {host} for {ago(silence)} (threshold {threshold}) and its GPUs idle " \
                      f"({gpus.seen})"
    if history >= HISTORY_MINUTES * 60 and history >= HISTORY_GAPS * gap:
        if silence > p["rhythm"] * gap:
            return False, f"no log line from {host} for {ago(silence)} (threshold {threshold}; its longest gap " \
                          f"before: {span(gap)})"
        return True, (f"{host} silent for {ago(silence)}, within its rhythm (a gap of {span(gap)} before; stalled "
                      f"after {p['rhythm']:g} times that)")
    assumed = max(gap, UNLEARNED_MINUTES * 60)
    learned = f"too little history for its own rhythm (a history of {span(history)}, longest gap {span(gap)})"
    if silence > p["rhythm"] * assumed:
        return False, f"no log line from {host} for {ago(silence)} (threshold {threshold}; {learned}: stalled " \
                      f"after {p['rhythm']:g} times {span(assumed)})"
    return True, (f"{host} silent for {ago(silence)}, {learned}: stalled after {p['rhythm']:g} times {span(assumed)} "
                  f"({gpus.seen if gpus.state == 'unknown' else f'its GPUs at {gpus.seen}'})")


def span(seconds: float) -> str:
    """A gap as people read it: 12 s, 41 min."""
    return f"{int(seconds)} s" if seconds < 60 else ago(seconds)

