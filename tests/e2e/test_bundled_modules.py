"""The function's code asset ships, of Powertools and what it needs, exactly the files the function imports, found
by running it (bench/imports.py, infra/rule_actions_cdk/bundled-modules.txt): nothing it never imports, nothing missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rule_actions_cdk import bundle
from rule_actions_cdk.settings import PYTHON_VERSION, RUNTIME

ROOT = Path(__file__).resolve().parents[2]


def test_the_stored_list_is_what_the_function_imports_when_run_over_the_samples():
    done = subprocess.run([sys.executable, "-m", "bench.imports", "--check"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]


def test_the_asset_holds_the_package_the_listed_files_and_the_metadata_only(tmp_path):
    # When the asset is written
    bundle.write(tmp_path, PYTHON_VERSION)

    # Then it holds lambdas/, the listed files, and each bundled distribution's metadata, nothing else (besides the
    # bytecode of those sources: the next test)
    shipped = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    ours = {p.relative_to(ROOT / "lambdas").as_posix() for p in (ROOT / "lambdas").rglob("*.py")
            if "__pycache__" not in p.parts}
    metadata = {path for path in shipped if path.split("/", 1)[0].endswith(".dist-info")}
    assert shipped == ours | bundle.shipped_modules() | metadata
    # of the metadata, each distribution's METADATA and licenses: not RECORD (it lists the files left out), not
    # this machine's INSTALLER or WHEEL
    names = {path.split("/", 1)[1] for path in metadata}
    assert "METADATA" in names and any("LICENSE" in name for name in names)
    assert not names & {"RECORD", "INSTALLER", "WHEEL", "direct_url.json"}
    # and far fewer than the distributions whole
    whole = tmp_path.parent / "whole"
    bundle.write(whole, PYTHON_VERSION, only_imported=False)
    assert len(shipped) < len([p for p in whole.rglob("*") if p.is_file() and "__pycache__" not in p.parts]) / 2


def cache_tag(version: str) -> str:
    """The bytecode's file tag of a CPython version: '3.13' -> 'cpython-313'."""
    return "cpython-" + version.replace(".", "")


def pyc_flags(path: Path) -> int:
    """The flags word of a .pyc's header (PEP 552): 0 timestamp-based, 0b01 hash-based unchecked, 0b11 checked."""
    return int.from_bytes(path.read_bytes()[4:8], "little")


def test_the_asset_ships_unchecked_bytecode_for_the_runtime_it_was_synthesized_for(tmp_path):
    # Given the function's runtime and the interpreter of its version found on this machine (settings.RUNTIME)
    mine = RUNTIME.version
    if RUNTIME.interpreter is None:
        pytest.skip(f"no interpreter compiles the asset's bytecode here: {RUNTIME.chosen}")
    # When the asset is written for it, twice, and for another version
    bundle.write(tmp_path / "one", mine)
    bundle.write(tmp_path / "two", mine)
    other = "3.14" if mine != "3.14" else "3.13"
    bundle.write(tmp_path / "other", other)

    # Then every source has its bytecode beside it, hash-based and unchecked (the CDK CLI dates the zip's files
    # 1980-01-01: a timestamp-checked .pyc would be compiled again), and nothing else is compiled
    sources = {p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.py")}
    compiled = {p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.pyc")}
    tag = cache_tag(mine)
    assert compiled == {s.parent / "__pycache__" / f"{s.stem}.{tag}.pyc" for s in sources}
    assert {pyc_flags(tmp_path / "one" / c) for c in compiled} == {0b01}
    # named as Lambda unzips them (tracebacks), and the same bytes each time (the asset's hash stays put)
    assert b"/var/task/rule_actions/handler.py" in (tmp_path / "one" / f"rule_actions/__pycache__/handler.{tag}.pyc").read_bytes()
    assert all((tmp_path / "one" / c).read_bytes() == (tmp_path / "two" / c).read_bytes() for c in compiled)
    # and another version's asset carries no bytecode (this interpreter's would be refused there)
    assert bundle.compiles_for(mine) and not bundle.compiles_for(other)
    assert not list((tmp_path / "other").rglob("__pycache__"))


def test_the_bytecode_is_shipped_beside_its_sources_when_this_machine_keeps_its_own_elsewhere(tmp_path, monkeypatch):
    # Given a machine whose bytecode goes to a prefix folder (make demo sets PYTHONPYCACHEPREFIX)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "prefix"))
    if RUNTIME.interpreter is None:
        pytest.skip(f"no interpreter compiles the asset's bytecode here: {RUNTIME.chosen}")
    # When the asset is written for the function's runtime
    bundle.write(tmp_path / "asset", RUNTIME.version)
    # Then its bytecode is in the asset, beside each source, and none went to the prefix
    tag = cache_tag(RUNTIME.version)
    assert (tmp_path / "asset" / f"rule_actions/__pycache__/handler.{tag}.pyc").is_file()
    assert not (tmp_path / "prefix").exists()


def test_the_shipped_bytecode_is_what_a_clean_interpreter_runs_from_a_zip_dated_1980(tmp_path):
    # Given the asset zipped as the CDK CLI zips it (every file dated 1980-01-01) and unzipped
    import zipfile

    from rule_actions_cli.synth import zip_directory

    mine = RUNTIME.version
    if RUNTIME.interpreter is None:
        pytest.skip(f"no interpreter of the function's runtime here: {RUNTIME.chosen}")
    bundle.write(tmp_path / "staged", mine)
    (tmp_path / "code.zip").write_bytes(zip_directory(tmp_path / "staged"))
    zipfile.ZipFile(tmp_path / "code.zip").extractall(tmp_path / "task")
    runtime = bundle.link_runtime(tmp_path / "runtime", mine)
    # When a clean interpreter that writes no bytecode (/var/task is read-only) imports the handler from it
    child = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
             "import importlib.machinery as m\n"
             "compiled = []\n"
             "original = m.SourceFileLoader.source_to_code\n"
             "def counted(self, data, path, **kw):\n"
             "    compiled.append(str(path))\n"
             "    return original(self, data, path, **kw)\n"
             "m.SourceFileLoader.source_to_code = counted\n"
             "import rule_actions.handler\n"
             "print([p for p in compiled if p.startswith(sys.argv[1])])\n")
    done = subprocess.run([RUNTIME.interpreter, "-I", "-S", "-B", "-c", child, str(tmp_path / "task"), str(runtime)],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    # Then it compiles none of the asset's sources: it runs the shipped bytecode
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
