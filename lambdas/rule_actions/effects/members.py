"""Member accounts (organization mode): SageMaker in an event's account and region, through the executor role the
member stack created there (rule_actions.organization.Organization.role_name).

The role is assumed at the first SageMaker call an event needs (an event that only sends messages never calls
STS), once per account and region per execution environment: the credentials and the clients made with them are
kept until REFRESH_BEFORE their expiry. The credentials live in this object only: no log line, repr, result or
error carries them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from rule_actions.effects import client
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.observability import logger
from rule_actions.text import error_text

# Longer than an invocation can run (60 s): credentials never expire while an event is being handled.
REFRESH_BEFORE = timedelta(minutes=5)
SESSION_NAME = "rule-actions"  # how the member's CloudTrail names the function's sessions


class MemberRoleUnavailable(RuntimeError):
    """The executor role of a member account could not be assumed (the reason names the role, never a secret)."""


@dataclass
class _Session:
    expires: datetime
    credentials: dict[str, str] = field(repr=False)
    clients: dict[str, Any] = field(default_factory=dict, repr=False)


class MemberAccounts:
    """Clients in member accounts. `role_name(region)` names the executor role in a region; `partition` is the
    function's (roles are never assumed across partitions)."""

    def __init__(self, sts_client: Any, partition: str, role_name: Callable[[str], str],
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)):
        self.sts = sts_client
        self.partition = partition
        self.role_name = role_name
        self._now = now
        self._sessions: dict[tuple[str, str], _Session] = {}

    def role_arn(self, account: str, region: str) -> str:
        return f"arn:{self.partition}:iam::{account}:role/{self.role_name(region)}"

    def sagemaker(self, account: str, region: str) -> SageMaker:
        return MemberSageMaker(self, account, region)

    def client(self, service: str, account: str, region: str) -> Any:
        """A client of `service` in the account and region, with the role's credentials (assumed if need be)."""
        session = self._sessions.get((account, region))
        if session is None or session.expires - REFRESH_BEFORE <= self._now():
            session = self._sessions[(account, region)] = self._assume(account, region)
        if service not in session.clients:
            session.clients[service] = client(service, region, session.credentials)
        return session.clients[service]

    def _assume(self, account: str, region: str) -> _Session:
        arn = self.role_arn(account, region)
        try:
            found = self.sts.assume_role(RoleArn=arn, RoleSessionName=SESSION_NAME)["Credentials"]
        except Exception as err:
            raise MemberRoleUnavailable(
                f"cannot assume {arn} ({error_text(err)}): is the member stack deployed in "
                f"account {account}, region {region}, after the central stack?"
            ) from None
        logger.info("member role assumed", account=account, region=region, role=arn,
                    expires=found["Expiration"].isoformat())
        return _Session(found["Expiration"], {key: found[key] for key in ("AccessKeyId", "SecretAccessKey", "SessionToken")})


class MemberSageMaker(SageMaker):
    """SageMaker of one member account and region: its client, and the role behind it, on first use."""

    def __init__(self, members: MemberAccounts, account: str, region: str):  # no SageMaker.__init__: `client` is derived
        self.members, self.account, self.region = members, account, region
        self.described = {}  # the listed processing and transform jobs' descriptions, as SageMaker's

    @property
    def client(self) -> Any:
        return self.members.client("sagemaker", self.account, self.region)
