"""What a job costs (the ground floor: pure, no AWS): the price of its instances x how many x for how long, for
training, processing and transform jobs, and a tuning job as the sum of its trials; so far, and what the rest of its
MaxRuntimeInSeconds would cost (what a stop saves at most). A price that cannot be known makes the figure Unknown,
with its reason: never a made-up number, never 0.

    PRICES      the configuration's `prices` block: the AWS Price List API on or off, and rates that override it
    Billing     where a job family's description says what its job runs on and for how long (jobs/ declare theirs)
    needs       what a job's cost reads: PriceList (an instance type in a region), TrialRuns (a tuning job's trials)
    of          the job's cost (JobCost) at a time, from its description and what was read
    lines, short, payload, stop_note
                how a message, a text message, the json webhook format and a stop's row say it

What it counts is what AWS bills (docs/cost.md, "What is billed"): a training job from its TrainingStartTime, less
the stretches of its SecondaryStatusTransitions in which nothing is billed (UNBILLED: a spot interruption and the wait
for capacity after it, a cluster repair); once it ended, its BillableTimeInSeconds when the description says it; each
instance group at its own price; a warm pool's ResourceRetainedBillableTimeInSeconds once one was kept. A tuning job
sums its trials, each priced from its own description (its instances and times) when it was read.

What it leaves out (docs/cost.md): ML storage volumes, data transfer, Savings Plans and negotiated rates unless
`prices` gives them, spot prices (a running managed spot job is counted at on-demand rates for its billed time so
far, an upper bound; once it ended, for its BillableTimeInSeconds).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from rule_actions.contract import REGION_NAME
from rule_actions.fields import Custom, anchored
from rule_actions.records import Described, JobApi, PriceList, TrialRun, TrialRuns, Unread
from rule_actions.text import line, quoted, timestamp

HOUR = 3600
TRAINING_RUNTIME = 86400  # a training job's MaxRuntimeInSeconds when it sets none (botocore's model: "1 day")
INSTANCE_TYPE = r"ml\.[a-z0-9-]+\.[a-z0-9-]+"  # ml.p4d.24xlarge: an instance type SageMaker names
RATE_MAX = 10000.0  # US dollars per hour: above any instance's on-demand price
INSTANCES_MAX = 10000  # instances one job may count (more is a malformed description)
TERMS_SHOWN = 3  # the terms a message's sum shows (the others: "and N more")
# A training job's phases (SecondaryStatus) in which nothing is billed once billing started (TrainingStartTime): a
# managed spot job's interruption and its wait for capacity and relaunch after it (Interrupted, Pending, Starting,
# LaunchingMLInstances), a cluster repair (Restarting: AWS does not bill the repair). Before TrainingStartTime
# nothing is billed at all. WAITING: those of them that wait for capacity (a budget never stops a job in them).
WAITING = ("Pending", "Interrupted", "Starting", "LaunchingMLInstances")
UNBILLED = (*WAITING, "Restarting")


# ---------------------------------------------------------------- the configuration's `prices` block


class PriceSettings(NamedTuple):
    """The `prices` block: ask the Price List API (`price_list`) for prices it does not give; rates in US dollars per
    hour by instance type, for every region (`usd_per_hour`) or one (`regions`: region -> instance type -> rate)."""

    price_list: bool = True
    usd_per_hour: tuple[tuple[str, float], ...] = ()
    regions: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()

    def override(self, instance_type: str, region: str) -> float | None:
        """The configured rate of an instance type in a region (the region's own first), None when none is."""
        for name, rates in self.regions:
            if name == region:
                found = dict(rates).get(instance_type)
                if found is not None:
                    return found
        return dict(self.usd_per_hour).get(instance_type)

    @property
    def known(self) -> bool:
        """Some price can be known: the Price List API is asked, or the block gives rates."""
        return self.price_list or bool(self.usd_per_hour) or any(rates for _, rates in self.regions)


KEYS = ("price_list", "usd_per_hour", "regions")
_TYPE_RE = re.compile(INSTANCE_TYPE, re.ASCII)
_REGION_RE = re.compile(REGION_NAME, re.ASCII)


def _read_prices(value: Any, where: str, errors: list[str]) -> PriceSettings:
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object with the keys {', '.join(KEYS)}")
        return PriceSettings()
    found = [f"{where}.{key}: unknown key; allowed: {', '.join(KEYS)}" for key in value if key not in KEYS]
    price_list = value.get("price_list", True)
    if not isinstance(price_list, bool):
        found.append(f"{where}.price_list: {quoted(price_list)} is not true or false")
    rates = _rates(value.get("usd_per_hour", {}), f"{where}.usd_per_hour", found)
    regions = value.get("regions", {})
    by_region = []
    if not isinstance(regions, Mapping):
        found.append(f"{where}.regions: {quoted(regions)} must be an object of region -> (instance type -> US "
                     "dollars per hour)")
    else:
        for region, given in regions.items():
            path = f"{where}.regions[{quoted(region)}]"
            if not (isinstance(region, str) and _REGION_RE.fullmatch(region)):
                found.append(f"{path}: {quoted(region)} is not an AWS region name (us-east-1)")
                continue
            by_region.append((region, _rates(given, path, found)))
    errors += found
    if found:
        return PriceSettings()
    return PriceSettings(price_list, rates, tuple(by_region))


def _rates(value: Any, where: str, errors: list[str]) -> tuple[tuple[str, float], ...]:
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object of instance type -> US dollars per hour")
        return ()
    found = []
    for name, rate in value.items():
        path = f"{where}[{quoted(name)}]"
        if not (isinstance(name, str) and _TYPE_RE.fullmatch(name)):
            errors.append(f"{path}: {quoted(name)} is not a SageMaker instance type (ml.<family>.<size>, e.g. "
                          "ml.p4d.24xlarge)")
        elif isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) \
                or not 0 < rate <= RATE_MAX:
            errors.append(f"{path}: {quoted(rate)} is not a price in US dollars per hour (a number above 0, at most "
                          f"{RATE_MAX:g})")
        else:
            found.append((name, float(rate)))
    return tuple(found)


