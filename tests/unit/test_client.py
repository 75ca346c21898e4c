"""Golden tests: rule_actions_sdk against the real smdebug-rulesconfig 1.0.1 and sagemaker v2 SDK."""

import copy
import json
import os
import random
import re
import string

import pytest

os.environ.setdefault("SAGEMAKER_SUPPRESS_V2_WARNING", "1")  # before the import: it warns at import time

import smdebug_rulesconfig.actions.actions as sdk
from smdebug_rulesconfig.actions import utils as sdk_utils

import rule_actions_sdk as client
from rule_actions.grammar import as_dict, parse_action_json
from rule_actions.records import Action

JOB = "MyJob-2026-11-22"  # capitals on purpose: values keep their case
STOP, EMAIL, SMS = "stoptraining", "email", "sms"

# (id, build(module), actions parsed before the prefix is filled, after it is filled with JOB)
CASES = [
    ("stop", lambda m: m.StopTraining(), [Action(STOP)], [Action(STOP, JOB)]),
    ("stop-prefix", lambda m: m.StopTraining("exp-fam"), [Action(STOP, "exp-fam")], [Action(STOP, "exp-fam")]),
    ("stop-mixed-case-prefix", lambda m: m.StopTraining("Exp-Fam-2026"), [Action(STOP, "Exp-Fam-2026")],
     [Action(STOP, "Exp-Fam-2026")]),
    ("email", lambda m: m.Email("ml@example.com"), [Action(EMAIL, "ml@example.com")],
     [Action(EMAIL, "ml@example.com")]),
    ("email-mixed-case-domain", lambda m: m.Email("ml0@Example.COM"), [Action(EMAIL, "ml0@Example.COM")],
     [Action(EMAIL, "ml0@Example.COM")]),
    ("sms", lambda m: m.SMS("+15555550100"), [Action(SMS, "+15555550100")], [Action(SMS, "+15555550100")]),
    ("list-empty", lambda m: m.ActionList(), [], []),
    ("list-1-stop", lambda m: m.ActionList(m.StopTraining()), [Action(STOP)], [Action(STOP, JOB)]),
    ("list-1-sms", lambda m: m.ActionList(m.SMS("+447700900123")), [Action(SMS, "+447700900123")],
     [Action(SMS, "+447700900123")]),
    ("list-2-email-stop-prefix", lambda m: m.ActionList(m.Email("team1@Corp.io"), m.StopTraining("Team-A")),
     [Action(EMAIL, "team1@Corp.io"), Action(STOP, "Team-A")],
     [Action(EMAIL, "team1@Corp.io"), Action(STOP, "Team-A")]),
    ("list-3", lambda m: m.ActionList(m.StopTraining(), m.Email("ml@example.com"), m.SMS("+15555550100")),
     [Action(STOP), Action(EMAIL, "ml@example.com"), Action(SMS, "+15555550100")],
     [Action(STOP, JOB), Action(EMAIL, "ml@example.com"), Action(SMS, "+15555550100")]),
    ("list-3-reordered", lambda m: m.ActionList(m.SMS("+15555550100"), m.Email("ml@example.com"), m.StopTraining()),
     [Action(SMS, "+15555550100"), Action(EMAIL, "ml@example.com"), Action(STOP)],
     [Action(SMS, "+15555550100"), Action(EMAIL, "ml@example.com"), Action(STOP, JOB)]),
    ("list-two-stops", lambda m: m.ActionList(m.StopTraining("Other-Job"), m.StopTraining()),
     [Action(STOP, "Other-Job"), Action(STOP)], [Action(STOP, "Other-Job"), Action(STOP, JOB)]),
]
ALL = [pytest.param(build, before, after, id=name) for name, build, before, after in CASES]
# The SDK cannot prepare a lone Email or SMS (no update method): those are tested on their own below.
PREPARABLE = [pytest.param(build, after, id=name) for name, build, _, after in CASES
              if name not in ("email", "email-mixed-case-domain", "sms")]


def sdk_rule(**given):
    """sagemaker v2's Debugger rule VanishingGradient (Rule.sagemaker), with `given` (actions, rule_parameters).
    sagemaker.debugger is imported here, by this module's tests: at the top, every pytest-xdist worker imported it
    when collecting (2 s each)."""
    from sagemaker.debugger import Rule, rule_configs

    return Rule.sagemaker(rule_configs.vanishing_gradient(), **given)


