"""Security cases beyond test_handler.py: whose jobs a prefix may stop, who may receive what, how untrusted
names are rendered, and that replays and dry runs act on nothing.

Template-side checks (every IAM statement scoped, topics/queues/table encrypted with the stack's key, SSL-only
topic and queue policies) live in tests/infra/test_stack_template.py and are not repeated here.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from urllib.parse import quote

import boto3
import pytest
from builders import EVENTS, REGION, event, rule_config, rule_status
from builders import job_arn as builders_job_arn

from rule_actions.config import Config, ConfigError
from rule_actions_cli.inputs import load

NOT_CALLED_BY_A_DENIAL = {"ListTrainingJobs", "StopTrainingJob", "Publish", "Subscribe"}
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def with_actions(job, action_json, rule="VanishingGradient", **kwargs):
    return event(job=job, debug=[rule_status(rule, job=job)], debug_configs=[rule_config(rule, action_json)], **kwargs)


def stop_with_prefix(job, prefix, **kwargs):
    return with_actions(job, f'[{{"name": "stoptraining", "training_job_prefix": "{prefix}"}}]', **kwargs)


def the_stop(result):
    [stop] = [a for a in result["actions"] if a["kind"] == "stoptraining"]
    return stop


# --------------------------------------------------------------------------- prefixes


CROSS_JOB = [
    # (own job, prefix, jobs in the account, expected outcome, expected stopped jobs); one name family per case
    # a prefix of the own job that also covers another team's running job: two matches, none stopped
    ("exp-nlp-1", "exp-", {"exp-nlp-1": "InProgress", "exp-cv-9": "InProgress"}, "skipped", []),
    # the same kind of prefix when the own job is the only running match: stopped
    ("run-nlp-1", "run-", {"run-nlp-1": "InProgress", "run-cv-9": "Completed"}, "done", ["run-nlp-1"]),
    # the own full name, which is also a prefix of other running jobs: only the own job (no listing)
    ("abl-a-1", "abl-a-1", {"abl-a-1": "InProgress", "abl-a-10": "InProgress", "abl-a-11": "InProgress"}, "done", ["abl-a-1"]),
    # a prefix of another team's family: denied
    ("cv-detr-1", "nlp-bert-", {"cv-detr-1": "InProgress", "nlp-bert-7": "InProgress"}, "denied", []),
    # longer than the own name (covers hpo-a-1, not hpo-a): denied
    ("hpo-a", "hpo-a-", {"hpo-a": "InProgress", "hpo-a-1": "InProgress"}, "denied", []),
    # another case: names are case-sensitive, so it does not cover the own job: denied
    ("MyJob-1", "myjob-", {"MyJob-1": "InProgress", "myjob-2": "InProgress"}, "denied", []),
]


def test_cross_job_prefix_variants(aws):
    # Given every case's jobs in the account (one name family per case)
    for _, _, jobs, _, _ in CROSS_JOB:
        for name, status in jobs.items():
            aws.put_job(name, status)

    wrong = []
    for own, prefix, jobs, outcome, stopped in CROSS_JOB:
        # When the own job's rule fires with the prefix
        aws.calls.clear()
        stop = the_stop(aws.invoke(stop_with_prefix(own, prefix)))

        # Then the outcome, the jobs stopped, and (denied) nothing listed; (skipped) the matches are named
        statuses = {n: aws.status(n) for n in jobs}
        expected = {n: "Stopping" if n in stopped else s for n, s in jobs.items()}
        ok = (stop["outcome"], stop["jobs"]) == (outcome, stopped) and statuses == expected
        if outcome == "denied":
            ok = ok and not NOT_CALLED_BY_A_DENIAL & set(aws.calls)
        if outcome == "skipped":
            ok = ok and all(n in stop["reason"] for n in jobs if jobs[n] == "InProgress")
        if not ok:
            wrong.append((own, prefix, stop, statuses))
    assert wrong == []


def test_a_prefix_covering_the_own_job_never_stops_only_another_teams_job(aws):
    # Given the own job has already stopped (the event is late) and another team's job under the prefix runs
    aws.put_job("exp-nlp-1", "Stopped")
    aws.put_job("exp-cv-9", "InProgress")

    # When the own job's IssuesFound event (still saying InProgress) fires StopTraining with prefix "exp-"
    result = aws.invoke(stop_with_prefix("exp-nlp-1", "exp-"))

    # Then the other team's job keeps running (default configuration: no cross-job stops)
    assert aws.status("exp-cv-9") == "InProgress", the_stop(result)


BAD_PREFIXES = [
    "", " ", "*", "exp-*", "exp-.*", "exp-[a-z]", "exp-?", "^exp", ".", "exp-a-1\\n", "exp-a-1 ", "exp%", "exp_a",
    "ex\u0440-a", "exp-a-1\u202e", "a" * 257,
]


def test_empty_and_metacharacter_prefixes_are_invalid_and_list_nothing(aws):
    # Given the own job and another running job that a glob or regex reading of a prefix would cover
    aws.put_job("exp-a-1")
    aws.put_job("exp-b-2")
    aws.configure(allow_cross_job_stop=True, stop_all_matching=True)  # the widest setting: still refused

    wrong = []
    for prefix in BAD_PREFIXES:
        # When the rule fires with the prefix
        stop = the_stop(aws.invoke(stop_with_prefix("exp-a-1", prefix)))

        # Then the entry is invalid, naming the field
        if stop["outcome"] != "invalid" or not stop["reason"].startswith("action_json[0].training_job_prefix: "):
            wrong.append((prefix, stop))

    # And nothing was listed or stopped
    assert wrong == []
    assert not {"ListTrainingJobs", "StopTrainingJob"} & set(aws.calls)
    assert aws.status("exp-a-1") == aws.status("exp-b-2") == "InProgress"


@pytest.mark.parametrize(
    "config",
    [
        {"rules": {"*": [{"name": "stoptraining", "training_job_prefix": ""}]}},
        {"rules": {"*": [{"name": "stoptraining", "training_job_prefix": "exp-*"}]}},
        {"training_job_prefixes": [""]},
        {"training_job_prefixes": ["*"]},
        {"training_job_prefixes": ["exp-.*"]},
        {"training_job_prefixes": ["a" * 64]},
    ],
)
def test_the_configuration_refuses_empty_and_metacharacter_prefixes(config):
    # Given a configuration with an empty or wildcard prefix
    # When / Then: the stack (synth) and the function (cold start) refuse it, naming the field
    with pytest.raises(ConfigError, match=r"rule_actions\.(rules\[\"\*\"\]\[0\]\.training_job_prefix|training_job_prefixes)"):
        Config.from_dict(config)


# --------------------------------------------------------------------------- endpoints


ENDPOINT_CASES = {
    # allowlist -> [(kind, endpoint, expected outcome)]
    ("*@example.com",): [
        ("email", "ML@EXAMPLE.COM", "done"),  # case-insensitive, as mail domains are
        ("email", "ml@example.com.evil.test", "denied"),
        ("email", "ml@sub.example.com", "denied"),
        ("email", "ml@evil-example.com", "denied"),
        ("email", "ml@exampl\u0435.com", "invalid"),  # Cyrillic e: refused before the allowlist
        ("email", "ml@example.com\n", "invalid"),
        ("sms", "+15555550100", "denied"),
    ],
    ("*@EXAMPLE.com",): [("email", "ml@example.com", "done")],
    ("*@*.example.com",): [("email", "ml@sub.example.com", "done"), ("email", "ml@example.com", "denied")],
    ("ml@example.com",): [("email", "ml+x@example.com", "denied"), ("email", "ml@example.com", "done")],
    ("+1555555*",): [("sms", "+15555550100", "done"), ("sms", "+445555550100", "denied")],
    ("+15555550100",): [("sms", "+155555501000", "denied")],
    (): [("email", "anyone@elsewhere.test", "done")],  # no allowlist: any address (the documented default)
}


def test_allowed_endpoints_globs_and_case(aws):
    wrong = []
    for case, (allowed, cases) in enumerate(ENDPOINT_CASES.items()):
        # Given an allowlist
        aws.configure(allowed_endpoints=list(allowed))
        for index, (kind, endpoint, outcome) in enumerate(cases):
            job = f"job-{case}-{index}"
            aws.put_job(job)
            published = len(aws.published)

            # When a rule's action_json names the endpoint
            result = aws.invoke(with_actions(job, json.dumps([{"name": kind, "endpoint": endpoint}])))

            # Then the outcome; a message only when done, and then only to that endpoint
            [action] = [a for a in result["actions"] if a["kind"] == kind]
            sent = [to for to, _ in aws.published[published:]]
            if action["outcome"] != outcome or sent != ([endpoint] if outcome == "done" else []):
                wrong.append((allowed, endpoint, action, sent))
    assert wrong == []
    done = Counter(e for cases in ENDPOINT_CASES.values() for _, e, o in cases if o == "done")
    assert {e: len(aws.inbox(e)) for e in done} == done


def test_ten_endpoints_of_ten_jobs_each_receive_only_their_own_jobs_message(aws):
    # Given ten jobs, each naming its own endpoint (five emails, five phone numbers), and a team
    aws.configure(notify={"emails": ["team@example.com"]}, allow_any_sms=True)
    jobs = {f"job-{i:02d}": f"owner{i}@example.com" if i % 2 else f"+1555555{i:04d}" for i in range(10)}
    events = []
    for job, endpoint in jobs.items():
        aws.put_job(job)
        kind = "email" if "@" in endpoint else "sms"
        events.append(with_actions(job, f'[{{"name": "{kind}", "endpoint": "{endpoint}"}}]'))

    # When their events arrive interleaved, each twice (SageMaker's duplicates)
    for raw in events[::2] + events[1::2] + events[::-1]:
        aws.invoke(raw)

    # Then every endpoint received exactly one message, about its own job only
    for job, endpoint in jobs.items():
        [message] = aws.inbox(endpoint)
        text = message["subject"] + message["email"] + message["sms"]
        assert job in text
        assert not [other for other in jobs if other != job and other in text]
    assert len(aws.inbox("team@example.com")) == 10
    assert sorted(to for to, _ in aws.published) == sorted([*jobs.values(), *["team"] * 10])


# --------------------------------------------------------------------------- untrusted names in messages

HOSTILE = [
    ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>"),
    ("job\r\nBcc: evil@evil.test", "Rule\nTraining job:   forged-job"),
    ("job-\x1b[31mred\x1b[0m-\x07", "Rule\x00\x08\x7f\x85\x9b"),
    ("job\u2028Training job:   forged", "Rule\u2029Rule status:    NoIssuesFound"),
    ("job-\u202egnp.exe", "Rule\u202e\u2067dlroW"),
    ("%0d%0aX-Injected: 1&region=eu-west-1#/", "R' OR '1'='1"),
]


def _urls(text):
    return re.findall(r"https://\S+", text)


def test_hostile_rule_names_and_details_are_rendered_as_plain_text_and_encoded_in_links(aws):
    aws.configure(notify={"emails": ["team@example.com"], "sms": ["+15555550100"]})
    for n, (_, rule) in enumerate(HOSTILE):
        # Given a rule with markup, control characters, line breaks or bidi overrides in its name and details (the
        # job's name is SageMaker's charset: the renderers' own tests take hostile job names, test_messages.py)
        job = f"demo-job-{n}"
        aws.put_job(job)
        raw = with_actions(job, '[{"name": "stoptraining"}]', rule=rule)
        raw["detail"]["DebugRuleEvaluationStatuses"][0]["StatusDetails"] = f"{rule}\nTraining job:   forged\r\n{job}"

        # When the rule fires (the job is stopped, then the team notified)
        result = aws.invoke(raw)
        assert [a["outcome"] for a in result["actions"]] == ["done", "done"], job
        _, message = aws.published[-1]
        mail = aws.inbox("team@example.com")[-1]
        subject, body, sms = mail["subject"], message["email"], message["sms"]
        assert aws.inbox("+15555550100")[-1]["sms"] == sms

        # Then the subject and the SMS are one printable ASCII line within SNS's limits
        for text, limit in ((subject, 100), (sms, 140)):
            assert len(text) <= limit and all(" " <= c <= "~" for c in text), text
        # And the body has no control characters, no forged lines, and the details stay indented
        assert not [c for c in body if unicodedata.category(c) == "Cc" and c != "\n"], job
        assert "\u2028" not in body and "\u2029" not in body
        lines = body.split("\n")
        assert sum(line.startswith("Training job:") for line in lines) == 1, body
        assert sum(line.startswith("Rule status:") for line in lines) == 1, body
        details = lines[lines.index("Status details:") + 1 : lines.index("Actions taken for this rule:") - 1]
        assert details and all(line.startswith("  ") for line in details), details
        # And the links carry the names percent-encoded only
        urls = _urls(body)
        assert len(urls) == 2 and all(re.fullmatch(r"[A-Za-z0-9%._~:/?#=$&-]+", url) for url in urls), urls
        assert urls[0].endswith("#/jobs/" + quote(job, safe=""))
    assert len(aws.inbox("team@example.com")) == len(HOSTILE)


def test_hostile_job_names_are_refused_when_read_and_nothing_is_done(aws):
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.effects()
    for job, rule in HOSTILE:
        # Given an event whose job name no SageMaker job can have (only a forged event carries one)
        raw = with_actions(job, '[{"name": "stoptraining"}, {"name": "email", "endpoint": "x@example.com"}]', rule=rule)

        # When it is delivered
        result = aws.invoke(raw)

        # Then it is ignored, naming the field, and its reason is one line with no control character
        assert result["actions"] == [] and result["job"] is None, result
        assert result["ignored"].startswith("detail.TrainingJobName: ") and "not a SageMaker job name" in result["ignored"]
        assert not [c for c in result["ignored"] if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")], result
    # And no AWS call was made and nobody was told
    assert aws.calls == [] and aws.published == []


def test_bidi_override_characters_never_reach_the_email_body(aws):
    # Given a rule whose name carries a right-to-left override and a right-to-left isolate
    aws.configure(notify={"emails": ["team@example.com"]})
    rule = "Overfit\u202e\u2067txt.exe"
    raw = event(debug=[rule_status(rule, StatusDetails="ok \u202eevil")], debug_configs=[rule_config(rule)])

    # When it fires
    assert [a["outcome"] for a in aws.invoke(raw)["actions"]] == ["done"]

    # Then the body shows no bidi control
    [mail] = aws.inbox("team@example.com")
    assert not set(BIDI_CONTROLS) & set(mail["email"])


# --------------------------------------------------------------------------- replays and dry runs


def corpus():
    events, errors = load([str(EVENTS)])
    assert not errors and events
    return events


@pytest.mark.parametrize(
    "flags",
    [{}, {"allow_cross_job_stop": True, "stop_all_matching": True}],
)
def test_a_replay_with_a_custom_prefix_never_stops_a_job(aws, flags):
    # Given the one running job the replayed event's prefix covers, and the widest stop settings
    aws.configure(**flags)
    aws.put_job("hpo-xgb-trial-07")
    replayed = stop_with_prefix("hpo-xgb-trial-07", "hpo-xgb-", **{"replay-name": "outage-2026-11-20"})

    # When the replay arrives
    result = aws.invoke(replayed)

    # Then nothing is listed or stopped
    assert the_stop(result)["outcome"] == "skipped" and "act_on_replays" in the_stop(result)["reason"]
    assert not {"ListTrainingJobs", "StopTrainingJob"} & set(aws.calls)
    assert aws.status("hpo-xgb-trial-07") == "InProgress"


def test_the_whole_corpus_replayed_from_an_archive_stops_and_sends_nothing(aws):
    # Given every sample event as an archive replay, every job running, a team to notify
    aws.configure(notify={"emails": ["team@example.com"]}, rules={"*": ["stoptraining", "notify"]})
    events = corpus()
    jobs = {raw["detail"]["TrainingJobName"] for _, raw in events}
    for job in jobs:
        aws.put_job(job)

    # When they are replayed
    results = [aws.invoke({**raw, "replay-name": "corpus-replay"}) for _, raw in events]

    # Then no job was stopped, no message sent, and every decision says why (once: a repeat is a duplicate of it)
    outcomes = [a["outcome"] for r in results for a in r["actions"]]
    assert outcomes and set(outcomes) <= {"skipped", "denied", "invalid", "duplicate"}
    assert "skipped" in outcomes
    assert not {"StopTrainingJob", "ListTrainingJobs", "Publish", "Subscribe"} & set(aws.calls)
    assert {aws.status(job) for job in jobs} == {"InProgress"} and aws.published == []
    assert only_decisions_recorded()


READ_ONLY = {"DescribeTrainingJob", "ListTrainingJobs", "ListSubscriptionsByTopic", "GetSubscriptionAttributes", "GetItem"}
SAID = {"PutItem", "UpdateItem"}  # the ledger's records of decisions reported (said once)


def only_decisions_recorded() -> bool:
    """The ledger holds records of decisions reported and nothing else: no record of an action done (which names
    the jobs it stopped), none of our stops; each under a key of its own, so that none stands for the action."""
    items = boto3.client("dynamodb", region_name=REGION).scan(TableName="rule-actions-ledger")["Items"]
    return bool(items) and all("data" in item and json.loads(item["data"]["S"]).keys() == {"reason"} for item in items)


def test_dry_run_changes_nothing_across_the_whole_corpus(aws):
    # Given dry_run with every permissive flag and a stop configured for every rule, every job running
    aws.configure(
        dry_run=True,
        act_on_replays=True,
        allow_cross_job_stop=True,
        stop_all_matching=True,
        notify={"emails": ["team@example.com"], "sms": ["+15555550100"]},
        rules={"*": ["stoptraining", "notify"]},
    )
    events = corpus()
    jobs = {raw["detail"]["TrainingJobName"] for _, raw in events}
    for job in jobs:
        aws.put_job(job)

    # When every sample event arrives
    results = [aws.invoke(raw) for _, raw in events]

    # Then everything is decided and reported with what it would do (once: a repeat is a duplicate of it), and only
    # reads were made (action_json, the jobs under a prefix, the team audience, the stop records) besides the
    # records of what was said: nothing stopped, sent or subscribed
    actions = [a for r in results for a in r["actions"]]
    assert "dry_run" in {a["outcome"] for a in actions}
    assert {a["outcome"] for a in actions} <= {"dry_run", "skipped", "denied", "invalid", "duplicate"}
    assert any(a["reason"].startswith("dry_run is true: would stop ") for a in actions)
    assert set(aws.calls) <= READ_ONLY | SAID, set(aws.calls) - READ_ONLY - SAID
    assert {aws.status(job) for job in jobs} == {"InProgress"} and aws.published == []
    assert only_decisions_recorded()


# --------------------------------------------------------------------------- one account: the job ARN's place


@pytest.mark.parametrize("place", [{"account": "444455556666"}, {"region": "eu-west-1"}],
                         ids=["another-account", "another-region"])
def test_one_account_refuses_a_job_arn_of_another_account_or_region_than_the_events(aws, place):
    # Given a job of the function's own account running, and an event about a job of the same name whose ARN names
    # another account (or region) than the event's envelope (EventBridge sets it to where the event came from)
    aws.configure(notify={"emails": ["team@example.com"]})
    job = "arn-place-1"
    raw = with_actions(job, '[{"name": "stoptraining"}, {"name": "email", "endpoint": "x@example.com"}]')
    arn = builders_job_arn(job, **place)
    raw["detail"]["TrainingJobArn"] = arn
    raw["resources"] = [arn]

    # When it is delivered to a single-account deployment
    result = aws.invoke(raw)

    # Then it is refused, with a reason, as organization mode refuses it, and nothing is done
    assert result["actions"] == [], result
    assert "is not a training job of the event's account 123456789012 in us-east-1" in result["ignored"], result
    assert "StopTrainingJob" not in aws.calls and aws.published == []
