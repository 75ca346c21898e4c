"""What people read: email subject and body, SMS text, console and log links. Plain text only.

Job names, rule names and status details come from the event: they are untrusted. They are rendered as
plain text with control characters removed, and every value placed in a link is percent-encoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote

from rule_actions.model import JobEvent, RuleStatus

SUBJECT_MAX = 100  # SNS: ASCII, no line breaks, at most 100 characters
SMS_MAX = 140
DETAILS_MAX = 1024
# Control characters, and the bidirectional marks, overrides and isolates that can reorder a line on screen.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
NAME_MAX = 256  # SageMaker allows 63 for a job name, 256 for a rule name: a longer one is a hostile event


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


def rule_log_link(region: str, evaluation_job_arn: str) -> str | None:
    """CloudWatch Logs of the rule evaluation (processing) job, from its ARN; None when there is no ARN."""
    name = evaluation_job_arn.rpartition("/")[2] if ":processing-job/" in evaluation_job_arn else ""
    if not name:
        return None
    # The console's logsV2 fragment encodes '/' as $252F, '?' as $3F and '=' as $3D.
    fragment = "$252Faws$252Fsagemaker$252FProcessingJobs$3FlogStreamNameFilter$3D" + _encoded(name)
    return f"https://{console_domain(region)}/cloudwatch/home?region={quote(region)}#logsV2:log-groups/log-group/{fragment}"


def subject(event: JobEvent, rule: RuleStatus) -> str:
    """Names rule and job within 100 characters: when both are long, each keeps at least half the room."""
    head, what = "[rule-actions] ", f" {'rule error' if rule.status == 'Error' else 'issues found'} in "
    name, job = one_line(rule.name), one_line(event.job_name)
    room = SUBJECT_MAX - len(head) - len(what)
    job = one_line(job, max(room - len(name), room // 2))
    return head + one_line(name, room - len(job)) + what + job


def body(event: JobEvent, rule: RuleStatus, region: str, taken: Iterable[Mapping[str, object]]) -> str:
    """The email body: what happened, what was done, where to look."""
    when = rule.last_modified.isoformat() if rule.last_modified else event.time or "unknown"
    job, name = plain(event.job_name, NAME_MAX), plain(rule.name, NAME_MAX)
    state = plain(event.job_status, 64) + (f" ({plain(event.secondary_status, 64)})" if event.secondary_status else "")
    lines = [
        f"SageMaker Debugger rule {name} reported {plain(rule.status, 64)} for training job {job}.",
        "",
        f"Training job:   {job}",
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
    lines += ["", f"Training job in the console: {job_link(region, event.job_name)}"]
    log_link = rule_log_link(region, rule.evaluation_job_arn)
    if log_link:
        lines.append(f"Rule evaluation logs:        {log_link}")
    lines += ["", "Sent by rule-actions for the SageMaker Debugger rule actions attached to this job."]
    return "\n".join(lines)


def sms(event: JobEvent, rule: RuleStatus, taken: Iterable[Mapping[str, object]]) -> str:
    what = "rule error" if rule.status == "Error" else "issues found"
    stopped = [job for a in taken if a["kind"] == "stoptraining" and a["outcome"] == "done" for job in a.get("jobs", [])]
    tail = f"; stopped {', '.join(stopped)}" if stopped else ""
    return one_line(f"rule-actions: {rule.name} {what} in {event.job_name} ({event.job_status}){tail}", SMS_MAX)