def sdk_prepared(sdk_actions):
    """What sagemaker v2 sends for VanishingGradient with these actions at fit() for JOB."""
    rule = sdk_rule(actions=sdk_actions)
    rule.prepare_actions(JOB)
    return rule.to_debugger_rule_config_dict()


def seed_rule():
    """The same rule without actions, as a user of the raw CreateTrainingJob API would write it."""
    return sdk_rule().to_debugger_rule_config_dict()


def fill(obj):
    obj.update_training_job_prefix_if_not_specified(JOB)
    return obj


def can_fill(obj):
    return hasattr(obj, "update_training_job_prefix_if_not_specified")


# --- serialization, byte for byte ---------------------------------------------------------------------------

def test_documented_example_matches_literally():
    # Given the example recorded in the shared facts
    expected = (r'[{\"name\": \"stoptraining\", \"training_job_prefix\": \"MyJob-2026-11-22\"}, '
                r'{\"endpoint\": \"ml@example.com\", \"name\": \"email\"}, '
                r'{\"endpoint\": \"+15555550100\", \"name\": \"sms\"}]')
    # When ours is built and filled the same way
    ours = fill(client.ActionList(client.StopTraining(), client.Email("ml@example.com"), client.SMS("+15555550100")))
    # Then the string is the recorded one, and a given prefix is written first, as the SDK writes it
    assert ours.serialize() == expected
    given = client.StopTraining("exp-fam").serialize()
    assert given == r'{\"training_job_prefix\": \"exp-fam\", \"name\": \"stoptraining\"}'


@pytest.mark.parametrize("build, before, after", ALL)
def test_serialize_matches_sdk_before_and_after_prefix_fill(build, before, after):
    # Given the same declaration in the SDK and in ours
    theirs, ours = build(sdk), build(client)
    # When / Then: identical before the prefix is filled
    assert ours.serialize() == theirs.serialize()
    # When the job name is filled in (the SDK's lone Email/SMS cannot: ours is a no-op there)
    if can_fill(theirs):
        fill(theirs)
    fill(ours)
    # Then: still identical
    assert ours.serialize() == theirs.serialize()


@pytest.mark.parametrize("build, before, after", ALL)
def test_later_fill_replaces_an_earlier_default_but_never_a_given_prefix(build, before, after):
    # Given both objects filled with a first job name
    theirs, ours = build(sdk), build(client)
    for obj in (theirs, ours):
        if can_fill(obj):
            obj.update_training_job_prefix_if_not_specified("first-job")
            # When a second name is filled (the SDK replaces a default prefix it filled itself)
            obj.update_training_job_prefix_if_not_specified(JOB)
    # Then ours follows the SDK, and the result parses to the JOB-filled actions
    assert ours.serialize() == theirs.serialize()
    assert parse_action_json(ours.serialize()) == (after, [])


def test_empty_action_list_serializes_as_the_sdk_does():
    # Given / When
    theirs, ours = sdk.ActionList().serialize(), client.ActionList().serialize()
    # Then
    assert theirs == ours == "[]"


# --- the SDK's strings in our grammar -----------------------------------------------------------------------

@pytest.mark.parametrize("build, before, after", ALL)
def test_sdk_strings_parse_to_the_expected_actions(build, before, after):
    # Given the SDK's string, unfilled and filled
    theirs = build(sdk)
    unfilled = theirs.serialize()
    filled = fill(theirs).serialize() if can_fill(theirs) else unfilled
    # When / Then: escaped and plain JSON give the same actions, values keeping their case
    for text, expected in ((unfilled, before), (filled, after)):
        assert parse_action_json(text) == (expected, [])
        assert parse_action_json(text.replace('\\"', '"')) == (expected, [])


@pytest.mark.parametrize("build, after", PREPARABLE)
def test_sagemaker_v2_action_json_parses_to_the_expected_actions(build, after):
    # Given the action_json the sagemaker v2 SDK puts in the CreateTrainingJob request
    text = sdk_prepared(build(sdk))["RuleParameters"]["action_json"]
    # When / Then
    assert parse_action_json(text) == (after, [])
    assert parse_action_json(text.replace('\\"', '"')) == (after, [])


@pytest.mark.parametrize("build, before, after", ALL)
def test_entries_and_actions_are_the_grammar_of_the_serialization(build, before, after):
    # Given ours, filled
    ours = fill(build(client))
    # When
    entries, actions = ours.entries(), ours.actions()
    # Then: the grammar's Actions and dicts, the same as parsing our own string
    assert actions == after
    assert entries == [as_dict(action) for action in after]
    assert parse_action_json(ours.serialize()) == (actions, [])


