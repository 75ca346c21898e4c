"""notify: the team audience of the stack's topic, and its chat channels (configuration only).

Its subscribers are whoever receives messages with to=team: the stack's `notify` emails and numbers, and any
subscription added by hand with the filter policy {"to": ["team"]} (an ops list, a chat channel). It is
skipped, with the reason, only when the audience has no confirmed subscriber.

With `chat` channels configured, notify has a second target, `chat`: the custom notification Amazon Q Developer
renders, published to the stack's chat topic, which carries team messages only (a channel configuration
subscribes to a whole topic, with no filter policy). The two are recorded and reported apart: a chat outage
never makes the email go out twice.
"""

from __future__ import annotations

from rule_actions import messages, payloads
from rule_actions.contract import TEAM, Outcome
from rule_actions.kinds.base import JOB_OUTCOMES, RULES, Kind
from rule_actions.records import Reads

CHAT = "chat"


class Notify(Kind):
    name = "notify"
    places = frozenset((RULES, JOB_OUTCOMES))

    def target(self, action, event):
        return TEAM

    def targets(self, action, event, config):
        return (TEAM, CHAT) if config.chat else (TEAM,)

    def reads(self, item, event, config):
        return Reads(team=item.target == TEAM)

    def check(self, item, event, config, facts):
        if item.target == TEAM and facts.team_subscribed is False:
            return item.decided(
                Outcome.SKIPPED,
                "the team audience has no confirmed subscriber (set notify.emails / notify.sms, or subscribe an "
                'endpoint to the topic with the filter policy {"to": ["team"]})',
            )
        return item

    def preview(self, item):
        return "would post to the chat channels" if item.target == CHAT else "would send to the team subscribers"

    def carry_out(self, item, event, effects, taken):
        message = messages.render(event, item.trigger, effects.region, taken)
        chat = payloads.chat(message, event, item.trigger, effects.region)
        if item.target == CHAT:
            message_id = effects.notifier.publish_chat(chat)
            return {"reason": f"posted to the chat channels (message {message_id})"}
        message_id = effects.notifier.publish(TEAM, message, chat)
        return {"reason": f"sent to the team subscribers (message {message_id})"}


KIND = Notify()
