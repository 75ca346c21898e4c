"""slack: Slack incoming webhooks, `text` and Block Kit `blocks`; untrusted text only in plain_text objects, which
Slack never parses for links, mentions or formatting."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.destinations.base import Destination
from rule_actions.ports import Occasion
from rule_actions.records import Message
from rule_actions.text import cap

SLACK_HEADER_MAX, SLACK_TEXT_MAX = 150, 3000  # Block Kit limits of a header and of a section's text


def slack(message: Message) -> dict[str, Any]:
    """An incoming-webhook message: `text` (the notification's fallback) and blocks."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": cap(message.subject, SLACK_HEADER_MAX), "emoji": False}},
        {"type": "section", "text": {"type": "plain_text", "text": cap(message.text, SLACK_TEXT_MAX), "emoji": False}},
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


class Slack(Destination):
    name = "slack"
    doc = "incoming webhooks"

    def payload(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> dict[str, Any]:
        return slack(occasion.message)

    def describe(self, body: Any) -> str | None:
        return f"slack  {body.get('text')}" if isinstance(body, dict) and "blocks" in body else None


DESTINATION = Slack()
