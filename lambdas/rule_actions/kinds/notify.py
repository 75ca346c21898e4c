"""notify: the team audience of the stack's topic, and its chat channels (configuration only).

Its subscribers are whoever receives messages with to=team: the stack's `notify` emails and numbers, and any
subscription added by hand with the filter policy {"to": ["team"]} (an ops list, a chat channel). It is
skipped, with the reason, only when the audience has no confirmed subscriber.

With `chat` channels configured, notify has a second target, `chat`: the custom notification Amazon Q Developer
renders, published to the stack's chat topic, which carries team messages only (a channel configuration
subscribes to a whole topic, with no filter policy). The two are recorded and reported apart: a chat outage
never makes the email go out twice.

Owns `notify` (the team, declared in kinds/endpoint.py) and `chat`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rule_actions.contract import TEAM, ChatChannel, Outcome, TeamEndpoint
from rule_actions.fields import Custom, anchored
from rule_actions.kinds.base import Kind
from rule_actions.kinds.endpoint import TEAM as TEAM_FIELD
from rule_actions.kinds.endpoint import TEAM_KEYS, allowed
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import (
    Action,
    Done,
    JobEvent,
    Need,
    NothingDone,
    Place,
    Planned,
    TeamAudience,
)
from rule_actions.text import quoted, unknown_keys

CHAT = "chat"
# Chat channel ids as Amazon Q Developer in chat applications (CloudFormation) accepts them.
_GUID = r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}"
CHAT_KEYS = {"slack": {"workspace_id": r"[0-9A-Z]{1,255}", "channel_id": r"[A-Za-z0-9]{1,255}"},
             "teams": {"tenant_id": _GUID, "team_id": _GUID,
                       "channel_id": r"[A-Za-z0-9_=+/.,-]*%3[aA][A-Za-z0-9_=+/.,-]*%40[A-Za-z0-9_=+/.,-]*"}}
_CHAT_RE = {platform: {key: re.compile(pattern) for key, pattern in keys.items()} for platform, keys in CHAT_KEYS.items()}
CHAT_HINTS = {"workspace_id": "the Slack workspace id (capitals and digits, e.g. T0123ABCD)",
              "channel_id": "the channel id (Slack: letters and digits, e.g. C0123ABCD; Teams: the id from the "
                            "channel's link, URL-encoded, e.g. 19%3a...%40thread.tacv2)",
              "tenant_id": "a Microsoft tenant id (a GUID)", "team_id": "a Microsoft team id (a GUID)"}
CHAT_PLATFORMS = {"slack": "Slack channels, each {workspace_id, channel_id}.",
                  "teams": "Microsoft Teams channels, each {tenant_id, team_id, channel_id}."}


def _chat(value: Any, where: str, errors: list[str]) -> tuple[ChatChannel, ...]:
    """`chat`: {"slack": [{workspace_id, channel_id}], "teams": [{tenant_id, team_id, channel_id}]}."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object with the keys {', '.join(CHAT_KEYS)}")
        return ()
    strays = unknown_keys(value, CHAT_KEYS, where)
    if strays:
        errors += strays
        return ()
    found: list[ChatChannel] = []
    for platform, keys in _CHAT_RE.items():
        entries = value.get(platform, [])
        if not isinstance(entries, list):
            errors.append(f"{where}.{platform}: {quoted(entries)} is not a list of channels")
            continue
        for index, entry in enumerate(entries):
            path = f"{where}.{platform}[{index}]"
            if not isinstance(entry, Mapping) or set(entry) != set(keys):
                errors.append(f"{path}: {quoted(entry)} must be an object with exactly the keys {', '.join(keys)}")
                continue
            bad = [key for key, pattern in keys.items()
                   if not (isinstance(entry[key], str) and pattern.fullmatch(entry[key]))]
            errors += [f"{path}.{key}: {quoted(entry[key])} is not {CHAT_HINTS[key]}" for key in bad]
            if not bad:
                found.append(ChatChannel(platform, tuple((key, entry[key]) for key in keys)))
    if len(set(found)) < len(found):
        errors.append(f"{where}: a channel is listed twice")
    return tuple(found)


