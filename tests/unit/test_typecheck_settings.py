"""mypy's settings (pyproject.toml) follow what the code imports: aws-cdk-lib's modules are read exactly where the
packages mypy checks import them, so that no type of theirs the stack's code names is silently Any."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

from architecture import ROOT, imports, modules

SETTINGS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
CDK = Path(importlib.util.find_spec("aws_cdk").origin).parent  # found, not imported: that would start jsii


def cdk_modules() -> set[str]:
    """aws-cdk-lib's modules: the package and each of its subpackages (aws_cdk.aws_iam, aws_cdk.custom_resources...)."""
    return {"aws_cdk", *(f"aws_cdk.{path.parent.name}" for path in CDK.glob("*/__init__.py"))}


def followed(setting: str) -> set[str]:
    """The modules of the overrides that set follow_imports to `setting`."""
    return {module for override in SETTINGS["overrides"] if override.get("follow_imports") == setting
            for module in override["module"]}


def test_mypy_reads_exactly_the_cdk_modules_the_checked_packages_import():
    # Given the CDK modules imported by every module of the packages mypy checks (type-only and late imports too)
    known = cdk_modules()
    assert "aws_cdk.aws_lambda" in known and len(known) > 200
    checked = {name: path for name, path in modules().items() if name.split(".")[0] in SETTINGS["packages"]}
    imported = {module for name, path in checked.items() for module in imports(name, path, known) if module in known}
    assert {"aws_cdk", "aws_cdk.aws_iam", "aws_cdk.aws_lambda"} <= imported
    # Then mypy skips the library but for those, which it follows: no more (a slower check), no fewer (Any types)
    assert followed("skip") == {"aws_cdk.*"}
    assert followed("normal") == imported


def test_a_module_of_the_library_not_listed_is_found(tmp_path):
    # Given a module of the stack that starts importing another CDK module (aws_cdk.aws_ec2)
    source = ROOT / "infra" / "rule_actions_cdk" / "function.py"
    planted = tmp_path / "function.py"
    planted.write_text(source.read_text() + "\nfrom aws_cdk import aws_ec2 as ec2\n")
    # When its imports are read as the first test reads them
    found = {m for m in imports("rule_actions_cdk.function", planted, cdk_modules()) if m in cdk_modules()}
    # Then the new one is among them, and the list lacks it: the first test would fail
    assert "aws_cdk.aws_ec2" in found and "aws_cdk.aws_ec2" not in followed("normal")
