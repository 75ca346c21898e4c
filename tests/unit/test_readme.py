"""The README's Python snippets run as printed (the SDK one needs the sagemaker package, installed for the tests)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("code", SNIPPETS, ids=[s.splitlines()[0][:40] for s in SNIPPETS])
def test_each_python_snippet_runs_as_printed(code):
    exec(compile(code, str(README), "exec"), {})


def test_the_raw_api_snippet_prepares_a_rule_with_a_real_image():
    [snippet] = [s for s in SNIPPETS if "prepare_actions(" in s]
    scope: dict = {}
    exec(compile(snippet, str(README), "exec"), scope)
    assert scope["rule"]["RuleEvaluatorImage"].endswith(".amazonaws.com/sagemaker-debugger-rules:latest")
    assert "action_json" in scope["rule"]["RuleParameters"]
