"""Budget: a job's cost passes its budget. The cost is what cost.py computes (what AWS bills: its instances' price x
count x billed time so far, a spot interruption's wait and a cluster repair not counted; a tuning job's trials
summed, each from its own description, so its budget covers all of them), at every run. The budget is the job's own (the
tag rule-actions:Budget:parameters, `usd=400 warn_at=0.5/0.8`), else the configuration's (monitor.rules.Budget:
`usd` for every job it judges, or `by_prefix`: job name prefix -> budget, the longest prefix of the job's name
winning). Each of the `warn_at` fractions passed is a warning (its stops skipped: the messages say it), once per job
and fraction; at 100 % the finding acts (the rule's actions: a stop too).

Only while the job is billed: a training job waiting for capacity (Pending, a spot interruption and the wait and
relaunch after it: cost.WAITING) or in a cluster repair (Restarting) is NotJudged, saying so (a row shows it once per
wait), and judged again when it runs; before it starts on its instances (no TrainingStartTime) nothing is billed,
and it is NotJudged too. A tuning job's trial is NotJudged by default (`trials` tuning_job: its tuning job's budget
covers it, and its tags are its tuning job's, so the same budget would otherwise stop each trial); with `trials`
each, each trial is judged against its own budget, and a stop stops that trial only.

Never a made-up figure: a job whose cost is unknown (a price the Price List does not give, a read that failed) is
"unknown price, not judged" on its row (Skipped), and a job no budget covers is NotJudged, saying so. A budget rule
the configuration turns on while no price can be known (prices.price_list false and no rates) is refused at synth.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.contract import PHASES, TRAINING_PHASES, WARNING_KEY, Offer
from rule_actions.cost import PRICES, UNBILLED, WAITING, Cost, Unknown, money
from rule_actions.monitors.job import JUDGED, TRAINING, RunningJob
from rule_actions.monitors.params import Param
from rule_actions.monitors.rule import Data, Monitor, Reads
from rule_actions.monitors.series import pct
from rule_actions.monitors.verdicts import Clear, Finding, Judgement, NotJudged, Pending, Skipped
from rule_actions.text import arn_name

USD_MAX = 10_000_000.0


class Budget(Monitor):
    name = "Budget"
    summary = ("A job's cost passes its budget (`usd`, or `by_prefix`): a warning at each of the `warn_at` fractions "
               "passed (notify only), then the rule acts at 100% (a tuning job's budget covers all its trials).")
    needs = frozenset({Offer.COST})
    # Every phase a running training job is billed in and may be stopped in (never one waiting for capacity or in a
    # cluster repair: cost.UNBILLED; never one uploading its model: its family refuses the stop), and the other
    # families' InProgress.
    phases = ("PreparingTrainingStack", "Downloading", "DownloadingTrainingImage", *TRAINING_PHASES, JUDGED)
    metrics = False
    prices = True
    params = (
        Param("usd", None, "The job's budget in US dollars (a tag sets its own job's; in the configuration, the "
              "budget of every job it judges)", 0, USD_MAX, "USD", positive=True),
        Param("warn_at", (0.8,), "The fractions of the budget at which to warn (notify only), each once per job",
              fractions=True),
        Param("by_prefix", {}, "Job name prefix -> its jobs' budget in US dollars (the longest prefix of a job's "
              "name wins); not with `usd`", 0, USD_MAX, "USD", prefixes=True),
        Param("trials", "tuning_job", "A tuning job's trials: tuning_job (its tuning job's budget covers them, "
              "summed; a trial is not judged) or each (each trial is judged against its own budget too, and a stop "
              "stops that trial)", choices=("tuning_job", "each")),
    )

    def check_config(self, params: Mapping[str, Any], config: Any, where: str) -> list[str]:
        found = []
        if params.get("usd") is not None and params.get("by_prefix"):
            found.append(f"{where}: sets both usd and by_prefix; set usd for every job the rule judges, or by_prefix "
                         "for the jobs under each prefix (a job's own tag sets its usd over either)")
        if not config[PRICES].known:
            found.append(f"{where}: a budget needs the jobs' prices, and none can be known: prices.price_list is "
                         "false and prices gives no rates (usd_per_hour, regions). Turn price_list on, or give the "
                         "rates of your instance types")
        return found

    def outside(self, job: RunningJob, words: str) -> NotJudged | None:
        """A job waiting for capacity, or in a cluster repair: nothing is billed meanwhile; said once per wait."""
        if job.secondary in WAITING:
            return NotJudged(f"not judged: waiting for capacity ({words}): nothing is billed meanwhile; judged again "
                             "when it runs")
        if job.secondary in UNBILLED:
            return NotJudged(f"not judged: {words}: not billed meanwhile; judged again when it runs")
        return None

    def reads(self, job: RunningJob, p: Mapping[str, Any], now: int) -> Reads | Clear | Pending | Skipped | NotJudged:
        if job.family == TRAINING and ":hyper-parameter-tuning-job/" in job.parent and p["trials"] != "each":
            return NotJudged(f"a trial of tuning job {arn_name(job.parent)}: its tuning job's budget covers its "
                             "trials (Budget trials=each judges each trial on its own)")
        budget = budget_of(job.name, p)
        if budget is None:
            return NotJudged(f"no budget for this job: set usd in the tag rule-actions:{self.name}:parameters "
                             f"(usd=<dollars>), or monitor.rules.{self.name}.usd or by_prefix")
        if job.family == TRAINING and job.billed_from is None:
            words = PHASES.get(job.secondary, job.secondary or "in an unknown phase")
            return NotJudged(f"not judged: not started on its instances yet ({words}; no TrainingStartTime): nothing "
                             "is billed meanwhile; judged again when it runs")
        return Reads(cost=True)

    def judge(self, job: RunningJob, p: Mapping[str, Any], now: int, data: Data) -> Judgement | Reads:
        cost, budget = data.cost, budget_of(job.name, p)
        if cost is None or not isinstance(cost.so_far, Cost) or budget is None:
            reason = cost.so_far.reason if cost is not None and isinstance(cost.so_far, Unknown) else \
                "its cost was not computed"
            return Skipped(f"unknown price, not judged: {reason}")
        spent = cost.so_far.usd
        share = spent / budget
        words = (f"its cost {money(spent)} is {pct(share * 100)} of its budget {money(budget)} "
                 f"({cost.so_far.inputs()})")
        if share >= 1:
            return Finding(f"its cost {money(spent)} passed its budget {money(budget)} ({pct(share * 100)}; "
                           f"{cost.so_far.inputs()})")
        passed = [level for level in p["warn_at"] if share >= level]
        if passed:
            level = max(passed)
            return Finding(f"its cost {money(spent)} passed {pct(level * 100)} of its budget {money(budget)} "
                           f"({pct(share * 100)}; {cost.so_far.inputs()}): a warning, nothing is stopped",
                           ((WARNING_KEY, f"{level:g}"),))
        return Clear(words)


def budget_of(job_name: str, p: Mapping[str, Any]) -> float | None:
    """The job's budget: `usd` (its tag's over the configuration's), else the longest of `by_prefix` its name starts
    with; None when none covers it."""
    usd: float | None = p.get("usd")
    if usd is not None:
        return usd
    by_prefix: Mapping[str, float] = p.get("by_prefix", {})
    prefixes = [prefix for prefix in by_prefix if job_name.startswith(prefix)]
    return by_prefix[max(prefixes, key=len)] if prefixes else None


MONITOR = Budget()
