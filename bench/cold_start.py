"""Benchmark 3: cold start.

Import: the median time to import `rule_actions.handler` in fresh interpreters (PYTHONPATH=lambdas, as the
function's package sits at the root of its asset) versus a bare `import boto3`, alternating in one loop so both
see the same machine noise; the ratio of the medians (target <= 1.5). One `-X importtime` run of each shows which
packages the difference is made of.

First invocation: in fresh interpreters on moto (a topic, the ledger table, jobs), the cost of `runtime()`
(Settings + the three clients, on a new boto3 session) and of the first handler call (stop + email + team
notify), against the median of later calls of the same kind. Run as a child: `python -m bench.cold_start --first-invocation`.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import DEMO_CONFIG, ROOT, block, median, ratio, verdict

IMPORT_ROUNDS = 17  # >= 15 fresh interpreters of each kind
FIRST_INVOCATION_RUNS = 5
WARM_CALLS = 4
IMPORTTIME_RUNS = 3
TARGET_RATIO = 1.5
HANDLER_MODULE, BASELINE_MODULE = "rule_actions.handler", "boto3"
_CHILD = "import time; t = time.perf_counter(); import {module}; print(repr(time.perf_counter() - t))"
REGION, TABLE = "us-east-1", "bench-ledger"


def child_env() -> dict[str, str]:
    """The parent's environment without Python or AWS settings, with PYTHONPATH=lambdas."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "AWS_", "POWERTOOLS_"))}
    env["PYTHONPATH"] = str(ROOT / "lambdas")
    return env


def import_once(module: str, python: str = sys.executable, extra: tuple[str, ...] = ()) -> tuple[float, float, str]:
    """(import seconds measured in the child, whole process seconds, child's stderr) for one fresh interpreter."""
    start = time.perf_counter()
    done = subprocess.run([python, *extra, "-c", _CHILD.format(module=module)], capture_output=True, text=True,
                          env=child_env(), cwd=ROOT / "lambdas", check=True)
    wall = time.perf_counter() - start
    return float(done.stdout.strip().splitlines()[-1]), wall, done.stderr


def measure_imports(rounds: int = IMPORT_ROUNDS) -> dict[str, Any]:
    """Alternating fresh-interpreter imports of the handler and of boto3 (order swapped every round)."""
    for module in (HANDLER_MODULE, BASELINE_MODULE):  # warm-up: bytecode caches written, files in the page cache
        import_once(module)
    times: dict[str, list[float]] = {HANDLER_MODULE: [], BASELINE_MODULE: []}
    walls: dict[str, list[float]] = {HANDLER_MODULE: [], BASELINE_MODULE: []}
    for i in range(rounds):
        order = (HANDLER_MODULE, BASELINE_MODULE) if i % 2 == 0 else (BASELINE_MODULE, HANDLER_MODULE)
        for module in order:
            seconds, wall, _ = import_once(module)
            times[module].append(seconds)
            walls[module].append(wall)
    handler_ms, boto3_ms = median(times[HANDLER_MODULE]) * 1000, median(times[BASELINE_MODULE]) * 1000
    return {
        "rounds": rounds,
        "handler_ms": handler_ms,
        "boto3_ms": boto3_ms,
        "ratio": ratio(handler_ms, boto3_ms),
        "handler_process_ms": median(walls[HANDLER_MODULE]) * 1000,
        "boto3_process_ms": median(walls[BASELINE_MODULE]) * 1000,
        "samples": times,
    }


def self_time_by_package(importtime_stderr: str) -> Counter:
    """`-X importtime` output -> microseconds of self time per top-level package."""
    out: Counter = Counter()
    for line in importtime_stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        head, _cumulative, name = line.split("|", 2)
        out[name.strip().split(".")[0]] += int(head.split(":", 1)[1])
    return out


def import_breakdown(runs: int = IMPORTTIME_RUNS) -> list[tuple[str, float, float]]:
    """(package, ms in the handler import, ms in the boto3 import), medians of `runs` -X importtime runs each,
    largest difference first."""
    samples: dict[str, list[Counter]] = {HANDLER_MODULE: [], BASELINE_MODULE: []}
    for _ in range(runs):
        for module in samples:
            samples[module].append(self_time_by_package(import_once(module, extra=("-X", "importtime"))[2]))

    def medians(module: str) -> dict[str, float]:
        packages = {pkg for run in samples[module] for pkg in run}
        return {pkg: median([run.get(pkg, 0) for run in samples[module]]) / 1000 for pkg in packages}

    handler, baseline = medians(HANDLER_MODULE), medians(BASELINE_MODULE)
    rows = [(pkg, handler.get(pkg, 0.0), baseline.get(pkg, 0.0)) for pkg in set(handler) | set(baseline)]
    return sorted(rows, key=lambda r: r[1] - r[2], reverse=True)


