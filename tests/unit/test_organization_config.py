"""The organization block (pure): its validation names each bad field, and `refusal` keeps the function to the
configured accounts and to jobs of the event's own account and region."""

from __future__ import annotations

import json
from typing import Any

import pytest
from builders import ACCOUNT, REGION, event, job_arn

from rule_actions.config import Config, ConfigError
from rule_actions.organization import Organization, named, refusal
from rule_actions.pipeline import read_event

TEAM_A, TEAM_B, STRANGER = "111122223333", "444455556666", "777788889999"
VALID = {"org_id": "o-a1b2c3d4e5", "accounts": [TEAM_A, TEAM_B], "aliases": {TEAM_A: "team-a-prod"},
         "central_account": ACCOUNT, "central_region": REGION}


def read(**changes: Any) -> Organization:
    return Config.from_dict({"organization": {**VALID, **changes}}).organization


def error(organization: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        Config.from_dict({"organization": organization})
    return str(caught.value)


def test_the_block_is_read_and_round_trips():
    # Given the block with every key; When it is read and written back
    org = read()

    # Then every key is kept, the member role defaults, and its name carries the region (IAM names are global)
    assert org.accounts == (TEAM_A, TEAM_B) and org.alias(TEAM_A) == "team-a-prod" and org.alias(TEAM_B) is None
    assert org.role_name("eu-west-1") == "RuleActionsMember-eu-west-1"
    assert Config.from_dict({"organization": org.to_dict()}).organization == org
    assert json.loads(Config.from_dict({"organization": VALID}).to_json())["organization"]["org_id"] == "o-a1b2c3d4e5"


def test_one_account_is_the_default_and_its_json_is_what_it_was():
    # Given no organization; Then there is none, and the function's configuration does not mention it
    assert Config.from_dict({}).organization is None
    assert "organization" not in json.loads(Config.from_dict({}).to_json())


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"org_id": "o-ABC"}, "rule_actions.organization.org_id: \"o-ABC\" is not an AWS Organizations id"),
        ({"accounts": ["12345"]}, "rule_actions.organization.accounts[0]: \"12345\" is not an AWS account id"),
        ({"accounts": [111122223333]}, "rule_actions.organization.accounts[0]: 111122223333 is not an AWS account id"),
        ({"accounts": [TEAM_A, TEAM_A]}, f"rule_actions.organization.accounts[1]: {TEAM_A} is listed twice"),
        ({"accounts": TEAM_A}, "rule_actions.organization.accounts: \"111122223333\" is not a list"),
        ({"org_id": None, "accounts": []}, "rule_actions.organization: give org_id, accounts or both"),
        ({"member_role": "Rule Actions"}, "rule_actions.organization.member_role: \"Rule Actions\" is not an IAM role"),
        ({"member_role": "R" * 50}, "at most 49 characters: each member stack appends -<region>"),
        ({"aliases": {STRANGER: "x"}}, f'rule_actions.organization.aliases["{STRANGER}"]: names an account that is not'),
        ({"aliases": {TEAM_A: "<b>team</b>"}}, f'rule_actions.organization.aliases["{TEAM_A}"]: \"<b>team</b>\" is not a'),
        ({"central_account": None}, "rule_actions.organization.central_account: missing: must be an AWS account id"),
        ({"central_region": "mars-1"}, "rule_actions.organization.central_region: \"mars-1\" is not an AWS region"),
        ({"regions": ["us-east-1"]}, "rule_actions.organization.regions: unknown key; allowed: org_id, accounts"),
    ],
)
def test_a_bad_field_is_named_with_its_value(changes, fragment):
    assert fragment in error({**VALID, **changes})


def test_every_bad_field_is_reported_at_once_and_a_block_that_is_not_an_object_is_refused():
    found = error({"org_id": "x", "accounts": ["1"], "central_region": "x"})
    assert all(f"organization.{key}" in found for key in ("org_id", "accounts[0]", "central_account", "central_region"))
    assert "must be null (one account) or an object" in error(["o-a1b2c3d4e5"])


def job_event(account: str = TEAM_A, region: str = REGION, **detail: Any):
    raw = event("bert-base-sweep-07", account=account, region=region)
    raw["detail"].update(detail)
    return read_event(raw)[0]


@pytest.mark.parametrize(
    ("org_changes", "event_args", "reason"),
    [
        ({}, {}, None),
        ({}, {"account": TEAM_B}, None),
        ({}, {"account": STRANGER}, f"account {STRANGER} is not a member of this organization configuration"),
        ({"accounts": []}, {"account": STRANGER}, None),  # an organization id alone: every account it admits
        ({}, {"account": ACCOUNT}, f"account {ACCOUNT} is not a member of this organization configuration"),
        ({}, {"region": "not a region"}, "region \"not a region\" is not an AWS region name"),
        ({}, {"TrainingJobArn": job_arn("bert-base-sweep-07", TEAM_B)},
         f"is not a training job of the event's account {TEAM_A} in {REGION}"),
        ({}, {"TrainingJobArn": job_arn("bert-base-sweep-07", TEAM_A, "eu-west-1")},
         f"is not a training job of the event's account {TEAM_A} in {REGION}"),
    ],
    ids=["listed", "other listed", "not listed", "org only", "central not listed", "bad region", "ARN of another "
         "account", "ARN of another region"],
)
def test_refusal(org_changes, event_args, reason):
    # Given the organization and an event; When it is checked; Then it is refused exactly with the reason
    org = read(**org_changes)
    region = event_args.pop("region", REGION)
    account = event_args.pop("account", TEAM_A)
    found = refusal(org, job_event(account, region, **event_args))
    assert found == reason or (reason is not None and found is not None and reason in found)


def test_an_account_is_named_by_its_alias_else_its_id():
    org = read()
    assert named(org, job_event(TEAM_A)).account_name == "team-a-prod"
    assert named(org, job_event(TEAM_B)).account_name == TEAM_B


def test_an_organization_without_listed_accounts_is_warned_about_once_listed_it_is_not():
    # Given the organization by its id alone, then with its accounts listed
    alone = Config.from_dict({"organization": {**VALID, "accounts": [], "aliases": {}}}).warnings()
    listed = Config.from_dict({"organization": VALID}).warnings()

    # Then only the first says that every account of the organization is acted for
    assert [w for w in alone if "organization.accounts is empty" in w] == [
        "allows: rule_actions.organization.accounts is empty: the function acts for every account of the "
        "organization o-a1b2c3d4e5 whose member stack forwards events, including accounts added later. List the "
        "accounts to act only for them (the others are refused and alarmed)."]
    assert not [w for w in listed if "organization" in w]
