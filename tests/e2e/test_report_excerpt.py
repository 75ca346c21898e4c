"""docs/operations.md shows `rule-actions report --replay` of the sample corpus and the hung-job timeline: the
excerpt is what that command prints (its date range aside, the run's last 30 days, and its longest run's time)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RANGE = re.compile(r"\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)")
LONGEST = re.compile(r"longest run [\d.]+ s")  # the evaluator's runs as this machine timed them


def timeless(text: str) -> str:
    return LONGEST.sub("longest run N s", RANGE.sub("(RANGE)", text))


def test_the_report_replay_excerpt_of_operations_is_what_the_command_prints(tmp_path):
    # Given the page's excerpt: the command (after "$ ", its continuation lines) and the lines it prints
    page = (ROOT / "docs" / "operations.md").read_text()
    [(command, shown)] = re.findall(r"```\n\$ (rule-actions report --replay .*?[^\\]\n)(.*?)```", page, re.DOTALL)
    argv = shlex.split(command.replace("\\\n", " "))
    secrets = tmp_path / "secrets.json"  # a copy only its owner reads: the command warns of any other on stderr
    secrets.write_text((ROOT / "examples" / "demo-secrets.json").read_text())
    secrets.chmod(0o600)
    argv = [str(secrets) if arg == "examples/demo-secrets.json" else arg for arg in argv]

    # When it runs as printed, from the repository's root (the receiver's lines go to stderr)
    script = "import sys; from rule_actions_cli.main import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run([sys.executable, "-c", script, *argv[1:]], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)

    # Then it prints the excerpt's lines, the date range of its first line and the time of its longest run aside
    assert run.returncode == 0, run.stderr
    assert timeless(run.stdout) == timeless(shown)
