"""The action grammar: SDK `action_json` (escaped or plain JSON) and the configuration's action lists."""

from __future__ import annotations

import json
import random
import re
import string

import pytest
from builders import SDK_ACTIONS
from smdebug_rulesconfig.actions.actions import SMS as SdkSMS
from smdebug_rulesconfig.actions.actions import ActionList
from smdebug_rulesconfig.actions.actions import Email as SdkEmail
from smdebug_rulesconfig.actions.actions import StopTraining as SdkStopTraining

from rule_actions.grammar import parse_action_json, parse_entries
from rule_actions.records import ACTION_JSON, Action, Invalid, Place

RULES = Place.RULES
EMAIL, NOTIFY, SMS, STOP = "email", "notify", "sms", "stoptraining"

MB = 1024 * 1024
# The SDK's own validation (smdebug_rulesconfig.actions.utils), restricted to ASCII as the specification says.
SDK_EMAIL = re.compile(r"^[a-z0-9]+[@]\w+[.]\w{2,3}$", re.ASCII)
SDK_PHONE = re.compile(r"^\+\d{1,15}$", re.ASCII)
SDK_PREFIX = re.compile(r"^[A-Za-z0-9\-]+$")


def expected_from_sdk(action_list) -> list[Action]:
    """What each SDK action means, read from the SDK object's own parameters (not from our parser)."""
    out = []
    for sdk_action in action_list.actions:
        params = sdk_action.action_parameters
        out.append(Action(params["name"], params.get("training_job_prefix") or params.get("endpoint")))
    return out


def email_json(endpoint) -> str:
    return json.dumps([{"name": "email", "endpoint": endpoint}])


def sms_json(endpoint) -> str:
    return json.dumps([{"name": "sms", "endpoint": endpoint}])


def stop_json(prefix) -> str:
    return json.dumps([{"name": "stoptraining", "training_job_prefix": prefix}])


# --- the SDK's escaped form and plain JSON ------------------------------------------------------------------


def _sdk_lists():
    prepared = ActionList(SdkStopTraining(), SdkEmail("ml@example.com"), SdkSMS("+15555550100"))
    prepared.update_training_job_prefix_if_not_specified("MyJob-2026-11-22")
    return {
        "prepared list, mixed-case job": prepared,
        "unprepared stop (no prefix)": ActionList(SdkStopTraining()),
        "custom prefix": ActionList(SdkStopTraining("exp-fam"), SdkEmail("ops1@corp.io")),
        "sms only": ActionList(SdkSMS("+442071838750")),
    }


@pytest.mark.parametrize("label", list(_sdk_lists()))
def test_sdk_escaped_action_json_is_understood(label):
    # Given an action list serialized by the real SDK (every quote written as \")
    sdk_list = _sdk_lists()[label]
    text = sdk_list.serialize()
    assert '\\"' in text  # sanity: it is the escaped, not-quite-JSON form

    # When it is parsed
    actions, invalid = parse_action_json(text)

    # Then every SDK action is understood, with its values' case kept
    assert invalid == []
    assert actions == expected_from_sdk(sdk_list)


def test_sdk_single_action_serializes_as_an_object_and_is_understood():
    # Given a lone StopTraining, which the SDK serializes as an object rather than a list
    text = SdkStopTraining("exp-fam").serialize()

    # When it is parsed
    actions, invalid = parse_action_json(text)

    # Then it is one stop action with that prefix
    assert (actions, invalid) == ([Action(STOP, "exp-fam")], [])


def test_builders_sdk_actions_constant_parses():
    # Given the prepare_actions("demo-job-001") output used across the tests
    # When it is parsed
    actions, invalid = parse_action_json(SDK_ACTIONS)

    # Then it is a stop of demo-job-001 and an email
    assert invalid == []
    assert actions == [Action(STOP, "demo-job-001"), Action(EMAIL, "ml@example.com")]


