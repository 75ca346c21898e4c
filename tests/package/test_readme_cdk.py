"""The README's "Use it in your own CDK app" runs as printed: its commands and its app, taken from README.md (never
retyped here), run by bash in an empty directory beside a clone of the repository, as the README says, from its
`pip install` line (the clone's path, no package from PyPI named rule-actions) to `npx cdk synth`; what a user sees
is checked: the stack, the configuration of rule-actions.json in it, the warnings, and no Node.js end-of-life
banner. docs/getting-started.md prints the same commands (tests/unit/test_docs.py).

What differs from a user's machine: the venv the README's first line makes already holds the dependencies (uv, from
its cache: pip would take two minutes to install them), so the README's `pip install` line checks them, builds
rule-actions from the clone's source and installs it; npm prefers its cache (`make setup` filled it with this CLI).
One synth: it takes a minute or so.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest
from installing import ROOT, VERSION, beside_a_clone, installed_from, run_as_user

from rule_actions.config import Config
from rule_actions_cdk.settings import split_file

README = ROOT / "README.md"
SECTION = "## Use it in your own CDK app"


def section() -> str:
    text = README.read_text()
    start = text.index(SECTION)
    return text[start:text.index("\n## ", start + 1)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(), re.DOTALL)


def pinned_cdk_cli() -> str:
    return json.loads((ROOT / "package.json").read_text())["devDependencies"]["aws-cdk"]


@pytest.fixture(scope="module")
def user_app(built, tmp_path_factory):
    """(the directory, the finished bash run) of the README's first commands, run in an empty directory beside a
    clone."""
    work, env = beside_a_clone(built, tmp_path_factory.mktemp("readme"))
    [commands, *_] = blocks("sh")
    return work, run_as_user(commands, work, env)


def test_the_readme_installs_the_pinned_cdk_cli_and_ends_with_a_synth():
    [commands, *_] = blocks("sh")
    lines = [line.split("#")[0].strip() for line in commands.splitlines()]
    assert f"npm install aws-cdk@{pinned_cdk_cli()}" in lines  # the CDK CLI as package.json pins it
    assert "rule-actions init --cdk" in lines
    assert lines[-1] == "npx cdk synth"


def test_the_readme_synthesizes_as_printed_with_its_app_and_rule_actions_json(user_app):
    work, _ = user_app
    # Then the app the README prints is the one `init --cdk` wrote and cdk.json ran
    [app] = blocks("python")
    assert (work / "app.py").read_text() == app
    # and its stack holds the construct, named after the stack, configured by rule-actions.json
    template = json.loads((work / "cdk.out" / "RuleActions.template.json").read_text())
    functions = {r["Properties"]["FunctionName"]: r["Properties"] for r in template["Resources"].values()
                 if r["Type"] == "AWS::Lambda::Function" and isinstance(r["Properties"].get("FunctionName"), str)}
    config = json.loads(functions["RuleActions-handler"]["Environment"]["Variables"]["RULE_ACTIONS_CONFIG"])
    written, _ = split_file(json.loads((work / "rule-actions.json").read_text()), "rule-actions.json")
    assert Config.from_dict(config) == Config.from_dict(written) and config["job_outcomes"]
    # with the outputs `rule-actions check --stack RuleActions` and `test-notify` read
    assert "TrainingActionsFunctionName" in template["Outputs"]
    # and the CDK CLI is the version the project pins
    installed = json.loads((work / "node_modules" / "aws-cdk" / "package.json").read_text())["version"]
    assert installed == pinned_cdk_cli()


def test_a_users_synth_shows_the_configurations_warnings_and_no_node_banner(user_app):
    _, done = user_app
    # The stack is printed, the warnings of rule-actions.json (no address yet) are said once, as one block
    assert "Resources:" in done.stdout
    assert done.stderr.count("rule-actions: the configuration is valid, but:") == 1
    assert "rule-actions.json.notify lists no emails or sms" in " ".join(done.stderr.split())
    # and no end-of-life banner of the jsii runtime (Python bytes literals), whatever Node.js runs it
    assert "b'!!" not in done.stderr and "end-of-life" not in done.stderr


def test_the_readmes_pip_line_installs_rule_actions_from_the_clone_beside(user_app):
    work, done = user_app
    # Given the README's install line: a path, the clone's, not a name that PyPI would resolve
    [pip_line] = [line for line in blocks("sh")[0].splitlines() if line.startswith("pip install ")]
    assert shlex.split(pip_line.split("#")[0])[2:] == ["../rule-actions[cdk,local]"]
    # Then pip built rule-actions from the clone beside the directory and installed it, the extras' names known
    assert f"Successfully installed rule-actions-{VERSION}" in done.stdout
    assert installed_from(work / ".venv") == (work.parent / "rule-actions").as_uri()
    assert "does not provide the extra" not in done.stdout + done.stderr
