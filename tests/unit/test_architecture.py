"""The dependency rule (tests/architecture.py) on the real sources, proven on a planted violation; and the fences
that keep AWS, the network and Powertools where they belong."""

from __future__ import annotations

import ast
import importlib
import shutil
from pathlib import Path

import pytest
from architecture import PACKAGES, ROOT, duplicate_classes, graph, violations

PACKAGE = ROOT / "lambdas" / "rule_actions"


def copied(folder: Path) -> dict[str, Path]:
    """The four packages' sources copied under `folder`: package name -> its copy."""
    packages = {name: folder / name for name in PACKAGES}
    for name, source in PACKAGES.items():
        shutil.copytree(source, packages[name], ignore=shutil.ignore_patterns("__pycache__"))
    return packages


def planted_in(folder: Path, package: str, module: str, planted: str) -> list[str]:
    """The rule's violations in a copy of the sources under `folder` where `module` of `package` also has `planted`."""
    packages = copied(folder)
    target = packages[package] / module
    target.write_text(target.read_text() + "\n" + planted + "\n")
    return violations(graph(packages), packages)


def test_the_dependency_rule_holds():
    # Given the function's package, the CLI, the CDK library and the SDK mirror, every import counted (type-only and in-function too)
    # When the rule is checked
    # Then nothing breaks it
    assert violations(graph()) == []


def test_no_two_public_classes_share_a_name():
    # Given every module of the four packages
    # When their public classes are listed by name
    # Then each name is one class's (a Protocol of ports.py and its adapter in effects/ are told apart by name too)
    assert duplicate_classes() == {}


def test_a_planted_class_of_a_taken_name_is_found(tmp_path):
    # Given a copy where the CLI defines a class of a name the function's configuration already uses
    packages = copied(tmp_path)
    target = packages["rule_actions_cli"] / "replay_table.py"
    target.write_text(target.read_text() + "\n\nclass Config:\n    pass\n")
    # When / Then: both modules are named
    assert duplicate_classes(packages) == {"Config": ["rule_actions.config", "rule_actions_cli.replay_table"]}


@pytest.mark.parametrize(("module", "planted", "expected"), [
    ("kinds/email.py", "from rule_actions.config import Config", "a plug-in imports only the ground floor"),
    ("kinds/email.py", "if TYPE_CHECKING:\n    from rule_actions.kinds.stoptraining import KIND", "a plug-in imports only"),
    ("triggers/job_outcome.py", "def later():\n    from rule_actions.jobs import training", "a plug-in imports only"),
    ("records.py", "from rule_actions.config import Config", "the ground floor imports only the ground floor"),
    ("pipeline.py", "from rule_actions.kinds.stoptraining import KIND", "reach them through rule_actions.registry"),
    ("text.py", "from rule_actions.records import Action", None),  # allowed: ground floor to ground floor
    ("grammar.py", "def later():\n    from rule_actions_sdk import ActionList", "the function ships alone"),
    ("handler.py", "from rule_actions_cdk.settings import FILE_NAME", "the function ships alone"),
])
def test_a_planted_violation_fails_the_rule(tmp_path, module, planted, expected):
    # Given a copy of the sources with one import planted
    # When the rule is checked
    found = planted_in(tmp_path, "rule_actions", module, planted)
    # Then it names the planted import (and only an allowed one passes)
    if expected is None:
        assert found == []
    else:
        assert any(expected in line for line in found), found


def test_a_planted_cycle_fails_the_rule(tmp_path):
    # Given a copy where the configuration imports the CLI, which imports the configuration
    packages = copied(tmp_path)
    target = packages["rule_actions"] / "config.py"
    target.write_text(target.read_text() + "\nif TYPE_CHECKING:\n    from rule_actions_cli.main import main\n")
    # When / Then: the cycle is found, though the import is for type checking only
    assert any(line.startswith("import cycle:") and "rule_actions.config" in line for line in violations(graph(packages), packages))


def test_a_new_module_outside_the_ground_floor_is_outside_it(tmp_path):
    # Given a copy where a new module (in no list) is imported by the ground floor. The rule is closed ("imports
    # only"): a checker of forbidden lists (import-linter's forbidden contracts, tried for issue 29) lets it pass
    packages = copied(tmp_path)
    (packages["rule_actions"] / "new_helper.py").write_text("X = 1\n")
    target = packages["rule_actions"] / "records.py"
    target.write_text(target.read_text() + "\nfrom rule_actions.new_helper import X\n")
    # When / Then
    assert "rule_actions.records -> rule_actions.new_helper: the ground floor imports only the ground floor" in (
        violations(graph(packages), packages))


