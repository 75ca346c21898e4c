"""What email and sms share: an endpoint of one person, reached through the stack's topic.

Policy (`deny`): an endpoint must match `allowed_endpoints` when it is set. When it is empty, any email address
may receive messages (SNS asks the address to confirm its subscription first, so nobody gets a message they did
not accept), but a text goes only to a number the configuration itself names, unless `allow_any_sms` is true: a
text needs no consent and is billed to the account, and anyone who can start a training job writes action_json.

The endpoint is subscribed on first use with the filter policy {"to": [endpoint]}, and each message carries
to=<endpoint>, so a person receives only the messages addressed to them. While an email subscription waits
for its confirmation the action is skipped, and a later event of the job sends it once confirmed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rule_actions import messages
from rule_actions.contract import Outcome
from rule_actions.kinds.base import Kind, NotDone
from rule_actions.records import Action, Invalid, show


class Endpoint(Kind):
    keys = ("endpoint",)
    example = ""
    # The configuration flag that lets any endpoint of this kind receive messages while allowed_endpoints is
    # empty; None: any endpoint may (its recipients confirm first).
    any_endpoint_flag: str | None = None

    def problem(self, endpoint: str) -> str | None:
        """Why a string is not an endpoint of this kind, or None."""
        raise NotImplementedError

    def endpoint_problem(self, endpoint: Any) -> str | None:
        if endpoint is None:
            return f"missing: {self.name} needs an endpoint"
        if not isinstance(endpoint, str):
            return f"must be a string, got {type(endpoint).__name__} {show(endpoint)}"
        return self.problem(endpoint)

    def as_dict(self, action):
        return {"endpoint": str(action.target), "name": self.name}

    def identity(self, target: str) -> str:
        """Two targets with one identity are one recipient (the allowlist's case rules)."""
        return target.casefold()

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        endpoint = entry.get("endpoint")
        problem = self.endpoint_problem(endpoint)
        if problem:
            return Invalid(f"{where}.endpoint", problem, self.name, endpoint if isinstance(endpoint, str) else "")
        return Action(self.name, endpoint)

    def deny(self, target, event, config):
        if not config.endpoint_allowed(target):
            return f"{target} is not in allowed_endpoints"
        flag = self.any_endpoint_flag
        if (flag and not config.allowed_endpoints and not getattr(config, flag)
                and self.identity(target) not in config.configured_endpoints):
            return (f"{target} is not a number the configuration names: texts go only to those and to "
                    f"allowed_endpoints ({flag} is false; texts are billed to the account)")
        return None

    def preview(self, item):
        return f"would send to {item.target}"

    def carry_out(self, item, event, effects, taken):
        if effects.notifier.ensure_subscription(self.name, item.target) == effects.notifier.PENDING:
            raise NotDone(
                Outcome.SKIPPED,
                f"{self.name} subscription pending confirmation: {item.target} must confirm the AWS Notification "
                "message first; this message is sent on a later event of the job once confirmed",
            )
        message_id = effects.notifier.publish(item.target, messages.render(event, item.trigger, effects.region, taken))
        return {"reason": f"sent to {item.target} (message {message_id})"}
