"""release_warm_pool: let go of the warm pool of a training job this stack stopped, once it has Stopped.

A training job with ResourceConfig.KeepAlivePeriodInSeconds keeps its instances after it ends, a stop included,
billed while its warm pool is Available. When a stop kind stops such a job (and `release_warm_pools` is true), it
notes this action on the stop's record; the job's Stopped outcome carries it out: UpdateTrainingJob sets the
keep-alive period to 0, and the instances stop billing. Not when a restart of the same stop made a copy: the copy asks
the same resources and may start on the pool. Never declared by users (no place takes it): a stop asks for it.
"""

from __future__ import annotations

from typing import Any

from rule_actions.contract import Outcome
from rule_actions.kinds.base import POOL, RELEASE, RELEASE_WARM_POOLS, Kind, warm_pool
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import Action, Capability, Done, JobEffect, JobEvent, NothingDone, Planned
from rule_actions.text import duration

RESOURCE_CLAUSE = {"ResourceConfig": {"KeepAlivePeriodInSeconds": [{"numeric": [">", 0]}]}}


class ReleaseKind(Kind):
    name = RELEASE
    places = frozenset()  # asked by a stop (kinds/base.py record_stop), never declared
    effect = JobEffect.RELEASE
    fields = (RELEASE_WARM_POOLS,)

    @property
    def rank(self) -> int:
        return 2  # after a restart of the same stop: a copy may reuse the pool

    def targets(self, action: Action, event: JobEvent, config: Configured) -> tuple[str, ...]:
        return (POOL,)

    def preview(self, item: Planned) -> str:
        return "would release its warm pool"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        event = occasion.event
        copies = [job for r in occasion.stops if r.planned.effect == JobEffect.RESTART for job in r.jobs or ()]
        if copies:
            return NothingDone(Outcome.SKIPPED, f"its warm pool is kept for {copies[0]}, the restart's copy, which asks "
                                                "the same resources and may start on it")
        ports.jobs.release(event.job_family.api, event.job_name)
        keep = warm_pool(event, event.job_name)
        kept = f" (kept {duration(keep)} after the job ended)" if keep else ""
        return Done(f"released its warm pool{kept}: KeepAlivePeriodInSeconds is 0, its instances stop billing", ())

    def _stops(self, config: Configured) -> bool:
        """The configuration may stop training jobs (as the stop kinds grant stopping)."""
        return config.reads_action_json or any(d.action.kind in ("stoptraining", "stop") for d in config.declared)

    def follows_stops(self, config: Configured) -> dict[str, Any] | None:
        return dict(RESOURCE_CLAUSE) if config[RELEASE_WARM_POOLS] and self._stops(config) else None

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        return frozenset({Capability.UPDATE}) if self.follows_stops(config) is not None else frozenset()


KIND = ReleaseKind()
