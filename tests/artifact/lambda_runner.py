"""Runs the deployed function's handler the way Lambda does, in a clean interpreter: `python -I -S` (no site
packages, no PYTHON* variables), with only the unzipped code asset and what the Lambda runtime ships (boto3 and
its dependencies) on the path, and the environment the stack gives the function.

    python -I -S lambda_runner.py ASSET_DIR RUNTIME_DIR < one event per line

Prints one JSON line first ({"ready": true} or {"import_error": ...}, then exit status 3), then one line per
event: {"result": ...} or {"error": "<type>: <message>"}, with "calls": the AWS operations the handler's
clients made for it, each with the error code AWS answered (null when it succeeded).
Stdlib only: nothing of the project or of the test environment is imported here.
"""

import importlib
import json
import os
import sys

asset, runtime = (os.path.abspath(p) for p in sys.argv[1:3])
# The protocol keeps the original stdout; everything else written to fd 1 (the handler's log lines and EMF
# metrics, Lambda's stdout) goes to stderr.
protocol = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.path[:0] = [asset, runtime]  # /var/task, then the runtime's own packages


class Context:
    """What Lambda's context gives the handler (Powertools reads these)."""

    def __init__(self):
        self.function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
        self.memory_limit_in_mb = int(os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
        self.invoked_function_arn = os.environ["RUNNER_FUNCTION_ARN"]
        self.aws_request_id = "artifact-test"

    def get_remaining_time_in_millis(self):
        return 60_000


def emit(data):
    protocol.write(json.dumps(data, default=str) + "\n")
    protocol.flush()


module_name, function_name = os.environ["_HANDLER"].rsplit(".", 1)
try:
    handler = getattr(importlib.import_module(module_name), function_name)
except Exception as err:  # what Lambda reports as Runtime.ImportModuleError
    emit({"import_error": f"{type(err).__name__}: {err}"})
    sys.exit(3)

stdlib = os.path.dirname(os.__file__)
outside = sorted(name for name, module in list(sys.modules.items())
                 if module is not sys.modules["__main__"] and getattr(module, "__file__", None)
                 and not module.__file__.startswith((asset, runtime, stdlib)))

import boto3  # noqa: E402 - the runtime's, as the handler imported it

calls = []


def record(http_response, parsed, model, **_):
    calls.append([model.service_model.service_name, model.name, (parsed.get("Error") or {}).get("Code")])


if boto3.DEFAULT_SESSION is None:  # the handler creates its clients on its first event, from this session
    boto3.setup_default_session()
boto3.DEFAULT_SESSION.events.register("after-call", record)
emit({"ready": True, "outside": outside,
      "powertools": getattr(sys.modules.get("aws_lambda_powertools"), "__file__", None)})
for line in sys.stdin:
    calls.clear()
    try:
        result = {"result": handler(json.loads(line), Context())}
    except Exception as err:  # a function error: Lambda would retry the event
        result = {"error": f"{type(err).__name__}: {err}"}
    emit({**result, "calls": list(calls)})
