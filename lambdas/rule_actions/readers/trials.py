"""TuningTrials: a tuning job's latest trials, whatever their status, newest first (one
ListTrainingJobsForHyperParameterTuningJob call, at most `limit`: bounded whatever the number of trials), for the
monitor rules about a tuning job as a whole."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import TuningTrials


class TrialsReader(Reader[TuningTrials]):
    need = TuningTrials

    def read(self, need: TuningTrials, ports: Ports) -> object:
        return tuple(ports.jobs.trials(need.tuning_job_name, need.limit))

    def failure(self, need: TuningTrials) -> str:
        return "ListTrainingJobsForHyperParameterTuningJob failed"


READER = TrialsReader()
