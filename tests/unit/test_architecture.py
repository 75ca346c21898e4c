"""The layering the README describes, checked on the sources: infra/ reads only the contract and the
configuration of the function's package; only effects/ talks to AWS; the pure core imports no adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "lambdas" / "rule_actions"


def imports(path: Path) -> set[str]:
    """The modules a file imports at run time (imports for type checking only are left out)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "infra").glob("*.py")), ids=lambda p: p.name)
def test_infra_imports_only_the_contract_and_the_configuration(path):
    used = {name for name in imports(path) if name.startswith("rule_actions")}
    assert used <= {"rule_actions.contract", "rule_actions.config"}, used


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*.py") if "effects" not in p.parts),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_effects_call_aws(path):
    assert not {name for name in imports(path) if name.split(".")[0] in ("boto3", "botocore")}


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*.py") if "effects" not in p.parts),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_effects_talk_to_the_network(path):
    assert not {name for name in imports(path) if name in ("urllib.request", "http.client", "socket", "ssl")}


@pytest.mark.parametrize("module", ["model", "triggers", "plan", "records", "contract", "privacy", "actions",
                                    "config", "messages", "kinds/base", "kinds/webhook", "payloads", "testnotify"])
def test_the_pure_core_imports_no_adapter_and_no_powertools(module):
    used = imports(PACKAGE / f"{module}.py")
    assert not {n for n in used if n.startswith(("rule_actions.effects", "rule_actions.execute", "aws_lambda_powertools"))}


# The Powertools modules the function imports, each public in Powertools' documentation: a module outside this
# list may change or vanish in any release of the version range pyproject.toml allows.
POWERTOOLS_PUBLIC = {
    "aws_lambda_powertools.logging": "user guide, Logger",
    "aws_lambda_powertools.metrics": "user guide, Metrics (Metrics, MetricUnit, single_metric)",
    "aws_lambda_powertools.utilities.idempotency": "user guide, Idempotency (its __all__)",
    # The guide tells users to handle IdempotencyAlreadyInProgressError; the API reference documents this module
    # (api_doc/idempotency/exceptions), its only home.
    "aws_lambda_powertools.utilities.idempotency.exceptions": "API reference, idempotency exceptions",
    "aws_lambda_powertools.utilities.parameters": "user guide, Parameters (SecretsProvider)",
}


def test_the_function_imports_only_powertools_public_modules():
    used = {name for path in PACKAGE.rglob("*.py") for name in imports(path) if name.startswith("aws_lambda_powertools")}
    assert used <= set(POWERTOOLS_PUBLIC), used - set(POWERTOOLS_PUBLIC)
    import importlib

    for name in POWERTOOLS_PUBLIC:  # and each exists in the installed (bundled) version
        importlib.import_module(name)
