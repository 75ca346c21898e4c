"""What chat channels and webhooks receive: a trigger's message and facts, in each format. Pure.

    chat          Amazon Q Developer in chat applications' custom notification (version 1.0, client-markdown,
                  one thread per job); published to the chat topic and, as the `https` body, with every team
                  message
    slack         Slack incoming webhooks: `text` and Block Kit `blocks`
    teams         Teams workflows: the message envelope around one Adaptive Card
    json          ours, versioned (JSON_VERSION; docs/destinations.md, "The json payload", documents every field; `job.family`,
                  `job.details`, `trigger.watch` and `cost` were added to version 1, as it allows)

The words come from the trigger family (its Message and its TriggerFacts); untrusted names and reasons arrive as
plain text (control characters removed, capped). Where a format parses markup they are placed where it does
not: Slack `plain_text` objects, Adaptive Card `TextRun`s (never markdown), and in chat markdown a code block
with its backticks and angle brackets replaced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rule_actions import cost as costs
from rule_actions.cost import JobCost
from rule_actions.records import JobEvent, Message, Result, Trigger, TriggerFacts
from rule_actions.text import DETAILS_MAX, NAME_MAX, SMS_MAX, SUBJECT_MAX, cap, digest, plain

JSON_VERSION = "1"
SLACK_HEADER_MAX, SLACK_TEXT_MAX = 150, 3000  # Block Kit limits of a header and of a section's text
CHAT_DESCRIPTION_MAX = 3000
ARN_MAX = 2048
# The json payload's bounds (docs/destinations.md, "Bounds"): whatever an event or a described job holds (a 100 KB
# ExitMessage, a hostile reason), no text field of the body is longer than these.
TEXT_MAX = DETAILS_MAX  # a reason, a detail (an exit message, a step's cause), an action's target and reason, a label
BODY_MAX = 8192  # message.text, the notification's body
URL_MAX = 4096  # a link
TEST_THREAD = "rule-actions-test"


def _text(message: Message) -> str:
    """The body without its link lines (each format shows the links its own way)."""
    urls = tuple(url for _, url in message.links)
    return "\n".join(line for line in message.body.splitlines() if not (urls and line.endswith(urls))).strip()


def thread_id(event: JobEvent, facts: TriggerFacts) -> str:
    """One chat thread per job (tests have their own)."""
    return "rule-actions-" + digest(event.job_arn)[:24] if facts.about_job else TEST_THREAD


def _literal_markdown(text: str) -> str:
    """Text shown literally in a markdown code block, whatever it holds: no backtick can close the block and no
    angle bracket can start a link or a mention."""
    return text.replace("`", "'").replace("<", "\u2039").replace(">", "\u203a")


def _label(trigger: Trigger, facts: TriggerFacts) -> str:
    return plain(trigger.label, NAME_MAX) if facts.about_job else trigger.label


def chat(message: Message, event: JobEvent, trigger: Trigger, facts: TriggerFacts, region: str) -> dict[str, Any]:
    """The custom notification Amazon Q Developer renders in Slack and Teams (anything else it drops silently)."""
    return {
        "version": "1.0",
        "source": "custom",
        "id": thread_id(event, facts) + "-" + digest(trigger.label)[:8],
        "content": {
            "textType": "client-markdown",
            "title": f"{facts.mark} {_literal_markdown(message.subject)}",
            "description": "```\n" + cap(_literal_markdown(_text(message)), CHAT_DESCRIPTION_MAX - 8) + "\n```",
            "nextSteps": [f"{label}: {url}" for label, url in message.links]
            or ([] if facts.about_job else ["Nothing to do: this is a test of the wiring."]),
            "keywords": ["rule-actions", *facts.keywords],
        },
        "metadata": {
            "threadId": thread_id(event, facts),
            "summary": _literal_markdown(message.short),
            "eventType": f"rule-actions:{trigger.metric}",
            "relatedResources": [plain(event.job_arn, ARN_MAX)] if facts.about_job else [],
            "additionalContext": {"trigger": _label(trigger, facts), "region": plain(region, 64),
                                  **({"job_family": event.family.name} if event.family else {})},
        },
    }


def slack(message: Message) -> dict[str, Any]:
    """An incoming-webhook message: `text` (the notification's fallback) and blocks; untrusted text only in
    plain_text objects, which Slack never parses for links, mentions or formatting."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": cap(message.subject, SLACK_HEADER_MAX), "emoji": False}},
        {"type": "section", "text": {"type": "plain_text", "text": cap(_text(message), SLACK_TEXT_MAX), "emoji": False}},
    ]
    if message.links:
        blocks.append({"type": "actions", "elements": [
            {"type": "button", "action_id": f"rule-actions-link-{index}", "url": url,
             "text": {"type": "plain_text", "text": cap(label, 75), "emoji": False}}
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
            {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": cap(message.subject, SUBJECT_MAX), "weight": "Bolder",
                                                   "size": "Medium"}]},
            {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": cap(_text(message), BODY_MAX)}]},
        ],
    }
    if message.links:
        card["actions"] = [{"type": "Action.OpenUrl", "title": cap(label, NAME_MAX), "url": cap(url, URL_MAX)}
                           for label, url in message.links]
    return {"type": "message", "attachments": [
        {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}]}


