"""notify: the team audience of the stack's topic (configuration only).

Its subscribers are whoever receives messages with to=team: the stack's `notify` emails and numbers, and any
subscription added by hand with the filter policy {"to": ["team"]} (a chat channel, an ops list). It is
skipped, with the reason, only when the audience has no confirmed subscriber.
"""

from __future__ import annotations

from rule_actions import messages
from rule_actions.contract import TEAM, Outcome
from rule_actions.kinds.base import JOB_OUTCOMES, RULES, Kind
from rule_actions.records import Reads


class Notify(Kind):
    name = "notify"
    places = frozenset((RULES, JOB_OUTCOMES))

    def target(self, action, event):
        return TEAM

    def reads(self, item, event, config):
        return Reads(team=True)

    def check(self, item, event, config, facts):
        if facts.team_subscribed is False:
            return item.decided(
                Outcome.SKIPPED,
                "the team audience has no confirmed subscriber (set notify.emails / notify.sms, or subscribe an "
                'endpoint to the topic with the filter policy {"to": ["team"]})',
            )
        return item

    def preview(self, item):
        return "would send to the team subscribers"

    def carry_out(self, item, event, effects, taken):
        message_id = effects.notifier.publish(TEAM, messages.render(event, item.trigger, effects.region, taken))
        return {"reason": f"sent to the team subscribers (message {message_id})"}


KIND = Notify()
