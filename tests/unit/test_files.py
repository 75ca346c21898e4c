"""`rule-actions init`, `rule-actions schema` and `--version`: the configuration file a user starts from, its schema,
and the installed version."""

from __future__ import annotations

import json
from importlib import metadata

import jsonschema
import pytest

from rule_actions.config import Config
from rule_actions_cdk.settings import StackSettings, file_schema, split_file
from rule_actions_cli.files import SCHEMA_FILE
from rule_actions_cli.main import main


def test_init_writes_a_valid_file_whose_schema_line_names_the_schema_beside_it(tmp_path, capsys):
    # When init runs in an empty directory
    assert main(["init", "--directory", str(tmp_path)]) == 0
    # Then the file names the schema written beside it, which accepts it, and the validators accept it too
    data = json.loads((tmp_path / "rule-actions.json").read_text())
    schema = json.loads((tmp_path / data["$schema"]).read_text())
    assert data["$schema"] == f"./{SCHEMA_FILE}" and schema == file_schema()
    jsonschema.Draft202012Validator(schema).validate(data)
    config, stack = split_file(data, "rule-actions.json")
    assert Config.from_dict(config).to_dict()["rules"] and StackSettings.from_dict(stack).stack_name == "RuleActions"
    assert "wrote" in capsys.readouterr().out


def test_init_overwrites_nothing(tmp_path, capsys):
    # Given a configuration of the user's
    (tmp_path / "rule-actions.json").write_text('{"rules": {}}')
    # When init runs there / Then it refuses, names the file, and writes neither file
    assert main(["init", "--directory", str(tmp_path)]) == 2
    assert "rule-actions.json already exist" in capsys.readouterr().err
    assert (tmp_path / "rule-actions.json").read_text() == '{"rules": {}}'
    assert not (tmp_path / SCHEMA_FILE).exists()


def test_schema_prints_or_writes_the_generated_schema(tmp_path, capsys):
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == file_schema()
    assert main(["schema", "--out", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text()) == file_schema()


def test_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"rule-actions {metadata.version('rule-actions')}"
