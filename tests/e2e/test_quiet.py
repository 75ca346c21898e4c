"""What a user sees besides the answer: no noise. A synth run as `cdk synth` runs the app prints no Node
end-of-life banner (as Python bytes literals) and no "Bundling asset" line; a replay that synthesizes prints
nothing on stderr but the configuration's warnings (as synth does); the CDK CLI is told not to print the AWS SDK's Node version warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rule_actions_cli import deploy
from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_app_synthesizes_without_the_node_banner_or_bundling_lines(tmp_path):
    # Given the environment of a shell that never ran make (no JSII_SILENCE_... variable)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JSII_SILENCE")}
    env.update(CDK_OUTDIR=str(tmp_path / "out"), JSII_RUNTIME_PACKAGE_CACHE_ROOT=str(ROOT / ".cache" / "jsii"))

    # When the app runs as `cdk synth` runs it (cdk.json's "app")
    done = subprocess.run([sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)

    # Then it synthesizes, and stderr holds the configuration's warnings only
    assert done.returncode == 0, done.stderr
    assert "b'" not in done.stderr and "end-of-life" not in done.stderr
    assert "Bundling asset" not in done.stderr
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_a_replay_that_synthesizes_prints_nothing_on_stderr(tmp_path, monkeypatch, capfd):
    # Given an empty synth cache (the first replay of a configuration)

    monkeypatch.setenv("RULE_ACTIONS_CACHE", str(tmp_path / "cache"))
    event = ROOT / "events" / "vanishing-gradient-sdk-actions.json"

    # When an event is replayed
    code = main(["replay", "--json", "--config", str(ROOT / "examples" / "demo-config.json"), str(event)])

    # Then stdout has its row and stderr nothing but the configuration's warnings, which synth prints too (the
    # jsii runtime's output would reach file descriptor 2)
    out, err = capfd.readouterr()
    assert code == 0 and json.loads(out)["matched"]
    assert err == CONFIG_WARNINGS and err.startswith("rule-actions: the configuration is valid, but:\n  - allows: ")


# What synth says of the demo configuration (its allowed_endpoints is empty), as the replay prints it: each field
# named by its path in the file given (--config, shown relative to the current directory, the repository's root).
CONFIG_WARNINGS = """\
rule-actions: the configuration is valid, but:
  - allows: examples/demo-config.json.allowed_endpoints is empty: a rule's action_json, which anyone who can
    start a training job writes, may email any address (SNS asks each address to confirm first); texts go only
    to numbers this configuration names (allow_any_sms is false). List the addresses and numbers allowed
    (globs) to restrict it.
"""


def test_the_cdk_cli_is_asked_not_to_print_the_sdks_node_version_warning(monkeypatch):
    # Given a recorder in place of the CDK CLI
    calls = []
    monkeypatch.setattr(deploy.subprocess, "run", lambda command, cwd=None, env=None, check=False: calls.append(env)
                        or subprocess.CompletedProcess(command, 0))
    monkeypatch.setattr(deploy, "where", lambda hint="": ("us-east-1", "123456789012"))

    # When make bootstrap runs it
    assert deploy.main(["bootstrap"], interactive=False) == 0

    # Then the AWS SDK for JavaScript inside it is told to keep its Node version warning to itself
    assert calls[0]["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] == "true"
