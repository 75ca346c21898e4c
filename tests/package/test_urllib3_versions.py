"""The webhook transport on the urllib3 a Lambda runtime may ship: the function brings no urllib3 of its own (it
uses the runtime's, which botocore loads), and botocore allows 1.25.4 and later (below 2 on Pythons before 3.10).
The transport tests (tests/integration/test_webhook_transport.py: deadlines, refused addresses, DNS rebinding,
certificates) run again in a child with urllib3 1.26, the last release before 2, put ahead of the venv's."""

from __future__ import annotations

import os
import subprocess
import sys

from installing import ROOT, run, uv

TRANSPORT_TESTS = ROOT / "tests" / "integration" / "test_webhook_transport.py"


def test_the_webhook_transport_tests_pass_on_urllib3_1_26(tmp_path):
    # Given urllib3 1.26 installed apart and put ahead of the venv's urllib3 2
    run(uv(), "pip", "install", "--quiet", "--python", sys.executable, "--target", tmp_path / "urllib3",
        "urllib3>=1.26,<2", cwd=tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path / "urllib3"),
                                                                      os.environ.get("PYTHONPATH")]))}
    version = run(sys.executable, "-c", "import urllib3; print(urllib3.__version__)", cwd=ROOT, env=env).strip()
    assert version.startswith("1.26."), version
    # When the transport tests run with it / Then every one passes
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(TRANSPORT_TESTS)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
