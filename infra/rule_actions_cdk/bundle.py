"""The function's code: lambdas/ plus Powertools exactly as installed in this environment (the one the tests
ran), copied at synth from the installed distributions: no Docker, no network, no Lambda layer.

    bundled         aws-lambda-powertools and its required dependencies (no extras), recursively,
    minus           what the Lambda Python runtime ships: boto3 and its dependencies (botocore, jmespath,
                    s3transfer, python-dateutil, six, urllib3), which the function imports from the runtime;
    and of those    only the files the function imports (infra/rule_actions_cdk/bundled-modules.txt, found by running the
                    handler: `python -m bench.imports`), with each distribution's METADATA and licenses: the rest
                    of Powertools (event handler, parser, batch...) is never imported by the function, and each
                    file shipped is one more to download and unpack at a cold start.

`function_code()` is the Lambda asset: this directory written afresh at synth, which the CDK fingerprints and copies
into the cloud assembly like any directory (not CDK bundling, which prints "Bundling asset ..." on every synth for
a copy that needs no container).

Only pure-Python distributions are bundled (the function runs on arm64, perhaps with another Python minor version
than this machine); a distribution with compiled code stops synth with a message naming it. Files outside the
distribution's own packages (console scripts) and the installed bytecode caches are left out.

Bytecode: in Lambda /var/task is read-only, so a module without its .pyc is compiled at every cold start (about a
third of the handler's import). The asset ships the bytecode that an interpreter of the function's runtime version
compiles (settings.runtime_python: the synthesizing interpreter when Lambda offers its version, else the newest
Lambda Python found on the machine, or the one RULE_ACTIONS_RUNTIME_PYTHON names), beside the sources: `compileall --invalidation-mode unchecked-hash` (the CDK CLI dates every file of the asset's zip
1980-01-01, so a .pyc checked against its source's timestamp would be found stale and compiled again; an unchecked
hash-based .pyc is used as it is), compiled in a fresh interpreter with PYTHONHASHSEED=0 and the paths named as in
/var/task, so that the same sources give the same bytes (the asset's hash, hence the template, stays put). Another
version cannot read it: when no interpreter of the runtime's version is found, only the sources ship.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import rule_actions
from rule_actions.config import ConfigError
from rule_actions_cdk.settings import RUNTIME, RUNTIME_PYTHON_ENV

if TYPE_CHECKING:
    from aws_cdk import aws_lambda as lambda_

# The function's package: its files as installed (this checkout's lambdas/rule_actions, or site-packages) are the
# code asset's.
FUNCTION = Path(rule_actions.__file__).resolve().parent
BUNDLED = "aws-lambda-powertools"
RUNTIME_PROVIDES = "boto3"  # the Lambda Python runtimes ship boto3 with its dependencies
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib")
LICENSE_NAMES = ("LICENSE", "LICENCE", "NOTICE", "COPYING", "AUTHORS")
MODULES_FILE = Path(__file__).resolve().with_name("bundled-modules.txt")
TASK_ROOT = "/var/task"  # where Lambda unzips the code: the source paths the bytecode names (tracebacks)


def shipped_modules() -> set[str]:
    """The bundled distributions' files the function imports (paths inside the distribution)."""
    lines = MODULES_FILE.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def requirement_closure(name: str, python_version: str) -> list[metadata.Distribution]:
    """`name` and its required dependencies, recursively, as installed here (markers evaluated for the
    function's Python version, no extras)."""
    found: dict[str, metadata.Distribution] = {}
    pending = [name]
    while pending:
        key = canonicalize_name(pending.pop())
        if key in found:
            continue
        try:
            found[key] = dist = metadata.distribution(key)
        except metadata.PackageNotFoundError:
            raise ConfigError(f"cannot bundle {key} into the function: it is not installed in this environment "
                              f"(run `make setup`)") from None
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate(
                    {"extra": "", "python_version": python_version}):
                pending.append(requirement.name)
    return list(found.values())


def bundled_distributions(python_version: str) -> list[metadata.Distribution]:
    """What the asset carries besides lambdas/: Powertools' closure minus what the runtime ships."""
    provided = {canonicalize_name(d.metadata["Name"]) for d in requirement_closure(RUNTIME_PROVIDES, python_version)}
    return sorted((d for d in requirement_closure(BUNDLED, python_version)
                   if canonicalize_name(d.metadata["Name"]) not in provided),
                  key=lambda d: canonicalize_name(d.metadata["Name"]))


def shipped_metadata(parts: tuple[str, ...]) -> bool:
    """Of a distribution's .dist-info, what the asset carries: METADATA (importlib.metadata reads the name and
    version from it) and the license files. Not RECORD (it lists, with hashes, the files left out), INSTALLER,
    WHEEL or direct_url.json (this machine's install, not the function's)."""
    return parts == ("METADATA",) or parts[0] == "licenses" or parts[0].upper().startswith(LICENSE_NAMES)