@pytest.mark.parametrize(
    "wrap",
    [
        pytest.param(lambda entries: json.dumps(entries), id="plain JSON list"),
        pytest.param(lambda entries: json.dumps(entries, indent=2), id="pretty-printed JSON"),
        pytest.param(lambda entries: json.dumps(entries).replace('"', '\\"'), id="escaped form"),
        pytest.param(lambda entries: json.dumps(json.dumps(entries)), id="JSON string holding the list"),
    ],
)
def test_plain_and_escaped_forms_give_the_same_actions(wrap):
    # Given the same entries written in several encodings
    entries = [
        {"name": "stoptraining", "training_job_prefix": "Exp-A"},
        {"endpoint": "First.Last@Mail.Example.co.uk", "name": "email"},
        {"endpoint": "+15555550100", "name": "sms"},
    ]

    # When each is parsed
    actions, invalid = parse_action_json(wrap(entries))

    # Then all give the same three actions, values in their original case
    assert invalid == []
    assert actions == [Action(STOP, "Exp-A"), Action(EMAIL, "First.Last@Mail.Example.co.uk"), Action(SMS, "+15555550100")]


@pytest.mark.parametrize(
    ("name", "kind"),
    [("StopTraining", STOP), ("STOPTRAINING", STOP), ("Email", EMAIL), ("EMAIL", EMAIL), ("Sms", SMS), ("sMs", SMS)],
)
def test_action_names_are_case_insensitive(name, kind):
    # Given an entry whose name is written in any case
    target = {STOP: None, EMAIL: "ml@example.com", SMS: "+15555550100"}[kind]
    entry = {"name": name} if target is None else {"name": name, "endpoint": target}

    # When it is parsed
    actions, invalid = parse_action_json(json.dumps([entry]))

    # Then it is understood as that kind
    assert invalid == []
    assert actions == [Action(kind, target)]


# --- values: what the SDK accepts, plus ordinary addresses; E.164 only --------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "ml@example.com",  # the SDK's own example
        "a1@b2.io",
        "0@0.00",  # SDK regex: digits everywhere
        "ab@c_d.com",  # SDK \w includes underscore
        "first.last@mail.example.co.uk",  # ordinary: dotted local part, sub-domains
        "First.Last@Example.COM",
        "ops+alerts@team.example.org",
        "ml-team@example.museum",
    ],
)
def test_email_addresses_accepted(address):
    # Given an email endpoint the SDK or ordinary mail accepts
    # When it is parsed
    actions, invalid = parse_action_json(email_json(address))

    # Then it is one email action with the address unchanged
    assert invalid == []
    assert actions == [Action(EMAIL, address)]


def test_everything_the_sdk_email_regex_accepts_in_ascii_is_accepted():
    # Given many random addresses drawn from the SDK's regex language (ASCII \w), within RFC lengths
    rng = random.Random(20261122)
    word = string.ascii_letters + string.digits + "_"
    samples = []
    for _ in range(300):
        local = "".join(rng.choices(string.ascii_lowercase + string.digits, k=rng.randint(1, 20)))
        domain = "".join(rng.choices(word, k=rng.randint(1, 30)))
        tld = "".join(rng.choices(word, k=rng.randint(2, 3)))
        samples.append(f"{local}@{domain}.{tld}")
    assert all(SDK_EMAIL.match(s) for s in samples)  # sanity: the SDK would accept each

    # When each is parsed
    rejected = [s for s in samples if parse_action_json(email_json(s))[1]]

    # Then none is refused
    assert rejected == []


@pytest.mark.parametrize(
    "address",
    [
        "ml@example",  # no domain dot
        "ml@example.c",  # one-letter top-level domain
        "ml.example.com",  # no @
        "ml@@example.com",
        "ml@example..com",
        ".ml@example.com",
        "m l@example.com",
        "ml@exämple.com",  # non-ASCII: SNS cannot deliver
        "mél@example.com",
        "ml@example.com\n",  # a trailing newline (the SDK's `$` lets it through)
        "",
        "@example.com",
        "ml@-example.com",
    ],
)
def test_email_addresses_refused_name_the_field_and_value(address):
    # Given an email endpoint that is not a deliverable address
    # When it is parsed
    actions, invalid = parse_action_json(email_json(address))

    # Then there is no action, and one Invalid for action_json[0].endpoint
    assert actions == []
    assert [bad.field for bad in invalid] == ["action_json[0].endpoint"]
    assert invalid[0].reason


