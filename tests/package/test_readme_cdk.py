"""The README's "Use it in your own CDK app" runs as printed: its commands and its app, taken from README.md (never
retyped here), run by bash in an empty directory, then `npx cdk synth` as its last command; what a user sees is
checked: the stack, the configuration of rule-actions.json in it, the warnings, and no Node.js end-of-life banner.

What differs from a user's machine is only where the packages come from: the built wheel instead of PyPI (which
may hold another project's `rule-actions`). The venv the README's first line makes is made beforehand with the
wheel and its extras (uv, from its cache), its `pip install` line then runs verbatim against the wheel's folder
with no index (so it proves the extras' names), and npm prefers its cache (`make setup` filled it with this CLI).
One synth: it takes a minute or so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from installing import ROOT, install, user_env

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
    """(the directory, the finished bash run) of the README's first commands, run in an empty directory."""
    home = tmp_path_factory.mktemp("readme")
    work = home / "my-app"
    work.mkdir()
    install(built, work / ".venv", home)  # what the README's `python3 -m venv` and `pip install` lines make
    bin_ = home / "bin"  # the user's python3: the interpreter the venv was made from
    bin_.mkdir()
    (bin_ / "python3").symlink_to(Path(sys._base_executable).resolve())
    quiet_settings = ("JSII_SILENCE", "AWS_SDK_JS_NODE_VERSION", "CDK_HOME")  # what the Makefile sets, not a user
    env = {key: value for key, value in user_env(home).items() if not key.startswith(quiet_settings)}
    npm_cache = env.get("npm_config_cache") or env.get("NPM_CONFIG_CACHE") or str(Path.home() / ".npm")
    env.update(PATH=f"{bin_}{os.pathsep}{env['PATH']}", HOME=str(home),
               PIP_NO_INDEX="1", PIP_FIND_LINKS=str(built.parent), PIP_DISABLE_PIP_VERSION_CHECK="1",
               npm_config_cache=npm_cache, npm_config_prefer_offline="true",  # the cache `make setup`'s npm ci filled
               npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false",
               CDK_DISABLE_CLI_TELEMETRY="1")
    [commands, *_] = blocks("sh")
    done = subprocess.run(["bash", "-e", "-c", commands], cwd=work, env=env, capture_output=True, text=True,
                          timeout=1200, check=False)
    assert done.returncode == 0, f"{commands}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    return work, done


def test_the_readme_installs_the_pinned_cdk_cli_and_ends_with_a_synth():
    [commands, *_] = blocks("sh")
    lines = [line.split("#")[0].strip() for line in commands.splitlines()]
    assert f"npm install aws-cdk@{pinned_cdk_cli()}" in lines  # the CDK CLI as package.json pins it
    assert 'pip install "rule-actions[cdk,local]"' in lines and "rule-actions init --cdk" in lines
    assert lines[-1] == "npx cdk synth"


def test_the_readme_synthesizes_as_printed_with_its_app_and_rule_actions_json(user_app):
    work, _ = user_app
    # Then the app the README prints is the one `init --cdk` wrote and cdk.json ran
    [app] = blocks("python")
    assert (work / "app.py").read_text() == app
    # and its stack holds the construct, named after the stack, configured by rule-actions.json
    template = json.loads((work / "cdk.out" / "MLPlatform.template.json").read_text())
    functions = {r["Properties"]["FunctionName"]: r["Properties"] for r in template["Resources"].values()
                 if r["Type"] == "AWS::Lambda::Function" and isinstance(r["Properties"].get("FunctionName"), str)}
    config = json.loads(functions["MLPlatform-handler"]["Environment"]["Variables"]["RULE_ACTIONS_CONFIG"])
    written, _ = split_file(json.loads((work / "rule-actions.json").read_text()), "rule-actions.json")
    assert Config.from_dict(config) == Config.from_dict(written) and config["job_outcomes"]
    # with the outputs `rule-actions check --stack MLPlatform` and `test-notify` read
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
    # and pip found the extras the README names
    assert "does not provide the extra" not in done.stdout + done.stderr
