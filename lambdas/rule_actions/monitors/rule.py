"""What a monitor rule is (`Monitor`): a rule evaluated by rule-actions itself, on a schedule, from what SageMaker
publishes for every job without Debugger (instance metrics and the user's MetricDefinitions in CloudWatch, the job's
log streams). One module per rule (monitors/<rule>.py), listed in rule_actions/registry.py.

    name, params, summary   the rule's name (as `rules` and the tags name it), its parameters, one line about it
    phases                  the phases (SecondaryStatus) it judges (Training, and Updating, during which training goes
                            on): in any other a job is NotJudged, never acted on, and the rule's clock
                            (`RunningJob.started`) starts again when such a phase does (`in_phase`)
    needs                   what it must read for one running job: metric series, a log window (or why it cannot be
                            computed for this job: Skipped; or why not yet: Pending)
    judge                   pure: the job, its parameters, the time and what was read -> Finding | Clear | Pending |
                            Skipped, each with a reason a person can act on; or Reads of some streams' windows (and
                            series) to read before it can decide (StalledTraining: a silent host's rhythm and GPUs)

Also here: a rule's parameters resolved (`params_of`, `parameters`), and the rules that cannot be computed without
Debugger (`REFUSED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from rule_actions.contract import PHASES, STARTUP_PHASES, TRAINING_PHASES, Offer
from rule_actions.cost import JobCost
from rule_actions.monitors.job import RunningJob, ago
from rule_actions.monitors.params import MODE, Param
from rule_actions.monitors.verdicts import Clear, Judgement, NotJudged, Pending, Skipped
from rule_actions.records import Heartbeat, MetricQuery, Trial, Unread
from rule_actions.text import quoted, unknown

REFUSED = {
    **dict.fromkeys(("AllZero", "CheckInputImages", "ClassImbalance", "Confusion", "DeadRelu", "ExplodingTensor",
                     "FeatureImportanceOverweight", "NLPSequenceRatio", "PoorWeightInitialization",
                     "SaturatedActivation", "SimilarAcrossRuns", "TensorVariance", "TreeDepth", "UnchangedTensor",
                     "VanishingGradient", "WeightUpdateRatio"),
                    "it inspects the model's tensors, which only Debugger's hook saves"),
    "IOBottleneck": "it needs I/O wait per step from Debugger's profiler; CloudWatch's DiskUtilization is disk space, "
                    "not I/O",
    "LoadBalancing": "it compares the GPUs of one instance, and SageMaker publishes one GPUUtilization per instance "
                     "(summed over its GPUs), no series per GPU",
    "Dataloader": "it counts the data loader's worker processes, which only Debugger's profiler sees",
    "StepOutlier": "it needs each step's duration, which only Debugger's hook records (publish the step time as a "
                   "metric in MetricDefinitions and watch it with StalledTraining's `metric`)",
    "ProfilerReport": "it is a report of Debugger's profiler, not a condition",
    "OverallSystemUsage": "it is a report (percentiles per host), not a condition",
    "CreateXgboostReport": "it is a report of Debugger's XGBoost hook, not a condition",
    "StalledTrainingRule": "it is called StalledTraining here",
}


def refusal(name: str) -> str:
    reason = REFUSED.get(name)
    return f"cannot be computed without Debugger: {reason}" if reason else "is not a rule rule-actions evaluates"


class Reads(NamedTuple):
    """What a rule reads for one job: metric series from `start` (epoch seconds) to now, and a log window
    (epoch ms) of the job's streams, or None. A rule's `judge` may also return Reads of `streams`: windows of
    some of the job's streams to read before it can decide (stream name prefix, start ms, end ms), with `queries`
    (from `start`) when it needs more series too, read in the same run, after which it judges again with them in
    `Data.streams` and `Data.series`."""

    queries: tuple[MetricQuery, ...] = ()
    start: int = 0
    logs: tuple[int, int] | None = None
    streams: tuple[tuple[str, int, int], ...] = ()
    trials: int = 0  # a tuning job's latest trials to read (0: none)
    cost: bool = False  # what the job cost so far (cost.py: its prices, a tuning job's trials)


class Data(NamedTuple):
    """What was read for one job: each series' datapoints ((epoch seconds, value), oldest first), and its log window
    (a Heartbeat; an Unread when the query failed or the run had no time left; None when not asked); the stream
    windows its judge asked for (prefix -> Heartbeat)."""

    series: Mapping[MetricQuery, tuple[tuple[int, float], ...]]
    heartbeat: Heartbeat | Unread | None = None
    streams: Mapping[str, Heartbeat] = {}
    trials: tuple[Trial, ...] = ()  # a tuning job's latest trials, newest first (when its rule asked)
    cost: JobCost | None = None  # what the job cost at the run's time (when its rule asked)

    def points(self, query: MetricQuery) -> tuple[tuple[int, float], ...]:
        return self.series.get(query, ())

    @property
    def logs(self) -> Heartbeat:
        """The log window read (a rule is judged on logs only when its window was read: a failed read is an Error,
        a run out of time a Pending, before the rule sees it)."""
        if not isinstance(self.heartbeat, Heartbeat):
            raise ValueError(f"no log window was read ({self.heartbeat!r})")
        return self.heartbeat


class Monitor:
    name: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    summary: ClassVar[str] = ""
    logs: ClassVar[bool] = False  # it may read the job's log streams (the stack grants FilterLogEvents)
    metrics: ClassVar[bool] = True  # it may read CloudWatch metrics (the stack grants GetMetricData)
    trials: ClassVar[bool] = False  # it reads a tuning job's trials (ListTrainingJobsForHyperParameterTuningJob)
    # It judges a transform job's instances, which no API names: the evaluation finds them by ListMetrics (the Host
    # dimension values <job>/<instance-id> of CPUUtilization in /aws/sagemaker/TransformJobs; the stack grants it).
    instances: ClassVar[bool] = False
    # The phases (SecondaryStatus) it judges: in any other the job is never acted on by it, and its clock (the job's
    # `started`) starts again when one of them does.
    phases: ClassVar[tuple[str, ...]] = TRAINING_PHASES
    # What it needs of a job family's running jobs (contract.Offer): it judges the families that offer all of it
    # (JobFamily.offers). A configuration's rule applies to the jobs of these families only, and the stack evaluates
    # (and grants the reads of) each family a rule judges.
    needs: ClassVar[frozenset[Offer]] = frozenset({Offer.TRAINING_PHASES})
    # The families it judges, by name and noun, in the order they are evaluated (bound by the registry: `judging`).
    families: tuple[str, ...] = ()
    nouns: tuple[str, ...] = ()
    prices: ClassVar[bool] = False  # it judges a job's cost (cost.py): the stack grants the Price List's reads

    def judging(self, families: Sequence[tuple[str, str]]) -> None:
        """Bind the families it judges: (name, noun) of each family that offers all it needs."""
        self.families, self.nouns = tuple(name for name, _ in families), tuple(noun for _, noun in families)

    def check_config(self, params: Mapping[str, Any], config: Any, where: str) -> list[str]:
        """What it checks of its configured parameters against the rest of the configuration (`where`: its path)."""
        return []

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        raise NotImplementedError

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        raise NotImplementedError

    def outside(self, job: RunningJob, words: str) -> Pending | NotJudged | None:
        """What it says of a training job in a phase it does not judge (`words`: the phase as a row says it, and for
        how long), when it says more than `in_phase` does; None: in_phase's words."""
        return None