def _write_prices(prices: PriceSettings) -> dict[str, Any]:
    return {"price_list": prices.price_list, "usd_per_hour": dict(prices.usd_per_hour),
            "regions": {region: dict(rates) for region, rates in prices.regions}}


_RATES_SCHEMA = {"type": "object", "propertyNames": {"pattern": anchored(INSTANCE_TYPE)},
                 "additionalProperties": {"type": "number", "exclusiveMinimum": 0, "maximum": RATE_MAX}}
PRICES: Custom[PriceSettings] = Custom(
    "prices", PriceSettings(),
    "Instance prices for what a job costs (said in stop, failure and timeout messages; judged by the Budget rule): "
    "the AWS Price List API's on-demand prices (price_list, pricing:GetProducts), overridden by rates in US dollars "
    "per hour per instance type, for every region (usd_per_hour) or one (regions): negotiated rates, Savings Plans.",
    _read_prices, _write_prices,
    {"type": "object", "additionalProperties": False, "properties": {
        "price_list": {"type": "boolean", "default": True,
                       "description": "Ask the AWS Price List API (pricing:GetProducts: on-demand prices, once per "
                                      "instance type and region per execution environment) for the prices not given "
                                      "here (false: only these rates are known; a job on another instance type has "
                                      "an unknown cost)."},
        "usd_per_hour": {**_RATES_SCHEMA, "default": {},
                         "description": "Instance type -> its rate in US dollars per hour, in every region (over the "
                                        "price list's)."},
        "regions": {"type": "object", "propertyNames": {"pattern": anchored(REGION_NAME)},
                    "additionalProperties": _RATES_SCHEMA, "default": {},
                    "description": "Region -> (instance type -> US dollars per hour): a region's own rates (over "
                                   "usd_per_hour's and the price list's)."},
    }})


# ---------------------------------------------------------------- what a job runs on, and for how long


class Billing(NamedTuple):
    """Where a job family's description (its event's detail, its Describe or Search record) says what the job runs
    on and for how long: member names and paths (botocore's model)."""

    component: str  # the price list's platoinstancetype of its instances: Training | Processing | BatchTransform
    resources: tuple[str, ...] = ()  # the path of its instances (InstanceType and InstanceCount, or InstanceGroups)
    started: str = ""  # when it started (billing starts)
    ended: str = ""
    runtime: tuple[str, ...] = ()  # the path of its MaxRuntimeInSeconds
    default_runtime: int | None = None  # its MaxRuntimeInSeconds when the description sets none
    billable: str = ""  # BillableTimeInSeconds (training: once it ended)
    spot: str = ""  # EnableManagedSpotTraining
    trials: bool = False  # a tuning job: the sum of its trials (TrialRuns), each of a training job definition
    transitions: str = ""  # SecondaryStatusTransitions: the stretches not billed (UNBILLED)
    retained: tuple[str, ...] = ()  # a warm pool's billed time once the job ended (ResourceRetainedBillable...)
    # A job that runs attempts (an AWS Batch service job): the sum of its attempts' training jobs, each read with
    # this API's describe (its names, from the job's record, by this function)
    attempts: tuple[JobApi, Callable[[Mapping[str, Any]], tuple[str, ...]]] | None = None