CHAT_FIELD: Custom[tuple[ChatChannel, ...]] = Custom(
    "chat", (),
    "Slack channels ({workspace_id, channel_id}) and Microsoft Teams channels ({tenant_id, team_id, channel_id}) "
    "that receive every team message through Amazon Q Developer in chat applications (authorize the workspace or "
    "team in its console first).",
    _chat,
    lambda channels: {platform: [dict(c.ids) for c in channels if c.platform == platform] for platform in CHAT_KEYS},
    {"type": ["object", "null"], "additionalProperties": False, "properties": {
        platform: {"type": "array", "default": [], "description": CHAT_PLATFORMS[platform], "items": {
            "type": "object", "additionalProperties": False, "required": list(keys),
            "properties": {key: {"type": "string", "pattern": anchored(pattern), "description": CHAT_HINTS[key]}
                           for key, pattern in keys.items()}}}
        for platform, keys in CHAT_KEYS.items()}},
)


def has_team(config: Any) -> bool:
    emails, sms = config[TEAM_FIELD]
    return bool(emails or sms)


class NotifyKind(Kind):
    name = "notify"
    places = frozenset((Place.RULES, Place.JOB_OUTCOMES))
    fields = (TEAM_FIELD, CHAT_FIELD)

    def targets(self, action: Action, event: JobEvent, config: Configured) -> tuple[str, ...]:
        return (TEAM, CHAT) if config[CHAT_FIELD] else (TEAM,)

    def needs(self, item: Planned, event: JobEvent, config: Configured) -> frozenset[Need]:
        return frozenset({TeamAudience()}) if item.target == TEAM else frozenset()

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: Mapping[Need, Any]) -> Planned:
        if item.target == TEAM and answers.get(TeamAudience()) is False:
            return item.decided(
                Outcome.SKIPPED,
                "the team audience has no confirmed subscriber (set notify.emails / notify.sms, or subscribe an "
                'endpoint to the topic with the filter policy {"to": ["team"]})',
            )
        return item

    def preview(self, item: Planned) -> str:
        return "would post to the chat channels" if item.target == CHAT else "would send to the team subscribers"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        if item.target == CHAT:
            return Done(f"posted to the chat channels (message {ports.notifier.publish_chat(occasion.chat())})")
        message_id = ports.notifier.publish(TEAM, occasion.message, occasion.chat())
        return Done(f"sent to the team subscribers (message {message_id})")

    def test_actions(self, config: Configured) -> tuple[Action, ...]:
        return (Action(self.name),)

    def check_config(self, config: Configured, where: str) -> list[str]:
        emails, sms = config[TEAM_FIELD]
        return [f"{where}.notify: {e} is not in allowed_endpoints" for e in (*emails, *sms) if not allowed(config, e)]

    def warnings(self, config: Configured, where: str) -> list[str]:
        if has_team(config):
            return []
        subscribe = 'someone subscribes to the team topic (TopicArn) with the filter policy {"to": ["team"]}'
        uses = ("" if not self.declared(config)
                else f" `notify` reaches only the chat channels until {subscribe}, and" if config[CHAT_FIELD]
                else f" every `notify` is skipped (no team subscriber) until {subscribe}, and")
        return [f"unreachable: {where}.notify lists no emails or sms:{uses} the alarms (function errors, throttles, "
                "undelivered or failed events) reach nobody until someone subscribes to the ops topic (OpsTopicArn)."]

    def stack_parts(self, config: Configured) -> list[Any]:
        emails, sms = config[TEAM_FIELD]
        return [*(TeamEndpoint(protocol, endpoint) for protocol, endpoints in zip(TEAM_KEYS.values(), (emails, sms), strict=True)
                  for endpoint in endpoints),
                *config[CHAT_FIELD]]


KIND = NotifyKind()