# --- prepare_actions against sagemaker v2 -------------------------------------------------------------------

@pytest.mark.parametrize("build, after", PREPARABLE)
def test_prepare_actions_equals_sagemaker_v2(build, after):
    # Given the SDK's request entry and the same rule without actions
    expected = sdk_prepared(build(sdk))
    seed = seed_rule()
    # When
    ours = client.prepare_actions(seed, JOB, build(client))
    # Then: the action_json value exactly, and the whole entry
    assert ours["RuleParameters"]["action_json"] == expected["RuleParameters"]["action_json"]
    assert ours == expected
    assert "action_json" not in seed["RuleParameters"]


@pytest.mark.parametrize("build, after", PREPARABLE)
def test_prepare_actions_from_a_seeded_action_json_equals_sagemaker_v2(build, after):
    # Given seeds holding the SDK's unfilled string, and the SDK's own filled request
    expected = sdk_prepared(build(sdk))
    unfilled = seed_rule()
    unfilled["RuleParameters"]["action_json"] = build(sdk).serialize()
    # When both are prepared without `actions`
    from_unfilled = client.prepare_actions(unfilled, JOB)
    from_sdk = client.prepare_actions(expected, JOB)
    # Then both are exactly the SDK's request (key order kept), and a given prefix is not replaced later
    assert from_unfilled == expected
    assert from_sdk == expected
    assert client.prepare_actions(expected, "another-job-7") == expected


@pytest.mark.parametrize("factory, value", [(client.Email, "ml@example.com"), (client.SMS, "+15555550100")])
def test_prepare_actions_takes_a_lone_email_or_sms_where_the_sdk_crashes(factory, value):
    # Given a lone Email/SMS in both
    sdk_factory = getattr(sdk, factory.__name__)
    rule = sdk_rule(actions=sdk_factory(value))
    # When / Then: the SDK fails at fit() time
    with pytest.raises(AttributeError, match="update_training_job_prefix_if_not_specified"):
        rule.prepare_actions(JOB)
    # When / Then: ours writes the object the SDK serializes
    ours = client.prepare_actions(seed_rule(), JOB, factory(value))
    assert ours["RuleParameters"]["action_json"] == sdk_factory(value).serialize()
    assert parse_action_json(ours["RuleParameters"]["action_json"]) == ([Action(factory.__name__.lower(), value)], [])


def test_prepare_actions_does_not_mutate_its_inputs():
    # Given a seed with an unfilled action_json and an unfilled ActionList
    seed = seed_rule()
    seed["RuleParameters"]["action_json"] = sdk.ActionList(sdk.StopTraining()).serialize()
    before = copy.deepcopy(seed)
    actions = client.ActionList(client.StopTraining(), client.Email("ml@example.com"))
    serialized = actions.serialize()
    # When
    out_seeded = client.prepare_actions(seed, JOB)
    out_given = client.prepare_actions(seed, JOB, actions)
    # Then: new dicts, inputs unchanged, and `actions` (which replace the seed's) not filled in place
    assert seed == before
    assert out_seeded is not seed and out_seeded["RuleParameters"] is not seed["RuleParameters"]
    assert actions.serialize() == serialized
    assert parse_action_json(out_given["RuleParameters"]["action_json"])[0] == [
        Action(STOP, JOB), Action(EMAIL, "ml@example.com")]


def test_prepare_actions_keeps_a_seed_without_actions_unchanged():
    # Given a rule without action_json
    seed = seed_rule()
    # When
    out = client.prepare_actions(seed, JOB)
    # Then
    assert out == seed and "action_json" not in out["RuleParameters"]


def test_sdk_drops_a_hand_written_action_json_where_ours_validates_it():
    # Given a hand-written action_json in the rule parameters of both
    text = '[{"name": "StopTraining"}, {"name": "email", "endpoint": "first.last@mail.example.co.uk"}]'
    rule = sdk_rule(rule_parameters={"action_json": text})
    seed = seed_rule()
    seed["RuleParameters"]["action_json"] = text
    # When
    rule.prepare_actions(JOB)
    ours = client.prepare_actions(seed, JOB)
    # Then: the SDK removes it; ours keeps it, filled and in the SDK's form
    assert "action_json" not in rule.to_debugger_rule_config_dict()["RuleParameters"]
    assert ours["RuleParameters"]["action_json"] == (
        r'[{\"name\": \"stoptraining\", \"training_job_prefix\": \"MyJob-2026-11-22\"}, '
        r'{\"endpoint\": \"first.last@mail.example.co.uk\", \"name\": \"email\"}]')


