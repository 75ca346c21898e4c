"""The distribution as a user gets it (tests/package/): running commands as a user's shell runs them, and installing
the wheel with its `cdk` and `local` extras into a venv outside the checkout (uv, from its cache after `make
setup`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
# The import packages and where their sources are in the repository.
PACKAGES = {"rule_actions": ROOT / "lambdas" / "rule_actions", "rule_actions_cdk": ROOT / "infra" / "rule_actions_cdk",
            "rule_actions_cli": ROOT / "rule_actions_cli", "rule_actions_sdk": ROOT / "rule_actions_sdk"}
EVENTS = ROOT / "events"  # shipped as rule_actions_cli/samples


def uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not found:
        pytest.fail("uv is not installed: `make setup` installs it into .venv")
    return found


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def user_env(home: Path) -> dict[str, str]:
    """A user's shell: no PYTHONPATH or venv of ours, a cache of their own, fake credentials."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "RULE_ACTIONS_CACHE") and not key.startswith("PYTEST")}
    return {**env, "XDG_CACHE_HOME": str(home / "cache")}


def install(wheel: Path, venv: Path, cwd: Path) -> None:
    """A venv at `venv` holding the wheel with its `cdk` and `local` extras."""
    run(uv(), "venv", "--quiet", "--python", sys.executable, venv, cwd=cwd)
    run(uv(), "pip", "install", "--quiet", "--python", venv / "bin" / "python", f"{wheel}[cdk,local]", cwd=cwd)
