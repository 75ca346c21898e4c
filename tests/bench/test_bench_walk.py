"""Smoke test for the walk of an invocation through the code (`make bench` 10, bench/walk.py): it walks a sample event
and a scheduled evaluation, and the route it shows goes one way (in a module of its own: each walk needs a fresh
embedded account)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import walk  # noqa: E402

HANDLER, PIPELINE = "rule_actions.handler", "rule_actions.pipeline"


def test_the_walk_counts_what_it_says_and_the_route_goes_one_way():
    # Given the walks of a sample event and of a scheduled evaluation that acts on its finding
    found = walk.walks()
    for name, walked in found.items():
        # Then each counts its places and its returns to places already left, at both depths
        route, full = walk.counts(walked.places(walk.ROUTE_DEPTH)), walk.counts(walked.places())
        assert 0 < route[0] <= full[0] and 0 < route[1] <= full[1], name
        # And the handler is entry only: it calls the pipeline twice (is this a request of a trigger family's own,
        # then the route), else only the environment's ports and the registry's reading of a scheduled request;
        # every decision (organization mode, scope, the triggers that count) is the pipeline's
        calls, entries, last = set(), 0, None
        for chain in walked.chains:
            below = [(chain[i], chain[i + 1]) for i in range(len(chain) - 1)
                     if chain[i][0] == HANDLER and chain[i + 1][0] != HANDLER]
            calls |= {callee for _, callee in below}
            into = next((pair for pair in below if pair[1][0] == PIPELINE), None)
            entries += into is not None and into != last
            last = into
        assert entries == 2, name
        assert {module for module, _ in calls} <= {PIPELINE, "rule_actions.registry", "rule_actions.effects",
                                                   "rule_actions.effects.adapters"}, (name, calls)
        assert ("rule_actions.registry", "evaluation_request") in calls, name
    modules = {module for chain in found["scheduled evaluation"].chains for module, _ in chain}
    assert "rule_actions.monitors.evaluation" in modules and PIPELINE in modules
    # And a return is counted each time the walk comes back to a place it had left
    assert walk.counts([("a", "f"), ("b", "g"), ("a", "f"), ("b", "g")])[:2] == (2, 2)
