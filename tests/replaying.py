"""`rule-actions replay --json` of the demo's webhook configurations, its webhook's secret pointed at a receiver on a
free loopback port (as `make demo` and `make demo-families` run it, with examples/demo-secrets.json)."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rule_actions_cli.main import main
from rule_actions_cli.receiver import Receiver

ROOT = Path(__file__).resolve().parents[1]
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
