"""The function's code asset ships, of Powertools and what it needs, exactly the files the function imports, found
by running it (bench/imports.py, rule_actions_cdk/bundled-modules.txt): nothing it never imports, nothing missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rule_actions_cdk import bundle
from rule_actions_cdk.settings import PYTHON_VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_the_stored_list_is_what_the_function_imports_when_run_over_the_samples():
    done = subprocess.run([sys.executable, "-m", "bench.imports", "--check"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]


def test_the_asset_holds_the_package_the_listed_files_and_the_metadata_only(tmp_path):
    # When the asset is written
    bundle.write(tmp_path, PYTHON_VERSION)

    # Then it holds lambdas/, the listed files, and each bundled distribution's metadata, nothing else
    shipped = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
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
    assert len(shipped) < len([p for p in whole.rglob("*") if p.is_file()]) / 2
