"""The release machinery (docs/development.md, Cutting a release): the version stated once, in pyproject.toml; the
workflow that publishes a tag v<version> builds, checks and publishes with PyPI's trusted publishing (it runs on
GitHub only: here its file is read); `make test` builds and checks the same files (`make dist`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def steps(job: str) -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"][job]["steps"]


def test_the_workflow_runs_on_a_version_tag_and_refuses_a_tag_that_is_not_the_version():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as true
    [check] = [step["run"] for step in steps("build") if "tag" in step.get("name", "")]
    assert '"$GITHUB_REF_NAME" != "v$version"' in check and "pyproject.toml" in check and "exit 1" in check


def test_the_workflow_builds_checks_and_publishes_with_trusted_publishing_only():
    runs = "\n".join(step.get("run", "") for step in steps("build"))
    assert "python -m build --outdir dist ." in runs and "twine check --strict dist/*" in runs
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["publish"]
    assert job["needs"] == "build" and job["permissions"] == {"id-token": "write"} and job["environment"] == "pypi"
    [publish] = [step for step in job["steps"] if "pypi-publish" in step.get("uses", "")]
    assert "with" not in publish  # no password or token: trusted publishing
    assert "secrets." not in WORKFLOW.read_text()


def made_by_make_test(makefile: str) -> set[str]:
    """The targets `make test` makes: its prerequisites and those its recipe makes ($(MAKE) ... $(TEST_STEPS)), the
    Makefile's `NAME := value` variables expanded."""
    variables = dict(re.findall(r"^(\w+) :?= (.*)$", makefile, re.MULTILINE))
    rule = makefile[makefile.index("\ntest: "):].split("\n\n")[0]
    prerequisites, _, recipe = rule.removeprefix("\ntest: ").partition("\n")
    made = {*prerequisites.split()}
    for line in recipe.splitlines():
        if "$(MAKE)" in line:
            made |= {word for word in re.sub(r"\$\((\w+)\)", lambda m: variables.get(m[1], ""), line).split()
                     if re.fullmatch(r"[a-z][a-z-]*", word)}
    return made


def test_make_test_builds_and_checks_what_a_release_publishes():
    makefile = (ROOT / "Makefile").read_text()
    assert {"setup", "dist", "pytest"} <= made_by_make_test(makefile)
    dist = makefile[makefile.index("\ndist: "):].split("\n\n")[0]
    assert "-m build" in dist and "twine check --strict dist/*" in dist


def test_the_version_is_stated_once():
    # pyproject.toml's; no source states it (the command reads the installed metadata: tests/unit/test_files.py)
    stated = [path for folder in ("lambdas", "infra", "rule_actions_cli", "rule_actions_sdk")
              for path in (ROOT / folder).rglob("*.py") if re.search(rf"""["']{re.escape(VERSION)}["']""",
                                                                       path.read_text())]
    assert not stated
    # and the changelog's newest entry is that version's
    assert re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE).group(1) == VERSION