# ------------------------------------------------------------------------------------------ the code asset

_ASSET_CHILD = ("import sys; sys.path[:0] = {paths!r}; import time; t = time.perf_counter(); "
                "import rule_actions.handler; print(repr(time.perf_counter() - t))")


def measure_asset_imports(rounds: int = IMPORT_ROUNDS) -> dict[str, Any]:
    """The handler imported from the function's code asset (infra.bundle: lambdas/ + Powertools) in a clean
    interpreter (`python -I -S`: the standard library, boto3 and its dependencies, the asset), as Lambda runs it:
    without bytecode (/var/task is read-only and the asset ships no .pyc, so every cold start compiles what it
    imports), and with bytecode compiled beforehand (what a layer built by pip would ship), alternating."""
    import shutil
    import tempfile
    import zipfile

    from infra import bundle
    from infra.settings import PYTHON_VERSION

    work = Path(tempfile.mkdtemp(prefix="asset-"))
    try:
        asset = work / "task"
        bundle.write(asset, PYTHON_VERSION)
        runtime = bundle.link_runtime(work / "runtime", PYTHON_VERSION)
        archive = work / "asset.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
            for file in sorted(asset.rglob("*")):
                out.write(file, file.relative_to(asset).as_posix())
        compiled = work / "compiled"
        shutil.copytree(asset, compiled)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(compiled)], check=True)
        child = {"source": [str(asset), str(runtime)], "compiled": [str(compiled), str(runtime)]}
        times: dict[str, list[float]] = {"source": [], "compiled": []}
        for i in range(rounds):
            for kind in (("source", "compiled") if i % 2 == 0 else ("compiled", "source")):
                done = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", _ASSET_CHILD.format(paths=child[kind])],
                                      capture_output=True, text=True, check=True, cwd=work)
                times[kind].append(float(done.stdout.strip().splitlines()[-1]))
        return {"rounds": rounds, "zip_bytes": archive.stat().st_size,
                "unzipped_bytes": sum(f.stat().st_size for f in asset.rglob("*") if f.is_file()),
                "files": sum(1 for f in asset.rglob("*") if f.is_file()),
                "source_ms": median(times["source"]) * 1000, "compiled_ms": median(times["compiled"]) * 1000}
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ------------------------------------------------------------------------------------------ first invocation


