"""Synthesize the stack with a given configuration, cached by everything that shapes the template."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "replay"
SOURCES = ("app.py", "infra", "infra/bundled-modules.txt", "lambdas/rule_actions")


def cache_key(context: Mapping[str, Any]) -> str:
    """The configuration as the stack reads it, aws-cdk-lib's version, the sources, the versions bundled into the
    function's code (Powertools) and which of their files it ships, as a short digest."""
    from infra.bundle import bundled_distributions
    from infra.settings import PYTHON_VERSION

    digest = hashlib.sha256(canonical_context(context).encode())
    digest.update(metadata.version("aws-cdk-lib").encode())
    for dist in bundled_distributions(PYTHON_VERSION):
        digest.update(f"{dist.metadata['Name']}=={dist.version}".encode())
    for source in SOURCES:
        path = ROOT / source
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(file.relative_to(ROOT).as_posix().encode() + file.read_bytes())
    return digest.hexdigest()[:16]


def canonical_context(context: Mapping[str, Any]) -> str:
    """The context as one string that changes exactly when the stack would read something else.

    `rule_actions` is keyed by `Config.to_json()` (defaults filled in, the key order of `rules` kept: the first
    matching glob wins, so that order is configuration), `rule_actions_stack` by the validated settings, and
    the rest (feature flags) sorted, their order meaning nothing. A `-c` JSON string and the object it holds
    are the same configuration. Invalid blocks (callers validate before synthesizing) fall back to the raw
    JSON in the order given, never sorted.
    """
    from infra.app import read_context  # the validation alone: aws-cdk-lib loads only in build_app
    from infra.settings import CONFIG_KEY, STACK_KEY
    from rule_actions.config import ConfigError

    try:
        config, settings = read_context(context)
    except ConfigError:
        return json.dumps({"raw": context})
    rest = {key: value for key, value in context.items() if key not in (CONFIG_KEY, STACK_KEY)}
    return json.dumps({CONFIG_KEY: config.to_json(), STACK_KEY: settings.to_dict(), "context": rest}, sort_keys=True)


def synthesize(context: Mapping[str, Any]) -> tuple[Path, str]:
    """(cloud assembly directory, the (central) stack's name) for this context; synthesized only on a cache miss.
    In organization mode the assembly also holds the member stack (StackSettings.member_stack_name)."""
    target = CACHE / cache_key(context)
    if not (target / "manifest.json").is_file():
        from infra.app import build_app  # starts the jsii runtime: only on a miss

        CACHE.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=CACHE))
        app, _ = build_app(context, outdir=str(work), nag=False)
        app.synth()
        shutil.rmtree(target, ignore_errors=True)
        work.rename(target)
    manifest = json.loads((target / "manifest.json").read_text())
    stacks = [name for name, a in manifest["artifacts"].items() if a["type"] == "aws:cloudformation:stack"]
    if len(stacks) == 1:
        return target, stacks[0]
    from infra.app import read_context

    [stack] = [name for name in stacks if name == read_context(context)[1].stack_name]
    return target, stack
