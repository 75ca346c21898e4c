"""`rule-actions replay --json` of the demo's webhook configurations, its webhook's secret pointed at a receiver on a
free loopback port (as `make demo` and `make demo-families` run it, with examples/demo-secrets.json)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rule_actions_cli.main import main
from rule_actions_cli.receiver import Receiver

ROOT = Path(__file__).resolve().parents[1]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DEMO_SECRETS = ROOT / "examples" / "demo-secrets.json"
HOOK_SECRET, HOOK_PATH = "rule-actions/demo-webhook", "/hooks/ml-alerts"
KEY = json.loads(DEMO_SECRETS.read_text())[HOOK_SECRET]["signing_key"]


def replay_to_receiver(folder: Path, config: Path, paths: Iterable[Path]) -> tuple[int, list[dict], list[Any]]:
    """(exit status, the JSON rows, what the receiver got); the secrets file is written under `folder`."""
    out = io.StringIO()
    with Receiver({HOOK_PATH: KEY}) as receiver:
        secrets = folder / "secrets.json"
        secrets.write_text(json.dumps({HOOK_SECRET: {"url": receiver.url(HOOK_PATH), "signing_key": KEY}}))
        with contextlib.redirect_stdout(out):
            code = main(["replay", "--json", "--config", str(config), "--secrets", str(secrets), *map(str, paths)])
    return code, [json.loads(line) for line in out.getvalue().splitlines()], receiver.received


def reasons_shown_whole(table: str, rows: list[dict[str, Any]]) -> int:
    """Assert that every reason the table lists for `rows` (their monitor rules' findings, their actions' that are
    not repeated, their problems) is in its REASON column whole, in order, wrapped or not (compared without
    whitespace: a word longer than the column is split over lines); the number checked. The table may come from
    another replay of the same events: message ids are compared as placeholders."""
    from rule_actions_cli.replay_table import quiet

    def same(text: str) -> str:
        return UUID.sub("<id>", "".join(text.split()))

    lines = table.splitlines()
    [header] = [line for line in lines if line.startswith("  TRIGGER")]
    column = header.index("REASON")
    said = " ".join(line[column:] for line in lines if line.startswith("  ") and line != header)
    said = same(said)
    reasons = [r["reason"] for item in rows if not quiet(item) for r in item.get("rules", [])]
    reasons += [a["reason"] for item in rows if not quiet(item) for a in item["actions"] if a["outcome"] != "duplicate"]
    reasons += [p for item in rows if not quiet(item) for p in item.get("problems", [])]
    missing = [reason for reason in reasons if same(reason) not in said]
    assert not missing, missing[:3]
    return len(reasons)
