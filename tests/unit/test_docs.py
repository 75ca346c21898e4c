"""The README and the pages of docs/: every Python snippet runs as printed (the SDK one needs the sagemaker
package, installed for the tests), the README stays a front door, and the configuration reference the site
generates (docs/hooks/config_reference.py) documents every key of the published schema."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
SNIPPETS = [(page, code) for page in PAGES for code in re.findall(r"```python\n(.*?)```", page.read_text(), re.DOTALL)]
SCHEMA = json.loads((ROOT / "schemas" / "config.schema.json").read_text())


def run(page: Path, code: str, where: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Run a snippet as a user would, in an empty directory `where` (a CDK app may write its cloud assembly there);
    an app reading rule-actions.json finds it as `rule-actions init` writes it (tests/package/ runs the README's
    commands around it)."""
    monkeypatch.chdir(where)
    if '"rule-actions.json"' in code:
        from rule_actions_cli.main import main

        assert main(["init"]) == 0
    scope: dict = {}
    exec(compile(code, str(page), "exec"), scope)
    return scope


@pytest.mark.parametrize(("page", "code"), SNIPPETS,
                         ids=[f"{page.name}:{code.splitlines()[0][:40]}" for page, code in SNIPPETS])
def test_each_python_snippet_runs_as_printed(page, code, tmp_path, monkeypatch):
    run(page, code, tmp_path, monkeypatch)


def test_the_raw_api_snippet_prepares_a_rule_with_a_real_image(tmp_path, monkeypatch):
    [(page, snippet)] = [(p, s) for p, s in SNIPPETS if "prepare_actions(" in s]
    scope = run(page, snippet, tmp_path, monkeypatch)
    assert scope["rule"]["RuleEvaluatorImage"].endswith(".amazonaws.com/sagemaker-debugger-rules:latest")
    assert "action_json" in scope["rule"]["RuleParameters"]


# An SDK call quoted in a sentence (`monitor_tags("Budget", StopTraining(), usd=400)` writes them): a reader copies it
INLINE_CALLS = [(page, call) for page in PAGES
                for call in re.findall(r"`((?:monitor_tags|monitor_opt_out|Config\.from_dict)\(.*?\))`", page.read_text())]


@pytest.mark.parametrize(("page", "call"), INLINE_CALLS, ids=[f"{page.name}:{call[:40]}" for page, call in INLINE_CALLS])
def test_each_sdk_call_quoted_in_a_sentence_runs_as_printed(page, call):
    # Given the names a reader imports from the SDK and the configuration
    import rule_actions_sdk
    from rule_actions.config import Config

    scope = {**{name: getattr(rule_actions_sdk, name) for name in rule_actions_sdk.__all__}, "Config": Config}
    # When the quoted call runs, Then it returns (a wrong signature or a refused value raises)
    assert eval(call, scope) is not None


def test_the_budget_tags_call_writes_the_tags_the_page_prints():
    # Given the triggers page's budget tags and the call it says writes them
    page = (DOCS / "triggers.md").read_text()
    printed = dict(re.findall(r"^(rule-actions:Budget\S*)\s+= (.*)$", page, re.MULTILINE))
    [call] = [call for found, call in INLINE_CALLS if found.name == "triggers.md" and '"Budget"' in call]
    import rule_actions_sdk

    # When it runs
    tags = eval(call, {name: getattr(rule_actions_sdk, name) for name in rule_actions_sdk.__all__})
    # Then it writes exactly those tags
    assert {tag["Key"]: tag["Value"] for tag in tags} == printed

def test_the_readme_is_a_front_door_whose_first_commands_are_demo_and_test():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"the README has {len(lines)} lines: move the rest to docs/"
    first = lines.index("```sh")  # the first screen's commands
    commands = [line.split("#")[0].strip() for line in lines[first + 1:lines.index("```", first + 1)]]
    assert first < 40 and commands == ["make demo", "make test"]


INSTALL = 'pip install "../rule-actions[cdk,local]"'  # the clone beside an empty directory: no release on PyPI yet


def shell_lines(page: Path) -> list[str]:
    """The commands of a page's sh blocks, comments stripped."""
    return [line.split("  #")[0].strip() for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.DOTALL)
            for line in block.splitlines()]


def test_every_install_line_installs_from_the_clone_and_none_from_pypi():
    # Given every pip command the README and docs/ print
    pips = {page.name: [line for line in shell_lines(page) if re.match(r"(python3? -m )?pip3? install", line)]
            for page in PAGES}
    # Then the pages that install rule-actions print the one line, the clone's path (tests/package/ runs it), and
    # none names a rule-actions from PyPI, whose name is not the project's yet
    assert {name: lines for name, lines in pips.items() if lines} == {
        "README.md": [INSTALL], "getting-started.md": [INSTALL], "recipes.md": [INSTALL]}
    # and each of them says so where it installs
    for page in (README, DOCS / "getting-started.md", DOCS / "recipes.md"):
        prose = " ".join(page.read_text().split())
        assert ("No release is on PyPI yet, and the name `rule-actions` there is not ours: never `pip install "
                "rule-actions` from PyPI") in prose, page.name
        assert "In an empty directory beside your clone (the folder `rule-actions`)" in prose, page.name


