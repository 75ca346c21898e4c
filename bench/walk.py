"""The walk of an invocation through the function's code: which places it visits, and how often it comes back to a
place it had left (issue 29: "the route bounces"). Not a benchmark of speed: it prints counts.

Method: the real handler runs in the embedded account (a stack synthesized from examples/demo-config.json with the
monitor rules on), warm (its settings and clients made before), under `sys.setprofile`, which reports every Python
call and return (a generator's resumption is a call, its yield a return). A place is a function or method of the
function's package (`rule_actions`; a comprehension, generator expression or lambda belongs to the function that
holds it); frames of boto3, Powertools and the standard library belong to the place that called them. At each call
and return the walk is at the innermost place; consecutive repeats are merged. Two walks are counted:

    route    a place deeper than ROUTE_DEPTH places under the entry stands for its ancestor at that depth: the walk as
             a reader follows the route (entry, source, the route's steps, what each step calls), not every helper
    full     every place, however deep

For each: `places`, the distinct places visited; `returns`, the times the walk comes back to a place it had left
(every position of the walk whose place occurs earlier in it), with those returns to the route's modules
(handler, pipeline, monitors/evaluation). The walks: a sample event (events/vanishing-gradient-sdk-actions.json: a
Debugger rule's IssuesFound with the SDK's actions: a stop, an email, the team) through the rule and the handler;
and the scheduled evaluation of events/timelines/hung-job.json that acts on its finding (the first run that carries
out an action).

`python -m bench.walk` prints both; `--trace` also prints each walk at module granularity.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.common import DEMO_CONFIG, EVENTS, block

SAMPLE = EVENTS / "vanishing-gradient-sdk-actions.json"
TIMELINE = EVENTS / "timelines" / "hung-job.json"
PACKAGE = "rule_actions"
ROUTE = ("rule_actions.handler", "rule_actions.pipeline", "rule_actions.monitors.evaluation")
ROUTE_DEPTH = 5  # the entry's wrapper (observability), the entry, its steps, theirs, and what those call
INNER = re.compile(r"(\.<locals>)?\.<(listcomp|dictcomp|setcomp|genexpr|lambda)>$")

Place = tuple[str, str]  # (module, function)


def _module(frame: Any) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name == PACKAGE or name.startswith(PACKAGE + ".") else None


def _function(code: Any) -> str:
    name = code.co_qualname
    while (inner := INNER.sub("", name)) != name:
        name = inner
    return name


class Walk:
    """Every call and return of an invocation, as the chain of places from the entry to the innermost."""

    def __init__(self) -> None:
        self.chains: list[tuple[Place, ...]] = []

    def _chain(self, frame: Any) -> tuple[Place, ...]:
        found: list[Place] = []
        while frame is not None:
            module = _module(frame)
            if module is not None:
                place = (module, _function(frame.f_code))
                if not found or found[-1] != place:  # a comprehension in its function: one place
                    found.append(place)
            frame = frame.f_back
        return tuple(reversed(found))

    def _profile(self, frame: Any, event: str, _arg: Any) -> None:
        if event == "call":
            chain = self._chain(frame)
        elif event == "return":
            chain = self._chain(frame.f_back)
        else:
            return
        if chain and (not self.chains or self.chains[-1] != chain):
            self.chains.append(chain)

    def run(self, call: Callable[[], Any]) -> Any:
        sys.setprofile(self._profile)
        try:
            return call()
        finally:
            sys.setprofile(None)

    def places(self, depth: int | None = None) -> list[Place]:
        """The walk, each chain cut at `depth` (None: the innermost place), consecutive repeats merged."""
        walk: list[Place] = []
        for chain in self.chains:
            place = chain[:depth][-1] if depth else chain[-1]
            if not walk or walk[-1] != place:
                walk.append(place)
        return walk


def counts(walk: list[Place]) -> tuple[int, int, Counter]:
    """(places, returns to places already left, those returns per module)."""
    seen: set[Place] = set()
    returns: Counter = Counter()
    for place in walk:
        if place in seen:
            returns[place[0]] += 1
        seen.add(place)
    return len(seen), sum(returns.values()), returns


def lines(name: str, walk: Walk) -> list[str]:
    found = []
    for label, depth in (("route", ROUTE_DEPTH), ("full", None)):
        visited, returns, per = counts(walk.places(depth))
        route = ", ".join(f"{m.removeprefix('rule_actions.')} {per[m]}" for m in ROUTE)
        found.append(f"{name:<21} {label:<6} places {visited:>4}   returns {returns:>5}   (to {route})")
    return found


def _walked(account: Any, source: str, event: Any) -> Walk:
    """The sample event through the stack's rule and the handler, walked."""
    from rule_actions import handler

    walk = Walk()
    real = handler.lambda_handler

    def traced(*args: Any) -> Any:
        handler.runtime()  # warm: the settings and clients of the execution environment exist
        return walk.run(lambda: real(*args))

    handler.lambda_handler = traced
    try:
        [row] = account.replay([(source, event)])
    finally:
        handler.lambda_handler = real
    assert row["matched"], row
    return walk


def _evaluation(account: Any) -> Walk:
    """The first scheduled evaluation of the timeline that carries out an action, walked."""
    from rule_actions import handler

    walks: list[tuple[Walk, Any]] = []
    real = handler.lambda_handler

    def traced(event: Any, context: Any) -> Any:
        walk = Walk()
        handler.runtime()
        try:
            result = walk.run(lambda: real(event, context))
        except handler.ActionsFailed as err:
            result = err.result
        walks.append((walk, (event, result)))
        return result

    handler.lambda_handler = traced
    try:
        account.replay_timeline(TIMELINE.name, json.loads(TIMELINE.read_text()))
    finally:
        handler.lambda_handler = real
    for walk, (event, result) in walks:
        if "rule_actions_evaluation" in event and any(
                a["outcome"] == "done" for job in result.get("jobs", []) for a in job.get("actions", [])):
            return walk
    raise SystemExit("bench.walk: no evaluation of the timeline carried out an action")


def walks() -> dict[str, Walk]:
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.synth import synthesize

    quiet_node()
    config = {**json.loads(DEMO_CONFIG.read_text()), "monitor": {}}
    assembly, stack = synthesize({**project_context(), "rule_actions": config})
    with EmbeddedAccount(assembly, stack) as account:
        event = _walked(account, SAMPLE.name, json.loads(SAMPLE.read_text()))
    with EmbeddedAccount(assembly, stack) as account:
        evaluation = _evaluation(account)
    return {"sample event": event, "scheduled evaluation": evaluation}


def run(trace: bool = False) -> list[str]:
    found = walks()
    out = [line for name, walk in found.items() for line in lines(name, walk)]
    print(block("The walk of an invocation: places visited, returns to places already left", out))
    if trace:
        for name, walk in found.items():
            print(f"\n{name} (route):\n  " + " > ".join(f"{m.removeprefix('rule_actions.')}:{f}"
                                                      for m, f in walk.places(ROUTE_DEPTH)))
    return out


if __name__ == "__main__":
    run(trace="--trace" in sys.argv[1:])