def _files(dist: metadata.Distribution, only: set[str] | None) -> Iterable[tuple[str, Path]]:
    """(path in the asset, installed file) for every file of the distribution that the function can import (of
    those in `only`, when given) and its metadata."""
    for file in dist.files or ():
        parts = file.parts
        if parts[0] == ".." or "__pycache__" in parts or file.suffix == ".pyc":
            continue
        if file.suffix in COMPILED_SUFFIXES:
            raise ConfigError(f"cannot bundle {dist.metadata['Name']} {dist.version} into the function: it holds "
                              f"compiled code ({file}) built for this machine, not for Lambda's arm64 runtime")
        if parts[0].endswith(".dist-info"):
            if not shipped_metadata(file.parts[1:]):
                continue
        elif only is not None and file.as_posix() not in only:
            continue
        yield file.as_posix(), Path(str(dist.locate_file(file)))


def compiles_for(python_version: str) -> bool:
    """Whether the asset of a function on `python_version` ships bytecode: an interpreter of that version was found."""
    return RUNTIME.interpreter is not None and python_version == RUNTIME.version


def compile_bytecode(folder: Path) -> None:
    """Every source under `folder` compiled beside it (__pycache__) by the runtime's interpreter, as unchecked
    hash-based .pyc files named for /var/task, reproducibly (see the module's doc). Beside it even when
    PYTHONPYCACHEPREFIX sends this machine's bytecode elsewhere (`make demo` does)."""
    if RUNTIME.interpreter is None:
        raise ConfigError(f"no Python {RUNTIME.version} interpreter to compile the function's bytecode")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPYCACHEPREFIX"}
    try:
        subprocess.run([RUNTIME.interpreter, "-m", "compileall", "-q", "-j", "1", "--invalidation-mode",
                        "unchecked-hash", "-d", TASK_ROOT, str(folder)], check=True,
                       env={**env, "PYTHONHASHSEED": "0"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError) as error:
        said = getattr(error, "stderr", b"") or b""
        raise ConfigError(f"{RUNTIME.interpreter} ({RUNTIME.chosen}) could not compile the function's bytecode: "
                          f"{said.decode(errors='replace').strip()[-300:] or error}; name a working Python "
                          f"{RUNTIME.version} in {RUNTIME_PYTHON_ENV}") from error


def write(output_dir: str | Path, python_version: str, only_imported: bool = True,
          bytecode: bool | None = None) -> list[str]:
    """Fill `output_dir` with the function's code; returns the bundled distributions as 'name==version'.
    `only_imported=False`: the distributions whole (to measure what leaving the rest out saves). `bytecode`: with
    the runtime interpreter's bytecode (by default when one was found for `python_version`, `compiles_for`)."""
    out = Path(output_dir)
    shutil.copytree(FUNCTION, out / FUNCTION.name, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    only = shipped_modules() if only_imported else None
    pins = []
    for dist in bundled_distributions(python_version):
        for relative, source in _files(dist, only):
            target = out / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        pins.append(f"{dist.metadata['Name']}=={dist.version}")
    if compiles_for(python_version) if bytecode is None else bytecode:
        compile_bytecode(out)
    return pins


def function_code(files: dict[str, str] | None = None) -> lambda_.Code:
    """The function's code as a Lambda asset (`aws_lambda.Code`): `write` into a directory removed when this process
    exits (the CDK copies it into the cloud assembly at synth), once per process (`staged_code`); `files`: more files
    at its root (name -> text), such as a configuration too large for the environment, in a copy of it."""
    from aws_cdk import aws_lambda as lambda_

    from rule_actions_cdk.settings import PYTHON_VERSION

    staged = staged_code(PYTHON_VERSION)
    if files:
        staged = shutil.copytree(staged, _temporary(), dirs_exist_ok=True)
        for name, text in files.items():
            (staged / name).write_text(text, encoding="utf-8")
    return lambda_.Code.from_asset(str(staged))


@functools.cache
def staged_code(python_version: str) -> Path:
    """The code written once per process and Python version: every stack a process synthesizes (the tests', a
    replay's) ships the same sources, and compiling their bytecode in another interpreter takes about a second."""
    staged = _temporary()
    write(staged, python_version)
    return staged


def _temporary() -> Path:
    staged = Path(tempfile.mkdtemp(prefix="rule-actions-code-"))
    atexit.register(shutil.rmtree, staged, ignore_errors=True)
    return staged


def link_runtime(target: Path, python_version: str) -> Path:
    """A folder standing for what the Lambda Python runtime ships besides the standard library (boto3 and its
    dependencies), as links to this environment's copies: with the unzipped asset, all a clean interpreter needs
    to run the handler as Lambda would (tests/artifact, bench/cold_start.py)."""
    target.mkdir(parents=True, exist_ok=True)
    for dist in requirement_closure(RUNTIME_PROVIDES, python_version):
        tops = {f.parts[0] for f in dist.files or ()
                if f.parts[0] not in ("..", "__pycache__") and not f.parts[0].endswith(".dist-info")}
        for top in tops:
            link = target / top
            if not link.exists():
                link.symlink_to(Path(str(dist.locate_file(top))))
    return target
