"""`rule-actions init`, `rule-actions schema` and `--version`: the configuration file a user starts from, its schema,
and the installed version."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest

from rule_actions.config import Config
from rule_actions_cdk.app import feature_flags
from rule_actions_cdk.settings import StackSettings, file_schema, split_file
from rule_actions_cli.files import APP, SCHEMA_FILE
from rule_actions_cli.main import main

EVENTS = Path(__file__).resolve().parents[2] / "events"


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


def test_init_cdk_writes_an_app_reading_the_file_and_cdk_json_running_it(tmp_path, capsys):
    # When init --cdk runs in an empty directory
    assert main(["init", "--cdk", "--directory", str(tmp_path)]) == 0
    # Then it writes the configuration (the stack named as without --cdk), its schema, the app and cdk.json
    assert {p.name for p in tmp_path.iterdir()} == {"rule-actions.json", SCHEMA_FILE, "app.py", "cdk.json"}
    data = json.loads((tmp_path / "rule-actions.json").read_text())
    assert data["stack"] == {"stack_name": "RuleActions"}
    app = (tmp_path / "app.py").read_text()
    # whose stack is named by the file, as every command names it
    assert app == APP and 'Stack(app, stack_name("rule-actions.json"))' in app and 'config="rule-actions.json"' in app
    compile(app, "app.py", "exec")
    # and cdk.json runs the app through the runner, with the feature flags the construct is tested with
    cdk = json.loads((tmp_path / "cdk.json").read_text())
    assert cdk == {"app": "python3 -m rule_actions_cdk app.py", "context": feature_flags()}
    said = capsys.readouterr().out
    assert "npx cdk synth" in said
    # and the CDK CLI it says to install is the one package.json pins and the README installs
    root = Path(__file__).resolve().parents[2]
    pinned = json.loads((root / "package.json").read_text())["devDependencies"]["aws-cdk"]
    assert f"npm install aws-cdk@{pinned})" in said
    assert f"npm install aws-cdk@{pinned}" in (root / "README.md").read_text()
    # and a second run overwrites nothing
    assert main(["init", "--cdk", "--directory", str(tmp_path)]) == 2
    assert "already exist" in capsys.readouterr().err


def test_init_cdk_beside_an_app_of_the_users_writes_nothing(tmp_path, capsys):
    (tmp_path / "app.py").write_text("# mine\n")
    assert main(["init", "--cdk", "--directory", str(tmp_path)]) == 2
    assert "app.py already exist" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["app.py"] and (tmp_path / "app.py").read_text() == "# mine\n"


def test_samples_writes_the_shipped_events_and_timelines_once(tmp_path, capsys):
    # When samples writes into a new directory
    target = tmp_path / "events"
    assert main(["samples", "--directory", str(target)]) == 0
    # Then it holds the samples as the repository's events/ does, and says how to replay them
    assert (target / "timelines" / "hung-job.json").read_text() == (EVENTS / "timelines" / "hung-job.json").read_text()
    assert len(list(target.rglob("*.json"))) == sum(len(list(EVENTS.glob(p))) for p in ("*.json", "*/*.json", "*/*/*.json"))
    assert f"next: rule-actions replay {target}/ {target / 'timelines'}/" in capsys.readouterr().out
    # and a second run overwrites nothing
    assert main(["samples", "--directory", str(target)]) == 2
    assert "already exists and is not an empty directory" in capsys.readouterr().err


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


UNUSABLE = {  # (how the place is made, the words of the one-line error)
    "missing": (lambda tmp: tmp / "nowhere" / "deeper", "no such directory"),
    "a file": (lambda tmp: (tmp / "file.txt", (tmp / "file.txt").write_text("x"))[0], "not a directory"),
    "unwritable": (lambda tmp: __import__("pathlib").Path("/sys"), "cannot write"),
}


@pytest.mark.parametrize("kind", list(UNUSABLE))
def test_init_in_an_unusable_directory_is_one_line_with_status_2(tmp_path, capsys, kind):
    # Given a --directory that is missing, a file or unwritable
    make, words = UNUSABLE[kind]
    place = make(tmp_path)
    # When init runs / Then one line names the place and why, with exit status 2, and no traceback
    assert main(["init", "--directory", str(place)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rule-actions: ") and str(place) in err and words in err


@pytest.mark.parametrize("kind", list(UNUSABLE))
def test_schema_out_in_an_unusable_place_is_one_line_with_status_2(tmp_path, capsys, kind):
    make, words = UNUSABLE[kind]
    place = make(tmp_path)
    target = place / "schema.json"
    assert main(["schema", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rule-actions: ") and words in err


def test_schema_out_naming_a_directory_is_one_line(tmp_path, capsys):
    assert main(["schema", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a directory" in err


@pytest.mark.parametrize("kind", ["a file", "unwritable"])
def test_template_out_in_an_unusable_place_is_refused_before_synthesis(tmp_path, capsys, monkeypatch, kind):
    # Given an --out that cannot be written, and a synthesis that would say it ran
    import rule_actions_cdk.app

    def synthesis(*args, **kwargs):
        raise AssertionError("synthesized")

    monkeypatch.setattr(rule_actions_cdk.app, "build_app", synthesis)
    monkeypatch.chdir(tmp_path)
    make, words = UNUSABLE[kind]
    place = make(tmp_path)
    # When template runs / Then one line says why, with exit status 2, before anything is synthesized
    assert main(["template", "--out", str(place)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(place) in err and words in err


def test_template_prints_commands_that_survive_a_path_with_spaces(tmp_path):
    import shlex

    from rule_actions_cli.template import deploy_commands

    # Given an output folder whose path holds spaces and a quote
    out = tmp_path / "my templates" / "it's here"
    # When the deploy commands are printed / Then each path is one word of the shell's split
    text = deploy_commands(out, "RuleActions", ["RuleActionsMember"])
    words = [w for line in text.replace("\\\n", " ").splitlines() if line.strip() for w in shlex.split(line)]
    assert str(out / "code") in words and str(out / "RuleActions.template.json") in words
    assert str(out / "RuleActionsMember.template.json") in words


@pytest.mark.parametrize(("stack", "named"), [(None, "RuleActions"), ({"stack_name": "MLPlatform"}, "MLPlatform"),
                                              ({}, "RuleActions")])
def test_the_stack_name_has_one_source_the_configuration_file(tmp_path, monkeypatch, stack, named):
    # Given a recipe pasted into rule-actions.json (no "stack" block), or one naming its stack
    from rule_actions_cdk import stack_name
    from rule_actions_cdk.app import project_context, read_context

    monkeypatch.chdir(tmp_path)
    recipe = {"rules": {"*": ["notify"]}, **({"stack": stack} if stack is not None else {})}
    (tmp_path / "rule-actions.json").write_text(json.dumps(recipe))
    # When the app `init --cdk` writes names its stack, and the commands read the configuration
    # Then both name the same stack (template, report --replay and the replay synthesize read_context's)
    assert stack_name("rule-actions.json") == named == read_context(project_context())[1].stack_name


def test_an_invalid_stack_name_is_named_with_the_file_and_its_field(tmp_path):
    from rule_actions.config import ConfigError
    from rule_actions_cdk import stack_name

    path = tmp_path / "rule-actions.json"
    path.write_text(json.dumps({"stack": {"stack_name": "1st"}}))
    with pytest.raises(ConfigError, match=r'rule-actions\.json\.stack\.stack_name: "1st" is not a stack name'):
        stack_name(path)


def test_a_file_bad_in_its_configuration_and_its_stack_block_is_told_every_field_at_once(tmp_path, monkeypatch):
    # Given a file with a misspelt rule and a bad ttl, and a bad stack name and dashboard in its "stack" block
    from rule_actions.config import ConfigError
    from rule_actions_cdk import stack_name
    from rule_actions_cdk.app import file_context, read_context

    monkeypatch.chdir(tmp_path)
    bad = {"dedup_ttl_hours": 0, "rules": {"StaledTraining": ["notify"]},
           "stack": {"stack_name": "1x", "dashboard": "yes"}}
    Path("rule-actions.json").write_text(json.dumps(bad))
    fields = ["rule-actions.json.dedup_ttl_hours: 0", 'rule-actions.json.rules["StaledTraining"]',
              'rule-actions.json.stack.stack_name: "1x"', 'rule-actions.json.stack.dashboard: "yes"']
    # When the commands read it (replay, template, report), and when the app init --cdk writes names its stack
    for read in (lambda: read_context(file_context()), lambda: stack_name("rule-actions.json")):
        with pytest.raises(ConfigError) as refused:
            read()
        # Then one message names the file, then each of the four fields (not one part per run)
        said = str(refused.value)
        assert said.startswith("rule-actions.json: invalid configuration:\n  "), said
        assert [said.count(f"\n  {field}") for field in fields] == [1, 1, 1, 1], said


def test_init_s_help_names_the_default_stack_name_settings_declares(capsys):
    from rule_actions_cdk.settings import DEFAULTS

    with pytest.raises(SystemExit):
        main(["init", "--help"])
    assert f"default {DEFAULTS['stack_name']})" in " ".join(capsys.readouterr().out.split())
