"""sms endpoint: an SNS text message to that number only (E.164; billed per message).

Owns `allow_any_sms`: with allowed_endpoints empty, texts go only to numbers the configuration names unless it is
true (kinds/endpoint.py). When the configuration can text, the stack logs delivery status (contract.Texts).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rule_actions.contract import Texts
from rule_actions.kinds.endpoint import ALLOW_ANY_SMS, ALLOWED_ENDPOINTS, SCHEMAS, EndpointKind, named
from rule_actions.ports import Configured


class SmsKind(EndpointKind):
    name = "sms"
    key_schemas: ClassVar[dict[str, dict[str, Any]]] = {"endpoint": SCHEMAS["sms"]}
    fields = (ALLOW_ANY_SMS,)
    any_endpoint_flag = ALLOW_ANY_SMS

    def warnings(self, config: Configured, where: str) -> list[str]:
        if config[ALLOW_ANY_SMS] and config[ALLOWED_ENDPOINTS]:
            return [f"{where}.allow_any_sms has no effect: allowed_endpoints is set, and every number must match it."]
        return []

    def stack_parts(self, config: Configured) -> list[Any]:
        """Texts are possible: a number is configured, allow_any_sms, or allowed_endpoints has a glob that may
        match a phone number (one without an '@')."""
        can = (any(e.startswith("+") for e in named(config)) or config[ALLOW_ANY_SMS]
               or any("@" not in p for p in config[ALLOWED_ENDPOINTS]))
        return [Texts()] if can else []


KIND = SmsKind()
