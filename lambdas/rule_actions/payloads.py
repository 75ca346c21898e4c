"""What chat channels and webhooks receive: the email's `Message` and the event's facts, in each format. Pure.

    chat          Amazon Q Developer in chat applications' custom notification (version 1.0, client-markdown,
                  one thread per training job); published to the chat topic and, as the `https` body, with
                  every team message
    slack         Slack incoming webhooks: `text` and Block Kit `blocks`
    teams         Teams workflows: the message envelope around one Adaptive Card
    json          ours, versioned (JSON_VERSION; README "Webhooks" documents every field)

Untrusted names and reasons arrive as messages.py renders them (plain text, control characters removed, capped).
Where a format parses markup they are placed where it does not: Slack `plain_text` objects, Adaptive Card
`TextRun`s (never markdown), and in chat markdown a code block with its backticks and angle brackets replaced.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from rule_actions.messages import DETAILS_MAX, NAME_MAX, Message, plain
from rule_actions.model import JobEvent, JobOutcome, RuleStatus, TestNotification, Trigger

JSON_VERSION = "1"
SLACK_HEADER_MAX, SLACK_TEXT_MAX = 150, 3000  # Block Kit limits of a header and of a section's text
CHAT_DESCRIPTION_MAX = 3000
ARN_MAX = 2048
TITLE_MARKS = {"Failed": "\u274c", "MaxRuntimeExceeded": "\u23f1\ufe0f", "MaxWaitTimeExceeded": "\u23f1\ufe0f",
               "Interrupted": "\u26a0\ufe0f", "Stopped": "\U0001f6d1", "Completed": "\u2705", "rule": "\u26a0\ufe0f",
               "test": "\U0001f9ea"}


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(message: Message) -> str:
    """The body without its link lines (each format shows the links its own way)."""
    urls = tuple(url for _, url in message.links)
    return "\n".join(line for line in message.body.splitlines() if not (urls and line.endswith(urls))).strip()


def _mark(trigger: Trigger) -> str:
    if isinstance(trigger, JobOutcome):
        return TITLE_MARKS[trigger.outcome]
    return TITLE_MARKS["test" if isinstance(trigger, TestNotification) else "rule"]


def thread_id(event: JobEvent, trigger: Trigger) -> str:
    """One chat thread per training job (tests have their own)."""
    if isinstance(trigger, TestNotification):
        return "rule-actions-test"
    return "rule-actions-" + digest(event.job_arn)[:24]


def digest(text: str) -> str:
    """sha256 hex of untrusted text (a lone surrogate, which JSON can carry, is digested as is)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _literal_markdown(text: str) -> str:
    """Text shown literally in a markdown code block, whatever it holds: no backtick can close the block and no
    angle bracket can start a link or a mention."""
    return text.replace("`", "'").replace("<", "\u2039").replace(">", "\u203a")


def chat(message: Message, event: JobEvent, trigger: Trigger, region: str) -> dict[str, Any]:
    """The custom notification Amazon Q Developer renders in Slack and Teams (anything else it drops silently)."""
    keywords = ["rule-actions", *_facts(trigger)["keywords"]]
    return {
        "version": "1.0",
        "source": "custom",
        "id": thread_id(event, trigger) + "-" + digest(trigger.label)[:8],
        "content": {
            "textType": "client-markdown",
            "title": f"{_mark(trigger)} {_literal_markdown(message.subject)}",
            "description": "```\n" + _cap(_literal_markdown(_text(message)), CHAT_DESCRIPTION_MAX - 8) + "\n```",
            "nextSteps": [f"{label}: {url}" for label, url in message.links]
            or ["Nothing to do: this is a test of the wiring."],
            "keywords": keywords,
        },
        "metadata": {
            "threadId": thread_id(event, trigger),
            "summary": _literal_markdown(message.short),
            "eventType": f"rule-actions:{trigger.metric}",
            "relatedResources": [] if isinstance(trigger, TestNotification) else [plain(event.job_arn, ARN_MAX)],
            "additionalContext": {"trigger": trigger.label if isinstance(trigger, TestNotification)
                                  else plain(trigger.label, NAME_MAX), "region": plain(region, 64)},
        },
    }


