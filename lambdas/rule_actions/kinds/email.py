"""email endpoint: an SNS email to that address only (it confirms its subscription first)."""

from __future__ import annotations

import re

from rule_actions.kinds.endpoint import Endpoint
from rule_actions.records import show

# Everything the SDK's `^[a-z0-9]+[@]\w+[.]\w{2,3}$` accepts in ASCII, plus ordinary addresses (dotted local
# parts, sub-domains, long top-level domains). Non-ASCII is refused: SNS cannot deliver to it.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
EMAIL_RE = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}\.)+[A-Za-z0-9_]{{2,63}}", re.ASCII)


class Email(Endpoint):
    name = "email"

    def problem(self, endpoint: str) -> str | None:
        if len(endpoint) <= 254 and EMAIL_RE.fullmatch(endpoint):
            return None
        return f"{show(endpoint)} is not an email address"


KIND = Email()
