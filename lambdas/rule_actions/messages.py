"""What people read: email subject and body, SMS text, console and log links. Plain text only.

`render(event, trigger, region, taken)` gives one `Message` per trigger: a rule status (what the rule found,
what was done about it) or a job outcome (how the job ended and why, how long it ran, where its logs are).
Job names, rule names, status details and failure reasons come from the event: they are untrusted. They are
rendered as plain text with control characters removed, and every value placed in a link is percent-encoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from rule_actions.contract import RULE_ERROR
from rule_actions.model import JobEvent, JobOutcome, RuleStatus, TestNotification, Trigger

SUBJECT_MAX = 100  # SNS: ASCII, no line breaks, at most 100 characters
SMS_MAX = 140
DETAILS_MAX = 1024
# Control characters, and the bidirectional marks, overrides and isolates that can reorder a line on screen.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
NAME_MAX = 256  # SageMaker allows 63 for a job name, 256 for a rule name: a longer one is a hostile event
TRANSITIONS_SHOWN = 4  # the last secondary status transitions in an outcome's message
FOOTER = "Sent by rule-actions"


@dataclass(frozen=True)
class Message:
    subject: str  # at most 100 printable ASCII characters
    body: str  # plain text, for email
    short: str  # at most 140 printable ASCII characters, for SMS
    links: tuple[tuple[str, str], ...] = ()  # (label, URL), also written at the end of the body


def render(event: JobEvent, trigger: Trigger, region: str, taken: Iterable[Mapping[str, object]] = ()) -> Message:
    """The message about one trigger; `taken` is what was already done for it (its stops)."""
    if isinstance(trigger, TestNotification):
        return test_message(trigger)
    found = links(event, trigger, region)
    if isinstance(trigger, JobOutcome):
        return Message(outcome_subject(event, trigger), outcome_body(event, trigger, region, found),
                       outcome_sms(event, trigger), found)
    return Message(subject(event, trigger), body(event, trigger, region, taken, found), sms(event, trigger, taken), found)


def links(event: JobEvent, trigger: RuleStatus | JobOutcome, region: str) -> tuple[tuple[str, str], ...]:
    """Where to look: the job in the console, and the logs of the job (an outcome) or of the rule's evaluation."""
    found = [("Training job in the console", job_link(region, event.job_name))]
    if isinstance(trigger, JobOutcome):
        found.append(("Training job logs", job_log_link(region, event.job_name)))
    elif rule_log_link(region, trigger.evaluation_job_arn):
        found.append(("Rule evaluation logs", str(rule_log_link(region, trigger.evaluation_job_arn))))
    return tuple(found)


def _link_lines(found: tuple[tuple[str, str], ...]) -> list[str]:
    return [f"{label + ':':<29}{url}" for label, url in found]


def test_message(trigger: TestNotification) -> Message:
    """A test notification: marked as a test in every field, about no job."""
    request = one_line(trigger.request_id, 64)
    return Message(
        subject="[rule-actions] TEST notification: this destination is wired correctly",
        body="\n".join([
            "TEST NOTIFICATION - nothing happened to any training job.",
            "",
            "This message was sent by `rule-actions test-notify` to every destination the stack is configured to",
            "reach (the team, its chat channels, its webhooks), so that you can check the wiring before a real",
            "failure. No training job was stopped and no exactly-once record of a real event was used.",
            "",
            f"Request: {request}",
            "",
            f"{FOOTER} (test notification).",
        ]),
        short=one_line(f"rule-actions TEST notification ({request}): this destination is wired correctly", SMS_MAX),
    )


def plain(text: str, limit: int | None = None, multiline: bool = False) -> str:
    """Untrusted text as plain text: control characters removed (newlines kept only when `multiline`, so a
    name can never start a line of its own), length capped."""
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate (JSON can carry one) becomes "?"
    text = _CONTROL.sub("", text) if multiline else " ".join(_CONTROL.sub("", text).split())
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def one_line(text: str, limit: int | None = None) -> str:
    """Untrusted text on one printable ASCII line."""
    return plain(plain(text).encode("ascii", "replace").decode("ascii"), limit)


def _encoded(value: str) -> str:
    """A value for a link: percent-encoded whole (a lone surrogate, which UTF-8 cannot hold, becomes "?")."""
    return quote(value[:NAME_MAX].encode("utf-8", "replace"), safe="")