def params_of(rule: Monitor) -> tuple[Param, ...]:
    """The rule's parameters: its own, then those every rule has (its mode)."""
    return (*rule.params, MODE)


def parameters(rule: Monitor, given: Mapping[str, Any], where: str, base: Mapping[str, Any] | None = None,
               from_tag: bool = False) -> tuple[dict[str, Any], list[str]]:
    """The rule's parameters: `base` (its defaults when None), overridden by `given` (each checked; errors name
    `where` and the key)."""
    values = dict(base) if base is not None else {p.key: p.default for p in params_of(rule)}
    known = {p.key: p for p in params_of(rule)}
    errors = []
    for key, value in given.items():
        param = known.get(key)
        if param is None:
            errors.append(f"{where}.{key}: {unknown(key, known, f'parameter of {rule.name}', 'docs/triggers.md')}")
            continue
        read, problem = param.read(value, from_tag)
        if problem:
            errors.append(f"{where}.{key}: {problem}")
        else:
            values[key] = read
    return values, errors


def in_phase(job: RunningJob, rule: Monitor, now: int) -> Pending | NotJudged | None:
    """None when `rule` judges the job's phase. Before training (re)starts, not yet (Pending); in any other phase
    (Uploading, Restarting, Interrupted...), NotJudged, saying which and for how long."""
    if not job.phased:
        noun = job.noun
        if job.status in rule.phases and job.started is not None:
            return None
        if job.started is None:
            return Pending(f"the {noun} has not started yet (no start time)")
        return NotJudged(f"the {noun} is {job.status or 'in an unknown status'}: not judged ({rule.name} judges "
                         f"{' and '.join(rule.phases)} only)")
    if job.secondary in rule.phases:
        return None
    words = PHASES.get(job.secondary, f"in phase {quoted(job.secondary or 'unknown')}")
    since = job.phase_since()
    if since is not None and now >= since:
        words += f" for {ago(now - since)}" if now - since >= 60 else " for less than a minute"
    own = rule.outside(job, words)
    if own is not None:
        return own
    if job.secondary in STARTUP_PHASES:
        return Pending(f"training has not {'re' if job.started else ''}started yet ({words})")
    return NotJudged(f"{words}: not judged ({rule.name} judges {' and '.join(rule.phases)} only)")