def slack(message: Message) -> dict[str, Any]:
    """An incoming-webhook message: `text` (the notification's fallback) and blocks; untrusted text only in
    plain_text objects, which Slack never parses for links, mentions or formatting."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _cap(message.subject, SLACK_HEADER_MAX), "emoji": False}},
        {"type": "section", "text": {"type": "plain_text", "text": _cap(_text(message), SLACK_TEXT_MAX), "emoji": False}},
    ]
    if message.links:
        blocks.append({"type": "actions", "elements": [
            {"type": "button", "action_id": f"rule-actions-link-{index}", "url": url,
             "text": {"type": "plain_text", "text": _cap(label, 75), "emoji": False}}
            for index, (label, url) in enumerate(message.links)
        ]})
    # mrkdwn in `text`: &, < and > escaped as Slack requires, so nothing in a name becomes a link or a mention.
    fallback = message.subject.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return {"text": fallback, "blocks": blocks}


def teams(message: Message) -> dict[str, Any]:
    """The envelope a Teams workflow ("When a Teams webhook request is received") posts: one Adaptive Card whose
    text is in TextRuns (rendered as written, never as markdown)."""
    card: dict[str, Any] = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [
            {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": message.subject, "weight": "Bolder",
                                                   "size": "Medium"}]},
            {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": _text(message)}]},
        ],
    }
    if message.links:
        card["actions"] = [{"type": "Action.OpenUrl", "title": label, "url": url} for label, url in message.links]
    return {"type": "message", "attachments": [
        {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}]}


def json_payload(message: Message, event: JobEvent, trigger: Trigger, region: str,
                 taken: Iterable[Mapping[str, Any]], delivery: str) -> dict[str, Any]:
    """Our own format, version JSON_VERSION: every field is documented in the README ("Webhooks")."""
    test = isinstance(trigger, TestNotification)
    job = None if test else {
        "name": plain(event.job_name, NAME_MAX), "arn": plain(event.job_arn, ARN_MAX),
        "status": plain(event.job_status, 64),
        "secondary_status": plain(event.secondary_status, 64) if event.secondary_status else None,
        "account": plain(event.account, 64), "region": plain(region, 64),
    }
    facts = _facts(trigger)
    return {
        "version": JSON_VERSION,
        "source": "rule-actions",
        "id": delivery,
        "test": test,
        "time": plain(event.time, 64) or None,
        "trigger": {"label": trigger.label if test else plain(trigger.label, NAME_MAX), **facts["trigger"]},
        "job": job,
        "reason": _reason(event, trigger),
        "message": {"subject": message.subject, "text": _text(message), "short": message.short},
        "actions_taken": [{key: action.get(key) for key in ("kind", "target", "outcome", "reason")} for action in taken],
        "links": [{"label": label, "url": url} for label, url in message.links],
    }


def webhook_body(fmt: str, message: Message, event: JobEvent, trigger: Trigger, region: str,
                 taken: Iterable[Mapping[str, Any]], delivery: str) -> bytes:
    """The raw body of a webhook request in `fmt` (slack, teams, json): compact JSON, UTF-8."""
    if fmt == "slack":
        payload = slack(message)
    elif fmt == "teams":
        payload = teams(message)
    else:
        payload = json_payload(message, event, trigger, region, taken, delivery)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _facts(trigger: Trigger) -> dict[str, Any]:
    """The trigger's type and values for the json payload, and its keywords for chat (a bounded vocabulary)."""
    if isinstance(trigger, JobOutcome):
        return {"trigger": {"type": "job_outcome", "outcome": trigger.outcome, "rule": None, "rule_family": None,
                            "rule_status": None}, "keywords": [trigger.outcome]}
    if isinstance(trigger, RuleStatus):
        status = plain(trigger.status, 64)
        return {"trigger": {"type": "rule_status", "outcome": None, "rule": plain(trigger.name, NAME_MAX),
                            "rule_family": trigger.family, "rule_status": status},
                "keywords": [f"{trigger.family} rule", "IssuesFound" if status == "IssuesFound" else "rule error"]}
    return {"trigger": {"type": "test", "outcome": None, "rule": None, "rule_family": None, "rule_status": None},
            "keywords": ["test"]}


def _reason(event: JobEvent, trigger: Trigger) -> str | None:
    """Why: the rule's status details, or the job's failure reason (plain text, capped)."""
    if isinstance(trigger, RuleStatus):
        return plain(trigger.details.strip(), DETAILS_MAX, multiline=True) or None
    if isinstance(trigger, JobOutcome):
        return plain(event.failure_reason.strip(), DETAILS_MAX, multiline=True) or None
    return None