def test_action_json_over_256_characters_is_refused():
    # Given actions whose serialization is longer than the service's limit
    actions = client.ActionList(client.StopTraining(), *(client.Email(f"ml{i}@example.com") for i in range(6)))
    length = len(fill(copy.deepcopy(actions)).serialize())
    assert length > 256
    # When / Then: the error names the rule, the parameter and the length
    with pytest.raises(ValueError, match=rf"'VanishingGradient'.*'action_json' is {length} characters"):
        client.prepare_actions(seed_rule(), JOB, actions)


def test_other_parameter_over_256_characters_or_over_100_parameters_is_refused():
    # Given a seed with a long value, and one with 101 parameters
    long_value, many = seed_rule(), seed_rule()
    long_value["RuleParameters"]["threshold"] = "1" * 257
    many["RuleParameters"].update({f"p{i}": "1" for i in range(100)})
    # When / Then
    with pytest.raises(ValueError, match=r"'threshold' is 257 characters"):
        client.prepare_actions(long_value, JOB, client.StopTraining())
    with pytest.raises(ValueError, match=r"101 RuleParameters"):
        client.prepare_actions(many, JOB)
    # And exactly 256 characters is accepted
    long_value["RuleParameters"]["threshold"] = "1" * 256
    assert client.prepare_actions(long_value, JOB)["RuleParameters"]["threshold"] == "1" * 256


@pytest.mark.parametrize("text, field", [
    (r'[{\"name\": \"stoptraining\"}, {\"endpoint\": \"not-an-email\", \"name\": \"email\"}]',
     r"action_json\[1\]\.endpoint"),
    ('{"name": "sms", "endpoint": "5555550100"}', r"action_json\.endpoint"),
    ('[{"name": "stoptraining", "training_job_prefix": ""}]', r"action_json\[0\]\.training_job_prefix"),
    ('[{"name": "notify"}]', r"action_json\[0\]\.name"),
    ("[{not json", r"action_json: "),
])
def test_invalid_seeded_action_json_names_the_rule_and_field(text, field):
    # Given a seed with an invalid action_json
    seed = seed_rule()
    seed["RuleParameters"]["action_json"] = text
    # When / Then
    with pytest.raises(ValueError, match=rf"rule 'VanishingGradient'.*{field}"):
        client.prepare_actions(seed, JOB)


@pytest.mark.parametrize("name", ["", "-job", "job-", "bad_job", "a" * 64, "job name", None])
def test_invalid_training_job_name_is_refused(name):
    # Given / When / Then: the SageMaker name rule, in prepare_actions and in the fill itself
    with pytest.raises(ValueError, match="training_job_name"):
        client.prepare_actions(seed_rule(), name, client.StopTraining())
    with pytest.raises(ValueError, match="training_job_name"):
        client.StopTraining().update_training_job_prefix_if_not_specified(name)


def test_valid_job_name_boundaries_are_accepted():
    # Given the longest name and one with repeated hyphens
    for name in ("a" * 63, "a--b", "0"):
        # When
        out = client.prepare_actions(seed_rule(), name, client.StopTraining())
        # Then
        assert parse_action_json(out["RuleParameters"]["action_json"]) == ([Action(STOP, name)], [])


def test_non_action_is_refused_by_prepare_actions():
    # Given / When / Then: SDK objects are not ours
    with pytest.raises(TypeError, match="StopTraining"):
        client.prepare_actions(seed_rule(), JOB, sdk.StopTraining())


# --- validation ---------------------------------------------------------------------------------------------

def _sdk_shaped_values(count=40, seed=1234):
    """Values built from the SDK's own regexes (ASCII `\\w`), E.164 country codes and DNS label lengths."""
    rng = random.Random(seed)
    word = string.ascii_letters + string.digits + "_"
    pick = lambda chars, lo, hi: "".join(rng.choice(chars) for _ in range(rng.randint(lo, hi)))  # noqa: E731
    values = []
    for _ in range(count):
        local = pick(string.ascii_lowercase + string.digits, 1, 20)
        values.append(("Email", f"{local}@{pick(word, 1, 30)}.{pick(word, 2, 3)}"))
        values.append(("SMS", "+" + rng.choice("123456789") + pick(string.digits, 1, 14)))
        values.append(("StopTraining", pick(string.ascii_letters + string.digits + "-", 1, 63)))
    return [*values, ("Email", "a@b.co"), ("Email", "0@_.__"), ("SMS", "+12"), ("SMS", "+" + "9" * 15), ("StopTraining", "-"), ("StopTraining", "A" * 63)]