class Run(NamedTuple):
    """What one job (or one trial) ran on and when: epoch seconds; `runtime` its MaxRuntimeInSeconds (None: none)."""

    fleet: tuple[tuple[str, int], ...]  # (instance type, count)
    started: int | None
    ended: int | None
    runtime: int | None
    billable: int | None = None
    spot: bool = False
    unbilled: tuple[tuple[int, int | None], ...] = ()  # (start, end; None: still) of each stretch not billed
    retained: int | None = None  # its warm pool's billed seconds after it ended


# A training job's (and each tuning job trial's): botocore's DescribeTrainingJob members.
TRAINING = Billing("Training", ("ResourceConfig",), "TrainingStartTime", "TrainingEndTime",
                   ("StoppingCondition", "MaxRuntimeInSeconds"), TRAINING_RUNTIME, "BillableTimeInSeconds",
                   "EnableManagedSpotTraining", transitions="SecondaryStatusTransitions",
                   retained=("WarmPoolStatus", "ResourceRetainedBillableTimeInSeconds"))


class Rate(NamedTuple):
    usd_per_hour: float
    source: str  # "price list" | "configuration"


class Unknown(NamedTuple):
    """A figure that cannot be known, and why."""

    reason: str


class Term(NamedTuple):
    """count x instance type at a rate for a time: one term of a sum (`runs`: how many runs, or trials, it sums)."""

    count: int  # type: ignore[assignment]  # (a NamedTuple field named as tuple.count: its value hides the method)
    instance_type: str
    usd_per_hour: float
    seconds: float
    runs: int = 1

    @property
    def usd(self) -> float:
        return self.count * self.usd_per_hour * self.seconds / HOUR

    def words(self, trials: bool = False) -> str:
        runs = f", {self.runs} {'trials' if trials else 'runs'}" if self.runs > 1 else ""
        return f"{self.count} x {self.instance_type} at {per_hour(self.usd_per_hour)} for {span(self.seconds)}{runs}"


class Cost(NamedTuple):
    """A known figure: the sum of its terms, in US dollars."""

    terms: tuple[Term, ...]
    trials: bool = False  # its terms sum a tuning job's trials

    @property
    def usd(self) -> float:
        return sum(term.usd for term in self.terms)

    def inputs(self) -> str:
        """"2 x ml.p4d.24xlarge at $37.688/h for 3 h 12 min" (+ the other terms; "nothing ran yet" when none)."""
        shown = [term.words(self.trials) for term in self.terms[:TERMS_SHOWN]]
        more = len(self.terms) - TERMS_SHOWN
        return " + ".join(shown + ([f"{more} more"] if more > 0 else [])) or "nothing ran yet"


Figure = Cost | Unknown


class JobCost(NamedTuple):
    """A job's cost at a time: `so_far` (until then, or until it ended), `rest` (what the rest of its
    MaxRuntimeInSeconds would cost while it runs: what a stop then saves at most; None once it ended), `spot` (managed
    spot, once it ended: the share of its training time not billed), `notes` (what the figures leave out here)."""

    so_far: Figure
    rest: Figure | None
    running: bool
    source: str = ""  # where the rates came from: "price list", "configuration", or both
    spot: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def usd(self) -> float | None:
        return round(self.so_far.usd, 2) if isinstance(self.so_far, Cost) else None

    @property
    def saved_usd(self) -> float | None:
        """What a stop now saves at most (the rest of its MaxRuntimeInSeconds), when known."""
        return round(self.rest.usd, 2) if isinstance(self.rest, Cost) else None


# ---------------------------------------------------------------- reading a description


