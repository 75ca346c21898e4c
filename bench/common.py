"""What the benchmarks share: the corpus, the synthesized stack, an embedded account whose handler clients are
counted, statistics and the printed blocks. Nothing here asserts: the benchmarks print numbers."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EVENTS = ROOT / "events"
DEMO_CONFIG = ROOT / "examples" / "demo-config.json"  # a team to notify (ml-team@example.com)

# The AWS documentation sample's rule (sdk-facts §4): every state change of every training job invokes it.
SAMPLE_PATTERN: dict[str, Any] = {"source": ["aws.sagemaker"], "detail-type": ["SageMaker Training Job State Change"]}

# AWS operations the handler makes, by what they are for.
ACTION_CALLS = frozenset({
    "StopTrainingJob", "ListTrainingJobs",
    "Publish", "Subscribe", "GetSubscriptionAttributes", "SetSubscriptionAttributes", "ListSubscriptionsByTopic",
})
DESCRIBE_CALLS = frozenset({"DescribeTrainingJob"})
LEDGER_CALLS = frozenset({"PutItem", "UpdateItem", "GetItem", "DeleteItem"})


def classify(operation: str) -> str:
    """action | describe | ledger | other (describe and ledger are the overhead)."""
    if operation in ACTION_CALLS:
        return "action"
    if operation in DESCRIBE_CALLS:
        return "describe"
    if operation in LEDGER_CALLS:
        return "ledger"
    return "other"


# ------------------------------------------------------------------------------------------------- corpus


def lifecycle_files(events_dir: Path = EVENTS) -> list[Path]:
    """The lifecycle files, read at run time (another change may add some)."""
    return sorted(Path(p) for p in glob.glob(str(events_dir / "lifecycle-*.json")))


def load_lifecycles(events_dir: Path = EVENTS) -> list[tuple[str, dict[str, Any]]]:
    """Every lifecycle event in file order, as (FILE#INDEX, event)."""
    from rule_actions_cli.inputs import load

    files = lifecycle_files(events_dir)
    events, errors = load([str(p) for p in files]) if files else ([], [])
    if errors:
        raise SystemExit("bench: unusable lifecycle files: " + "; ".join(errors))
    return events


# ---------------------------------------------------------------------------------------------- the stack


def context(config_file: Path | None = None) -> dict[str, Any]:
    """The context `cdk synth` uses (rule-actions.json's), its rule_actions replaced by `config_file` when given."""
    from rule_actions_cdk.app import project_context

    ctx = project_context()
    if config_file is not None:
        ctx["rule_actions"] = json.loads(config_file.read_text(encoding="utf-8"))
    return ctx


def synthesized(ctx: dict[str, Any]) -> tuple[Path, str, dict[str, Any]]:
    """(assembly dir, stack name, template) synthesized from `ctx` (cached by rule_actions_cli.synth)."""
    from rule_actions_cli.synth import synthesize

    assembly, stack = synthesize(ctx)
    template = json.loads((assembly / f"{stack}.template.json").read_text())
    return assembly, stack, template


def function_patterns(template: dict[str, Any]) -> list[dict[str, Any]]:
    """The EventPattern of every EventBridge rule in the template that targets one of its Lambda functions."""
    resources = template.get("Resources", {})
    functions = {name for name, r in resources.items() if r.get("Type") == "AWS::Lambda::Function"}
    patterns = []
    for resource in resources.values():
        if resource.get("Type") != "AWS::Events::Rule":
            continue
        props = resource.get("Properties", {})
        targets = [t.get("Arn") for t in props.get("Targets", [])]
        if "EventPattern" in props and any(isinstance(a, dict) and a.get("Fn::GetAtt", [None])[0] in functions
                                           for a in targets):  # (a schedule rule has no pattern)
            pattern = props.get("EventPattern")
            patterns.append(json.loads(pattern) if isinstance(pattern, str) else pattern)
    return patterns


# ------------------------------------------------------------------------------- the counted embedded account


class CallCounter:
    """Counts every AWS operation made by the clients it is attached to (botocore's before-call event)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def attach(self, *clients: Any) -> None:
        for client in clients:
            if getattr(client, "_bench_counted", None) is self:
                continue
            # As specific as botocore's Stubber ("before-call.*.*"), so that a counter attached first also sees
            # stubbed calls (the most specific handlers run first, and a response ends the chain).
            client.meta.events.register("before-call.*.*", self._record, unique_id=f"bench-counter-{id(self)}")
            client._bench_counted = self

    def _record(self, model: Any, **_: Any) -> None:
        self.calls.append(model.name)

    def mark(self) -> int:
        return len(self.calls)

    def since(self, mark: int) -> Counter:
        return Counter(self.calls[mark:])


class Harness:
    """The stack's template deployed into moto (rule_actions_cli.embedded.EmbeddedAccount), the handler run
    in-process with the function's environment and its three clients counted; logs and metrics discarded.

    `process(source, event)` is one step of EmbeddedAccount.replay (seed the job, match the stack's rule, invoke
    the handler when it matches), returning the replay row, the handler's wall time and the calls it made.
    """

    def __init__(self, assembly: Path, stack: str):
        self.assembly, self.stack = assembly, stack
        self.counter = CallCounter()

    def __enter__(self) -> Harness:
        from rule_actions_cli.embedded import EmbeddedAccount, LocalContext

        self._exit = contextlib.ExitStack()
        self.account = self._exit.enter_context(EmbeddedAccount(self.assembly, self.stack))
        try:
            os.environ.update(self.account.environment, AWS_REGION=self.account.region)
            from rule_actions import handler
            from rule_actions.observability import logger

            self.handler = handler
            handler.runtime.cache_clear()
            self._exit.callback(handler.runtime.cache_clear)
            devnull = self._exit.enter_context(open(os.devnull, "w"))
            self._devnull = devnull
            # Swapped, not setStream: that flushes the stream it replaces, which a caller may have closed since
            # (pytest's capsys closes its stream when the test that imported the logger ends).
            log = logger.registered_handler
            saved, log.stream = log.stream, devnull
            self._exit.callback(setattr, log, "stream", saved)
            self.lambda_context = LocalContext(self.account.function_name, self.account.function_arn)
        except BaseException:
            self._exit.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._exit.close()

    def effects(self) -> Any:
        """The handler's effects (created on first use, as at cold start), their clients counted."""
        effects = self.handler.runtime()[1]
        self.counter.attach(effects.jobs.client, effects.notifier.client, effects.ledger.client)
        return effects

    def process(self, source: str, event: Any) -> tuple[dict[str, Any], float | None, Counter]:
        """(replay row, handler seconds or None when not matched, the AWS calls the handler made)."""
        from rule_actions_cli.inputs import job_of
        from rule_actions_cli.replay_table import row

        self.effects()
        account = self.account
        account.seed_job(event)
        job, family = job_of(event)
        if not account.matched(event):
            return row(source, job, False, None, family=family), None, Counter()
        mark = self.counter.mark()
        with contextlib.redirect_stdout(self._devnull):  # EMF metrics go to stdout in Lambda
            start = time.perf_counter()
            try:
                result = self.handler.lambda_handler(event, self.lambda_context)
            except self.handler.ActionsFailed as err:  # Lambda would retry; the replay reports it
                result = {**err.result, "error": str(err)}
            elapsed = time.perf_counter() - start
        return row(source, result.get("job") or job, True, result, family=family), elapsed, self.counter.since(mark)

    def replay(self, events: Iterable[tuple[str, Any]]) -> Iterator[tuple[dict[str, Any], float | None, Counter]]:
        for source, event in events:
            yield self.process(source, event)


# -------------------------------------------------------------------------------------------- statistics


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


def ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


# ---------------------------------------------------------------------------------------------- printing


def block(title: str, lines: list[str], verdict: str | None = None) -> str:
    bar = "=" * 100
    out = [bar, title, "-" * 100, *lines]
    if verdict:
        out.append(verdict)
    return "\n".join(out)


def verdict(ok: bool, what: str) -> str:
    return f"{'PASS' if ok else 'MISS'}: {what}"

