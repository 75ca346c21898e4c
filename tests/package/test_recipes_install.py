"""docs/recipes.md's "Trying and deploying a recipe" runs as printed: its first commands (the venv, the `pip
install` line of the clone beside, `rule-actions samples`), taken from the page, run by bash in an empty directory
beside a clone of the repository; then the first recipe saved as rule-actions.json, as the page says, and its
replay line run as printed. The venv holds the dependencies beforehand (tests/installing.py: beside_a_clone)."""

from __future__ import annotations

import re

import pytest
from installing import ROOT, VERSION, beside_a_clone, installed_from, run_as_user

PAGE = ROOT / "docs" / "recipes.md"


def sections() -> dict[str, str]:
    parts = re.split(r"^## ", PAGE.read_text(), flags=re.MULTILINE)[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def blocks(title: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", sections()[title], re.DOTALL)


FIRST = "Stop a hung job and tell Slack"


@pytest.fixture(scope="module")
def tried(built, tmp_path_factory):
    """(the directory, the install block's run, the recipe's replay run)."""
    work, env = beside_a_clone(built, tmp_path_factory.mktemp("recipes"))
    [install, *_] = blocks("Trying and deploying a recipe", "sh")
    installed = run_as_user(install, work, env)
    [config, *_] = blocks(FIRST, "json")
    (work / "rule-actions.json").write_text(config)
    [replay_line] = [line for block in blocks(FIRST, "sh") for line in block.splitlines()
                     if line.startswith("rule-actions replay ")]
    [activate] = [line for line in install.splitlines() if line.startswith("python3 -m venv ")]
    wide = {**env, "COLUMNS": "200"}  # a wide terminal: a row's action on one line
    replayed = run_as_user(f"{activate.split('&& ', 1)[1]}\n{replay_line}", work, wide)  # `. .venv/bin/activate`
    return work, installed, replayed


def test_the_recipes_install_lines_install_from_the_clone_and_write_the_samples(tried):
    work, installed, _ = tried
    # pip built rule-actions from the clone beside the directory
    assert f"Successfully installed rule-actions-{VERSION}" in installed.stdout
    assert installed_from(work / ".venv") == (work.parent / "rule-actions").as_uri()
    # and `rule-actions samples` wrote the events and timelines the recipes replay
    assert (work / "events" / "timelines" / "hung-job.json").is_file()


def test_the_first_recipes_replay_line_stops_the_hung_job_and_tells_slack(tried):
    _, _, replayed = tried
    # Given the table the recipe's replay line prints, each row's lines joined
    table = " ".join(replayed.stdout.split())
    # Then the run at minute 80 stopped the hung job and notified the team and the Slack channel, each done
    assert "hung-job.json#+80m llm-pretrain-2026-11-24-08-00-00-303" in table
    # (BY: the stop the job's tag asked for, the messages the configuration)
    for action in ("stoptraining job done stopped llm-pretrain-2026-11-24-08-00-00-303", "notify team config done",
                   "notify chat config done"):
        assert f"StalledTraining {action}" in table, action
    assert "1 event, 1 matched the stack's rule; actions: 3 done" in table