def _at(record: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = record
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _epoch(value: Any) -> int | None:
    if hasattr(value, "timestamp"):
        return int(value.timestamp())
    found = timestamp(value)
    return int(found.timestamp()) if found else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def fleet(resources: Any, where: str) -> tuple[tuple[str, int], ...] | Unknown:
    """The instances a ResourceConfig (ProcessingClusterConfig, TransformResources, a tuning definition's resources)
    names: the instance type SageMaker selected among preferences, its instance groups, or its type and count."""
    if not isinstance(resources, Mapping):
        return Unknown(f"the description does not say the job's instances ({where})")
    if isinstance(resources.get("SelectedInstanceType"), str):
        pairs = [(resources["SelectedInstanceType"], resources.get("SelectedInstanceCount",
                                                                   resources.get("InstanceCount")))]
    elif resources.get("InstanceGroups"):
        groups = resources["InstanceGroups"]
        pairs = [(g.get("InstanceType"), g.get("InstanceCount")) for g in groups if isinstance(g, Mapping)] \
            if isinstance(groups, list) else [(None, None)]
    elif isinstance(resources.get("InstanceConfigs"), list) and "InstanceType" not in resources:
        configs = [(c.get("InstanceType"), c.get("InstanceCount")) for c in resources["InstanceConfigs"]
                   if isinstance(c, Mapping)]
        if len({json.dumps(c, sort_keys=True, default=str) for c in configs}) != 1:
            return Unknown(f"{where}.InstanceConfigs lets SageMaker choose among {len(configs)} instance "
                           "configurations, and a trial's summary does not say which it ran on")
        pairs = configs[:1]
    else:
        pairs = [(resources.get("InstanceType"), resources.get("InstanceCount"))]
    found = []
    for instance_type, count in pairs:
        if not (isinstance(instance_type, str) and _TYPE_RE.fullmatch(instance_type)):
            return Unknown(f"{where}: {quoted(instance_type)} is not an instance type")
        if _whole(count) is None or count > INSTANCES_MAX:
            return Unknown(f"{where}: the instance count of {instance_type} is {quoted(count)}")
        if count:
            found.append((instance_type, count))
    return tuple(found) or Unknown(f"{where} names no instance")


def _run(billing: Billing, record: Mapping[str, Any]) -> Run | Unknown:
    found = fleet(_at(record, billing.resources), ".".join(billing.resources))
    if isinstance(found, Unknown):
        return found
    runtime = _whole(_at(record, billing.runtime)) if billing.runtime else None
    return Run(found, _epoch(record.get(billing.started)), _epoch(record.get(billing.ended)),
               runtime or billing.default_runtime, _whole(record.get(billing.billable)) if billing.billable else None,
               record.get(billing.spot) is True if billing.spot else False,
               unbilled(record.get(billing.transitions)) if billing.transitions else (),
               _whole(_at(record, billing.retained)) if billing.retained else None)


def unbilled(transitions: Any) -> tuple[tuple[int, int | None], ...]:
    """The stretches of SecondaryStatusTransitions in an UNBILLED phase: (start, end) in epoch seconds, the end its
    EndTime, else the next transition's StartTime, else None (still in it). Malformed entries are left out."""
    items = [t for t in transitions if isinstance(t, Mapping)] if isinstance(transitions, list) else []
    found = []
    for index, item in enumerate(items):
        start = _epoch(item.get("StartTime"))
        if item.get("Status") not in UNBILLED or start is None:
            continue
        end = _epoch(item.get("EndTime"))
        if end is None and index + 1 < len(items):
            end = _epoch(items[index + 1].get("StartTime"))
        found.append((start, end if end is None or end >= start else start))
    return tuple(found)


class Definition(NamedTuple):
    """A tuning job's training job definition, as its trials' cost counts it."""

    fleet: tuple[tuple[str, int], ...] | Unknown
    runtime: int


def definitions(record: Mapping[str, Any]) -> dict[str, Definition]:
    """A tuning job's training job definitions by name ("" for TrainingJobDefinition, its only one)."""
    found: dict[str, Definition] = {}
    listed = record.get("TrainingJobDefinitions")
    items = [("", record.get("TrainingJobDefinition"))] if record.get("TrainingJobDefinition") is not None else []
    if isinstance(listed, list):
        items += [(d.get("DefinitionName", "") if isinstance(d, Mapping) else "", d) for d in listed]
    for index, (name, item) in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        where = "TrainingJobDefinition" if not name and index == 0 else f"TrainingJobDefinitions[{name}]"
        resources = item.get("ResourceConfig") if item.get("ResourceConfig") is not None else \
            item.get("HyperParameterTuningResourceConfig")
        runtime = _whole(_at(item, ("StoppingCondition", "MaxRuntimeInSeconds")))
        found[str(name)] = Definition(fleet(resources, f"{where}.ResourceConfig"), runtime or TRAINING_RUNTIME)
    return found


def instance_types(billing: Billing, record: Mapping[str, Any]) -> tuple[str, ...]:
    """The instance types a job's cost prices (its own, or its trials' definitions'), in order."""
    if billing.trials:
        fleets = [d.fleet for d in definitions(record).values()]
    else:
        fleets = [fleet(_at(record, billing.resources), "")]
    return tuple(dict.fromkeys(t for f in fleets if not isinstance(f, Unknown) for t, _ in f))


# ---------------------------------------------------------------- what is read, and the cost


def needs(billing: Billing | None, record: Mapping[str, Any], region: str, prices: PriceSettings,
          job_name: str, read: Mapping[Any, Any] | None = None) -> frozenset[Any]:
    """What the job's cost reads: the Price List's prices of its instance types the configuration does not give
    (when price_list), and a tuning job's trials; once those were `read`, also the prices of the instance types its
    trials' own descriptions name (a caller reads again what this adds)."""
    if billing is None:
        return frozenset()
    if billing.attempts is not None:  # its attempts' descriptions, then the prices of the types they name
        api, names_of = billing.attempts
        described = [Described(api, name) for name in names_of(record)]
        read_ones = [(read or {}).get(need) for need in described]
        kinds = [t for found in read_ones if isinstance(found, Mapping) and not isinstance(found, Unread)
                 for t in instance_types(TRAINING, found)]
        return frozenset({*described, *(PriceList(t, region) for t in dict.fromkeys(kinds)
                                        if prices.price_list and prices.override(t, region) is None)})
    kinds = list(instance_types(billing, record))
    listed = (read or {}).get(TrialRuns(job_name)) if billing.trials else None
    if isinstance(listed, (list, tuple)):
        for trial in listed:
            own = fleet(trial.record.get("ResourceConfig"), "") if isinstance(trial, TrialRun) and \
                trial.record is not None else ()
            kinds += [t for t, _ in own] if not isinstance(own, Unknown) else []
    found: set[Any] = {PriceList(t, region) for t in dict.fromkeys(kinds)
                       if prices.price_list and prices.override(t, region) is None}
    if billing.trials:
        found.add(TrialRuns(job_name))
    return frozenset(found)


def rate(prices: PriceSettings, instance_type: str, region: str, component: str, found: Mapping[Any, Any]) -> Rate | Unknown:
    """The rate of an instance type: the configuration's, else the price list's for the component."""
    configured = prices.override(instance_type, region)
    if configured is not None:
        return Rate(configured, "configuration")
    if not prices.price_list:
        return Unknown(f"no price for {instance_type} in {region}: prices.price_list is false and prices gives none")
    answer = found.get(PriceList(instance_type, region))
    if answer is None:
        return Unknown(f"the price of {instance_type} in {region} was not read")
    if isinstance(answer, Unread):
        return Unknown(f"the price of {instance_type} in {region} is not known ({answer.reason})")
    usd = answer.get(component) if isinstance(answer, Mapping) else None
    if not isinstance(usd, (int, float)) or isinstance(usd, bool) or not 0 < usd <= RATE_MAX:
        return Unknown(f"the AWS Price List has no {component} price for {instance_type} in {region}")
    return Rate(float(usd), "price list")


def of(billing: Billing | None, record: Mapping[str, Any], region: str, prices: PriceSettings, found: Mapping[Any, Any],
       at: int, job_name: str) -> JobCost | None:
    """The job's cost at `at` (epoch seconds) from its description and what was read (`found`: each Need's answer);
    None for a family whose jobs have no cost here (a pipeline execution: its steps' jobs have theirs)."""
    if billing is None:
        return None
    running = _epoch(record.get(billing.ended)) is None
    skipped: list[str] = []
    runs: tuple[Run, ...] | Unknown
    if billing.attempts is not None:
        runs, limit = _attempts(billing.attempts, record, found, skipped), None
    elif billing.trials:
        runs = _trials(record, found.get(TrialRuns(job_name)))
        limit = _limit(billing, record)
    else:
        one = _run(billing, record)
        runs, limit = one if isinstance(one, Unknown) else (one,), None
    if isinstance(runs, Unknown):
        return JobCost(runs, runs, running=running)
    rates: dict[str, Rate | Unknown] = {}
    for run in runs:
        for instance_type, _count in run.fleet:
            rates.setdefault(instance_type, rate(prices, instance_type, region, billing.component, found))
    if billing.trials:
        for definition in definitions(record).values():
            for instance_type, _count in (definition.fleet if not isinstance(definition.fleet, Unknown) else ()):
                rates.setdefault(instance_type, rate(prices, instance_type, region, billing.component, found))
    unknown = next((r for r in rates.values() if isinstance(r, Unknown)), None)
    sources = sorted({r.source for r in rates.values() if isinstance(r, Rate)})
    notes = tuple(_notes(runs, running) + skipped)
    spot = _spot(runs[0]) if not billing.trials and billing.attempts is None and runs else None
    if unknown is not None:
        return JobCost(unknown, unknown if running else None, running, " and ".join(sources), spot, notes)
    known = {t: r.usd_per_hour for t, r in rates.items() if isinstance(r, Rate)}
    pools = [(run, float(run.retained)) for run in runs if run.retained and run.ended is not None and at >= run.ended]
    so_far = _sum([(run, _billed(run, at)) for run in runs] + pools, known, billing.trials)
    if running and billing.attempts is not None:
        rest: Figure | None = Unknown("the attempts it may still run have no bound here")
    else:
        rest = _rest(billing, record, runs, known, at, limit) if running else None
    return JobCost(so_far, rest, running, " and ".join(sources), spot, notes)


def _attempts(attempts: tuple[JobApi, Callable[[Mapping[str, Any]], tuple[str, ...]]], record: Mapping[str, Any],
              found: Mapping[Any, Any], skipped: list[str]) -> tuple[Run, ...]:
    """A service job's attempts as runs, each from its training job's description (its billed time as a training
    job's); one that could not be read (Batch deletes a capacity-failed attempt's training job) is left out, said
    in `skipped`."""
    api, names_of = attempts
    runs = []
    for name in names_of(record):
        answer = found.get(Described(api, name))
        one = _run(TRAINING, answer) if isinstance(answer, Mapping) and not isinstance(answer, Unread) else None
        if isinstance(one, Run):
            runs.append(one)
            continue
        why = answer.reason if isinstance(answer, Unread) else one.reason if isinstance(one, Unknown) else "not read"
        skipped.append(f"attempt {name} not counted ({why})")
    return tuple(runs)


def _billed(run: Run, at: int) -> float:
    """A run's billed seconds until `at`: its BillableTimeInSeconds once it ended (when known), else the time since
    it started on its instances less the stretches not billed (a spot interruption and its wait, a cluster repair)."""
    if run.ended is not None and run.billable is not None and at >= run.ended:
        return float(run.billable)
    if run.started is None:
        return 0.0
    end = min(run.ended if run.ended is not None else at, at)
    seconds = max(0, end - run.started)
    for start, stop in run.unbilled:
        seconds -= max(0, min(stop if stop is not None else end, end) - max(start, run.started))
    return float(max(0, seconds))


def _sum(parts: list[tuple[Run, float]], rates: Mapping[str, float], trials: bool) -> Cost:
    """The terms of runs (each with its seconds), those of one instance count, type and rate merged."""
    merged: dict[tuple[int, str, float], list[float]] = {}
    for run, seconds in parts:
        if seconds <= 0:
            continue
        for instance_type, count in run.fleet:
            merged.setdefault((count, instance_type, rates[instance_type]), []).append(seconds)
    terms = [Term(count, kind, usd, sum(times), len(times)) for (count, kind, usd), times in merged.items()]
    return Cost(tuple(sorted(terms, key=lambda t: -t.usd)), trials)


def _rest(billing: Billing, record: Mapping[str, Any], runs: tuple[Run, ...], rates: Mapping[str, float], at: int,
          limit: tuple[int | None, int | None, int | None] | None) -> Figure:
    """What the rest of a running job's MaxRuntimeInSeconds would cost (a tuning job: its running trials' and those
    it may still launch, bounded by its own MaxRuntimeInSeconds and parallelism when it sets them)."""
    if not billing.trials:
        run = runs[0]
        if run.runtime is None:
            return Unknown("the job sets no MaxRuntimeInSeconds: what the rest of it would cost has no bound")
        elapsed = max(0, at - run.started) if run.started is not None else 0
        return _sum([(run, max(0, run.runtime - elapsed))], rates, False)
    left, parallel, tuning_runtime = limit or (None, None, None)
    running = [(run, max(0, (run.runtime or TRAINING_RUNTIME) - (max(0, at - run.started) if run.started else 0)))
               for run in runs if run.ended is None]
    listed = definitions(record).values()
    defined = [Run(d.fleet, None, None, d.runtime) for d in listed
               if not isinstance(d.fleet, Unknown)]  # (each definition's instances and MaxRuntimeInSeconds)
    if left is None:
        return Unknown("the tuning job's MaxNumberOfTrainingJobs is not known: the trials it may still launch have "
                       "no bound")
    if left and len(defined) != len(listed):
        return Unknown("a training job definition's instances are not known: the trials it may still launch cannot "
                       "be priced")

    def hourly(run: Run) -> float:
        return sum(rates[t] * n for t, n in run.fleet)

    costliest = max(defined, key=hourly, default=None)
    launched = [(costliest, float(costliest.runtime or 0))] * left if costliest and left else []
    found = _sum(running + launched, rates, True)
    if tuning_runtime and parallel and costliest:
        started = _epoch(record.get(billing.started))
        remaining = max(0, tuning_runtime - (at - started)) if started else tuning_runtime
        if parallel * hourly(costliest) * remaining / HOUR < found.usd:  # its own limits bound it tighter
            return _sum([(Run(costliest.fleet, None, None, None), float(remaining))] * parallel, rates, True)
    return found


def _limit(billing: Billing, record: Mapping[str, Any]) -> tuple[int | None, int | None, int | None]:
    """A tuning job's trials it may still launch, its parallelism and its own MaxRuntimeInSeconds."""
    limits = _at(record, ("HyperParameterTuningJobConfig", "ResourceLimits"))
    limits = limits if isinstance(limits, Mapping) else {}
    counters = record.get("TrainingJobStatusCounters")
    launched = sum(v for v in counters.values() if _whole(v) is not None) if isinstance(counters, Mapping) else None
    most = _whole(limits.get("MaxNumberOfTrainingJobs"))
    left = max(0, most - launched) if most is not None and launched is not None else None
    return left, _whole(limits.get("MaxParallelTrainingJobs")), _whole(limits.get("MaxRuntimeInSeconds")) or None


def _trials(record: Mapping[str, Any], listed: Any) -> tuple[Run, ...] | Unknown:
    """A tuning job's trials as runs: each from its own description (DescribeTrainingJob: its instances, its billed
    time as a training job's), else on its training job definition's instances for its summary's times."""
    if listed is None:
        return Unknown("its trials were not read")
    if isinstance(listed, Unread):
        return Unknown(f"its trials are not known ({listed.reason})")
    known = definitions(record)
    runs = []
    for trial in listed:
        if not isinstance(trial, TrialRun):
            continue
        if trial.record is not None:
            own = _run(TRAINING, trial.record)
            if isinstance(own, Run):
                runs.append(own._replace(started=own.started if own.started is not None else trial.started,
                                         ended=own.ended if own.ended is not None else trial.ended))
                continue
        definition = known.get(trial.definition) or (next(iter(known.values())) if len(known) == 1 else None)
        why = f" ({trial.unread})" if trial.unread else ""
        if definition is None and not known:
            return Unknown(f"trial {trial.name}'s instances are not known: its description was not read{why}, and "
                           "the tuning job's does not say its trials' instances (TrainingJobDefinition)")
        if definition is None:
            return Unknown(f"trial {trial.name} names training job definition {quoted(trial.definition)}, which the "
                           "tuning job does not list")
        if isinstance(definition.fleet, Unknown):
            return definition.fleet
        runs.append(Run(definition.fleet, trial.started, trial.ended, definition.runtime))
    return tuple(runs)


def _spot(run: Run) -> float | None:
    """Managed spot, once the job ended: the share of its training time SageMaker did not bill."""
    if not run.spot or run.ended is None or run.billable is None or run.started is None:
        return None
    trained = run.ended - run.started
    return max(0.0, 1 - run.billable / trained) if trained > 0 else None


def _notes(runs: tuple[Run, ...], running: bool) -> list[str]:
    found = []
    if running and any(run.spot for run in runs):
        found.append("managed spot: its billed time so far counted at on-demand rates until it ends "
                     "(BillableTimeInSeconds then says what was billed)")
    pooled = sum(run.retained or 0 for run in runs if run.ended is not None)
    if pooled:
        found.append(f"warm pool: {span(pooled)} kept after it ended, billed, counted "
                     "(ResourceRetainedBillableTimeInSeconds)")
    return found


# ---------------------------------------------------------------- how messages say it


def money(usd: float) -> str:
    return f"${usd:,.2f}"


def per_hour(usd: float) -> str:
    """$37.688/h, $0.23/h: as precise as the price list, at least to the cent."""
    whole, _, decimals = f"{usd:,.4f}".partition(".")
    return f"${whole}.{decimals.rstrip('0').ljust(2, '0')}/h"


def span(seconds: float) -> str:
    """3 h 12 min, 34 min, less than a minute."""
    minutes = int(seconds // 60)
    if minutes < 1:
        return "less than a minute"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def lines(cost: JobCost | None, stopped: bool) -> list[str]:
    """A message's lines about the job's cost: so far (until the stop, when `stopped`: the job this trigger stopped),
    what the stop saved at most or what the rest of its MaxRuntimeInSeconds would cost, where the rates come from."""
    if cost is None:
        return []
    so_far, rest = cost.so_far, cost.rest
    if isinstance(so_far, Unknown):
        found = [line("Cost", f"unknown ({so_far.reason})")]
    else:
        until = "until the stop" if stopped else ("so far" if cost.running else "in all")
        found = [line("Cost", f"{money(so_far.usd)} {until} ({so_far.inputs()})")]
    label = "Saved" if stopped else "Left to run"
    if isinstance(rest, Cost):
        found.append(line(label, f"at most {money(rest.usd)}: the rest of its MaxRuntimeInSeconds ({rest.inputs()})"))
    elif isinstance(rest, Unknown) and rest != so_far:
        found.append(line(label, f"unknown ({rest.reason})"))
    if cost.spot is not None:
        found.append(line("Managed spot", f"{round(100 * cost.spot)}% of its training time not billed"))
    if cost.source:
        found.append(line("Prices", {"price list": "the AWS Price List (on-demand)",
                                     "configuration": "this stack's prices block"}.get(cost.source, cost.source)
                          + "; storage and data transfer not included"))
    return found + [line("Note", note) for note in cost.notes]


def short(cost: JobCost | None, stopped: bool) -> str:
    """The cost in a text message (kept short: the message stays one part): "; cost $310.05, saved <=$1,499.22"."""
    if cost is None or cost.usd is None:
        return ""
    saved = f", saved <={money(cost.saved_usd)}" if stopped and cost.saved_usd is not None else ""
    return f"; cost {money(cost.usd)}{saved}"


def stop_note(cost: JobCost | None) -> str:
    """What a stop's result says of the job it stopped: " (cost $310.05 until the stop; saved at most $1,499.22)"."""
    if cost is None or cost.usd is None:
        return ""
    saved = f"; saved at most {money(cost.saved_usd)}" if cost.saved_usd is not None else ""
    return f" (cost {money(cost.usd)} until the stop{saved})"


def payload(cost: JobCost | None, stopped: bool) -> dict[str, Any] | None:
    """The json webhook format's `cost` object (docs/destinations.md, "The json payload"); None: nothing to say."""
    if cost is None:
        return None
    so_far, rest = cost.so_far, cost.rest
    return {
        "currency": "USD",
        "usd": cost.usd,
        "until": "stop" if stopped else ("now" if cost.running else "end"),
        "inputs": so_far.inputs() if isinstance(so_far, Cost) else None,
        "saved_usd": cost.saved_usd if stopped else None,
        "rest_usd": cost.saved_usd if cost.running and not stopped else None,
        "rest_inputs": rest.inputs() if isinstance(rest, Cost) else None,
        "spot_unbilled": round(cost.spot, 4) if cost.spot is not None else None,
        "prices": cost.source or None,
        "unknown": so_far.reason if isinstance(so_far, Unknown) else (
            rest.reason if isinstance(rest, Unknown) else None),
    }