def console_domain(region: str) -> str:
    return f"{region}.console.amazonaws.cn" if region.startswith("cn-") else f"{region}.console.aws.amazon.com"


def job_link(region: str, job_name: str) -> str:
    return f"https://{console_domain(region)}/sagemaker/home?region={quote(region)}#/jobs/{_encoded(job_name)}"


def _log_link(region: str, group: str, stream_filter: str) -> str:
    # The console's logsV2 fragment encodes '/' as $252F, '?' as $3F and '=' as $3D.
    fragment = quote(group, safe="").replace("%", "$25") + "$3FlogStreamNameFilter$3D" + _encoded(stream_filter)
    return f"https://{console_domain(region)}/cloudwatch/home?region={quote(region)}#logsV2:log-groups/log-group/{fragment}"


def rule_log_link(region: str, evaluation_job_arn: str) -> str | None:
    """CloudWatch Logs of the rule evaluation (processing) job, from its ARN; None when there is no ARN."""
    name = evaluation_job_arn.rpartition("/")[2] if ":processing-job/" in evaluation_job_arn else ""
    return _log_link(region, "/aws/sagemaker/ProcessingJobs", name) if name else None


def job_log_link(region: str, job_name: str) -> str:
    """CloudWatch Logs of the training job: its streams are named <job>/algo-<n>-<epoch>."""
    return _log_link(region, "/aws/sagemaker/TrainingJobs", job_name)


def _tag(event: JobEvent) -> str:
    """"rule-actions", and in organization mode the name of the account the job ran in (its alias, else its id)."""
    return f"rule-actions {event.account_name}" if event.account_name else "rule-actions"


def _account_lines(event: JobEvent) -> list[str]:
    """Organization mode: the body's line naming the account (its id, and its alias when one is configured)."""
    if not event.account_name:
        return []
    alias = f" ({event.account_name})" if event.account_name != event.account else ""
    return [f"Account:        {plain(event.account, 64)}{alias}"]


