"""email endpoint: an SNS email to that address only (it confirms its subscription first).

Owns `allowed_endpoints`, which every email address and number must match when it is set (kinds/endpoint.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rule_actions.kinds.endpoint import ALLOW_ANY_SMS, ALLOWED_ENDPOINTS, SCHEMAS, EndpointKind
from rule_actions.ports import Configured


class EmailKind(EndpointKind):
    name = "email"
    key_schemas: ClassVar[dict[str, dict[str, Any]]] = {"endpoint": SCHEMAS["email"]}
    fields = (ALLOWED_ENDPOINTS,)

    def warnings(self, config: Configured, where: str) -> list[str]:
        if not config.reads_action_json or config[ALLOWED_ENDPOINTS]:
            return []
        texts = ("and any phone number (allow_any_sms: texts are billed to this account)" if config[ALLOW_ANY_SMS]
                 else "(SNS asks each address to confirm first); texts go only to numbers this configuration "
                      "names (allow_any_sms is false)")
        return [f"allows: {where}.allowed_endpoints is empty: a rule's action_json, which anyone who can start a "
                f"training job writes, may email any address {texts}. List the addresses and numbers allowed "
                "(globs) to restrict it."]


KIND = EmailKind()
