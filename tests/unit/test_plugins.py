"""The worked example of the docs' "how to add" table: a new job family, trigger family, action kind and reader are
each one module plus its line in the registry (a reader also names its Need in records.py), and nothing else.

Each test copies the function's package, writes the plug-in's module, adds its registry line, checks the dependency
rule on the copy, then runs the real pipeline of the copy in a fresh interpreter (fake ports, no AWS) and reads
what it did.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from architecture import PACKAGES, graph, violations

FUNCTION = PACKAGES["rule_actions"]

# Runs in the copy: a configuration, an event through read_event -> select -> run, with fake ports.
RUN = """
import json, sys
from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions_cdk import plugins

class Notifier:
    PENDING = "pending"
    def __init__(self): self.sent = []
    def publish(self, to, message, chat=None): self.sent.append([to, message.subject, message.body]); return "m-1"
    def publish_chat(self, notification): return "c-1"
    def ensure_subscription(self, protocol, endpoint): return "confirmed"
    def team_subscribed(self): return True

class Ledger:
    def once(self, key, work): return work()
    def mark_stopped(self, job_arn, by, at=None): pass
    def stopped_by(self, job_arn): return None

class Jobs:
    def describe(self, api, job_name): return {"Tags": [{"Key": "team", "Value": "vision"}]}
    def in_progress(self, api, prefix): return []
    def stop(self, api, job_name): return "stopped"

class Ports:
    jobs, notifier, ledger, webhooks, region = Jobs(), Notifier(), Ledger(), None, "us-east-1"

config = Config.from_dict(json.loads(sys.argv[1]))
event, found = pipeline.read_event(json.loads(sys.argv[2]))
results, unread, _cost = pipeline.run(event, pipeline.select(event, found, config), config, Ports)
from rule_actions.records import JobEffect
print(json.dumps({"results": [r.as_dict() for r in results], "sent": Ports.notifier.sent,
                  "stopped": [j for r in results for j in r.stopped], "restarted": [j for r in results for j in r.restarted],
                  "stop_kinds": list(registry.kinds_with(JobEffect.STOP)),
                  "pattern": plugins.event_pattern(config), "problems": list(event.problems),
                  "grants": [list(g.actions) for g in plugins.job_grants(config)]}))
