"""The replay's synthesized-stack cache key (rule_actions_cli.synth.cache_key): the configuration as the stack
reads it, aws-cdk-lib's version and the sources. Only the key is computed here: no synth, no jsii runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rule_actions.config import Config
from rule_actions.triggers import rule_status
from rule_actions_cli import synth

FLAGS = {"@aws-cdk/aws-iam:minimizePolicies": True, "@aws-cdk/core:target-partitions": ["aws", "aws-cn"]}
RULES = {"Vanishing*": ["stoptraining", "notify"], "*Gradient": ["notify"], "*": ["notify"]}
STACK = {"stack_name": "RuleActions", "log_retention_days": 30}


def context(rules=RULES, flags=FLAGS, config_extra=None, stack=STACK):
    return {**flags, "rule_actions": {"rules": rules, **(config_extra or {})}, "rule_actions_stack": stack}


def test_rule_order_changes_the_key():
    # Given two configurations that differ only in the order of their `rules` globs
    reordered = {"*Gradient": RULES["*Gradient"], "Vanishing*": RULES["Vanishing*"], "*": RULES["*"]}
    assert list(reordered) != list(RULES) and reordered == RULES
    # (the order decides what a rule does: the first matching glob wins)
    first, second = (rule_status.actions_for(Config.from_dict({"rules": r}), "VanishingGradient") for r in (RULES, reordered))
    assert first != second
    # Then they are different cache entries
    assert synth.cache_key(context(RULES)) != synth.cache_key(context(reordered))


def test_the_same_configuration_written_differently_has_one_key():
    base = synth.cache_key(context())
    # Feature flags in another order
    assert synth.cache_key(context(flags=dict(reversed(FLAGS.items())))) == base
    # Context keys in another order (the blocks first)
    shuffled = context()
    assert synth.cache_key({key: shuffled[key] for key in reversed(shuffled)}) == base
    # The rule_actions keys in another order, and defaults written out
    spelled = {"dedup_ttl_hours": 72, "dry_run": False, "notify": {"emails": [], "sms": []}, "rules": RULES}
    assert synth.cache_key({**FLAGS, "rule_actions": spelled, "rule_actions_stack": STACK}) == base
    # `-c key='{...}'` hands the app JSON strings: the same configuration as the objects
    as_strings = {**FLAGS, "rule_actions": json.dumps({"rules": RULES}), "rule_actions_stack": json.dumps(STACK)}
    assert synth.cache_key(as_strings) == base
    # The stack settings with their defaults written out, in another order
    stack = {"log_retention_days": 30, "reserved_concurrency": None, "stack_name": "RuleActions"}
    assert synth.cache_key(context(stack=stack)) == base


def test_what_the_stack_reads_changes_the_key():
    base = synth.cache_key(context())
    assert synth.cache_key(context(config_extra={"dry_run": True})) != base
    assert synth.cache_key(context(stack={**STACK, "log_retention_days": 90})) != base
    assert synth.cache_key(context(flags={**FLAGS, "@aws-cdk/aws-iam:minimizePolicies": False})) != base
    assert synth.cache_key(context(flags={**FLAGS, "@aws-cdk/core:target-partitions": ["aws-cn", "aws"]})) != base


def test_invalid_blocks_fall_back_to_the_raw_json_in_file_order():
    # Given an invalid block (the caller reports it before synthesizing), the key is still computed
    bad = {"rules": {"Vanishing*": ["reboot"], "*": ["notify"]}, "extra": 1}
    reordered = {"rules": {"*": ["notify"], "Vanishing*": ["reboot"]}, "extra": 1}
    one, two = synth.cache_key({"rule_actions": bad}), synth.cache_key({"rule_actions": reordered})
    # And the order is not sorted away
    assert one != two and one == synth.cache_key({"rule_actions": json.loads(json.dumps(bad))})


def test_a_changed_source_changes_the_key(tmp_path, monkeypatch):
    # Given the installed packages that shape the stack, as a tree of files
    for folder in ("rule_actions_cdk", "lambdas/rule_actions"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "module.py").write_text("x = 1\n")
    (tmp_path / "rule_actions_cdk" / "bundled-modules.txt").write_text("typing_extensions.py\n")
    monkeypatch.setattr(synth, "sources", lambda: [tmp_path / "lambdas/rule_actions", tmp_path / "rule_actions_cdk"])
    base = synth.cache_key(context())
    assert synth.cache_key(context()) == base

    # When a handler source changes, or one is added, the key changes
    handler = tmp_path / "lambdas/rule_actions/module.py"
    handler.write_text("x = 2\n")
    changed = synth.cache_key(context())
    (tmp_path / "rule_actions_cdk" / "new.py").write_text("")
    added = synth.cache_key(context())
    assert len({base, changed, added}) == 3
    # And restoring the file gives the first key back only with the same set of files
    (tmp_path / "rule_actions_cdk" / "new.py").unlink()
    handler.write_text("x = 1\n")
    assert synth.cache_key(context()) == base
    # And the list of the bundled files the function ships is part of it (a new list, a new asset)
    (tmp_path / "rule_actions_cdk" / "bundled-modules.txt").write_text("typing_extensions.py\nother.py\n")
    assert synth.cache_key(context()) != base


def test_the_key_does_not_start_the_jsii_runtime():
    # A fresh interpreter: other tests in this session may have loaded aws-cdk-lib already
    code = (
        "import sys\n"
        "from rule_actions_cdk.app import project_context\n"
        "from rule_actions_cli.synth import cache_key\n"
        "cache_key(project_context())\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('jsii', 'aws_cdk', 'cdk_nag')]\n"
        "assert not loaded, loaded\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _assembly(root: Path) -> tuple[Path, dict]:
    """An assembly with a code directory asset, as a synthesis leaves it."""
    assembly = root / "0123456789abcdef"
    code = assembly / "asset.c0de"
    (code / "rule_actions").mkdir(parents=True)
    (code / "rule_actions" / "handler.py").write_text("def lambda_handler(event, context):\n    return {}\n")
    (code / "index.py").write_text("x = 1\n")
    return assembly, {"source": {"path": "asset.c0de", "packaging": "zip"}}


def test_an_asset_s_zip_is_kept_in_a_cached_assembly_and_made_anew_elsewhere(tmp_path, monkeypatch):
    # Given an assembly in the replay's cache, and one elsewhere (cdk.out)
    monkeypatch.setenv("RULE_ACTIONS_CACHE", str(tmp_path / "cache"))
    cached, asset = _assembly(tmp_path / "cache")
    elsewhere, _ = _assembly(tmp_path / "cdk.out")
    # When its code is uploaded twice
    first, again = synth.asset_bytes(cached, asset), synth.asset_bytes(cached, asset)
    # Then it is the directory's zip each time, kept beside it after the first, byte for byte
    kept = cached / synth.ZIPPED.format("asset.c0de")
    assert first == again == synth.zip_directory(cached / "asset.c0de") == kept.read_bytes()
    # and the kept zip is what is read then (the directory is not zipped again)
    kept.write_bytes(b"kept")
    assert synth.asset_bytes(cached, asset) == b"kept"
    # while an assembly outside the cache keeps nothing: zipped at each upload
    assert synth.asset_bytes(elsewhere, asset) == synth.zip_directory(elsewhere / "asset.c0de")
    assert sorted(p.name for p in elsewhere.iterdir()) == ["asset.c0de"]
