"""The embedded organization: the central stack deployed in its account (as `EmbeddedAccount` does), and the member
stack deployed, as that account, into every other account an event names, in the event's region.

    event of account A in region R
      -> A's member stack (deployed at A's first event in R): does its forwarding rule match?
      -> does the central bus's policy admit A? (every account here belongs to the configured organization)
      -> the central rule(s) on the bus that target the function -> the real handler, as the function's role
    The handler assumes A's executor role; moto's STS, extended by rule_actions_cli.emulator.organization, refuses
    unless the role exists and trusts the function's role, and its credentials land in A: the job is stopped there.

The central account's own events reach the bus only when `accounts` lists it (it then has a member stack too).
Nothing here describes the stacks again: patterns, targets, the bus policy and the role names are read from what
the stacks synthesize and moto deploys.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import boto3

from rule_actions.organization import ACCOUNT_RE, REGION_RE, Organization
from rule_actions.text import quoted
from rule_actions_cli.embedded import ACCOUNT, EmbeddedAccount
from rule_actions_cli.emulator import organization as moto_organization
from rule_actions_cli.matcher import matches
from rule_actions_cli.seeding import JobPlace
from rule_actions_cli.synth import stacks

ADMIN_ROLE = "OrganizationAccountAccessRole"  # what Organizations creates in member accounts for their admins
STATIC = {"aws_access_key_id": "embedded", "aws_secret_access_key": "embedded"}  # moto's default account
CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM"]


class EmbeddedOrganization(EmbeddedAccount):
    """`with EmbeddedOrganization(assembly_dir, stack_name, organization) as world: world.replay(events)`."""

    def __init__(self, assembly_dir: Path, stack_name: str, organization: Organization,
                 secrets: Mapping[str, str] | None = None):
        super().__init__(assembly_dir, stack_name, region=organization.central_region, secrets=secrets)
        self.organization = organization
        self.account = organization.central_account
        [self.member_stack] = [name for name in stacks(Path(assembly_dir)) if name != stack_name]
        self._forwarding: dict[tuple[str, str], list[dict[str, Any]]] = {}  # (account, region) -> patterns

    def _deploy(self) -> None:
        moto_organization.install()
        member = (self.assembly_dir / f"{self.member_stack}.template.json").read_text()
        if "batch:TerminateServiceJob" in member:  # the Batch family is on: its grants are the members' roles'
            from rule_actions_cli.emulator import batch as moto_batch  # (moto's Batch costs ~2 s to import)

            moto_batch.install()
        os.environ.update(_environment(self._credentials(self.account)))  # the central stack, as its account
        boto3.setup_default_session()
        super()._deploy()
        outputs = {o["OutputKey"]: o["OutputValue"] for o in self.client("cloudformation").describe_stacks(
            StackName=self.stack_name)["Stacks"][0].get("Outputs", [])}
        self.bus_arn, self.function_role_arn = outputs["EventBusArn"], outputs["FunctionRoleArn"]
        self.evaluator_role_arn = outputs.get("EvaluatorRoleArn")

    def _function_patterns(self) -> list[dict[str, Any]]:
        [bus] = [r["Properties"]["Name"] for r in self.template["Resources"].values() if r["Type"] == "AWS::Events::EventBus"]
        return self._patterns_targeting(self.function_arn, bus=bus)

    def _function_credentials(self, evaluator: bool = False) -> dict[str, str]:
        """The handler runs as the function's role, or the evaluator's (as in Lambda): its AssumeRole calls are
        checked."""
        role = self.evaluator_role_arn if evaluator else self.function_role_arn
        return _environment(self._credentials(self.account, role))

    def _credentials(self, account: str, role_arn: str | None = None) -> dict[str, str]:
        """Credentials in `account`: moto's static ones for its default account, else an admin role's there."""
        if role_arn is None and account == ACCOUNT:
            return {"AccessKeyId": STATIC["aws_access_key_id"], "SecretAccessKey": STATIC["aws_secret_access_key"]}
        sts = boto3.client("sts", region_name=self.region, **STATIC)
        arn = role_arn or f"arn:aws:iam::{account}:role/{ADMIN_ROLE}"
        # boto3's clients are untyped (Any): the response's Credentials are strings
        credentials: dict[str, str] = sts.assume_role(RoleArn=arn, RoleSessionName="embedded-organization")[
            "Credentials"]
        return credentials

    def where(self, event: Any) -> dict[str, str]:
        """The account the event came from (and its alias), as the function's results name it: every row says it,
        the rows of events the function never saw too."""
        account = event.get("account") if isinstance(event, dict) else None
        if not (isinstance(account, str) and ACCOUNT_RE.fullmatch(account)):
            return {}
        alias = self.organization.alias(account)
        return {"account": account, **({"account_alias": alias} if alias else {})}

    def undelivered(self, event: Any) -> str | None:
        account = event.get("account") if isinstance(event, dict) else None
        region = event.get("region") if isinstance(event, dict) else None
        if not (isinstance(account, str) and ACCOUNT_RE.fullmatch(account)
                and isinstance(region, str) and REGION_RE.fullmatch(region)):
            return f"an event without an AWS account and region ({quoted(account)}, {quoted(region)}): no bus receives it"
        if account == self.account and account not in self.organization.accounts:
            return (f"an event of the central account {account}, which organization.accounts does not list: it has no "
                    "member stack, so its default bus forwards nothing")
        if not self._admits(account):
            return (f"the central bus's policy does not admit account {account}: EventBridge refuses what its member "
                    "stack forwards")
        return None

    def _admits(self, account: str) -> bool:
        """Whether the central bus's policy (as synthesized) lets `account` put events on it; every account of the
        embedded world belongs to the configured organization."""
        [bus] = [r for r in self.template["Resources"].values() if r["Type"] == "AWS::Events::EventBus"]
        for statement in bus["Properties"].get("Policy", {}).get("Statement", []):
            principals = statement.get("Principal", {}).get("AWS", [])
            principals = principals if isinstance(principals, list) else [principals]
            org = statement.get("Condition", {}).get("StringEquals", {}).get("aws:PrincipalOrgID")
            if statement.get("Effect") == "Allow" and "events:PutEvents" in json.dumps(statement.get("Action")) and (
                    f"arn:aws:iam::{account}:root" in principals
                    or ("*" in principals and org is not None and org == self.organization.org_id)):
                return True
        return False

    def matched(self, event: Any) -> bool:
        """Forwarded by the member stack of the event's account and region, then matched on the central bus."""
        if not isinstance(event, dict) or self.undelivered(event):
            return False
        forwarding = self._member(event["account"], event["region"])
        return any(matches(pattern, event) for pattern in forwarding) and super().matched(event)

    def _member(self, account: str, region: str) -> list[dict[str, Any]]:
        """The member stack in `account` and `region` (deployed as that account at its first event): the patterns
        of its rules that forward to the central bus."""
        if (account, region) not in self._forwarding:
            credentials = self._credentials(account)
            session = boto3.Session(aws_access_key_id=credentials["AccessKeyId"],
                                    aws_secret_access_key=credentials["SecretAccessKey"],
                                    aws_session_token=credentials.get("SessionToken"), region_name=region)
            cloudformation = session.client("cloudformation")
            template = (self.assembly_dir / f"{self.member_stack}.template.json").read_text()
            cloudformation.create_stack(StackName=self.member_stack, TemplateBody=template, Capabilities=CAPABILITIES)
            status = cloudformation.describe_stacks(StackName=self.member_stack)["Stacks"][0]["StackStatus"]
            if status != "CREATE_COMPLETE":
                raise RuntimeError(f"the member stack did not deploy in {account} {region}: {status}")
            self._forwarding[(account, region)] = self._patterns_targeting(self.bus_arn, session.client("events"))
        return self._forwarding[(account, region)]

    def _job_place(self, event: dict[str, Any]) -> JobPlace:
        return {"account_id": event["account"], "region": event["region"]}

    def _evaluated_place(self, run: dict[str, Any]) -> None:
        """The member stack of the account and region a scheduled run evaluates (its executor role)."""
        if run.get("account") and run.get("region"):
            self._member(run["account"], run["region"])

    def _timeline_place(self, job: Any) -> JobPlace:
        """A timeline's job runs in its member account (deployed at its first tick), in the central region."""
        account = job.account or (self.organization.accounts[0] if self.organization.accounts else self.account)
        self._member(account, self.region)
        return {"account_id": account, "region": self.region}