def test_getting_started_prints_the_readmes_cdk_commands():
    # The README's commands run in tests/package/test_readme_cdk.py; getting-started prints the same ones
    def commands(page: Path, heading: str) -> list[str]:
        text = page.read_text()
        part = text[text.index(heading):]
        [block] = re.findall(r"```sh\n(.*?)```", part, re.DOTALL)[:1]
        return [line.split("#")[0].strip() for line in block.splitlines()]

    assert commands(DOCS / "getting-started.md", "## In your own CDK app") == commands(
        README, "## Use it in your own CDK app")


def test_no_help_text_prints_another_install_line():
    from rule_actions_cli.main import parser

    top = parser()
    [commands] = [a for a in top._actions if a.choices and "replay" in a.choices]
    texts = [top.format_help(), *(sub.format_help() for sub in commands.choices.values())]
    lines = [line.strip() for text in texts for line in text.splitlines() if "pip install" in line]
    assert all(INSTALL in line for line in lines), lines


def test_the_readme_links_only_to_files_that_exist():
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert targets and all((ROOT / target).is_file() for target in targets if "://" not in target), targets


def _keys(node: dict, path: str = ""):
    """Every key the schema declares, as the reference names it: `a.b`, a map's `a.<name>.b`, a list's `a[].b`."""
    for key, prop in node.get("properties", {}).items():
        here = f"{path}.{key}" if path else key
        yield here
        yield from _keys(prop, here)
        if isinstance(prop.get("additionalProperties"), dict):
            yield from _keys(prop["additionalProperties"], f"{here}.<name>")
        if isinstance(prop.get("items"), dict):
            yield from _keys(prop["items"], f"{here}[]")


