"""Commits readers can scan: a subject of at most 72 characters, the why in the body (docs/development.md#commits).

The hook `make setup` turns on refuses a longer subject; this test holds the history since the rule was adopted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / ".githooks" / "commit-msg"
ADOPTED = "b1317a0"  # the first commit held to the rule (the history before it is left as it is)


def hook(tmp_path: Path, message: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message)
    return subprocess.run(["sh", str(HOOK), str(path)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("message", "refused"), [
    ("x" * 72 + "\n\nWhy.\n", False),
    ("x" * 73 + "\n\nWhy.\n", True),
    ("Stop: a subject of one line\nand a body without the blank line\n", True),
    ("# a comment git strips\nStop: a subject after git's comment\n", False),
    ("Schätzung: ümlauts count as one character each " + "x" * 25 + "\n", False),  # 72 characters, 74 bytes
])
def test_the_hook_refuses_a_long_subject_or_a_missing_blank_line(tmp_path, message, refused):
    # Given a commit message / When the hook reads it
    ran = hook(tmp_path, message)
    # Then it refuses exactly the long subject and the missing blank line, saying why
    assert (ran.returncode != 0) is refused, ran.stderr
    assert ("at most 72" in ran.stderr or "blank" in ran.stderr) is refused


def test_every_subject_since_the_rule_was_adopted_fits_72_characters():
    # Given this clone's history (a source tree without it, or a shallow clone without the adopting commit: skipped)
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git clone")
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{ADOPTED}^{{commit}}"], check=False,
                           capture_output=True)
    if known.returncode != 0:
        pytest.skip(f"a shallow clone: {ADOPTED} is not in its history")
    # When the subjects since then are read
    log = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%h %s", f"{ADOPTED}^..HEAD"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    # Then none is longer than 72 characters
    assert log
    assert [line for line in log if len(line.split(" ", 1)[1]) > 72] == []