def test_a_planted_cycle_across_packages_fails_the_rule(tmp_path):
    # Given a copy where the constructs import the CLI's synthesis, which imports the constructs: no rule but "no
    # cycles" forbids it (import-linter's acyclic_siblings, tried for issue 29, sees siblings only, not this)
    packages = copied(tmp_path)
    target = packages["rule_actions_cdk"] / "app.py"
    target.write_text(target.read_text() + "\ndef later():\n    from rule_actions_cli import synth\n")
    # When / Then
    assert "import cycle: rule_actions_cdk.app <-> rule_actions_cli.synth" in violations(graph(packages), packages)


@pytest.mark.parametrize(("planted", "expected"), [
    ("if TYPE_CHECKING:\n    from rule_actions.jobs.base import JobFamily", "reach them through rule_actions.registry"),
    ("def later():\n    from rule_actions.effects import sagemaker", "infra/rule_actions_cdk/ uses only"),
])
def test_the_stack_side_reaches_the_plug_ins_through_the_registry_alone(tmp_path, planted, expected):
    # Given a copy where the stack-side registry imports a plug-in package's module, or an adapter
    # When the rule is checked
    found = planted_in(tmp_path, "rule_actions_cdk", "plugins.py", planted)
    # Then the import is named
    assert any(expected in line and line.startswith("rule_actions_cdk.plugins ->") for line in found), found


@pytest.mark.parametrize(("module", "planted", "expected"), [
    ("report.py", "from rule_actions_cli.emulator import sagemaker", "only the replay"),
    ("main.py", "def later():\n    from moto import mock_aws", "only the replay"),
    ("embedded.py", "from moto.core import DEFAULT_ACCOUNT_ID", None),  # allowed: the replay
])
def test_moto_and_its_extensions_are_the_replay_s_alone(tmp_path, module, planted, expected):
    # Given a copy of the sources where a module of the command imports moto or the emulator
    # When the rule is checked
    found = planted_in(tmp_path, "rule_actions_cli", module, planted)
    # Then an import outside the replay is named (the CLI's other commands do not load moto)
    if expected is None:
        assert found == []
    else:
        assert any(expected in line and f"rule_actions_cli.{module[:-3]} ->" in line for line in found), found


def runtime_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


NOT_EFFECTS = sorted(p for p in PACKAGE.rglob("*.py") if "effects" not in p.parts)


@pytest.mark.parametrize("path", NOT_EFFECTS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_effects_call_aws(path):
    assert not {name for name in runtime_imports(path) if name.split(".")[0] in ("boto3", "botocore")}


@pytest.mark.parametrize("path", NOT_EFFECTS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_effects_talk_to_the_network(path):
    assert not {name for name in runtime_imports(path) if name in ("urllib.request", "http.client", "socket", "ssl")}


PURE = sorted(p for p in PACKAGE.rglob("*.py")
              if "effects" not in p.parts and p.name not in ("handler.py", "observability.py", "client.py"))


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_core_imports_no_adapter_and_no_powertools(path):
    used = runtime_imports(path)
    assert not {n for n in used if n.startswith(("rule_actions.effects", "aws_lambda_powertools"))}


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
    used = {name for path in PACKAGE.rglob("*.py") for name in runtime_imports(path)
            if name.startswith("aws_lambda_powertools")}
    assert used <= set(POWERTOOLS_PUBLIC), used - set(POWERTOOLS_PUBLIC)
    for name in POWERTOOLS_PUBLIC:  # and each exists in the installed (bundled) version
        importlib.import_module(name)


def test_each_action_kind_lives_in_the_module_named_after_it():
    # Given the registry's action kinds
    from rule_actions import registry

    # When each kind's module is looked up
    homes = {name: type(kind).__module__ for name, kind in registry.KINDS.items()}
    # Then each is kinds/<its name>.py, so the kind `stop` is never in a module called anything else
    assert homes == {name: f"rule_actions.kinds.{name}" for name in registry.KINDS}
    # And every module in kinds/ is a kind's, or one of the shared ones
    shared = {"__init__", "base", "endpoint"}
    modules = {path.stem for path in (Path(registry.__file__).parent / "kinds").glob("*.py")}
    assert modules - shared == set(registry.KINDS)


def test_each_destination_lives_in_the_module_named_after_it():
    # Given the registry's destinations (a webhook's formats)
    from rule_actions import registry

    # When each destination's module is looked up
    homes = {name: type(found).__module__ for name, found in registry.destinations().items()}
    # Then each is destinations/<its name>.py, and every module there is a destination's or the shared base
    assert homes == {name: f"rule_actions.destinations.{name}" for name in registry.destinations()}
    modules = {path.stem for path in (Path(registry.__file__).parent / "destinations").glob("*.py")}
    assert modules - {"__init__", "base"} == set(registry.destinations())
