"""The only modules that call AWS or the network (the adapters: `adapters.Adapters` is the bag the handler builds).
Clients use botocore's standard retry mode and honour AWS_ENDPOINT_URL.

Time: every call has explicit connect and read timeouts, and its retries a budget, so that one stalled service
cannot use up the invocation and every action is attempted (with a 60 s function: a stalled call costs at most
one attempt, about 7 s; five such calls and a webhook's whole delivery, 15 s, still leave time):

    CONNECT_TIMEOUT  2 s   in-region TCP connects take milliseconds; 2 s allows one lost SYN (Linux resends it
                           after 1 s) where botocore's default waits 60 s
    READ_TIMEOUT     5 s   per socket read; the calls made here (Publish, Subscribe, StopTrainingJob, a page of
                           ListTrainingJobs, DynamoDB item writes) answer in tens to hundreds of milliseconds, and
                           the whole replay of the sample corpus, moto included, stays under 75 ms per event
                           at p99 (bench/throughput.py); 5 s is ten times the slowest of them, not botocore's 60 s
    ATTEMPTS         3     botocore standard mode's own default (the first attempt and two retries)
    CALL_BUDGET     10 s   one call, all its attempts: another attempt starts only if it can finish in time, after
                           the longest backoff standard mode may wait before it (1, then 2 s for throttling):
                           throttling gets its 3 attempts, a stalled attempt (7 s) gets no second one
    END_RESERVE      1 s   kept at the end of the invocation to return its result: no attempt starts that could
                           not finish before it (the call fails with NoTimeLeft, the event is retried by Lambda)

A send that may have reached SNS is never retried in the client (SENDS): see `_retry_allowed`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import boto3
from botocore.config import Config as BotoConfig
from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError, ProxyConnectionError

CONNECT_TIMEOUT = 2.0
READ_TIMEOUT = 5.0
ATTEMPTS = 3
CALL_BUDGET = 10.0
END_RESERVE = 1.0
# Operations that must not be repeated blindly: a second Publish is a second email. Retried only when the request
# surely never reached the service (the connection could not be opened) or the service answered that it failed.
SENDS = frozenset({("sns", "Publish")})
NOT_SENT = (ConnectTimeoutError, EndpointConnectionError, ProxyConnectionError)
_CALL_ENDS = "rule_actions_call_ends"  # in botocore's per-call request context: when this call's budget runs out


class NoTimeLeft(RuntimeError):
    """An AWS call was not attempted: it could not finish before the invocation's time runs out."""


_invocation = {"ends": math.inf}  # monotonic time, less END_RESERVE; inf outside Lambda (tests, the CLI)


def begin_invocation(lambda_context: Any) -> None:
    """The invocation's remaining time bounds every AWS call from now on (see the module's doc)."""
    remaining = lambda_context.get_remaining_time_in_millis() / 1000 if lambda_context is not None else math.inf
    _invocation["ends"] = time.monotonic() + remaining - END_RESERVE


class LazyClient:
    """An adapter whose client is made on first use, by the factory it is given (an invocation that never calls the
    service never makes one)."""

    def __init__(self, make_client: Callable[[], Any]):
        self._make, self._client = make_client, None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._make()
        return self._client


def client(service: str, region: str | None = None, credentials: Mapping[str, str] | None = None) -> Any:
    """A client for `service`; botocore itself reads AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE>. `credentials`:
    STS's (an assumed role's), else the environment's. Timeouts, retries and budgets as the module's doc says."""
    keys = {} if credentials is None else {
        "aws_access_key_id": credentials["AccessKeyId"],
        "aws_secret_access_key": credentials["SecretAccessKey"],
        "aws_session_token": credentials["SessionToken"],
    }
    config = BotoConfig(connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT,
                        retries={"mode": "standard", "total_max_attempts": ATTEMPTS}, user_agent_extra="rule-actions")
    made = boto3.client(service, region_name=region, config=config, **keys)
    service_id = made.meta.service_model.service_id.hyphenize()
    made.meta.events.register(f"before-call.{service_id}", _start_call)
    # First among the handlers of this name, so before standard mode's own: a False answer means "no retry".
    made.meta.events.register_first(f"needs-retry.{service_id}", _retry_allowed)
    return made


def _longest_attempt() -> float:
    return CONNECT_TIMEOUT + READ_TIMEOUT


def _start_call(model: Any, context: dict[str, Any], **_: Any) -> None:
    """Before a call: refused when even one attempt could not finish in the invocation's time; its budget set."""
    now = time.monotonic()
    if now + _longest_attempt() > _invocation["ends"]:
        raise NoTimeLeft(f"{model.name} not attempted: less than {_longest_attempt():.0f} s of the invocation are "
                         "left (Lambda retries the event)")
    context[_CALL_ENDS] = min(now + CALL_BUDGET, _invocation["ends"])


def _retry_allowed(attempts: int, operation: Any, request_dict: Mapping[str, Any], caught_exception: Any = None,
                   **_: Any) -> bool | None:
    """False (no retry) for a send whose answer was lost (it may have been delivered: Lambda's retry of the event
    decides, and the ledger records the send only once SNS confirmed it), and when another attempt, after the
    longest backoff, could not finish within the call's budget; None lets standard mode decide."""
    service = operation.service_model.service_id.hyphenize()
    if caught_exception is not None and (service, operation.name) in SENDS and not isinstance(caught_exception,
                                                                                              NOT_SENT):
        return False
    ends = request_dict.get("context", {}).get(_CALL_ENDS, math.inf)
    if time.monotonic() + min(2 ** (attempts - 1), 20) + _longest_attempt() > ends:
        return False
    return None


def partition(region: str) -> str:
    """The partition of a region: aws, aws-cn, aws-us-gov..."""
    found: str = boto3.session.Session().get_partition_for_region(region)
    return found
