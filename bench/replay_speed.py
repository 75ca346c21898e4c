"""How long a person waits for a replay: the warm `make demo` (every sample event and timeline, the demo's webhook
configuration, its stack already synthesized) and a one-event replay (its start-up: imports, the embedded deploy,
one event), each as a user runs it, in a fresh process, timed from its start to its exit (wall time and the CPU
time of the process), beside the same commands measured before issue 37's speed work (commit 648488c) and after its
first step (commit 4a38460).

`BENCH_REPLAY_ROOT=/path/to/another/checkout python -m bench 11` times that checkout's code instead (its packages
first on PYTHONPATH, this environment's installed packages): how the numbers "before" below were measured.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench.common import ROOT, block, median, verdict

DEMO = ["replay", "--config", "examples/demo-webhook-config.json", "--secrets", "examples/demo-secrets.json",
        "--receiver", "events/", "events/timelines/"]  # what `make demo` runs
ONE_EVENT = ["replay", "events/lifecycle-stopped-after-issues.json"]  # with ./rule-actions.json
RUNS = 3
TARGETS = {"demo": 10.0, "one event": 1.0}  # issue 37: a warm make demo in at most 10 s, a start-up in about 1 s

# Measured on commit 648488c (before issue 37's speed work) with this bench (BENCH_REPLAY_ROOT), 2026-11-28, the
# 2-core machine shared with other work: (wall s, CPU s), medians of 3 runs. "compiled at each start": the
# interpreter compiles every module it imports at each start (PYTHONDONTWRITEBYTECODE=1, as this machine's shells
# set it, and no bytecode in the venv: uv installs none), load average 10 to 12; "cached": the bytecode kept
# (PYTHONPYCACHEPREFIX, as `make demo` now does), load average 4 to 7.
BEFORE = {
    ("demo", "compiled at each start"): (98.4, 32.3),
    ("one event", "compiled at each start"): (18.3, 6.7),
    ("demo", "cached"): (44.1, 30.5),
    ("one event", "cached"): (11.7, 5.6),
}
# Measured the same way on commit 4a38460 (after the first step: the CloudWatch index, botocore's data once, the
# bytecode kept; before the second: moto's JSON serializer, the collector, the stack created without moto's
# CloudFormation), 2026-11-28, load average 3 to 5.
STEP_1 = {
    ("demo", "compiled at each start"): (24.4, 18.0),
    ("one event", "compiled at each start"): (7.1, 5.0),
    ("demo", "cached"): (17.6, 12.9),
    ("one event", "cached"): (6.0, 4.0),
}


# `rule-actions ARGV` as its console script runs it (rule_actions_cli.main:cli; a checkout from before it has main()).
ENTRY = "import sys; from rule_actions_cli import main as command; sys.exit(getattr(command, 'cli', command.main)())"


def checkout() -> Path:
    return Path(os.environ.get("BENCH_REPLAY_ROOT") or ROOT).resolve()


def environment(root: Path) -> dict[str, str]:
    """The command's environment as `make demo` gives it (the Makefile's exports), the checkout's packages first."""
    env = dict(os.environ, CDK_DISABLE_CLI_TELEMETRY="1", JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
               RULE_ACTIONS_CACHE=str(ROOT / ".cache" / "replay"))
    env.pop("COLUMNS", None)
    if root != ROOT:
        env["PYTHONPATH"] = os.pathsep.join(str(root / p) for p in ("", "lambdas", "infra"))
    return env


def timed(argv: list[str], root: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user and system) of `rule-actions ARGV` run in `root`, output discarded; a
    failed run ends the bench."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", ENTRY, *argv], cwd=root, env=environment(root),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"bench: rule-actions {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bytecode() -> str:
    """How the interpreter finds the modules' bytecode in this environment."""
    return "compiled at each start" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "cached"


def load() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def run() -> list[str]:
    root = checkout()
    mode = bytecode()
    timed(DEMO, root)  # warms the synthesis cache (and writes bytecode where it may): not counted
    timed(ONE_EVENT, root)
    lines = [f"checkout {root}{'' if root == ROOT else ' (BENCH_REPLAY_ROOT)'}; bytecode {mode}; load average "
             f"{load()} before"]
    summary, ok = [], True
    for name, argv in (("demo", DEMO), ("one event", ONE_EVENT)):
        runs = [timed(argv, root) for _ in range(RUNS)]
        wall, cpu = median([w for w, _ in runs]), median([c for _, c in runs])
        was_wall, was_cpu = BEFORE[(name, mode)]
        step_wall, step_cpu = STEP_1[(name, mode)]
        lines.append(f"{name:<10} rule-actions {' '.join(argv)}")
        lines.append(f"{'':<10} now:    {wall:5.1f} s wall, {cpu:5.1f} s CPU (median of {RUNS}: "
                     f"{', '.join(f'{w:.1f}' for w, _ in runs)} s wall)")
        lines.append(f"{'':<10} step 1: {step_wall:5.1f} s wall, {step_cpu:5.1f} s CPU (commit 4a38460)")
        lines.append(f"{'':<10} before: {was_wall:5.1f} s wall, {was_cpu:5.1f} s CPU (commit 648488c)")
        ok = ok and cpu <= TARGETS[name] * (1.5 if name == "one event" else 1)
        summary.append(f"replay speed, {name} (bytecode {mode}): {wall:.1f} s wall, {cpu:.1f} s CPU; before "
                       f"{was_wall:.1f} s, {was_cpu:.1f} s CPU")
    lines.append(f"load average {load()} after (wall time grows with the load; the CPU time is the steadier measure)")
    print(block("replay speed: a warm make demo and a one-event replay, end to end", lines,
                verdict(ok, f"CPU time within the targets: demo <= {TARGETS['demo']:.0f} s, one event about "
                            f"{TARGETS['one event']:.0f} s (<= 1.5 s)")), flush=True)
    return summary


if __name__ == "__main__":
    run()
