"""The distribution as a user gets it: the wheel built from the sources, installed with `[cdk,local]` into a clean
venv outside the checkout; a 10-line CDK app of the user's synthesizes from it, and `rule-actions` runs there
(init, --version, replay of a copied sample). Also: nothing is in the wheel or the function's asset by accident.

One build and one install for the tier (conftest.py: uv, from its cache after `make setup`: a few seconds).
"""

from __future__ import annotations

import json
import shutil
import tomllib
import zipfile
from pathlib import PurePosixPath

from installing import EVENTS, PACKAGES, ROOT, run, user_env

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
# What the wheel carries besides the sources: the CDK package's data files, the command's sample prices (its
# emulator's: the embedded account's Price List) and the sample events.
PACKAGE_DATA = {f"{package.replace('.', '/')}/{name}" for package in ("rule_actions_cdk", "rule_actions_cli.emulator")
                for name in PYPROJECT["tool"]["setuptools"]["package-data"][package]}
SAMPLES = {f"rule_actions_cli/samples/{path.relative_to(EVENTS).as_posix()}"
           for pattern in ("*.json", "*/*.json", "*/*/*.json") for path in EVENTS.glob(pattern)}
USER_APP = '''\
import aws_cdk as cdk
from rule_actions_cdk import RuleActions

app = cdk.App(outdir="cdk.out")
stack = cdk.Stack(app, "MyTraining")
RuleActions(stack, "TrainingActions", config={
    "rules": {"*": ["stoptraining", "notify"]},
    "job_outcomes": {"Failed": ["notify"]},
})
app.synth()
'''
SAMPLE = ROOT / "events" / "vanishing-gradient-sdk-actions.json"  # its action_json: StopTraining and an Email


def test_the_wheel_holds_the_four_packages_and_nothing_else(built):
    # Given the wheel's files
    names = [PurePosixPath(n) for n in zipfile.ZipFile(built).namelist()]
    # Then its top-level names are the four packages and its metadata: no infra, lambdas, events or tests
    assert {n.parts[0] for n in names} == {*PACKAGES, f"rule_actions-{VERSION}.dist-info"}
    # and it carries every source file of theirs, the CDK package's data, the sample events, and no bytecode
    shipped = {str(n) for n in names if n.parts[0] in PACKAGES}
    sources = {f"{package}/{path.relative_to(folder).as_posix()}" for package, folder in PACKAGES.items()
               for path in folder.rglob("*.py") if "__pycache__" not in path.parts}
    assert len(SAMPLES) > 30 and shipped == sources | PACKAGE_DATA | SAMPLES
    entry_points = zipfile.ZipFile(built).read(f"rule_actions-{VERSION}.dist-info/entry_points.txt").decode()
    assert "rule-actions = rule_actions_cli.main:cli" in entry_points


def test_a_users_app_synthesizes_from_the_installed_wheel(installed):
    # Given a user's 10-line CDK app in a directory of their own (no cdk.json, no checkout)
    app = installed / "app"
    app.mkdir()
    (app / "app.py").write_text(USER_APP)
    assert len(USER_APP.splitlines()) == 10
    # When it runs with the venv's Python
    run(installed / "venv" / "bin" / "python", "app.py", cwd=app, env=user_env(installed))
    # Then the template has the rule and the function, named after the user's stack
    template = json.loads((app / "cdk.out" / "MyTraining.template.json").read_text())
    resources = template["Resources"].values()
    rules = [r for r in resources if r["Type"] == "AWS::Events::Rule"]
    functions = [r["Properties"] for r in resources if r["Type"] == "AWS::Lambda::Function"]
    assert rules and [f["FunctionName"] for f in functions] == ["MyTraining-handler"]
    assert functions[0]["Handler"] == "rule_actions.handler.lambda_handler"
    # and its asset holds the handler, the bundled Powertools, and none of the packages around the function
    asset = app / "cdk.out" / ("asset." + functions[0]["Code"]["S3Key"].removesuffix(".zip"))
    top = {path.name for path in asset.iterdir()}
    assert (asset / "rule_actions" / "handler.py").is_file() and "aws_lambda_powertools" in top
    assert not top & {"rule_actions_cdk", "rule_actions_cli", "rule_actions_sdk", "boto3", "botocore"}
    assert not (asset / "rule_actions" / "client.py").exists()
    # on the runtime settings.runtime_python chooses (the user's interpreter's version when Lambda offers it, else
    # the newest Lambda Python found on the machine), with that version's bytecode when an interpreter of it was found
    from rule_actions_cdk.settings import RUNTIME

    tag = "cpython-" + RUNTIME.version.replace(".", "")
    compiled = (asset / "rule_actions" / "__pycache__" / f"handler.{tag}.pyc").is_file()
    assert (functions[0]["Runtime"], compiled) == (f"python{RUNTIME.version}", RUNTIME.interpreter is not None)


def test_the_command_runs_from_a_users_directory(installed):
    # Given the installed command, in a directory holding only a copied sample event
    work, command, env = installed / "work", installed / "venv" / "bin" / "rule-actions", user_env(installed)
    work.mkdir()
    shutil.copy(SAMPLE, work / SAMPLE.name)
    # When the user asks its version and writes the starting configuration
    assert run(command, "--version", cwd=work, env=env).strip() == f"rule-actions {VERSION}"
    run(command, "init", cwd=work, env=env)
    assert {p.name for p in work.iterdir()} == {SAMPLE.name, "rule-actions.json", "rule-actions.schema.json"}
    # And replays the sample with it (./rule-actions.json, found in the current directory)
    rows = [json.loads(line) for line in run(command, "replay", "--json", SAMPLE.name, cwd=work, env=env).splitlines()]
    # Then the SDK's StopTraining and Email ran, and the configuration's notify was decided
    [row] = rows
    assert row["matched"] is True
    assert [(a["kind"], a["origin"], a["outcome"]) for a in row["actions"]] == [
        ("stoptraining", "action_json", "done"), ("email", "action_json", "done"), ("notify", "config", "skipped")]


def test_check_finds_its_sample_events_in_the_installed_package(installed):
    # Given the installed command, away from the checkout's events/
    python = installed / "venv" / "bin" / "python"
    # When `rule-actions check` looks for its default events / Then it finds the shipped samples, all of them
    found = run(python, "-c", "from rule_actions_cli.check import default_events, samples_folder; "
                "print(len(default_events()), samples_folder())", cwd=installed, env=user_env(installed)).split()
    expected = sum(len(e) if isinstance(e := json.loads(p.read_text()), list) else 1 for p in EVENTS.glob("*.json"))
    assert int(found[0]) == expected and "site-packages/rule_actions_cli/samples" in found[1]


def test_every_samples_folder_is_listed_as_a_package_so_setuptools_keeps_it_quietly():
    # Given the folders of events/ (shipped as rule_actions_cli.samples) and pyproject's package list
    folders = {".".join(("rule_actions_cli.samples", *path.relative_to(EVENTS).parts))
               for path in EVENTS.rglob("*") if path.is_dir() and "__pycache__" not in path.parts}
    listed = {name for name in PYPROJECT["tool"]["setuptools"]["packages"] if name.startswith("rule_actions_cli.samples.")}
    # Then each is listed (else the build warns "Package would be ignored" and a future setuptools drops it)
    assert folders == listed
