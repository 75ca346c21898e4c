"""Which Python the function runs on, and which interpreter compiles its code asset's bytecode
(settings.runtime_python): fake interpreters on a fake PATH and fake pyenv/uv folders, no synthesis."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rule_actions.config import ConfigError
from rule_actions.text import quoted
from rule_actions_cdk.settings import RUNTIME_PYTHON_ENV, runtime_python


def interpreter(path: Path, version: str) -> Path:
    """An executable that answers the version probe as a Python of `version` would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return path


def machine(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment with an empty PATH folder and HOME in tmp_path (no pyenv, no uv Pythons)."""
    (tmp_path / "bin").mkdir(exist_ok=True)
    return {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path / "home"), **extra}


def test_the_synthesizing_python_decides_when_lambda_offers_its_version(tmp_path):
    # Given a machine with python3.14 on PATH, synthesizing with 3.12
    env = machine(tmp_path)
    interpreter(tmp_path / "bin" / "python3.14", "3.14")
    # When the runtime is chosen / Then it is the synthesizing interpreter's, compiled by it
    chosen = runtime_python(env, executable="/venv/bin/python", synthesizing="3.12")
    assert (chosen.version, chosen.interpreter) == ("3.12", "/venv/bin/python")


def test_a_311_synthesis_takes_the_newest_lambda_python_on_path_and_skips_shims(tmp_path):
    # Given Python 3.11 synthesizing, a pyenv shim for 3.14 (which fails outside its version) and real 3.12, 3.13
    env = machine(tmp_path)
    shims = tmp_path / "shims"
    interpreter(shims / "python3.14", "3.14")
    interpreter(tmp_path / "bin" / "python3.13", "3.13")
    interpreter(tmp_path / "bin" / "python3.12", "3.12")
    env["PATH"] = os.pathsep.join([str(shims), env["PATH"]])
    # When the runtime is chosen
    chosen = runtime_python(env, executable="/venv/bin/python", synthesizing="3.11")
    # Then it is python3.13, the newest found off the shims, compiled by that interpreter, and the note says so
    assert (chosen.version, chosen.interpreter) == ("3.13", str(tmp_path / "bin" / "python3.13"))
    assert "newest Lambda Python found" in chosen.chosen


def test_pyenv_and_uv_installations_are_found_newest_patch_first_free_threaded_left_out(tmp_path):
    # Given no Lambda Python on PATH, pyenv's 3.13.0 and 3.13.2 and a free-threaded 3.14.0t, uv's 3.12.4
    env = machine(tmp_path)
    versions = tmp_path / "home" / ".pyenv" / "versions"
    interpreter(versions / "3.13.0" / "bin" / "python3.13", "3.13")
    interpreter(versions / "3.13.2" / "bin" / "python3.13", "3.13")
    interpreter(versions / "3.14.0t" / "bin" / "python3.14", "3.14")
    interpreter(tmp_path / "home" / ".local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu/bin/python3.12", "3.12")
    # When the runtime is chosen / Then pyenv's newest 3.13 (a free-threaded build's bytecode is not the runtime's)
    chosen = runtime_python(env, synthesizing="3.11")
    assert (chosen.version, chosen.interpreter) == ("3.13", str(versions / "3.13.2" / "bin" / "python3.13"))


def test_without_any_lambda_python_the_newest_runtime_ships_sources_only(tmp_path):
    # Given a machine with nothing but Python 3.11
    chosen = runtime_python(machine(tmp_path), synthesizing="3.11")
    # Then the function runs python3.14, with no interpreter to compile its bytecode, and the reason says why
    assert (chosen.version, chosen.interpreter) == ("3.14", None)
    assert chosen.chosen == "no Python 3.12, 3.13, 3.14 was found on this machine"


def test_the_environment_variable_names_the_interpreter_and_wins(tmp_path):
    # Given python3.12 named in RULE_ACTIONS_RUNTIME_PYTHON, while a 3.13 synthesizes
    named = interpreter(tmp_path / "opt" / "py", "3.12")
    env = machine(tmp_path, **{RUNTIME_PYTHON_ENV: str(named)})
    # When the runtime is chosen / Then it is the named one's
    chosen = runtime_python(env, executable="/venv/bin/python", synthesizing="3.13")
    assert (chosen.version, chosen.interpreter) == ("3.12", str(named))


@pytest.mark.parametrize(("answer", "said"), [("3.11", "is Python 3.11"),
                                              (None, "does not run as a Python interpreter")])
def test_a_named_interpreter_of_no_lambda_version_is_an_error_naming_the_variable_and_value(tmp_path, answer, said):
    # Given the variable naming a Python 3.11, or a program that fails
    named = tmp_path / "py"
    if answer:
        interpreter(named, answer)
    else:
        named.write_text("#!/bin/sh\nexit 3\n")
        named.chmod(0o755)
    env = machine(tmp_path, **{RUNTIME_PYTHON_ENV: str(named)})
    # When the runtime is chosen / Then the error names the variable, its value and what is allowed
    with pytest.raises(ConfigError) as raised:
        runtime_python(env, synthesizing="3.13")
    assert str(raised.value) == (f"{RUNTIME_PYTHON_ENV}={quoted(str(named))}: {said}; the function's runtime must be one of "
                                 "3.12, 3.13, 3.14")
