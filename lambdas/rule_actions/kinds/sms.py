"""sms endpoint: an SNS text message to that number only (E.164; billed per message)."""

from __future__ import annotations

import re

from rule_actions.kinds.endpoint import Endpoint
from rule_actions.records import show

# E.164: a plus, a country code that does not start with 0, at most 15 digits in all.
PHONE_RE = re.compile(r"\+[1-9][0-9]{1,14}", re.ASCII)


class Sms(Endpoint):
    name = "sms"
    any_endpoint_flag = "allow_any_sms"

    def problem(self, endpoint: str) -> str | None:
        if PHONE_RE.fullmatch(endpoint):
            return None
        return f"{show(endpoint)} is not an E.164 phone number (like +15555550100)"


KIND = Sms()
