"""What a monitor rule's judgement can be (`Judgement`): the rule holds (a Finding), does not (Clear), cannot say yet
(Pending), cannot be computed for this job (Skipped), or the job is in a phase it does not judge (NotJudged); each
with a reason a person can act on."""

from __future__ import annotations

from typing import NamedTuple

ISSUES_FOUND = "IssuesFound"


class Finding(NamedTuple):
    """The rule holds: an IssuesFound status of the Monitor family, with a reason a person can act on; `parameters`:
    what its status carries in its RuleParameters besides its mode (a warning's level: contract.WARNING_KEY)."""

    reason: str
    parameters: tuple[tuple[str, str], ...] = ()


class Clear(NamedTuple):
    """The rule does not hold (NoIssuesFound)."""

    reason: str = ""


class Pending(NamedTuple):
    """Not judged in this run: not enough data yet, or what was read is incomplete (the next run tries again)."""

    reason: str


class Skipped(NamedTuple):
    """The rule cannot be computed for this job (a metric it needs is missing, an instance type without GPUs): a
    problem on the job's row, naming what is missing."""

    reason: str


class NotJudged(NamedTuple):
    """The job is in a phase the rule does not judge (uploading its artifacts, waiting for spot capacity, a cluster
    repair), or it opted out: nothing is read and it is never acted on; the reason says which."""

    reason: str


Judgement = Finding | Clear | Pending | Skipped | NotJudged
NOT_STARTED = Pending("training has not started (no SecondaryStatus Training yet)")

