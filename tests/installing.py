"""The distribution as a user gets it (tests/package/): running commands as a user's shell runs them, a copy of the
sources a clone holds, and installing the wheel with its `cdk` and `local` extras into a venv outside the checkout
(uv, from its cache after `make setup`)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
# The import packages and where their sources are in the repository.
PACKAGES = {"rule_actions": ROOT / "lambdas" / "rule_actions", "rule_actions_cdk": ROOT / "infra" / "rule_actions_cdk",
            "rule_actions_cli": ROOT / "rule_actions_cli", "rule_actions_sdk": ROOT / "rule_actions_sdk"}
EVENTS = ROOT / "events"  # shipped as rule_actions_cli/samples


def copy_sources(dest: Path) -> Path:
    """What a clone holds that pip and `python -m build` read, copied to `dest`: pyproject.toml, the README (the
    long description), the import packages' sources and the sample events."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, dest / name)
    for folder in (*PACKAGES.values(), EVENTS):
        shutil.copytree(folder, dest / folder.relative_to(ROOT), ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder `name` that `make` fills once for the whole run: under pytest-xdist, in the folder the workers' own
    share (the run's), made by the first worker that asks while the others wait on a lock, then used by all; in one
    process, a folder of its own. A `make` that failed leaves nothing made: the next to ask tries again."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    run_folder = tmp_path_factory.getbasetemp().parent  # .../pytest-N, above popen-gw0, popen-gw1...
    folder, made = run_folder / name, run_folder / f"{name}.made"
    with (run_folder / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            made.touch()
    return folder


def uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not found:
        pytest.fail("uv is not installed: `make setup` installs it into .venv")
    return found


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """`args` run in `cwd` (by default in this environment, but for the checkout's bytecode folder: what uv builds and
    installs for the tier keeps its own); its output, or a failure naming it."""
    env = env if env is not None else {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def user_env(home: Path) -> dict[str, str]:
    """A user's shell: no PYTHONPATH or venv of ours, a cache of their own, fake credentials. (Nor the folder `make
    test` keeps the checkout's bytecode in: the user's venv keeps its own, where PYTHONDONTWRITEBYTECODE allows.)"""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "RULE_ACTIONS_CACHE", "PYTHONPYCACHEPREFIX")
           and not key.startswith("PYTEST")}
    return {**env, "XDG_CACHE_HOME": str(home / "cache")}


def install(wheel: Path, venv: Path, cwd: Path) -> None:
    """A venv at `venv` holding the wheel with its `cdk` and `local` extras."""
    run(uv(), "venv", "--quiet", "--python", sys.executable, venv, cwd=cwd)
    run(uv(), "pip", "install", "--quiet", "--python", venv / "bin" / "python", f"{wheel}[cdk,local]", cwd=cwd)


def install_dependencies(wheel: Path, venv: Path, cwd: Path) -> None:
    """A venv at `venv` holding what the wheel with its `cdk` and `local` extras depends on, but not rule-actions
    itself: a documented `pip install` line run in it afterwards finds them installed (pip would take two minutes
    to install aws-cdk-lib and moto again, uv takes seconds from its cache) and installs rule-actions itself."""
    install(wheel, venv, cwd)
    run(uv(), "pip", "uninstall", "--quiet", "--python", venv / "bin" / "python", "rule-actions", cwd=cwd)


def beside_a_clone(wheel: Path, home: Path) -> tuple[Path, dict[str, str]]:
    """What the docs' install sections start from: an empty directory, `home/my-app`, beside a clone of this
    repository, `home/rule-actions` (a copy of what pip builds from), and the environment of a user's shell there.

    The one difference from a user's machine: the venv the sections' `python3 -m venv .venv` line makes (again)
    already holds the dependencies (install_dependencies), so that their `pip install` line, run as printed, only
    checks them, builds rule-actions from the clone and installs it."""
    copy_sources(home / "rule-actions")
    work = home / "my-app"
    work.mkdir()
    install_dependencies(wheel, work / ".venv", home)
    bin_ = home / "bin"  # the user's python3: the interpreter the venv was made from
    bin_.mkdir()
    (bin_ / "python3").symlink_to(Path(sys._base_executable).resolve())
    quiet_settings = ("JSII_SILENCE", "AWS_SDK_JS_NODE_VERSION", "CDK_HOME")  # what the Makefile sets, not a user
    env = {key: value for key, value in user_env(home).items() if not key.startswith(quiet_settings)}
    npm_cache = env.get("npm_config_cache") or env.get("NPM_CONFIG_CACHE") or str(Path.home() / ".npm")
    env.update(PATH=f"{bin_}{os.pathsep}{env['PATH']}", HOME=str(home), PIP_DISABLE_PIP_VERSION_CHECK="1",
               npm_config_cache=npm_cache, npm_config_prefer_offline="true",  # the cache `make setup`'s npm ci filled
               npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false",
               CDK_DISABLE_CLI_TELEMETRY="1")
    return work, env


def run_as_user(commands: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`commands`, as printed in a page, run by bash (stopping at the first failing one) in `work`."""
    done = subprocess.run(["bash", "-e", "-c", commands], cwd=work, env=env, capture_output=True, text=True,
                          timeout=1200, check=False)
    assert done.returncode == 0, f"{commands}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    return done


def installed_from(venv: Path) -> str:
    """Where the venv's rule-actions was installed from, as pip recorded it (direct_url.json: a path's file URL)."""
    [record] = (venv / "lib").glob(f"python*/site-packages/rule_actions-{VERSION}.dist-info/direct_url.json")
    return json.loads(record.read_text())["url"]