def embedded(assembly_dir: Path, stack_name: str, organization: Organization | None,
             secrets: Mapping[str, str] | None = None, cloudformation: bool = True) -> EmbeddedAccount:
    """The embedded world a configuration deploys: one account (its stack created by moto's CloudFormation, or with
    `cloudformation` false its resources alone: EmbeddedAccount), or the central stack and its members (always by
    moto's CloudFormation: their outputs are read back from it)."""
    if organization is None:
        return EmbeddedAccount(assembly_dir, stack_name, secrets=secrets, cloudformation=cloudformation)
    return EmbeddedOrganization(assembly_dir, stack_name, organization, secrets=secrets)


def embedded_from(context: Mapping[str, Any], secrets: Mapping[str, str] | None = None,
                  progress: Callable[[str], None] | None = None, cloudformation: bool = True) -> EmbeddedAccount:
    """The embedded world a replay's context deploys: its stack synthesized (rule_actions_cli.synth, cached), then
    one account, or (organization mode) the central stack and a member stack in every account the events name.
    `progress`, when given, is told each slow step (synthesis, the deploy, each event and timeline's minute);
    `cloudformation` false: the stack's resources created without moto's CloudFormation (embedded())."""
    from rule_actions_cdk.app import read_context
    from rule_actions_cli.synth import synthesize

    config, settings = read_context(context)
    if progress:
        progress(f"synthesizing stack {settings.stack_name} (kept in a cache once done)")
    assembly, stack = synthesize(context)
    world = embedded(assembly, stack, config.organization, secrets, cloudformation)
    if progress:
        world.progress = progress
    return world


def _environment(credentials: dict[str, str]) -> dict[str, str]:
    found = {"AWS_ACCESS_KEY_ID": credentials["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"]}
    if credentials.get("SessionToken"):
        found["AWS_SESSION_TOKEN"] = credentials["SessionToken"]
    return found
