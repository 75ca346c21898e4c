"""FailedTrials: a tuning job's failed training jobs, each with its own FailureReason (one
ListTrainingJobsForHyperParameterTuningJob call, at most `limit` of them: bounded whatever the number of trials)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import FailedTrials


class FailedTrialsReader(Reader[FailedTrials]):
    need = FailedTrials

    def read(self, need: FailedTrials, ports: Ports) -> object:
        return tuple(ports.jobs.failed_trials(need.tuning_job_name, need.limit))

    def failure(self, need: FailedTrials) -> str:
        return "ListTrainingJobsForHyperParameterTuningJob failed"


READER = FailedTrialsReader()
