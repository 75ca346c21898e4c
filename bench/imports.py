"""`python -m bench.imports [--write | --check]`: which files of the bundled distributions (Powertools and what it
needs besides the runtime's boto3) the function imports, found by running it.

In a fresh interpreter, the real handler runs on the embedded account over every path the samples reach: events/
with a signed webhook (examples/demo-webhook-config.json, a receiver on loopback), a test notification with a chat
channel and a webhook, and the organization sample (events/organization/, member roles assumed). Every module
then loaded from those distributions is listed by its path inside the distribution. infra/rule_actions_cdk/bundle.py ships exactly
those files (and the distributions' metadata) into the function's code: the rest of Powertools (event handler,
parser, batch, data classes...) is never imported by the function.

    (no option)  print the list
    --write      store it in infra/rule_actions_cdk/bundled-modules.txt
    --check      exit 1, naming the differences, when the stored list is not what the function imports now
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVENTS = ROOT / "events"
CHAT = {"slack": [{"workspace_id": "T0123ABCD", "channel_id": "C0123ABCD"}]}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_the_function() -> None:
    """The handler over every path the samples reach (see the module's doc); its output is discarded."""
    from rule_actions_cli.main import main

    webhook_config = json.loads((ROOT / "examples" / "demo-webhook-config.json").read_text())
    hooked = {hook["secret"] for hook in webhook_config["webhooks"].values()}  # the demo secrets hold others too
    [(secret_name, secret)] = [(name, secret) for name, secret in
                               json.loads((ROOT / "examples" / "demo-secrets.json").read_text()).items()
                               if name in hooked]
    with tempfile.TemporaryDirectory() as tmp:
        secrets, config = Path(tmp) / "secrets.json", Path(tmp) / "config.json"
        secret["url"] = f"http://127.0.0.1:{_free_port()}/hooks/ml-alerts"
        secrets.write_text(json.dumps({secret_name: secret}))
        config.write_text(json.dumps({**webhook_config, "chat": CHAT}))
        runs = [
            ["replay", "--json", "--config", str(config), "--secrets", str(secrets), "--receiver", str(EVENTS)],
            ["test-notify", "--json", "--config", str(config), "--secrets", str(secrets), "--receiver"],
            ["replay", "--json", "--config", str(ROOT / "examples" / "organization-config.json"),
             str(EVENTS / "organization")],
        ]
        for argv in runs:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                main(argv)


def imported() -> list[str]:
    """The bundled distributions' files that were imported, as paths inside the distribution (sorted)."""
    from rule_actions_cdk.bundle import bundled_distributions
    from rule_actions_cdk.settings import PYTHON_VERSION

    loaded = {Path(m.__file__).resolve() for m in list(sys.modules.values()) if getattr(m, "__file__", None)}
    found = []
    for dist in bundled_distributions(PYTHON_VERSION):
        for file in dist.files or ():
            if file.suffix == ".py" and Path(str(dist.locate_file(file))).resolve() in loaded:
                found.append(file.as_posix())
    return sorted(found)


def main(argv: list[str]) -> int:
    from rule_actions_cdk.bundle import MODULES_FILE, shipped_modules

    run_the_function()
    found = imported()
    if "--write" in argv:
        MODULES_FILE.write_text(MODULES_FILE.read_text().split("\n\n", 1)[0] + "\n\n" + "\n".join(found) + "\n")
        print(f"{MODULES_FILE.relative_to(ROOT)}: {len(found)} files")
        return 0
    if "--check" in argv:
        stored = shipped_modules()
        missing, extra = sorted(set(found) - stored), sorted(stored - set(found))
        for path in missing:
            print(f"imported but not shipped: {path}")
        for path in extra:
            print(f"shipped but not imported: {path}")
        if missing or extra:
            print("run `python -m bench.imports --write` and commit infra/rule_actions_cdk/bundled-modules.txt")
        return 1 if missing or extra else 0
    print("\n".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
