"""TrialRuns: every trial a tuning job launched, with when each trained (ListTrainingJobsForHyperParameterTuningJob,
every page): what a tuning job's cost sums (cost.py)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import TrialRuns


class TrialRunsReader(Reader[TrialRuns]):
    need = TrialRuns

    def read(self, need: TrialRuns, ports: Ports) -> object:
        return tuple(ports.jobs.trial_runs(need.tuning_job_name))

    def failure(self, need: TrialRuns) -> str:
        return "ListTrainingJobsForHyperParameterTuningJob failed"


READER = TrialRunsReader()