def test_the_configuration_reference_documents_every_key_of_the_schema():
    spec = importlib.util.spec_from_file_location("config_reference", DOCS / "hooks" / "config_reference.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    reference = hook.reference(SCHEMA)

    keys = list(_keys(SCHEMA))
    assert len(keys) > len(SCHEMA["properties"])  # nested blocks included
    missing = [key for key in keys if f"`{key}`" not in reference]
    assert not missing, f"keys the reference does not document: {missing}"
    assert hook.MARKER in (DOCS / "configuration.md").read_text()
    # every top-level key's row gives its default, as the schema states it
    for key, prop in SCHEMA["properties"].items():
        if key == "$schema":  # the editor's pointer to the schema: no setting, no default
            continue
        assert f"`{json.dumps(prop['default'])}`" in next(line for line in reference.splitlines()
                                                          if line.startswith((f"| `{key}`", f"| [`{key}`]")))


def test_the_rule_table_lists_every_monitor_rule_with_its_families_the_phases_it_judges_and_its_parameters():
    # Given the monitor rules as the code declares them
    from rule_actions import registry
    from rule_actions.monitors.rule import params_of

    table = (DOCS / "triggers.md").read_text().split("| rule | families | phases judged |", 1)[1].split("\n\n", 1)[0]
    rows = {cells[0].strip("|` "): cells for cells in (line.split(" | ") for line in table.splitlines()[2:])}
    # Then the docs' table has a row per rule, naming its families, its phases and each of its parameters (its mode
    # is in its own section)
    assert set(rows) == set(registry.monitors())
    for name, rule in registry.monitors().items():
        assert rows[name][1] == ", ".join(rule.families), name
        assert rows[name][2] == ", ".join(f"`{phase}`" for phase in rule.phases), name
        missing = [p.key for p in params_of(rule) if p.key != "mode" and f"`{p.key}`" not in rows[name][4]]
        assert not missing, f"{name}: {missing}"


def test_the_home_page_opens_with_the_flow_picture_then_the_two_commands():
    # Given the home page's first lines after its title
    lines = [line for line in (DOCS / "index.md").read_text().splitlines()[1:] if line.strip()]
    # Then it opens with the picture of the flow, a static SVG of the docs, then the two commands
    assert re.fullmatch(r"!\[[^\]]{40,}\]\(flow\.svg\)", lines[0]), lines[0]
    block = lines.index("```sh")
    assert [line.split("#")[0].strip() for line in lines[block + 1:block + 3]] == ["make demo", "make test"]


def test_the_flow_picture_renders_without_any_other_file_or_network():
    # Given the SVG the home page shows
    from xml.etree import ElementTree

    text = (DOCS / "flow.svg").read_text()
    root = ElementTree.fromstring(text)
    svg = "{http://www.w3.org/2000/svg}"
    # Then it is a picture with its own title and description, that loads nothing: no URL but its namespace, no
    # image, script, font or stylesheet of elsewhere
    assert root.tag == f"{svg}svg" and root.find(f"{svg}title").text and len(root.find(f"{svg}desc").text) > 100
    assert re.findall(r"https?://[^\"' )]+", text) == ["http://www.w3.org/2000/svg"]
    assert not [e for e in root.iter() if e.tag in (f"{svg}image", f"{svg}script", f"{svg}foreignObject")]
    assert "@import" not in text and "url(http" not in text
    # and it names what the flow is made of
    words = " ".join("".join(t.itertext()) for t in root.iter(f"{svg}text"))
    for part in ("SageMaker jobs", "EventBridge rule", "Lambda function", "DynamoDB ledger", "Stop the job",
                 "Signed webhooks", "Evaluator"):
        assert part in words, part


def test_the_home_page_says_each_action_may_be_declared_where_attaching_actions_says():
    # Given the actions of docs/attaching-actions.md (action | does | where it may be declared) and the home page's
    # (action | declared by | what happens)
    attaching, home = (DOCS / "attaching-actions.md").read_text(), (DOCS / "index.md").read_text()
    for name in ("stoptraining", "stop", "restart"):
        declared = re.search(rf"^\| `{name}` \|[^|]*\| ([^|]*) \|$", attaching, re.MULTILINE).group(1)
        by = re.search(rf"^\| `{name}` \| ([^|]*) \|", home, re.MULTILINE).group(1)
        # Then the home page names a job's tag, and action_json, wherever that page allows them (the SDK's
        # StopTraining() is stoptraining's action_json)
        assert ("tags" in declared) == ("tag" in by), (name, by)
        assert ("action_json" in declared) == ("action_json" in by or "SDK" in by), (name, by)


# A configuration a page prints whole (a JSON object of configuration keys): a reader saves it as rule-actions.json
CONFIGS = [(page, block) for page in (DOCS / "triggers.md", DOCS / "attaching-actions.md")
           for block in re.findall(r"```json\n(.*?)```", page.read_text(), re.DOTALL)]


@pytest.mark.parametrize(("page", "block"), CONFIGS, ids=[f"{page.name}:{i}" for i, (page, _) in enumerate(CONFIGS)])
def test_each_configuration_the_rule_pages_print_is_valid(page, block):
    from rule_actions.config import Config

    # Given a configuration as the page prints it, When it is read as rule-actions.json, Then it is not refused
    Config.from_dict(json.loads(block), where="rule-actions.json")


@pytest.mark.parametrize(("package", "marker"), [("jobs", "FAMILY"), ("readers", "READER"), ("triggers", "FAMILY"),
                                                 ("kinds", "KIND")])
def test_the_architecture_page_names_every_plug_in_of_a_package_today(package, marker):
    # Given the plug-in modules of a package (those defining its FAMILY, READER or KIND)
    folder = ROOT / "lambdas" / "rule_actions" / package
    plug_ins = sorted(path.stem for path in folder.glob("*.py")
                      if re.search(rf"^{marker}\b", path.read_text(), re.MULTILINE))
    # Then the package's row of "The plug-in packages" names each of them in its "today" column
    page = (ROOT / "docs" / "architecture.md").read_text()
    [row] = [line for line in page.splitlines() if line.startswith(f"| `{package}/` |")]
    today = row.rstrip(" |").rsplit(" | ", 1)[1]
    assert plug_ins and not [name for name in plug_ins if f"`{name}`" not in today], (plug_ins, today)


def test_the_architecture_page_counts_the_monitor_rules():
    from rule_actions import registry

    words = {9: "nine", 12: "twelve", 15: "fifteen", 16: "sixteen", 17: "seventeen", 18: "eighteen"}
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert f"| the {words.get(len(registry.monitors()), len(registry.monitors()))} rules |" in page


def test_operations_names_every_action_kind_and_job_family_a_result_carries():
    from rule_actions import registry

    page = (ROOT / "docs" / "operations.md").read_text()
    # Given the kinds a result's action and the Actions metric carry, and the job families a result names
    [metric] = [line for line in page.splitlines() if line.startswith("| `Actions` |")]
    [kinds] = re.findall(r"`kind` is (`stoptraining`,.*?)\n`job` names", page, re.DOTALL)
    [families] = re.findall(r"`job_family` its family \((.*?)\)", page, re.DOTALL)
    # Then each is named where the page lists them
    assert [k for k in registry.action_kinds() if f"`{k}`" not in metric] == []
    assert [k for k in registry.action_kinds() if f"`{k}`" not in kinds] == []
    assert [f.name for f in registry.JOBS if f"`{f.name}`" not in families] == []


def test_development_describes_every_test_tier():
    # Given the tiers: the folders of tests/ that hold test modules
    tiers = sorted(p.parent.name for p in (ROOT / "tests").glob("*/test_*.py"))
    # Then the development page has a line for each
    page = (ROOT / "docs" / "development.md").read_text()
    assert [tier for tier in dict.fromkeys(tiers) if f"- `tests/{tier}`:" not in page] == []
