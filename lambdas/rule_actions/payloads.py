"""What chat channels receive: a trigger's message and facts as Amazon Q Developer in chat applications' custom
notification (version 1.0, client-markdown, one thread per job); published to the chat topic and, as the `https`
body, with every team message. Pure.

(What webhooks receive is each destination's: destinations/, one module per `format`.)

The words come from the trigger family (its Message and its TriggerFacts); untrusted names and reasons arrive as
plain text (control characters removed, capped). Chat markdown is parsed: they are placed in a code block with its
backticks and angle brackets replaced.
"""

from __future__ import annotations

from typing import Any

from rule_actions.records import JobEvent, Message, Trigger, TriggerFacts
from rule_actions.text import ARN_MAX, NAME_MAX, cap, digest, plain

CHAT_DESCRIPTION_MAX = 3000
TEST_THREAD = "rule-actions-test"


def thread_id(event: JobEvent, facts: TriggerFacts) -> str:
    """One chat thread per job (tests have their own)."""
    return "rule-actions-" + digest(event.job_arn)[:24] if facts.about_job else TEST_THREAD


def _literal_markdown(text: str) -> str:
    """Text shown literally in a markdown code block, whatever it holds: no backtick can close the block and no
    angle bracket can start a link or a mention."""
    return text.replace("`", "'").replace("<", "\u2039").replace(">", "\u203a")


def chat(message: Message, event: JobEvent, trigger: Trigger, facts: TriggerFacts, region: str) -> dict[str, Any]:
    """The custom notification Amazon Q Developer renders in Slack and Teams (anything else it drops silently)."""
    return {
        "version": "1.0",
        "source": "custom",
        "id": thread_id(event, facts) + "-" + digest(trigger.label)[:8],
        "content": {
            "textType": "client-markdown",
            "title": f"{facts.mark} {_literal_markdown(message.subject)}",
            "description": "```\n" + cap(_literal_markdown(message.text), CHAT_DESCRIPTION_MAX - 8) + "\n```",
            "nextSteps": [f"{label}: {url}" for label, url in message.links]
            or ([] if facts.about_job else ["Nothing to do: this is a test of the wiring."]),
            "keywords": ["rule-actions", *facts.keywords],
        },
        "metadata": {
            "threadId": thread_id(event, facts),
            "summary": _literal_markdown(message.short),
            "eventType": f"rule-actions:{trigger.metric}",
            "relatedResources": [plain(event.job_arn, ARN_MAX)] if facts.about_job else [],
            "additionalContext": {"trigger": plain(trigger.label, NAME_MAX) if facts.about_job else trigger.label,
                                  "region": plain(region, 64),
                                  **({"job_family": event.family.name} if event.family else {})},
        },
    }