@pytest.mark.parametrize("phone", ["+15555550100", "+442071838750", "+123456789012345", "+861012345678"])
def test_e164_phone_numbers_accepted(phone):
    # Given an E.164 number (which the SDK also accepts)
    assert SDK_PHONE.match(phone)

    # When it is parsed
    actions, invalid = parse_action_json(sms_json(phone))

    # Then it is one sms action
    assert (actions, invalid) == ([Action(SMS, phone)], [])


@pytest.mark.parametrize(
    "phone",
    [
        "+0123456789",  # the SDK accepts it; E.164 country codes never start with 0
        "+1234567890123456",  # 16 digits
        "15555550100",  # no plus
        "+1 555 555 0100",
        "+1-555-555-0100",
        "+",
        "",
        "+١٥٥٥٥٥٥٠١٠٠",  # non-ASCII digits (the SDK's \d would take them)
        "+15555550100\n",
    ],
)
def test_non_e164_phone_numbers_refused(phone):
    # Given an sms endpoint that is not E.164
    # When it is parsed
    actions, invalid = parse_action_json(sms_json(phone))

    # Then it is refused at action_json[0].endpoint
    assert actions == []
    assert [bad.field for bad in invalid] == ["action_json[0].endpoint"]


@pytest.mark.parametrize("prefix", ["demo-job", "MyJob-2026-11-22", "A", "0", "-", "exp-fam-"])
def test_training_job_prefixes_accepted_and_keep_their_case(prefix):
    # Given a prefix the SDK accepts
    assert SDK_PREFIX.match(prefix)

    # When it is parsed
    actions, invalid = parse_action_json(stop_json(prefix))

    # Then it is kept as written
    assert (actions, invalid) == ([Action(STOP, prefix)], [])


@pytest.mark.parametrize("prefix", ["", "demo_job", "demo job", "demo/job", "demo*", "jöb", "demo-job\n"])
def test_bad_training_job_prefixes_refused(prefix):
    # Given a prefix that is empty (it would match every job) or outside the job-name charset
    # When it is parsed
    actions, invalid = parse_action_json(stop_json(prefix))

    # Then it is refused at action_json[0].training_job_prefix
    assert actions == []
    assert [bad.field for bad in invalid] == ["action_json[0].training_job_prefix"]
    assert invalid[0].kind == STOP


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        pytest.param({"name": "sms", "endpoint": "+7"}, "endpoint", id="one-digit number: no E.164 number is that short"),
        pytest.param({"name": "email", "endpoint": "ml@" + "b" * 64 + ".com"}, "endpoint", id="64-char DNS label"),
        pytest.param({"name": "email", "endpoint": "a" * 250 + "@b.com"}, "endpoint", id="address over 254 chars"),
        pytest.param({"name": "stoptraining", "training_job_prefix": "p" * 300}, "training_job_prefix", id="prefix over the 256-char parameter limit"),
    ],
)
def test_sdk_accepted_values_that_cannot_work_are_refused_on_purpose(entry, field):
    # Given values the SDK's loose checks accept but SNS, DNS or the service's 256-character parameter limit
    # cannot use (a deliberate difference, documented in docs/attaching-actions.md)
    # When they are parsed
    actions, invalid = parse_action_json(json.dumps([entry]))

    # Then they are refused, naming the field
    assert actions == [] and [bad.field for bad in invalid] == [f"action_json[0].{field}"]


# --- bad entries: named by field path, the rest still returned ---------------------------------------------