def json_payload(message: Message, event: JobEvent, trigger: Trigger, facts: TriggerFacts, region: str,
                 stops: Iterable[Result], delivery: str, cost: JobCost | None = None) -> dict[str, Any]:
    """Our own format, version JSON_VERSION: every field is documented in docs/destinations.md ("The json payload")."""
    family = event.family
    stops = list(stops)
    job = None if not facts.about_job else {
        "name": plain(event.job_name, NAME_MAX), "arn": plain(event.job_arn, ARN_MAX),
        "status": plain(event.job_status, 64),
        "secondary_status": plain(event.secondary_status, 64) if event.secondary_status else None,
        "account": plain(event.account, 64), "region": plain(region, 64),
        "family": family.name if family else None,
        "details": _bounded(family.json_details(event)) if family else None,
    }
    return {
        "version": JSON_VERSION,
        "source": "rule-actions",
        "id": delivery,
        "test": not facts.about_job,
        "time": plain(event.time, 64) or None,
        "trigger": _bounded({"label": _label(trigger, facts), "type": facts.type, **facts.fields,
                             "watch": facts.watch, "warning": facts.warning}, NAME_MAX),
        "job": job,
        "reason": _bounded(facts.reason),
        "message": {"subject": cap(message.subject, SUBJECT_MAX), "text": cap(_text(message), BODY_MAX),
                    "short": cap(message.short, SMS_MAX)},
        "actions_taken": [_bounded({key: action.get(key) for key in ("kind", "target", "outcome", "reason")})
                          for action in (result.as_dict() for result in stops)],
        "links": [{"label": cap(label, NAME_MAX), "url": cap(url, URL_MAX)} for label, url in message.links],
        "cost": _bounded(costs.payload(cost, any(event.job_name in r.stopped for r in stops)))
        if facts.about_job else None,
    }


def _bounded(value: Any, limit: int = TEXT_MAX) -> Any:
    """`value` with every string in it cut to `limit` (the payload's own structures: a few levels deep)."""
    if isinstance(value, str):
        return cap(value, limit)
    if isinstance(value, dict):
        return {key: _bounded(item, limit) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_bounded(item, limit) for item in value]
    return value


def webhook_body(fmt: str, message: Message, event: JobEvent, trigger: Trigger, facts: TriggerFacts, region: str,
                 stops: Iterable[Result], delivery: str, cost: JobCost | None = None) -> bytes:
    """The raw body of a webhook request in `fmt` (slack, teams, json): compact JSON, UTF-8."""
    if fmt == "slack":
        payload = slack(message)
    elif fmt == "teams":
        payload = teams(message)
    else:
        payload = json_payload(message, event, trigger, facts, region, stops, delivery, cost)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