"""


def with_plugin(tmp_path: Path, module: str, source: str, registry_edits: dict[str, str],
                records_addition: str = "", before: dict[str, str] | None = None) -> Path:
    """A copy of the function's package with the plug-in's module and its registry line; the dependency rule is
    checked on the copy. `before`: edits applied first, taking out of the copy's registry a real plug-in the worked
    example stands for (the package as it stood before it came in)."""
    copy = tmp_path / "lambdas" / "rule_actions"
    shutil.copytree(FUNCTION, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / module).write_text(textwrap.dedent(source))
    registry = (copy / "registry.py").read_text()
    for old, new in [*(before or {}).items(), *registry_edits.items()]:
        assert old in registry, old
        registry = registry.replace(old, new)
    (copy / "registry.py").write_text(registry)
    if records_addition:
        (copy / "records.py").write_text((copy / "records.py").read_text() + textwrap.dedent(records_addition))
    packages = {**PACKAGES, "rule_actions": copy}
    assert violations(graph(packages)) == []
    return copy.parent


def run(lambdas: Path, config: dict, event: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(lambdas), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(config), json.dumps(event)], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def state_change(detail_type: str, detail: dict) -> dict:
    return {"version": "0", "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718", "source": "aws.sagemaker",
            "detail-type": detail_type, "account": "123456789012", "time": "2026-11-23T10:00:00Z",
            "region": "us-east-1", "resources": [], "detail": detail}


TRANSFORM = '''
    """SageMaker batch transform jobs (a worked example): their state change, API, links, outcomes and scope."""

    from rule_actions.contract import OutcomeCondition
    from rule_actions.fields import ActionMap
    from rule_actions.jobs.base import JobFamily, Members, scope_field
    from rule_actions.records import JobApi, Place

    OUTCOMES = {"Failed": OutcomeCondition(("Failed",), (), (), "transform job failed", "failed"),
                "Completed": OutcomeCondition(("Completed",), (), (), "transform job completed", "completed")}


    class Transform(JobFamily):
        name = "transform"
        noun = "transform job"
        detail_type = "SageMaker Transform Job State Change"
        members = Members(name="TransformJobName", arn="TransformJobArn", status="TransformJobStatus",
                          secondary=None, transitions=None)
        api = JobApi(describe="DescribeTransformJob", stop="StopTransformJob", list="ListTransformJobs",
                     name="TransformJobName", summaries="TransformJobSummaries")
        resource = "transform-job"
        statuses = ("InProgress", "Completed", "Failed", "Stopping", "Stopped")
        outcomes = OUTCOMES
        console_path = "transform-jobs"
        log_group = "/aws/sagemaker/TransformJobs"
        scope = scope_field("transform_job_prefixes", noun)
        outcome_actions = ActionMap("transform_job_outcomes", (), "Transform job outcome -> actions.",
                                    Place.JOB_OUTCOMES, "transform job outcome", tuple(OUTCOMES))


    FAMILY = Transform()
'''


def test_a_job_family_is_one_module_and_a_registry_line(tmp_path):
    # Given a transform job family: its module, and its line in the registry (the sketch replaces the real
    # jobs/transform.py in the copy, whose registry is first taken back to what it was before that module came in)
    lambdas = with_plugin(tmp_path, "jobs/transform.py", TRANSFORM, {
        "import batch, pipelines, processing, training, tuning\n":
            "import batch, pipelines, processing, training, transform, tuning\n",
        "pipelines.FAMILY,\n": "pipelines.FAMILY, transform.FAMILY,\n",
    }, before={"import batch, pipelines, processing, training, transform, tuning\n":
                   "import batch, pipelines, processing, training, tuning\n",
               "pipelines.FAMILY, transform.FAMILY,\n": "pipelines.FAMILY,\n"})
    arn = "arn:aws:sagemaker:us-east-1:123456789012:transform-job/batch-01"
    event = state_change("SageMaker Transform Job State Change", {
        "TransformJobName": "batch-01", "TransformJobArn": arn, "TransformJobStatus": "Failed",
        "FailureReason": "ClientError: no input"})

    # When its outcome gets actions in the configuration, and one of its events is replayed through the pipeline
    seen = run(lambdas, {"notify": {"emails": ["ml@example.com"]}, "transform_job_outcomes": {"Failed": ["notify"]}},
               event)

    # Then the generic job-outcome trigger acts on it, in its own words, and the pattern matches both families
    assert [(r["trigger"], r["kind"], r["outcome"]) for r in seen["results"]] == [("job:Failed", "notify", "done")]
    [[to, subject, body]] = seen["sent"]
    assert to == "team" and "transform job failed: batch-01" in subject
    assert "SageMaker transform job batch-01 failed." in body and "ClientError: no input" in body
    assert "#/transform-jobs/batch-01" in body
    assert [p["detail-type"] for p in seen["pattern"]["$or"]] == [["SageMaker Training Job State Change"],
                                                                  ["SageMaker Transform Job State Change"]]


STATUS_CHANGE = '''
    """Secondary status changes of a training job (a worked example): `secondary_status_actions` attaches actions to
    a SecondaryStatus; the event of that status is the trigger."""

    from dataclasses import dataclass

    from rule_actions.fields import ActionMap
    from rule_actions.records import Message, Origin, Place, Trigger, TriggerFacts
    from rule_actions.triggers.base import TriggerFamily, subject

    ACTIONS = ActionMap("secondary_status_actions", (), "SecondaryStatus -> actions.", Place.JOB_OUTCOMES,
                        "secondary status")


    @dataclass(frozen=True)
    class StatusChange(Trigger):
        TYPE = "status_change"
        status: str

        @property
        def label(self):
            return "status:" + self.status

        @property
        def ledger_fields(self):
            return {"status": self.status}

        @property
        def metric(self):
            return self.label


    class StatusChanges(TriggerFamily):
        type = StatusChange.TYPE
        record = StatusChange
        fields = (ACTIONS,)

        def observe(self, event):
            found = event.secondary_status if event.family and event.family.name == "training" else None
            return ([StatusChange(found)] if found else []), []

        def select(self, found, event, config):
            return [t for t in found if dict(config[ACTIONS]).get(t.status)]

        def entries(self, trigger, event, config, facts):
            return [(action, Origin.CONFIGURATION) for action in dict(config[ACTIONS])[trigger.status]]

        def words(self, occasion):
            event, status = occasion.event, occasion.trigger.status
            return Message(subject(event, "", f"{event.family.noun} is {status}: ", event.job_name),
                           f"{event.job_name} is {status}.", f"{event.job_name} is {status}")

        def facts(self, trigger, event):
            return TriggerFacts(self.type, {"outcome": None, "rule": None, "rule_family": None,
                                            "rule_status": None}, (trigger.status,), None, "i")

        def clauses(self, config, family):
            statuses = [status for status, actions in config[ACTIONS] if actions]
            return [{"SecondaryStatus": statuses}] if statuses and family.name == "training" else []


    FAMILY = StatusChanges()
'''


def test_a_trigger_family_is_one_module_and_a_registry_line(tmp_path):
    # Given a trigger family on secondary status changes: its module, and its line in the registry
    lambdas = with_plugin(tmp_path, "triggers/status_change.py", STATUS_CHANGE, {
        "from rule_actions.triggers import job_outcome, rule_status, test\n":
            "from rule_actions.triggers import job_outcome, rule_status, status_change, test\n",
        "(rule_status.FAMILY, job_outcome.FAMILY, test.FAMILY)":
            "(rule_status.FAMILY, job_outcome.FAMILY, test.FAMILY, status_change.FAMILY)",
    })
    event = state_change("SageMaker Training Job State Change", {
        "TrainingJobName": "demo-job-001", "TrainingJobStatus": "InProgress", "SecondaryStatus": "Uploading",
        "TrainingJobArn": "arn:aws:sagemaker:us-east-1:123456789012:training-job/demo-job-001"})

    # When the configuration attaches a notification to Uploading
    seen = run(lambdas, {"secondary_status_actions": {"Uploading": ["notify"]}}, event)

    # Then the pattern has its clause, and its trigger notifies once in its words
    assert {"SecondaryStatus": ["Uploading"]} in seen["pattern"]["detail"]["$or"]
    assert [(r["trigger"], r["kind"], r["outcome"]) for r in seen["results"]] == [("status:Uploading", "notify",
                                                                                   "done")]
    assert "training job is Uploading: demo-job-001" in seen["sent"][0][1]


PAGE = '''
    """page: a message to the topic's audience named by the job's `team` tag (a worked example of a kind that needs
    a read: the job's tags, answered by readers/tags.py)."""

    from dataclasses import replace

    from rule_actions.contract import Outcome
    from rule_actions.kinds.base import Kind
    from rule_actions.records import Capability, Done, JobTags, Place


    class Page(Kind):
        name = "page"
        places = frozenset((Place.RULES, Place.JOB_OUTCOMES))

        def targets(self, action, event, config):
            return ("the job's team",)

        def needs(self, item, event, config):
            return frozenset({JobTags(event.family.api, event.job_name)})

        def check(self, item, event, config, facts):
            team = dict(facts.get(JobTags(event.family.api, event.job_name)) or {}).get("team")
            if not team:
                return item.decided(Outcome.SKIPPED, "the job has no team tag")
            return replace(item, target=team)

        def carry_out(self, item, occasion, ports):
            ports.notifier.publish("team-" + item.target, occasion.message)
            return Done(f"paged team {item.target}")

        def capabilities(self, config):
            return frozenset({Capability.DESCRIBE})


    KIND = Page()
'''
TAGS_READER = '''
    """JobTags: the job's tags, from its description."""

    from rule_actions.readers.base import Reader
    from rule_actions.records import JobTags


    class Tags(Reader):
        need = JobTags

        def read(self, need, ports):
            return {t["Key"]: t["Value"] for t in ports.jobs.describe(need.api, need.job_name).get("Tags", [])}

        def failure(self, need):
            return f"{need.api.describe} failed"


    READER = Tags()
'''
JOB_TAGS_NEED = '''


    @dataclass(frozen=True)
    class JobTags:
        """The job's tags (a worked example's Need)."""

        api: JobApi
        job_name: str
'''


def test_an_action_kind_and_a_reader_are_each_one_module_and_a_registry_line(tmp_path):
    # Given a `page` kind and the reader of the Need it asks (its Need in records.py): modules and registry lines
    lambdas = with_plugin(tmp_path, "kinds/page.py", PAGE, {
        "from rule_actions.kinds import email, notify, release_warm_pool, restart, sms, stop, stoptraining, webhook\n":
            "from rule_actions.kinds import email, notify, page, release_warm_pool, restart, sms, stop, stoptraining, webhook\n",
        "restart.KIND, release_warm_pool.KIND)}": "restart.KIND, release_warm_pool.KIND, page.KIND)}",
        "    stop_record,\n    team,\n": "    stop_record,\n    tags,\n    team,\n",
        "service_job.READER)}": "service_job.READER, tags.READER)}",
    }, records_addition=JOB_TAGS_NEED)
    (lambdas / "rule_actions" / "readers" / "tags.py").write_text(textwrap.dedent(TAGS_READER))
    assert violations(graph({**PACKAGES, "rule_actions": lambdas / "rule_actions"})) == []
    event = state_change("SageMaker Training Job State Change", {
        "TrainingJobName": "demo-job-001", "TrainingJobStatus": "Failed", "SecondaryStatus": "Failed",
        "TrainingJobArn": "arn:aws:sagemaker:us-east-1:123456789012:training-job/demo-job-001"})

    # When a job outcome pages the team
    seen = run(lambdas, {"job_outcomes": {"Failed": ["page"]}}, event)

    # Then the grammar, the plan (its read), the ledger and the grants took the kind without other changes
    assert [(r["kind"], r["target"], r["outcome"]) for r in seen["results"]] == [("page", "vision", "done")]
    assert seen["sent"][0][0] == "team-vision"
    assert any("sagemaker:DescribeTrainingJob" in grant for grant in seen["grants"])


HOLD = '''
    """hold: stop the job, the quick way (a worked example of a job action: its effect says what its results count
    as; the plan orders it before the messages, watch mode reports what it would do)."""

    from dataclasses import replace

    from rule_actions.kinds.base import Kind
    from rule_actions.records import Capability, Done, JobEffect, Place


    class Hold(Kind):
        name = "hold"
        places = frozenset((Place.RULES,))
        effect = JobEffect.STOP

        def targets(self, action, event, config):
            return (event.job_name,)

        def check(self, item, event, config, facts):
            return replace(item, jobs=(event.job_name,))

        def preview(self, item):
            return f"would hold {item.target}"

        def carry_out(self, item, occasion, ports):
            ports.jobs.stop(occasion.event.job_family.api, item.target)
            return Done(f"held {item.target}", (item.target,))

        def capabilities(self, config):
            return frozenset({Capability.STOP})


    KIND = Hold()
'''


def test_a_job_action_is_one_module_and_a_registry_line_counted_as_its_effect(tmp_path):
    # Given a `hold` kind whose effect is a stop: its module and its registry line
    lambdas = with_plugin(tmp_path, "kinds/hold.py", HOLD, {
        "from rule_actions.kinds import email, notify, release_warm_pool, restart, sms, stop, stoptraining, webhook\n":
            "from rule_actions.kinds import email, hold, notify, release_warm_pool, restart, sms, stop, stoptraining, webhook\n",
        "restart.KIND, release_warm_pool.KIND)}": "restart.KIND, release_warm_pool.KIND, hold.KIND)}",
    })
    event = state_change("SageMaker Training Job State Change", {
        "TrainingJobName": "demo-job-001", "TrainingJobStatus": "InProgress", "SecondaryStatus": "Training",
        "TrainingJobArn": "arn:aws:sagemaker:us-east-1:123456789012:training-job/demo-job-001",
        "DebugRuleEvaluationStatuses": [{"RuleConfigurationName": "LossNotDecreasing",
                                         "RuleEvaluationStatus": "IssuesFound"}]})
    # When a rule that declares the message first, then the hold, finds an issue
    seen = run(lambdas, {"rules": {"LossNotDecreasing": ["notify", "hold"]}}, event)
    # Then the hold is planned before the message, carried out, and counted as a stop (its effect), with no other edit
    assert [(r["kind"], r["outcome"]) for r in seen["results"]] == [("hold", "done"), ("notify", "done")]
    assert seen["stopped"] == ["demo-job-001"] and seen["restarted"] == []
    assert "hold" in seen["stop_kinds"]
    assert "Actions taken for this rule:\n  - hold demo-job-001: done (held demo-job-001)" in seen["sent"][0][2]
    assert any("sagemaker:StopTrainingJob" in grant for grant in seen["grants"])


# A family of jobs SageMaker's own families do not cover, made up for the test: its own event source and API (the
# Ground Truth labeling job calls, which moto has no backend for), its outcomes and scope, what its running jobs offer
# the monitor rules (a status, a start), its API's statuses. Nothing else in the copy names it.
LABELING = '''
    """Labeling jobs (a made-up family): their state change from their own source, their API, outcomes and scope."""

    from rule_actions.contract import Offer, OutcomeCondition
    from rule_actions.fields import ActionMap
    from rule_actions.jobs.base import JobFamily, Members, scope_field
    from rule_actions.records import JobApi, Place

    OUTCOMES = {"Failed": OutcomeCondition(("Failed",), (), (), "labeling job failed", "failed"),
                "Completed": OutcomeCondition(("Completed",), (), (), "labeling job completed", "completed")}


    class Labeling(JobFamily):
        name = "labeling"
        noun = "labeling job"
        source = "example.labeling"
        detail_type = "Labeling Job State Change"
        members = Members(name="LabelingJobName", arn="LabelingJobArn", status="LabelingJobStatus", secondary=None,
                          transitions=None, started="CreationTime")
        api = JobApi(describe="DescribeLabelingJob", stop="StopLabelingJob", list="ListLabelingJobs",
                     name="LabelingJobName", summaries="LabelingJobSummaryList")
        resource = "labeling-job"
        outcomes = OUTCOMES
        console_path = "labeling-jobs"
        log_group = "/aws/sagemaker/LabelingJobs"
        scope = scope_field("labeling_job_prefixes", noun)
        outcome_actions = ActionMap("labeling_job_outcomes", (), "Labeling job outcome -> actions.",
                                    Place.JOB_OUTCOMES, "labeling job outcome", tuple(OUTCOMES))
        stop_consequence = "its labels so far stay in its output"
        offers = frozenset({Offer.JOB_STATUS})
        statuses = ("Initializing", "InProgress", "Completed", "Failed", "Stopping", "Stopped")


    FAMILY = Labeling()
'''
LABELING_LINE = {"import batch, pipelines, processing, training, transform, tuning\n":
                 "import batch, labeling, pipelines, processing, training, transform, tuning\n",
                 "batch.FAMILY)": "batch.FAMILY, labeling.FAMILY)"}

# Runs in the copy: a scheduled evaluation over fake ports whose only running job is a labeling job; the stack's
# pattern and grants for the configuration.
EVALUATE = """
import json, sys
from datetime import UTC, datetime
from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions.records import EvaluationRequest, Heartbeat
from rule_actions_cdk import plugins

NOW = 1_795_514_400
ARN = "arn:aws:sagemaker:us-east-1:123456789012:labeling-job/label-7"
JOB = {"LabelingJobName": "label-7", "LabelingJobArn": ARN, "LabelingJobStatus": "InProgress",
       "CreationTime": datetime.fromtimestamp(NOW - 90 * 60, UTC),
       "Tags": [{"Key": "rule-actions:RuntimeOverrun", "Value": "stop"},
                {"Key": "rule-actions:RuntimeOverrun:parameters", "Value": "expected_minutes=30"}]}
calls = []

class Jobs:
    def running(self, api): calls.append(["running", api.describe]); return [JOB] if api.list == "ListLabelingJobs" else []
    def describe(self, api, name): calls.append([api.describe, name]); return dict(JOB)
    def in_progress(self, api, prefix): return []
    def tags(self, arn): return {}
    def stop(self, api, key, token=None): calls.append([api.stop, key]); return "stopped"

class Metrics:
    def hosts(self, namespace, metric): return ()
    def data(self, queries, start, end): return {q: () for q in queries}

class Logs:
    insights_from = 500
    def heartbeat(self, group, prefix, start, end): return Heartbeat((), True)

class Notifier:
    PENDING = "pending"
    def publish(self, to, message, chat=None): calls.append(["publish", message.subject]); return "m-1"
    def publish_chat(self, notification): return "c-1"
    def ensure_subscription(self, protocol, endpoint): return "confirmed"
    def team_subscribed(self): return True

class Ledger:
    def once(self, key, work): return work()
    def mark_stopped(self, job_arn, by, at=None): pass
    def stopped_by(self, job_arn): return None

class Ports:
    jobs, metrics, logs, notifier, ledger, webhooks, region = Jobs(), Metrics(), Logs(), Notifier(), Ledger(), None, "us-east-1"
    def in_account(self, account, region): return self

config = Config.from_dict(json.loads(sys.argv[1]))
handled = pipeline.evaluate(EvaluationRequest(NOW, None, None), config, Ports(), 60.0, {})
print(json.dumps({"evaluated": handled.result, "calls": calls, "pattern": plugins.event_pattern(config),
                  "grants": [[g.sid, list(g.actions)] for g in plugins.evaluation_grants(config)],
                  "family": registry.job_family({"source": "example.labeling",
                                                 "detail-type": "Labeling Job State Change"}).name},
                 default=str))
"""


def test_a_job_family_of_its_own_source_is_matched_judged_and_stopped_from_its_module_alone(tmp_path):
    # Given a labeling job family: its module and its registry line, nothing else
    lambdas = with_plugin(tmp_path, "jobs/labeling.py", LABELING, LABELING_LINE)
    config = {"monitor": {"rules": {}, "families": ["labeling"]}, "labeling_job_outcomes": {"Failed": ["notify"]},
              "notify": {"emails": ["ml@example.com"]}}

    # When the monitor rules run over a labeling job that has run 90 minutes, its tags asking RuntimeOverrun to stop it
    # past 30 expected minutes
    env = {**os.environ, "PYTHONPATH": str(lambdas), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", EVALUATE, json.dumps(config)], env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])  # (after the function's log lines)

    # Then its events are recognised by their own source, and the stack's pattern matches them beside SageMaker's
    assert seen["family"] == "labeling"
    assert {"source": ["example.labeling"], "detail-type": ["Labeling Job State Change"],
            "detail": {"LabelingJobStatus": ["Failed"]}} in seen["pattern"]["$or"]
    # and the rule its running jobs offer what it needs judged it, and the stop went through its family's own API
    assert ["running", "DescribeLabelingJob"] in seen["calls"]
    [job] = [j for j in seen["evaluated"]["jobs"] if j.get("job_family") == "labeling"]
    assert [(r["rule"], r["verdict"]) for r in job["rules"]] == [("RuntimeOverrun", "IssuesFound")]
    assert ("stop", "done") in [(a["kind"], a["outcome"]) for a in job["actions"]]
    assert ["StopLabelingJob", "label-7"] in seen["calls"]
    # and the evaluator may list and stop its jobs
    assert any("sagemaker:StopLabelingJob" in actions for _sid, actions in seen["grants"])


def labeling_event(status: str) -> dict:
    arn = "arn:aws:sagemaker:us-east-1:123456789012:labeling-job/label-7"
    return {**state_change("Labeling Job State Change", {"LabelingJobName": "label-7", "LabelingJobArn": arn,
                                                          "LabelingJobStatus": status, "FailureReason": "no workers"}),
            "source": "example.labeling"}


def test_a_job_family_of_its_own_source_is_replayed_from_its_module_alone(tmp_path):
    # Given the labeling job family (its module and registry line), its Failed outcome notifying the team
    lambdas = with_plugin(tmp_path, "jobs/labeling.py", LABELING, LABELING_LINE)
    (tmp_path / "config.json").write_text(json.dumps({"labeling_job_outcomes": {"Failed": ["notify"]},
                                                      "notify": {"emails": ["ml@example.com"]}}))
    events = [labeling_event("InProgress"), labeling_event("Failed"), labeling_event("Labelling")]
    (tmp_path / "events.json").write_text(json.dumps(events))

    # When the replay plays its events on the embedded AWS (the stack synthesized from the copy)
    env = {**os.environ, "PYTHONPATH": str(lambdas), "PYTHONDONTWRITEBYTECODE": "1",
           "RULE_ACTIONS_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", "import sys; from rule_actions_cli.main import main; "
                           "sys.exit(main(sys.argv[1:]))", "replay", "--json", "--config",
                           str(tmp_path / "config.json"), str(tmp_path / "events.json")],
                          env=env, capture_output=True, text=True, check=False, cwd=tmp_path)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    # Then each event reached the function through the stack's pattern, its job seeded from the event (a status its
    # family's API does not have is said so), and its Failed outcome notified the team
    assert len(rows) == 3, done.stdout + done.stderr
    assert [(row["job_family"], row["job"], row["matched"]) for row in rows] == [
        ("labeling", "label-7", False), ("labeling", "label-7", True), ("labeling", "label-7", False)]
    assert [(a["trigger"], a["kind"], a["outcome"]) for a in rows[1]["actions"]] == [("job:Failed", "notify", "done")]
    assert "problems" not in rows[0] and "problems" not in rows[1]
    assert rows[2]["problems"] == ['embedded account: LabelingJobStatus "Labelling" is not a SageMaker status '
                                   "(Initializing, InProgress, Completed, Failed, Stopping, Stopped): the job was not "
                                   "created or updated"]


def test_the_embedded_account_serves_a_new_family_s_jobs_from_their_events():
    # Given the labeling family (its module's source, run here against the real package) and moto
    import boto3
    from moto import mock_aws

    from rule_actions_cli.seeding import seeder

    namespace: dict = {}
    exec(textwrap.dedent(LABELING), namespace)
    family = namespace["FAMILY"]
    with mock_aws():
        # When the replay seeds its running job from its event
        event = labeling_event("InProgress")
        assert seeder(family)(family, event["detail-type"], event["detail"], {}, region="us-east-1") == []
        client = boto3.client("sagemaker", region_name="us-east-1")
        # Then its family's own calls find it, list it running, and stop it once
        assert client.describe_labeling_job(LabelingJobName="label-7")["LabelingJobStatus"] == "InProgress"
        listed = client.list_labeling_jobs(StatusEquals="InProgress")["LabelingJobSummaryList"]
        assert [job["LabelingJobName"] for job in listed] == ["label-7"]
        client.stop_labeling_job(LabelingJobName="label-7")
        assert client.describe_labeling_job(LabelingJobName="label-7")["LabelingJobStatus"] == "Stopping"
        with pytest.raises(client.exceptions.ClientError, match="in status Stopping"):
            client.stop_labeling_job(LabelingJobName="label-7")
        # and a late event never moves it back
        assert seeder(family)(family, event["detail-type"], event["detail"], {}, region="us-east-1") == []
        assert client.describe_labeling_job(LabelingJobName="label-7")["LabelingJobStatus"] == "Stopping"