def first_invocation(warm_calls: int = WARM_CALLS) -> dict[str, Any]:
    """In this (fresh) interpreter: import, runtime(), the first handler call, then warm calls; seconds."""
    import contextlib

    start = time.perf_counter()
    from rule_actions import handler

    import_s = time.perf_counter() - start
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION=REGION, AWS_REGION=REGION)
    for key in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        os.environ.pop(key, None)
    import boto3
    from moto import mock_aws

    from bench import generator as gen
    from rule_actions.observability import logger
    from rule_actions_cli import moto_sagemaker
    from rule_actions_cli.embedded import LocalContext

    config = json.loads(DEMO_CONFIG.read_text())
    issue = {gen.ISSUE_RULE: "IssuesFound", gen.OTHER_RULE: "InProgress"}
    with mock_aws(), open(os.devnull, "w") as devnull:
        moto_sagemaker.install()
        setup = boto3.session.Session(region_name=REGION)  # not the default session the handler will use
        topic = setup.client("sns").create_topic(Name="rule-actions")["TopicArn"]
        setup.client("dynamodb").create_table(
            TableName=TABLE, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
        # moto parses each request against the service's model, loaded on its first request: load SageMaker's
        # now (SNS and DynamoDB are loaded above), so the first handler call is not charged moto's start-up.
        setup.client("sagemaker").list_training_jobs()
        for email in config.get("notify", {}).get("emails", []):
            setup.client("sns").subscribe(TopicArn=topic, Protocol="email", Endpoint=email,
                                          Attributes={"FilterPolicy": json.dumps({"to": ["team"]})})
        events = []
        for i in range(1 + warm_calls):
            job = f"bench-cold-{i:02d}"
            event = gen.event(job, "InProgress", "Training", issue, gen.START_MS, email=f"team-{i}@example.org")
            moto_sagemaker.put_training_job(job, "InProgress",
                                            debug_rule_configurations=event["detail"]["DebugRuleConfigurations"])
            events.append(event)
        os.environ.update(RULE_ACTIONS_TOPIC_ARN=topic, RULE_ACTIONS_LEDGER_TABLE=TABLE,
                          RULE_ACTIONS_CONFIG=json.dumps(config))
        boto3.DEFAULT_SESSION = None
        handler.runtime.cache_clear()
        # moto's in-memory service models make every full garbage collection slower (runtime() measured ~280 ms
        # instead of ~150 with them in the heap): freeze what exists now out of the collector's scans.
        gc.collect()
        gc.freeze()
        context = LocalContext("rule-actions-handler", f"arn:aws:lambda:{REGION}:123456789012:function:rule-actions-handler")
        logger.registered_handler.setStream(devnull)
        with contextlib.redirect_stdout(devnull):
            start = time.perf_counter()
            handler.runtime()
            runtime_s = time.perf_counter() - start
            start = time.perf_counter()
            first = handler.lambda_handler(events[0], context)
            first_s = time.perf_counter() - start
            warm = []
            for event in events[1:]:
                start = time.perf_counter()
                result = handler.lambda_handler(event, context)
                warm.append(time.perf_counter() - start)
    return {
        "import_s": import_s,
        "runtime_s": runtime_s,
        "first_call_s": first_s,
        "warm_call_s": median(warm),
        "first_outcomes": sorted(f"{a['kind']}:{a['outcome']}" for a in first["actions"]),
        "warm_outcomes": sorted(f"{a['kind']}:{a['outcome']}" for a in result["actions"]),
    }


def measure_first_invocations(runs: int = FIRST_INVOCATION_RUNS) -> dict[str, Any]:
    """`first_invocation` in `runs` fresh interpreters; medians in milliseconds."""
    env = {**child_env(), "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "lambdas")])}
    results = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-m", "bench.cold_start", "--first-invocation"], capture_output=True,
                              text=True, env=env, cwd=ROOT, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    out: dict[str, Any] = {k: median([r[k] for r in results]) * 1000 for k in ("import_s", "runtime_s", "first_call_s", "warm_call_s")}
    out.update(runs=runs, first_outcomes=results[0]["first_outcomes"], warm_outcomes=results[0]["warm_outcomes"])
    return out


def run() -> list[str]:
    imports = measure_imports()
    asset = measure_asset_imports()
    breakdown = import_breakdown()
    first = measure_first_invocations()
    ok = imports["ratio"] <= TARGET_RATIO
    lines = [
        f"import in fresh interpreters ({imports['rounds']} of each, alternating, PYTHONPATH=lambdas, medians):",
        f"  import {HANDLER_MODULE:<22} {imports['handler_ms']:7.1f} ms   (whole process {imports['handler_process_ms']:.0f} ms)",
        f"  import {BASELINE_MODULE:<22} {imports['boto3_ms']:7.1f} ms   (whole process {imports['boto3_process_ms']:.0f} ms)",
        f"  ratio of medians {imports['ratio']:.2f}   target <= {TARGET_RATIO}",
        f"  what the handler import adds (-X importtime, self time by top-level package, median of {IMPORTTIME_RUNS} runs):",
        *[f"    {pkg:<28} {h:6.1f} ms  (not imported by boto3)" for pkg, h, b in breakdown if b == 0 and h >= 1],
        f"    {'the rest (stdlib, shared)':<28} {sum(h - b for _, h, b in breakdown if b > 0):6.1f} ms  more than "
        "under boto3 alone",
        "",
        f"the code asset ({asset['files']} files, {asset['zip_bytes'] / 1e6:.2f} MB zipped, "
        f"{asset['unzipped_bytes'] / 1e6:.2f} MB unzipped), handler imported in a clean interpreter (python -I -S "
        f"-B: stdlib, boto3's closure, the asset; {asset['rounds']} of each, alternating, medians):",
        f"  without bytecode, as in Lambda (/var/task read-only, no .pyc)   {asset['source_ms']:7.1f} ms",
        f"  with bytecode compiled beforehand (as a pip-built layer ships)  {asset['compiled_ms']:7.1f} ms",
        "",
        f"first invocation ({first['runs']} fresh interpreters on moto, medians; demo configuration):",
        f"  runtime(): Settings + sagemaker, sns, dynamodb clients   {first['runtime_s']:7.1f} ms",
        f"  first handler call ({', '.join(first['first_outcomes'])})   {first['first_call_s']:7.1f} ms",
        f"  later call of the same kind (median of {WARM_CALLS})                        {first['warm_call_s']:7.1f} ms",
        f"  first-invocation cost beyond the import: {first['runtime_s'] + first['first_call_s']:.1f} ms "
        f"(of which {first['first_call_s'] - first['warm_call_s']:.1f} ms is the first call's one-time work)",
        "  (moto is imported and its service models loaded before runtime(), then frozen out of the garbage "
        "collector; botocore modules moto imported are already in memory, so a real cold start pays somewhat more, "
        "plus AWS's network latency)",
    ]
    verdicts = [verdict(ok, f"handler import / boto3 import = {imports['ratio']:.2f} (target <= {TARGET_RATIO})")]
    print(block("[3] Cold start: handler import vs bare boto3, and the first invocation", lines + verdicts))
    return [f"[3] {v}" for v in verdicts]


if __name__ == "__main__":
    if sys.argv[1:] == ["--first-invocation"]:
        print(json.dumps(first_invocation()))
    else:
        run()
