"""Organization mode: one central deployment acts for the training jobs of many member accounts.

    Organization         the configuration's `organization` block (Config.organization; None: one account)
    refusal(org, event)  why an event is not acted on here (pure): an account the configuration does not name, or
                         a job ARN of another account or region than the event's
    foreign_job(event)   the latter alone: what one account checks too (pipeline.act)
    named(org, event)    the event with its account's name for messages and results (the alias, else the id)

Member stacks forward their SageMaker events to the central bus; the function acts in the event's account and
region through that account's executor role, `role_name(region)` (one role per region: the role is global to
the account, and each member stack is regional). rule_actions_cdk/ derives the bus policy, the trust and the grants from
the same block.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from rule_actions.contract import REGION_NAME
from rule_actions.fields import Custom
from rule_actions.records import JobEvent
from rule_actions.text import quoted, unknown_keys

KEYS = ("org_id", "accounts", "member_role", "aliases", "central_account", "central_region")
DEFAULT_MEMBER_ROLE = "RuleActionsMember"
ACCOUNT_RE = re.compile(r"\d{12}", re.ASCII)
ORG_ID_RE = re.compile(r"o-[a-z0-9]{10,32}", re.ASCII)  # AWS Organizations' own pattern
# The longest region names have 14 characters (ap-southeast-4); `-<region>` is appended to the member role.
REGION_RE = re.compile(REGION_NAME, re.ASCII)
REGION_MAX = 14
ROLE_MAX = 64 - 1 - REGION_MAX  # IAM allows 64 characters in a role name
ROLE_RE = re.compile(rf"[A-Za-z0-9+=,.@_-]{{1,{ROLE_MAX}}}", re.ASCII)
ALIAS_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,49}", re.ASCII)  # printable in a subject and an SMS
_JOB_ARN = re.compile(r"arn:[a-z-]+:(?:sagemaker|batch):([^:]*):([^:]*):([a-z-]+)/.+")  # Batch's: service-job/<id>


class Organization(NamedTuple):
    """Who may forward events to the central bus (`org_id`: every account of the organization; `accounts`: these),
    which accounts the function acts for (`accounts`, else every account the bus admits), the executor role it
    assumes there, readable names for the accounts, and where the central stack lives."""

    central_account: str
    central_region: str
    org_id: str | None = None
    accounts: tuple[str, ...] = ()
    member_role: str = DEFAULT_MEMBER_ROLE
    aliases: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_dict(cls, data: Any, where: str, errors: list[str]) -> Organization | None:
        """The block, validated (problems appended to `errors`, each naming its field); None when not given."""
        if data is None:
            return None
        if not isinstance(data, Mapping):
            errors.append(f"{where}: {quoted(data)} must be null (one account) or an object with the keys {', '.join(KEYS)}")
            return None
        found = unknown_keys(data, KEYS, where)
        org_id = data.get("org_id")
        if org_id is not None and not (isinstance(org_id, str) and ORG_ID_RE.fullmatch(org_id)):
            found.append(f"{where}.org_id: {quoted(org_id)} is not an AWS Organizations id (o- and 10 to 32 lower-case "
                         "letters or digits)")
        accounts = _accounts(data.get("accounts", []), f"{where}.accounts", found)
        if org_id is None and not accounts and not found:
            found.append(f"{where}: give org_id, accounts or both: who may forward events to the central bus")
        role = data.get("member_role", DEFAULT_MEMBER_ROLE)
        if not (isinstance(role, str) and ROLE_RE.fullmatch(role)):
            found.append(f"{where}.member_role: {quoted(role)} is not an IAM role name (letters, digits and +=,.@_-; at "
                         f"most {ROLE_MAX} characters: each member stack appends -<region>)")
        aliases = _aliases(data.get("aliases", {}), accounts, f"{where}.aliases", found)
        central = data.get("central_account")
        if not (isinstance(central, str) and ACCOUNT_RE.fullmatch(central)):
            found.append(f"{where}.central_account: {_given(central)} an AWS account id (12 digits): the account the "
                         "central stack is deployed to (member stacks forward to its bus and trust its role)")
        region = data.get("central_region")
        if not (isinstance(region, str) and len(region) <= REGION_MAX and REGION_RE.fullmatch(region)):
            found.append(f"{where}.central_region: {_given(region)} an AWS region name (us-east-1): the region of "
                         "the central stack")
        errors += found
        if found:
            return None
        return cls(central_account=str(central), central_region=str(region), org_id=org_id, accounts=accounts,
                   member_role=role, aliases=aliases)

    def to_dict(self) -> dict[str, Any]:
        return {"org_id": self.org_id, "accounts": list(self.accounts), "member_role": self.member_role,
                "aliases": dict(self.aliases), "central_account": self.central_account,
                "central_region": self.central_region}

    def role_name(self, region: str) -> str:
        """The executor role a member stack creates in `region` (IAM names are global to an account)."""
        return f"{self.member_role}-{region}"

    def alias(self, account: str) -> str | None:
        return dict(self.aliases).get(account)


def _given(value: Any) -> str:
    return "missing: must be" if value is None else f"{quoted(value)} is not"


def _accounts(value: Any, where: str, errors: list[str]) -> tuple[str, ...]:
    if not isinstance(value, list):
        errors.append(f"{where}: {quoted(value)} is not a list of AWS account ids")
        return ()
    found = []
    for index, account in enumerate(value):
        if not (isinstance(account, str) and ACCOUNT_RE.fullmatch(account)):
            errors.append(f"{where}[{index}]: {quoted(account)} is not an AWS account id (12 digits, as a string)")
        elif account in found:
            errors.append(f"{where}[{index}]: {account} is listed twice")
        else:
            found.append(account)
    return tuple(found)


def _aliases(value: Any, accounts: tuple[str, ...], where: str, errors: list[str]) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object of account id -> name")
        return ()
    found = []
    for account, alias in value.items():
        path = f"{where}[{json.dumps(account)}]"
        if not (isinstance(account, str) and ACCOUNT_RE.fullmatch(account)):
            errors.append(f"{path}: not an AWS account id (12 digits)")
        elif accounts and account not in accounts:
            errors.append(f"{path}: names an account that is not in accounts")
        elif not (isinstance(alias, str) and ALIAS_RE.fullmatch(alias)):
            errors.append(f"{path}: {quoted(alias)} is not a name (a letter or digit, then letters, digits, ' ', '.', "
                          "'_' or '-'; at most 50 characters)")
        else:
            found.append((account, alias))
    return tuple(found)


def refusal(org: Organization, event: JobEvent) -> str | None:
    """Why the function must not act on this event in organization mode, or None. The event's `account` is the
    account whose bus sent it (EventBridge sets it; a member cannot forward another account's events), so the
    function acts there; a job ARN naming another account or region would make it act, or keep its exactly-once
    records, under the wrong account."""
    account, region = event.account, event.region
    if not ACCOUNT_RE.fullmatch(account):
        return f"account {quoted(account)} is not an AWS account id"
    if org.accounts and account not in org.accounts:
        return f"account {account} is not a member of this organization configuration"
    if not (len(region) <= REGION_MAX and REGION_RE.fullmatch(region)):
        return f"region {quoted(region)} is not an AWS region name"
    return foreign_job(event)


def foreign_job(event: JobEvent) -> str | None:
    """Why the event's job ARN does not name a job of the event's own account and region (its envelope, which
    EventBridge sets to where the event came from), or None. Checked in both modes: acting on such an event would
    act, or keep exactly-once records, on the same-named job of another account or region."""
    account, region = event.account, event.region
    found = _JOB_ARN.fullmatch(event.job_arn)
    family = event.family
    if not found or found.groups() != (region, account, family.resource if family else None):
        noun = family.noun if family else "job"
        return (f"{noun} ARN {quoted(event.job_arn, 120)} is not a {noun} of the event's account {_word(account)} "
                f"in {_word(region)}")
    return None


def _word(value: str) -> str:
    """An account id or region name as it is, anything else quoted ("(none)" when the envelope has none)."""
    return value if re.fullmatch(r"[a-z0-9-]{1,20}", value, re.ASCII) else quoted(value, 24) if value else "(none)"


def named(org: Organization, event: JobEvent) -> JobEvent:
    """The event with the name messages and results give its account: the configured alias, else the id (none
    when the event names no account)."""
    if not ACCOUNT_RE.fullmatch(event.account):
        return event
    return replace(event, account_name=org.alias(event.account) or event.account)


ORGANIZATION = Custom(
    "organization", None,
    "null (one account), or one deployment for many accounts: {org_id, accounts (org_id, accounts or both: who may "
    "forward to the central bus; the function acts only for listed accounts when listed), member_role (each member "
    "stack creates <member_role>-<region>), aliases: {account: name}, central_account, central_region}.",
    lambda value, where, errors: Organization.from_dict(value, where, errors),
    lambda org: org.to_dict() if org else None,
    {"type": ["object", "null"], "additionalProperties": False, "properties": {
        "org_id": {"type": ["string", "null"], "pattern": "^o-[a-z0-9]{10,32}$", "default": None,
                   "description": "An AWS Organizations id: every account of the organization may forward events to "
                                  "the central bus."},
        "accounts": {"type": "array", "items": {"type": "string", "pattern": "^[0-9]{12}$"}, "uniqueItems": True,
                     "default": [], "description": "Member account ids: without org_id, exactly these may forward; "
                                                  "with it, the function acts only for these (others are refused)."},
        "member_role": {"type": "string", "pattern": f"^[A-Za-z0-9+=,.@_-]{{1,{ROLE_MAX}}}$",
                        "default": DEFAULT_MEMBER_ROLE, "description": "The executor role's name in each member "
                                                                       "account (its stack creates <member_role>-<region>)."},
        "aliases": {"type": "object", "propertyNames": {"pattern": "^[0-9]{12}$"},
                    "additionalProperties": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9 ._-]{0,49}$"},
                    "default": {}, "description": "Account id -> a readable name, used in messages and results."},
        "central_account": {"type": "string", "pattern": "^[0-9]{12}$",
                            "description": "The account the central stack is deployed in (it is pinned there)."},
        "central_region": {"type": "string", "maxLength": REGION_MAX, "pattern": "^[a-z]{2,4}(-[a-z]+)+-[0-9]{1,2}$",
                           "description": "The region the central stack is deployed in (it is pinned there)."},
    }, "required": ["central_account", "central_region"], "anyOf": [
        {"required": ["org_id"], "properties": {"org_id": {"type": "string"}}},
        {"required": ["accounts"], "properties": {"accounts": {"minItems": 1}}}]},
)
