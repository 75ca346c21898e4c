"""Synthesize the stack with a given configuration, cached by everything that shapes the template."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, cast


def cache_root() -> Path:
    """Where synthesized assemblies are kept: RULE_ACTIONS_CACHE (the Makefile keeps them in the checkout's .cache),
    else the user's cache directory, wherever the command runs."""
    chosen = os.environ.get("RULE_ACTIONS_CACHE")
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rule-actions" / "replay"


def sources() -> list[Path]:
    """The installed packages whose files shape the stack: the function's and the constructs' (with the module list
    and the feature flags they ship)."""
    import rule_actions
    import rule_actions_cdk

    # a package with an __init__.py has a __file__ (typeshed's ModuleType says str | None)
    return [Path(cast(str, package.__file__)).resolve().parent for package in (rule_actions, rule_actions_cdk)]


def cache_key(context: Mapping[str, Any]) -> str:
    """The configuration as the stack reads it, aws-cdk-lib's version, the function's runtime (and whether its
    bytecode ships), the sources, the versions bundled into the function's code (Powertools) and which of their
    files it ships, as a short digest."""
    from rule_actions_cdk.bundle import bundled_distributions, compiles_for
    from rule_actions_cdk.settings import PYTHON_VERSION

    digest = hashlib.sha256(canonical_context(context).encode())
    digest.update(metadata.version("aws-cdk-lib").encode())
    digest.update(f"python{PYTHON_VERSION} bytecode={compiles_for(PYTHON_VERSION)}".encode())  # the runtime
    for dist in bundled_distributions(PYTHON_VERSION):
        digest.update(f"{dist.metadata['Name']}=={dist.version}".encode())
    for folder in sources():
        for file in sorted(f for f in folder.rglob("*") if f.suffix in (".py", ".txt", ".json")):
            digest.update(file.relative_to(folder.parent).as_posix().encode() + file.read_bytes())
    return digest.hexdigest()[:16]


def canonical_context(context: Mapping[str, Any]) -> str:
    """The context as one string that changes exactly when the stack would read something else.

    `rule_actions` is keyed by `Config.to_json()` (defaults filled in, the key order of `rules` kept: the first
    matching glob wins, so that order is configuration), `rule_actions_stack` by the validated settings, and
    the rest (feature flags) sorted, their order meaning nothing. A `-c` JSON string and the object it holds
    are the same configuration. Invalid blocks (callers validate before synthesizing) fall back to the raw
    JSON in the order given, never sorted.
    """
    from rule_actions.config import ConfigError
    from rule_actions_cdk.app import read_context  # the validation alone: aws-cdk-lib loads only in build_app
    from rule_actions_cdk.settings import CONFIG_KEY, STACK_KEY

    try:
        config, settings = read_context(context)
    except ConfigError:
        return json.dumps({"raw": context})
    rest = {key: value for key, value in context.items() if key not in (CONFIG_KEY, STACK_KEY)}
    return json.dumps({CONFIG_KEY: config.to_json(), STACK_KEY: settings.to_dict(), "context": rest}, sort_keys=True)


def synthesize(context: Mapping[str, Any]) -> tuple[Path, str]:
    """(cloud assembly directory, the (central) stack's name) for this context; synthesized only on a cache miss.
    In organization mode the assembly also holds the member stack (StackSettings.member_stack_name)."""
    cache = cache_root()
    target = cache / cache_key(context)
    if not (target / "manifest.json").is_file():
        from rule_actions_cdk.app import build_app  # starts the jsii runtime: only on a miss

        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=cache))
        app, _ = build_app(context, outdir=str(work), nag=False, warn=False)
        app.synth()
        try:
            work.rename(target)  # atomic: a reader sees the whole assembly or none
        except OSError:  # there already: another process (a test worker) synthesized it meanwhile, or left it broken
            if (target / "manifest.json").is_file():
                shutil.rmtree(work, ignore_errors=True)  # the same assembly: keep the one others may be reading
            else:
                shutil.rmtree(target, ignore_errors=True)
                work.rename(target)
    names = stacks(target)
    if len(names) == 1:
        return target, names[0]
    from rule_actions_cdk.app import read_context

    [stack] = [name for name in names if name == read_context(context)[1].stack_name]
    return target, stack


# Where an assembly of the cache keeps an asset directory's zip (asset_bytes): a name the CDK never gives a file.
ZIPPED = ".{}.replay.zip"

# A fixed timestamp and mode, so that one asset gives one zip byte for byte.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o644 << 16


def stacks(assembly: Path) -> list[str]:
    """The CloudFormation stacks of a synthesized assembly, in its manifest's order."""
    manifest = json.loads((assembly / "manifest.json").read_text())
    return [name for name, a in manifest["artifacts"].items() if a["type"] == "aws:cloudformation:stack"]


def file_assets(assembly: Path, stack: str) -> list[dict[str, Any]]:
    """The file assets a stack of the assembly names (its code, its template), as its assets manifest lists them."""
    manifest = assembly / f"{stack}.assets.json"
    return list(json.loads(manifest.read_text()).get("files", {}).values()) if manifest.is_file() else []


def asset_bytes(assembly: Path, asset: Mapping[str, Any]) -> bytes:
    """What is uploaded for a file asset: its directory zipped (`zip_directory`), or its file. In an assembly of the
    cache (written once, never changed) the zip is kept beside its directory, made at the first replay that uploads
    it: a replay's start-up spent a tenth of a second zipping the same files again."""
    source: Path = assembly / asset["source"]["path"]
    if asset["source"]["packaging"] != "zip":
        return source.read_bytes()
    if assembly.resolve().parent != cache_root().resolve():
        return zip_directory(source)
    kept = assembly / ZIPPED.format(source.name)
    try:
        return kept.read_bytes()
    except OSError:
        pass
    body = zip_directory(source)
    partial = kept.with_name(f"{kept.name}.{os.getpid()}")
    try:
        partial.write_bytes(body)
        partial.replace(kept)  # atomic: a reader sees the whole zip or none
    except OSError:  # a cache that cannot be written to is only slower
        partial.unlink(missing_ok=True)
    return body


def zip_directory(source: Path) -> bytes:
    """`source`'s files (the bytecode the asset ships included) as a zip Lambda reads: sorted, readable by all,
    with a fixed timestamp (as the CDK CLI's), so that one directory gives one zip byte for byte."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            entry = zipfile.ZipInfo(path.relative_to(source).as_posix(), ZIP_TIME)
            entry.external_attr, entry.compress_type = FILE_MODE, zipfile.ZIP_DEFLATED
            archive.writestr(entry, path.read_bytes())
    return buffer.getvalue()