def test_bad_entries_name_their_field_and_the_good_ones_are_still_returned():
    # Given a list mixing good entries with one of each kind of mistake
    entries = [
        {"name": "stoptraining"},
        {"name": "email", "endpoint": "not-an-address"},
        {"name": "pagerduty", "endpoint": "x"},
        {"name": "sms", "endpoint": "+15555550100", "message": "hi"},
        {"endpoint": "ml@example.com"},
        "email",
        {"name": "email", "endpoint": "ml@example.com"},
        {"name": "notify"},
    ]

    # When it is parsed as action_json
    actions, invalid = parse_action_json(json.dumps(entries))

    # Then the good entries come back, and each bad one is named by its path
    assert actions == [Action(STOP), Action(EMAIL, "ml@example.com")]
    assert [bad.field for bad in invalid] == [
        "action_json[1].endpoint",
        "action_json[2].name",
        "action_json[3].message",
        "action_json[4].name",
        "action_json[5]",
        "action_json[7].name",
    ]
    # and the reasons say why, quoting the offending value where there is one
    reasons = {bad.field: bad.reason for bad in invalid}
    assert "not-an-address" in reasons["action_json[1].endpoint"]
    assert "pagerduty" in reasons["action_json[2].name"]
    assert all(bad.reason for bad in invalid)


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"name": "email", "endpoint": "ml@example.com", "training_job_prefix": "x"}, "action_json[0].training_job_prefix"),
        ({"name": "stoptraining", "endpoint": "ml@example.com"}, "action_json[0].endpoint"),
        ({"name": "stoptraining", "training_job_prefix": "x", "force": "true"}, "action_json[0].force"),
        ({"name": "sms"}, "action_json[0].endpoint"),
        ({"name": "email"}, "action_json[0].endpoint"),
    ],
)
def test_unknown_or_missing_keys_make_the_entry_invalid(entry, field):
    # Given an entry with a key its kind does not take, or without the endpoint it needs
    # When it is parsed
    actions, invalid = parse_action_json(json.dumps([entry]))

    # Then it is invalid at that key
    assert actions == []
    assert [bad.field for bad in invalid] == [field]


def test_notify_and_bare_names_are_for_the_configuration_only():
    # Given a configuration entry list with bare names and notify
    # When it is parsed as configuration
    actions, invalid = parse_entries(["stoptraining", "Notify", {"name": "email", "endpoint": "ml@example.com"}], "rules", RULES)

    # Then all are understood
    assert invalid == []
    assert actions == [Action(STOP), Action(NOTIFY), Action(EMAIL, "ml@example.com")]

    # And a single bare name is accepted as the whole list
    assert parse_entries("notify", "rules", RULES) == ([Action(NOTIFY)], [])

    # But in action_json, neither is accepted
    actions, invalid = parse_action_json('["stoptraining", {"name": "notify"}]')
    assert actions == []
    assert [bad.field for bad in invalid] == ["action_json[0]", "action_json[1].name"]


def test_configuration_paths_are_reported_under_the_given_path():
    # Given a configuration entry list with a bad email
    # When it is parsed under the rule's path
    _, invalid = parse_entries(["notify", {"name": "email", "endpoint": "nope"}], 'rules["Loss*"]', RULES)

    # Then the field names that path
    assert [bad.field for bad in invalid] == ['rules["Loss*"][1].endpoint']


def test_an_empty_list_means_no_actions():
    # Given an empty action list
    # When it is parsed
    # Then there is nothing to do and nothing is wrong
    assert parse_action_json("[]") == ([], [])