def _subject(event: JobEvent, name: str, what: str, job: str) -> str:
    """Names a subject (a rule, or the empty string) and the job within 100 characters: when both are long, each
    keeps at least half the room."""
    head = f"[{_tag(event)}] "
    name, job = one_line(name), one_line(job)
    room = SUBJECT_MAX - len(head) - len(what)
    job = one_line(job, max(room - len(name), room // 2))
    return head + one_line(name, room - len(job)) + what + job


def subject(event: JobEvent, rule: RuleStatus) -> str:
    return _subject(event, rule.name, f" {'rule error' if rule.status == RULE_ERROR else 'issues found'} in ", event.job_name)


def body(event: JobEvent, rule: RuleStatus, region: str, taken: Iterable[Mapping[str, object]],
         found: tuple[tuple[str, str], ...] = ()) -> str:
    """The email body: what happened, what was done, where to look."""
    when = rule.last_modified.isoformat() if rule.last_modified else event.time or "unknown"
    job, name = plain(event.job_name, NAME_MAX), plain(rule.name, NAME_MAX)
    state = plain(event.job_status, 64) + (f" ({plain(event.secondary_status, 64)})" if event.secondary_status else "")
    lines = [
        f"SageMaker Debugger rule {name} reported {plain(rule.status, 64)} for training job {job}.",
        "",
        f"Training job:   {job}",
        *_account_lines(event),
        f"Job status:     {state}",
        f"Rule:           {name} ({rule.family} rule)",
        f"Rule status:    {plain(rule.status, 64)}",
        f"Time:           {plain(when, 64)}",
        f"Region:         {plain(region, 64)}",
        "Status details:",
        "  " + plain(rule.details.strip() or "(none)", DETAILS_MAX, multiline=True).replace("\n", "\n  "),
        "",
        "Actions taken for this rule:",
    ]
    actions = [
        f"  - {a['kind']} {plain(str(a['target']), NAME_MAX)}: {a['outcome']} ({plain(str(a['reason']), 512)})" for a in taken
    ]
    lines += actions or ["  (none besides this message)"]
    lines += ["", *_link_lines(found or links(event, rule, region))]
    lines += ["", f"{FOOTER} for the SageMaker Debugger rule actions attached to this job."]
    return "\n".join(lines)


def sms(event: JobEvent, rule: RuleStatus, taken: Iterable[Mapping[str, object]]) -> str:
    what = "rule error" if rule.status == "Error" else "issues found"
    stopped = [job for a in taken if a["kind"] == "stoptraining" and a["outcome"] == "done" for job in a.get("jobs", [])]
    tail = f"; stopped {', '.join(stopped)}" if stopped else ""
    return one_line(f"{_tag(event)}: {rule.name} {what} in {event.job_name} ({event.job_status}){tail}", SMS_MAX)


# What each job outcome is called in a subject, and said in a body's first line.
OUTCOME_WORDS = {
    "Failed": ("training job failed", "failed"),
    "MaxRuntimeExceeded": ("training job timed out", "was stopped by SageMaker: it reached its maximum run time (MaxRuntimeExceeded)"),
    "MaxWaitTimeExceeded": ("spot training job timed out", "was stopped by SageMaker: it reached its maximum wait time for spot capacity (MaxWaitTimeExceeded)"),
    "Interrupted": ("spot training job interrupted", "lost its spot instances (Interrupted); SageMaker resumes it from its last checkpoint when capacity returns"),
    "Stopped": ("training job stopped", "was stopped (by a person or a tool outside this stack)"),
    "Completed": ("training job completed", "completed"),
}


def outcome_subject(event: JobEvent, outcome: JobOutcome) -> str:
    return _subject(event, "", OUTCOME_WORDS[outcome.outcome][0] + ": ", event.job_name)


def duration(seconds: float) -> str:
    """3725 -> "1 h 2 min 5 s"."""
    seconds = round(seconds)
    parts = [(seconds // 3600, "h"), (seconds % 3600 // 60, "min"), (seconds % 60, "s")]
    shown = [f"{value} {unit}" for value, unit in parts if value]
    return " ".join(shown) or "0 s"


def _stamp(when: datetime | None) -> str:
    return when.isoformat(timespec="seconds") if when else "unknown"


def ran_for(event: JobEvent) -> str | None:
    """How long the job ran (and what was billed), from what the event carries; None when it carries nothing."""
    seconds = event.training_seconds
    if seconds is None and event.started:
        end = event.ended or event.last_modified
        seconds = int((end - event.started).total_seconds()) if end and end >= event.started else None
    if seconds is None:
        return None
    text = duration(seconds)
    billable = event.billable_seconds
    if billable is not None:
        text += f" (billable {duration(billable)}"
        if event.training_seconds and billable < event.training_seconds:
            text += f", {100 - round(100 * billable / event.training_seconds)}% saved by spot capacity"
        text += ")"
    return text


def outcome_body(event: JobEvent, outcome: JobOutcome, region: str, found: tuple[tuple[str, str], ...] = ()) -> str:
    """The email body for a job outcome: what happened and why, how long it ran, the last transitions, links."""
    job = plain(event.job_name, NAME_MAX)
    secondary = plain(event.secondary_status or "", 64)
    state = plain(event.job_status, 64) + (f" ({secondary})" if secondary else "")
    lines = [f"SageMaker training job {job} {OUTCOME_WORDS[outcome.outcome][1]}.", ""]
    if event.failure_reason:
        lines += ["Failure reason:", "  " + plain(event.failure_reason.strip(), DETAILS_MAX, multiline=True).replace("\n", "\n  "), ""]
    lines += [
        f"Training job:   {job}",
        *_account_lines(event),
        f"Outcome:        {outcome.outcome}",
        f"Job status:     {state}",
        f"Region:         {plain(region, 64)}",
        f"Created:        {_stamp(event.created)}",
        f"Started:        {_stamp(event.started)}",
        f"Ended:          {_stamp(event.ended) if event.ended else 'not yet'}",
    ]
    ran = ran_for(event)
    if ran:
        lines.append(f"Ran for:        {ran}")
    if event.transitions:
        lines += ["", "Last status transitions:"]
        for step in event.transitions[-TRANSITIONS_SHOWN:]:
            message = plain(step.message, 256)
            lines.append(f"  - {_stamp(step.start)}  {plain(step.status, 64)}" + (f": {message}" if message else ""))
    lines += [
        "",
        *_link_lines(found or links(event, outcome, region)),
        "",
        f"{FOOTER} for the job outcomes configured in the stack (job_outcomes.{outcome.outcome}).",
    ]
    return "\n".join(lines)


def outcome_sms(event: JobEvent, outcome: JobOutcome) -> str:
    reason = f": {event.failure_reason}" if event.failure_reason else ""
    return one_line(f"{_tag(event)}: {OUTCOME_WORDS[outcome.outcome][0]}: {event.job_name}{reason}", SMS_MAX)
