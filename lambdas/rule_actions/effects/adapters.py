"""The bag of ports the handler builds once per execution environment (ports.Ports): SageMaker, SNS, the ledger,
webhooks, and in organization mode the member accounts' SageMaker."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rule_actions.effects import begin_invocation
from rule_actions.effects.ledger import Ledger
from rule_actions.effects.notify import Notifier
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.effects.webhook import Webhooks

if TYPE_CHECKING:  # organization mode only: the handler imports it when the configuration has an organization
    from rule_actions.effects.members import Members


class Adapters(NamedTuple):
    jobs: SageMaker
    notifier: Notifier
    ledger: Ledger
    region: str  # where links point: the function's region, or the member's in organization mode
    webhooks: Webhooks
    members: Members | None = None  # organization mode: SageMaker in each event's account (effects/members.py)

    def register(self, lambda_context: object) -> None:
        """The invocation's context: AWS calls, in-progress records and webhook retries end with its remaining time."""
        begin_invocation(lambda_context)
        self.ledger.register(lambda_context)
        self.webhooks.register(lambda_context)

    def in_account(self, account: str, region: str) -> Adapters:
        """The ports for a job of `account` in `region`: with members, SageMaker there (through the account's
        executor role) and links to that region; with one account, these."""
        if self.members is None:
            return self
        return self._replace(jobs=self.members.sagemaker(account, region), region=region)