# --- hostile input never raises ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("stoptraining", id="bare word"),
        pytest.param("[{", id="truncated"),
        pytest.param('[{\\"name\\": \\"email\\"', id="truncated escaped"),
        pytest.param("null", id="null"),
        pytest.param("42", id="number"),
        pytest.param('"just a string"', id="JSON string"),
        pytest.param("true", id="boolean"),
        pytest.param("x" * MB, id="1MB garbage"),
        pytest.param("é" * MB, id="1MB non-ASCII"),
        pytest.param('"' + '\\"' * (MB // 2) + '"', id="1MB of escaped quotes"),
        pytest.param(None, id="None"),
        pytest.param(42, id="int"),
        pytest.param(b'[{"name": "stoptraining"}]', id="bytes"),
        pytest.param(
            "[" * MB,
            id="1MB of open brackets",
        ),
        pytest.param(
            "[" * 5000 + "]" * 5000,
            id="5000-deep nested list",
        ),
        pytest.param(
            "1" * 5000,
            id="5000-digit number",
        ),
    ],
)
def test_unparseable_action_json_gives_exactly_one_invalid(text):
    # Given an action_json that is not an action object or list at all
    # When it is parsed
    actions, invalid = parse_action_json(text)

    # Then it gives no action and exactly one Invalid for the whole action_json
    assert actions == []
    assert len(invalid) == 1
    assert invalid[0].field == "action_json"
    assert invalid[0].reason


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"name": 42}, "action_json[0].name"),
        ({"name": None}, "action_json[0].name"),
        ({"name": ["email"]}, "action_json[0].name"),
        ({"name": {"en": "email"}}, "action_json[0].name"),
        ({"name": "email", "endpoint": 42}, "action_json[0].endpoint"),
        ({"name": "email", "endpoint": 1e308}, "action_json[0].endpoint"),
        ({"name": "email", "endpoint": None}, "action_json[0].endpoint"),
        ({"name": "sms", "endpoint": ["+15555550100"]}, "action_json[0].endpoint"),
        ({"name": "sms", "endpoint": True}, "action_json[0].endpoint"),
        ({"name": "stoptraining", "training_job_prefix": 7}, "action_json[0].training_job_prefix"),
        ({"name": "stoptraining", "training_job_prefix": [["demo"]]}, "action_json[0].training_job_prefix"),
        ([[{"name": "stoptraining"}]], "action_json[0]"),
        (42, "action_json[0]"),
        (None, "action_json[0]"),
    ],
)
def test_wrong_types_give_an_invalid_naming_the_field(entry, field):
    # Given an entry with a value of the wrong type
    # When it is parsed
    actions, invalid = parse_action_json(json.dumps([entry]))

    # Then it is refused at that field, without raising
    assert actions == []
    assert [bad.field for bad in invalid] == [field]


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param({"name": "email", "endpoint": "a" * MB + "@example.com"}, id="1MB email"),
        pytest.param({"name": "sms", "endpoint": "+1" + "5" * MB}, id="1MB phone"),
        pytest.param({"name": "stoptraining", "training_job_prefix": "p" * MB}, id="1MB prefix"),
        pytest.param({"name": "e" * MB}, id="1MB name"),
        pytest.param({"name": "email", "endpoint": "ml@example.com", "k" * MB: 1}, id="1MB key"),
        pytest.param({"name": "émail", "endpoint": "ml@example.com"}, id="accented name"),
        pytest.param({"name": "ｅｍａｉｌ", "endpoint": "ml@example.com"}, id="full-width name"),
        pytest.param({"name": "email", "endpoint": "ml@例え.jp"}, id="IDN domain"),
        pytest.param({"name": "stoptraining", "training_job_prefix": "\u202edemo"}, id="bidi control in prefix"),
        pytest.param({"name": "sms", "endpoint": "+1555\x00"}, id="NUL in phone"),
    ],
)
def test_huge_and_unicode_values_are_refused_without_raising(entry):
    # Given an entry with a huge or non-ASCII value, in both encodings
    for text in (json.dumps([entry]), json.dumps([entry]).replace('"', '\\"')):
        # When it is parsed
        actions, invalid = parse_action_json(text)

        # Then it is one Invalid under action_json[0], nothing runs
        assert actions == []
        assert len(invalid) == 1
        assert invalid[0].field.startswith("action_json")


def test_invalid_carries_kind_and_target_when_the_name_was_understood():
    # Given an email entry with a bad address
    # When it is parsed
    _, invalid = parse_action_json(email_json("bad@address"))

    # Then the Invalid says it was an email to that address (for reporting)
    assert invalid == [Invalid("action_json[0].endpoint", invalid[0].reason, EMAIL, "bad@address")]


@pytest.mark.parametrize("configuration", [True, False])
def test_a_huge_number_from_python_callers_gives_an_invalid(configuration):
    # Given an entry built in Python (the configuration's client objects, not JSON) with a 5000-digit number
    entries = [{"name": "email", "endpoint": 10**5000}]

    # When it is parsed
    actions, invalid = parse_entries(entries, "rules", RULES if configuration else ACTION_JSON)

    # Then it is refused at its endpoint, without raising
    assert actions == []
    assert [bad.field for bad in invalid] == ["rules[0].endpoint"]
