"""The tier's shared set-up: the wheel built once from the sources through an sdist (once for every pytest-xdist
worker of the run), and a clean venv outside the checkout with it and its `cdk` and `local` extras, for every test of
the tier."""

from __future__ import annotations

from pathlib import Path

import pytest
from installing import ROOT, VERSION, copy_sources, install, made_once, run, uv


def build(folder: Path) -> None:
    source = copy_sources(folder / "source")
    run(uv(), "build", "--quiet", "--out-dir", source / "dist", cwd=source)


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The wheel, built (through an sdist, as `uv build` does) from a copy of the sources the distribution names."""
    wheels = list((made_once(tmp_path_factory, "built", build) / "source" / "dist").glob("*.whl"))
    assert [w.name for w in wheels] == [f"rule_actions-{VERSION}-py3-none-any.whl"]
    return wheels[0]


@pytest.fixture(scope="session")
def installed(built, tmp_path_factory) -> Path:
    """A clean venv outside the checkout with the wheel and its `cdk` and `local` extras."""
    home = tmp_path_factory.mktemp("user")
    assert ROOT not in home.parents
    install(built, home / "venv", home)
    return home
