"""moto's STS and CloudFormation, extended for the embedded organization (the central and member stacks).

The gaps it fills are `GAPS` below. moto lets anyone assume any role ARN, even one that does not exist ("an
opportunity to switch accounts"), and returns credentials that land in the role's account. That is how the embedded
organization switches accounts (the replay deploys each member stack as that account), but it would also let the
function assume an executor role that no member stack created, or one that trusts another principal. So, as AWS
does, a request signed with an assumed role's credentials (the function's, in the replay) may assume only a role
that exists and whose trust policy names that role; other callers (the harness's own static credentials) are left
as moto treats them.

`install()` wraps moto's `TokenResponse.assume_role` (looked up by name at every request, in-process `mock_aws`
and `ThreadedMotoServer` alike) and adds the bus's physical id; idempotent.
"""

from __future__ import annotations

import json
from typing import Any

from moto.events.models import EventBus
from moto.iam.models import iam_backends
from moto.sts.exceptions import STSClientError
from moto.sts.responses import TokenResponse

from rule_actions_cli.emulator import Gap

GAPS = (
    Gap("sts", "AssumeRole", "lets anyone assume any role ARN, even one that does not exist, whatever its trust "
                             "policy: a role's session may assume only a role that exists and trusts it"),
    Gap("cloudformation", "CreateStack", "an AWS::Events::EventBus has no physical resource id, so {\"Ref\": bus} "
                                         "(a rule's EventBusName) resolves to moto's object and the rule cannot be "
                                         "created: a bus's Ref is its name, as in CloudFormation"),
)

_PATCH_MARK = "_rule_actions_patch"


def _session_role(access_key: str) -> str | None:
    """The role whose session signed the request (an assumed role's temporary key), or None."""
    for account in list(iam_backends.values()):
        for backend in account.values():
            key = backend.access_keys.get(access_key)
            if key is not None:
                return getattr(key, "role_arn", None)
    return None


def _trusted(role_arn: str, caller: str) -> bool:
    """Whether `role_arn` exists and its trust policy lets the role `caller` assume it."""
    account = role_arn.split(":")[4]
    for backend in iam_backends[account].values():
        for role in backend.get_roles():
            if role.arn == role_arn:
                document = json.loads(role.assume_role_policy_document)
                return any(_allows(statement, caller) for statement in _listed(document.get("Statement")))
    return False


def _allows(statement: dict[str, Any], caller: str) -> bool:
    principal = statement.get("Principal")
    principals = _listed(principal.get("AWS")) if isinstance(principal, dict) else []
    return (statement.get("Effect") == "Allow" and "sts:AssumeRole" in _listed(statement.get("Action"))
            and caller in principals)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def install() -> None:
    if not hasattr(EventBus, "physical_resource_id"):
        EventBus.physical_resource_id = property(lambda bus: bus.name)  # type: ignore[attr-defined]
    original = TokenResponse.assume_role
    if getattr(original, _PATCH_MARK, False):
        return

    def assume_role(self: TokenResponse) -> Any:
        caller = _session_role(self.get_access_key())
        target = self._get_param("RoleArn")
        if caller is not None and _session_role_exists(caller) and not _trusted(target, caller):
            raise STSClientError("AccessDenied", f"User: {caller} is not authorized to perform: sts:AssumeRole on "
                                                 f"resource: {target}")
        return original(self)

    setattr(assume_role, _PATCH_MARK, True)
    TokenResponse.assume_role = assume_role  # type: ignore[method-assign]


def _session_role_exists(role_arn: str) -> bool:
    """A session of a role that exists (the function's); the harness switches accounts through roles that do not."""
    account = role_arn.split(":")[4]
    return any(role.arn == role_arn for backend in iam_backends[account].values() for role in backend.get_roles())
