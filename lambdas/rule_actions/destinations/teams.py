"""teams: the envelope a Teams workflow ("When a Teams webhook request is received") posts: one Adaptive Card whose
text is in TextRuns (rendered as written, never as markdown)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions.destinations.base import BODY_MAX, Destination
from rule_actions.ports import Occasion
from rule_actions.records import Message
from rule_actions.text import NAME_MAX, SUBJECT_MAX, URL_MAX, cap


def teams(message: Message) -> dict[str, Any]:
    """The workflow's message: one Adaptive Card 1.4, its subject and text in TextRuns, its links as buttons."""
    card: dict[str, Any] = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [
            {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": cap(message.subject, SUBJECT_MAX), "weight": "Bolder",
                                                   "size": "Medium"}]},
            {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": cap(message.text, BODY_MAX)}]},
        ],
    }
    if message.links:
        card["actions"] = [{"type": "Action.OpenUrl", "title": cap(label, NAME_MAX), "url": cap(url, URL_MAX)}
                           for label, url in message.links]
    return {"type": "message", "attachments": [
        {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}]}


class Teams(Destination):
    name = "teams"
    doc = "workflows"

    def payload(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> dict[str, Any]:
        return teams(occasion.message)

    def describe(self, body: Any) -> str | None:
        if not (isinstance(body, dict) and body.get("type") == "message"):
            return None
        return f"teams  {body['attachments'][0]['content']['body'][0]['inlines'][0]['text']}"


DESTINATION = Teams()