SDK_REGEX = {"Email": sdk_utils.EMAIL_ADDRESS_REGEX, "SMS": sdk_utils.PHONE_NUMBER_REGEX,
             "StopTraining": sdk_utils.TRAINING_JOB_PREFIX_REGEX}


@pytest.mark.parametrize("kind, value", _sdk_shaped_values())
def test_values_the_sdk_accepts_are_accepted(kind, value):
    # Given a value matching the SDK's own pattern
    assert re.match(SDK_REGEX[kind], value)
    # When both build the action
    theirs, ours = getattr(sdk, kind)(value), getattr(client, kind)(value)
    # Then ours accepts it and writes the same string
    assert ours.serialize() == theirs.serialize()


@pytest.mark.parametrize("value", ["first.last@mail.example.co.uk", "First.Last@Example.Com", "ops+ml@example.museum",
                                   "o'brien@data.example.org", "a_b-c@sub-domain.example.technology"])
def test_ordinary_addresses_the_sdk_refuses_are_accepted(value):
    # Given an ordinary address the SDK's narrow pattern refuses
    with pytest.raises(ValueError):
        sdk.Email(value)
    # When
    ours = client.Email(value)
    # Then
    assert ours.serialize() == rf'{{\"endpoint\": \"{value}\", \"name\": \"email\"}}'
    assert ours.entries() == [{"endpoint": value, "name": "email"}]


@pytest.mark.parametrize("factory, value, argument", [
    (client.Email, "not-an-email", "email_address"),
    (client.Email, "ml@example.com\n", "email_address"),
    (client.Email, "", "email_address"),
    (client.Email, 'a"b@example.com', "email_address"),
    (client.SMS, "+0123", "phone_number"),
    (client.SMS, "5555550100", "phone_number"),
    (client.SMS, "+1555555010099999", "phone_number"),
    (client.SMS, "+١٢٣٤٥", "phone_number"),
    (client.StopTraining, "", "training_job_prefix"),
    (client.StopTraining, "bad_prefix!", "training_job_prefix"),
    (client.StopTraining, "a" * 257, "training_job_prefix"),
])
def test_bad_values_raise_value_error_naming_argument_and_value(factory, value, argument):
    # Given / When / Then
    with pytest.raises(ValueError) as caught:
        factory(value)
    message = str(caught.value)
    assert argument in message
    assert json.dumps(value)[:40] in message  # the value, quoted and escaped


@pytest.mark.parametrize("factory, argument", [(client.Email, "email_address"), (client.SMS, "phone_number"),
                                               (client.StopTraining, "training_job_prefix")])
def test_non_string_values_raise_value_error(factory, argument):
    # Given / When / Then
    with pytest.raises(ValueError, match=rf"{argument}:? must be a string, got int 15555550100"):
        factory(15555550100)


@pytest.mark.parametrize("kind, value", [("SMS", "+0123"), ("SMS", "+1"), ("Email", "a@" + "b" * 64 + ".com"),
                                         ("StopTraining", "A" * 64)])
def test_documented_narrowing_sdk_accepts_but_ours_refuses(kind, value):
    # Given a value the SDK takes (no E.164 country code, one digit, a DNS label over 63, a prefix longer than any
    # job name, which ListTrainingJobs refuses)
    assert getattr(sdk, kind)(value).serialize()
    # When / Then
    with pytest.raises(ValueError):
        getattr(client, kind)(value)


def test_non_action_in_action_list_raises_type_error_naming_position_and_type():
    # Given / When / Then: a string, and an SDK object, among ours
    with pytest.raises(TypeError, match=r"action 1 is a builtins\.str"):
        client.ActionList(client.StopTraining(), "stoptraining")
    with pytest.raises(TypeError, match=r"action 0 is a smdebug_rulesconfig\.actions\.actions\.Email"):
        client.ActionList(sdk.Email("ml@example.com"))
    with pytest.raises(TypeError, match=r"action 0 is a rule_actions_sdk\.ActionList"):
        client.ActionList(client.ActionList())
