"""Shared test set-up: never real AWS. Fake credentials and a fixed region for every test; botocore's JSON files
parsed and its services listed once per process; the slowest tiers run first."""

import functools
import os
import sys
from pathlib import Path

import pytest
from botocore import loaders

# Set before any boto3 client exists; tests that need an endpoint set AWS_ENDPOINT_URL themselves.
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION="us-east-1",
    AWS_REGION="us-east-1",
    POWERTOOLS_SERVICE_NAME="rule-actions",
    POWERTOOLS_METRICS_NAMESPACE="RuleActions",
)
os.environ.pop("AWS_PROFILE", None)
os.environ.pop("AWS_ENDPOINT_URL", None)


# botocore parses its JSON files (endpoints, service models) anew for every session, and the tests start many: moto's
# mock_aws gives each test a new default session, and the function's runtime() makes its own. Parsing the same files
# again was 40% of the integration tier's time. Here each file is parsed once per process; botocore only reads a
# parsed model (a session's clients share one already), and merging a model's sdk-extras into it again changes
# nothing.
_parse = loaders.JSONFileLoader._load_file


@functools.cache
def _parsed(full_path: str, open_method):
    return _parse(loaders.JSONFileLoader(), full_path, open_method)


loaders.JSONFileLoader._load_file = lambda self, full_path, open_method: _parsed(full_path, open_method)

# A session also walks botocore's data folders (400 services, a listdir and stats each) to list the services it knows,
# for boto3's resources and for each client: 27 ms of every integration test's 96 ms of set-up. The folders do not
# change during a run: listed once per process.
_list_services = loaders.Loader.list_available_services
_listed: dict[tuple[tuple[str, ...], str], list[str]] = {}


def _services(self: loaders.Loader, type_name: str) -> list[str]:
    key = (tuple(self.search_paths), type_name)
    if key not in _listed:
        _listed[key] = _list_services(self, type_name)
    return list(_listed[key])


loaders.Loader.list_available_services = _services

# The tiers, slowest module first: `make test` hands the modules to pytest-xdist's workers in this order (--dist
# loadscope --no-loadscope-reorder: a module to the first worker free), so that the run ends with the unit tests'
# short modules on both workers, not one worker finishing a long module alone. (xdist's own order, the modules with
# the most tests first, put the package tier, whose four modules take minutes, at the end.)
TESTS = Path(__file__).resolve().parent
TIERS = ("package", "e2e", "bench", "artifact", "fuzz", "infra", "integration", "unit")


def pytest_collection_modifyitems(items):
    def tier(item: pytest.Item) -> int:
        folder = item.path.relative_to(TESTS).parts[0] if item.path.is_relative_to(TESTS) else ""
        return TIERS.index(folder) if folder in TIERS else len(TIERS)

    items.sort(key=tier)  # stable: each module's tests stay together, in their order


@pytest.fixture(autouse=True)
def _no_invocation_deadline_left_behind():
    """Each test starts outside any invocation: a handler run in an earlier test leaves its deadline (its context's
    remaining time) in the process, which would refuse a later test's AWS calls once it passed (NoTimeLeft): the
    10,000-event load test, started within a minute of the fuzz tests' last invocation, failed so on a busy machine."""
    effects = sys.modules.get("rule_actions.effects")  # not imported yet: nothing left behind
    if effects is not None:
        effects.begin_invocation(None)
    yield


@pytest.fixture(autouse=True)
def _no_terminal_width_given(monkeypatch):
    """Each test sees no COLUMNS or LINES, as in a pipe, whatever runs it: a pytest-xdist worker has COLUMNS=80 in its
    environment, which narrowed the replay's table (rule_actions_cli.replay_table fits COLUMNS) in the tests that read it
    at its default width. A test that needs a width sets it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
