"""The embedded AWS's speed-ups (rule_actions_cli.emulator.speed) answer exactly as moto's own code answers: every JSON
response the writers serialize is the one moto's serializer makes, byte for byte (through the API, for the calls the
replay makes, and directly, for every kind of member and value moto's JSON serializer knows); a JSON template is the
document moto's YAML parse gives, and a JSON document PyYAML reads otherwise still goes to moto's parse; botocore's
region lists are the ones it gives from the whole model."""

from __future__ import annotations

import copy
import enum
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import boto3
import botocore.session
import pytest
from moto import mock_aws
from moto.cloudformation.models import Stack
from moto.core.model import ServiceModel
from moto.core.serialize import JSONSerializer, RestJSONSerializer, XFormedAttributePicker
from moto.core.utils import get_service_model

from rule_actions_cli.emulator import monitoring as moto_monitoring
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.emulator import speed

REGION = "us-east-1"
T0 = datetime(2026, 11, 24, 8, 0, 0, 123456, tzinfo=UTC)
TUNING_JOB = f"arn:aws:sagemaker:{REGION}:123456789012:hyper-parameter-tuning-job/hpo"


class Compared:
    """Every response moto serializes as JSON, serialized both ways: by the writers (what the client gets) and by
    moto's own serializer."""

    def __init__(self) -> None:
        self.fast = JSONSerializer._serialize_result
        self.moto = self.fast.__wrapped__
        self.seen: list[tuple[str, bool, Any, Any]] = []  # (operation, writers used, moto's, the writers')

    def __call__(self, serializer: Any, resp: Any, result: Any) -> Any:
        theirs = self.moto(serializer, copy.deepcopy(resp), result)
        ours = self.fast(serializer, resp, result)
        self.seen.append((str(serializer.operation_model.name), speed._fast(serializer), theirs, copy.deepcopy(ours)))
        return ours  # (moto adds its headers to it next)

    def differing(self) -> list[str]:
        return [operation for operation, _, theirs, ours in self.seen if theirs != ours]

    def operations(self) -> set[str]:
        return {operation for operation, used, _, _ in self.seen if used}


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[Compared]:
    speed.install()
    seen = Compared()

    def both(self: Any, resp: Any, result: Any) -> Any:
        return seen(self, resp, result)

    setattr(both, speed._MARK, True)  # installed: install() leaves it
    monkeypatch.setattr(JSONSerializer, "_serialize_result", both)
    with mock_aws():
        moto_sagemaker.install()
        moto_monitoring.install()
        yield seen


def _jobs() -> None:
    """Training jobs in every status, with each kind of member a Search returns: rules and their statuses, times with
    microseconds, tags, transitions, a tuning job's ARN, a failure, an objective, a checkpoint, spot."""
    rules = [{"RuleConfigurationName": "Loss", "RuleEvaluatorImage": "img:latest",
              "RuleParameters": {"rule_to_invoke": "LossNotDecreasing", "action_json": '[{"name": "stoptraining"}]'}}]
    statuses = [{"RuleConfigurationName": "Loss", "RuleEvaluationStatus": "IssuesFound", "StatusDetails": "met",
                 "LastModifiedTime": T0}]
    for i, status in enumerate(["InProgress", "InProgress", "Completed", "Failed", "Stopping", "Stopped"]):
        moto_sagemaker.put_training_job(
            f"job-{i}", status, debug_rule_configurations=rules, debug_rule_evaluation_statuses=statuses,
            resource_config={"InstanceType": "ml.p3.2xlarge", "InstanceCount": 2, "VolumeSizeInGB": 100},
            tags={"team": "ml", "rule-actions:monitor": "true"},
            metric_definitions=[{"Name": "loss", "Regex": "l=(.*)"}],
            transitions=[{"Status": "Starting", "StartTime": T0, "StatusMessage": "launching"},
                         {"Status": "Training", "StartTime": T0 + timedelta(minutes=3)}],
            training_start_time=T0, stopping_condition={"MaxRuntimeInSeconds": 3600}, creation_time=T0,
            tuning_job_arn=TUNING_JOB if i == 1 else None,
            failure_reason="AlgorithmError: out of memory" if status == "Failed" else None,
            final_objective=("validation:loss", 0.25) if status == "Completed" else None,
            checkpoint_config={"S3Uri": "s3://bucket/checkpoints", "LocalPath": "/opt/ml/checkpoints"},
            training_time_in_seconds=600 if status != "InProgress" else None, enable_managed_spot_training=i % 2 == 0)


def test_searches_and_descriptions_are_moto_s_own_byte_for_byte(compared):
    # Given training jobs of every status and kind of member, and a tuning job
    _jobs()
    moto_sagemaker.put_tuning_job("hpo", "InProgress", tags={"team": "ml"}, objective="Minimize", creation_time=T0,
                                  training_job_definition={"StoppingCondition": {"MaxRuntimeInSeconds": 60}})
    sagemaker = boto3.client("sagemaker", region_name=REGION)
    # When the evaluator's reads are made: Search (every filter kind moto knows), its pages, descriptions, listings
    running = {"Filters": [{"Name": "TrainingJobStatus", "Operator": "Equals", "Value": "InProgress"}]}
    answers = [
        sagemaker.search(Resource="TrainingJob", SearchExpression=running, MaxResults=100),
        sagemaker.search(Resource="TrainingJob", MaxResults=1),
        sagemaker.search(Resource="TrainingJob", SearchExpression={"Filters": [
            {"Name": "Tags.team", "Operator": "Equals", "Value": "ml"},
            {"Name": "TrainingJobName", "Operator": "Contains", "Value": "job"}]}),
        sagemaker.search(Resource="TrainingJob", SearchExpression={"Filters": [
            {"Name": "TrainingJobStatus", "Operator": "NotEquals", "Value": "InProgress"}]}),
        sagemaker.search(Resource="HyperParameterTuningJob", SearchExpression={"Filters": [
            {"Name": "HyperParameterTuningJobStatus", "Operator": "Equals", "Value": "InProgress"}]}),
        *(sagemaker.describe_training_job(TrainingJobName=f"job-{i}") for i in range(6)),
        sagemaker.list_training_jobs(StatusEquals="InProgress"),
        sagemaker.describe_hyper_parameter_tuning_job(HyperParameterTuningJobName="hpo"),
        sagemaker.list_training_jobs_for_hyper_parameter_tuning_job(HyperParameterTuningJobName="hpo"),
    ]
    # Then every answer was serialized by the writers, each exactly as moto's serializer makes it
    assert {"Search", "DescribeTrainingJob", "ListTrainingJobs", "DescribeHyperParameterTuningJob"} <= \
        compared.operations()
    assert compared.differing() == [] and len(compared.seen) >= len(answers)
    assert len(answers[0]["Results"]) == 2 and answers[1]["NextToken"]
    assert answers[0]["Results"][0]["TrainingJob"]["SecondaryStatusTransitions"][0]["StartTime"] == T0.replace(
        microsecond=123000)


def test_the_other_services_json_answers_are_moto_s_own(compared):
    # Given the other services whose answers moto serializes from the model as JSON: DynamoDB (the ledger; every
    # attribute type), CloudWatch's metrics, SQS
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.create_table(TableName="ledger", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    item = {"pk": {"S": "job#1"}, "n": {"N": "1.5"}, "b": {"B": b"\x00\x01"}, "ss": {"SS": ["a", "b"]},
            "m": {"M": {"x": {"L": [{"N": "1"}, {"NULL": True}, {"BOOL": False}]}}}, "bs": {"BS": [b"z"]}}
    dynamodb.put_item(TableName="ledger", Item=item, ReturnValues="ALL_OLD")
    dynamodb.update_item(TableName="ledger", Key={"pk": {"S": "job#1"}}, UpdateExpression="SET #s = :s",
                         ExpressionAttributeNames={"#s": "state"}, ExpressionAttributeValues={":s": {"S": "done"}},
                         ReturnValues="ALL_NEW")
    dynamodb.get_item(TableName="ledger", Key={"pk": {"S": "job#1"}})
    dynamodb.query(TableName="ledger", KeyConditionExpression="pk = :p",
                   ExpressionAttributeValues={":p": {"S": "job#1"}})
    dynamodb.describe_table(TableName="ledger")
    moto_monitoring.put_metrics(("/aws/sagemaker/TrainingJobs", "GPUUtilization", {"Host": "job-1/algo-1"},
                                 (T0 + timedelta(minutes=m)).timestamp(), 50.0 + m) for m in range(30))
    boto3.client("cloudwatch", region_name=REGION).get_metric_data(
        MetricDataQueries=[{"Id": "gpu", "MetricStat": {"Metric": {
            "Namespace": "/aws/sagemaker/TrainingJobs", "MetricName": "GPUUtilization",
            "Dimensions": [{"Name": "Host", "Value": "job-1/algo-1"}]}, "Period": 300, "Stat": "Average"}}],
        StartTime=T0, EndTime=T0 + timedelta(hours=1))
    sqs = boto3.client("sqs", region_name=REGION)
    queue = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])
    # Then every answer the writers made is moto's own
    assert {"PutItem", "UpdateItem", "GetItem", "Query", "DescribeTable", "GetMetricData",
            "GetQueueAttributes"} <= compared.operations()
    assert compared.differing() == []


# ----------------------------------------------------------------------- the writers, member kind by member kind

MODEL = {
    "metadata": {"protocol": "json", "jsonVersion": "1.1", "serviceId": "Shapes", "endpointPrefix": "shapes",
                 "apiVersion": "2026-01-01", "targetPrefix": "Shapes"},
    "operations": {"Describe": {"name": "Describe", "http": {"method": "POST", "requestUri": "/"},
                                "output": {"shape": "DescribeOutput"}}},
    "shapes": {
        "DescribeOutput": {"type": "structure", "members": {
            "Job": {"shape": "Job"}, "Jobs": {"shape": "JobList"}, "ByName": {"shape": "JobMap"},
            "Named": {"shape": "NamedList"}, "Document": {"shape": "Document"}, "Renamed": {"shape": "Text",
                                                                                         "locationName": "Other"}}},
        "Job": {"type": "structure", "members": {
            "JobName": {"shape": "Text"}, "JobArn": {"shape": "Text"}, "Status": {"shape": "Text"},
            "Count": {"shape": "Int"}, "Size": {"shape": "Long"}, "Ratio": {"shape": "Float"},
            "Share": {"shape": "Double"}, "Spot": {"shape": "Bool"}, "Created": {"shape": "Time"},
            "Data": {"shape": "Bytes"}, "Tags": {"shape": "TagList"}, "Parameters": {"shape": "TextMap"},
            "Nested": {"shape": "Nested"}, "DottedName": {"shape": "Text"},
            "Deep": {"shape": "Text", "locationName": "deep.value"}}},
        "Nested": {"type": "structure", "members": {"NestedValue": {"shape": "Text"}, "Job": {"shape": "Text"}}},
        "Tag": {"type": "structure", "members": {"Key": {"shape": "Text"}, "Value": {"shape": "Text"}}},
        "TagList": {"type": "list", "member": {"shape": "Tag"}},
        "JobList": {"type": "list", "member": {"shape": "Job"}},
        "JobMap": {"type": "map", "key": {"shape": "Text"}, "value": {"shape": "Job"}},
        "NamedList": {"type": "list", "member": {"shape": "Tag", "locationName": "Entry"}},
        "TextMap": {"type": "map", "key": {"shape": "Text"}, "value": {"shape": "Text"}},
        "Document": {"type": "structure", "members": {}, "document": True},
        "Text": {"type": "string"}, "Int": {"type": "integer"}, "Long": {"type": "long"},
        "Float": {"type": "float"}, "Double": {"type": "double"}, "Bool": {"type": "boolean"},
        "Time": {"type": "timestamp"}, "Bytes": {"type": "blob"},
    },
}


class Colour(enum.Enum):
    RED = "Red"


class Job:  # an object moto serializes (not a dict): its attributes in snake case, a class-prefixed alias
    def __init__(self, **attributes: Any) -> None:
        vars(self).update(attributes)


class Aliased(Job):
    class Meta:  # moto's own aliases of an object's: one a path
        serialization_aliases: ClassVar[dict[str, str]] = {"Status": "state", "DottedName": "dotted.name"}


def _job(**changes: Any) -> dict[str, Any]:
    job: dict[str, Any] = {
        "JobName": "a", "Arn": "arn:aws:x:job/a", "Status": Colour.RED, "Count": "3", "Size": 2**40, "Ratio": 1,
        "Share": "0.5", "Spot": True, "Created": T0, "Data": "text", "Tags": [{"Key": "k", "Value": 1}, None],
        "Parameters": {"p": 2, "q": None}, "Nested": {"Value": "v", "Job": "j"}, "deep": {"value": "a path"},
        "Unknown": "dropped"}
    job.update(changes)
    return job


RESULTS = [
    {"Job": _job()},
    {"Job": _job(Created=datetime(2026, 1, 2, 3, 4, 5)), "Jobs": [_job(Status={}), _job(Status=[]), None]},
    {"Job": _job(Created="2026-01-02T03:04:05Z", Data=b"\x00\xff", Count=7.9, Tags=[]),
     "ByName": {"x": _job(), "y": None}},
    {"Named": [{"Key": "k", "Value": "v"}, {"Key": "l"}], "Document": {"any": ["thing", 1]}, "Other": "renamed",
     "Renamed": "kept"},
    {"Job": Job(job_name="b", arn="arn:b", status="Running", count=1, tags=[{"Key": "k", "Value": "v"}],
                nested={"NestedValue": "n"}, created=T0)},
    {"Job": Aliased(job_name="c", state="Aliased", status="unused", dotted={"name": "deep"}),
     "Jobs": [Job(job_name="d"), {"JobName": "e"}]},
    {"Job": None, "Jobs": [], "ByName": {}},
    {},
]


def _serialized(result: Any, serializer_class: type = JSONSerializer, **picker: Any) -> dict[str, Any]:
    model = ServiceModel(MODEL, "shapes")
    serializer = serializer_class(operation_model=model.operation_model("Describe"),
                                  value_picker=XFormedAttributePicker(**picker))
    return serializer.serialize(copy.deepcopy(result))


@pytest.mark.parametrize("result", RESULTS, ids=range(len(RESULTS)))
def test_every_kind_of_member_and_value_is_written_as_moto_writes_it(monkeypatch, result):
    # Given a response of each kind of member (structures nested, lists, maps, a list of named members, a
    # document, every scalar type) holding values of other types (an Enum, numbers as text, {}, [], None,
    # datetimes naive and aware, text as a timestamp and as a blob), as dicts and as objects (one with its own
    # aliases)
    speed.install()
    writers = _serialized(result)
    # When moto's own serializer writes it
    monkeypatch.setattr(JSONSerializer, "_serialize_result", JSONSerializer._serialize_result.__wrapped__)
    theirs = _serialized(result)
    # Then the writers wrote the same body, headers and status
    assert writers == theirs and isinstance(json.loads(writers["body"]), dict)


def test_what_the_writers_do_not_do_as_moto_goes_to_moto(monkeypatch):
    # Given serializers the writers must not take: another protocol's, a picker that transforms values
    speed.install()
    model = ServiceModel(MODEL, "shapes")
    describe = model.operation_model("Describe")
    transforming = JSONSerializer(operation_model=describe, value_picker=XFormedAttributePicker(
        response_transformers={"Job.JobName": str.upper}))
    rest = RestJSONSerializer(operation_model=describe, value_picker=XFormedAttributePicker())
    # Then neither is the writers' (a plain JSON one is)
    assert not speed._fast(transforming) and not speed._fast(rest)
    assert speed._fast(JSONSerializer(operation_model=describe, value_picker=XFormedAttributePicker()))
    # and each answers as moto's serializer does: the transformed name upper-cased
    answer = transforming.serialize({"Job": {"JobName": "a"}})
    monkeypatch.setattr(JSONSerializer, "_serialize_result", JSONSerializer._serialize_result.__wrapped__)
    assert answer == transforming.serialize({"Job": {"JobName": "a"}})
    assert json.loads(answer["body"]) == {"Job": {"JobName": "A"}}


# ----------------------------------------------------------------------- templates

def _both(text: str) -> tuple[Any, Any]:
    """(the patched parse, moto's own): each a document or the error's type."""
    speed.install_templates()

    def outcome(parse: Any) -> Any:
        try:
            return parse(text)
        except Exception as err:  # moto's YAML parse may fail, where json would not
            return type(err)
    return outcome(Stack.parse_template), outcome(Stack.parse_template.__wrapped__)


@pytest.fixture(scope="module")
def templates() -> list[str]:
    """The demo's and the organization example's synthesized templates, as the replay sends them and as on disk."""
    from rule_actions_cli import inputs
    from rule_actions_cli.synth import stacks, synthesize

    found = []
    for config in ("examples/demo-webhook-config.json", "examples/organization-config.json"):
        context, errors = inputs.replay_context(config, False)
        assert not errors
        assembly, _stack = synthesize(context)
        for name in stacks(assembly):
            on_disk = (assembly / f"{name}.template.json").read_text()
            found += [on_disk, json.dumps(json.loads(on_disk))]
    return found


def test_a_synthesized_template_is_read_as_json_into_moto_s_own_document(templates):
    # Given the synthesized templates (central and member stacks), indented and compact
    assert len(templates) >= 6
    for text in templates:
        # When moto's CloudFormation parses one
        ours, theirs = _both(text)
        # Then it is read as JSON, into the document moto's YAML parse gives
        assert speed.json_as_yaml(text) == ours == theirs and isinstance(ours, dict)


@pytest.mark.parametrize("text", [
    '{"Threshold": 1e3}',  # YAML 1.1 reads a float without a dot as a string
    '{"Threshold": 1.5E3}',  # or with an unsigned exponent
    '{"Description": "\\ud83d\\ude00"}',  # a surrogate pair: json joins it, YAML keeps two characters
    '{"<<": {"merged": 1}}',  # YAML's merge key
    '{"Description": "a\u2028b"}',  # a line break of YAML's own, raw: folded by YAML
    '{"Description": "a\ufffeb"}',  # a character PyYAML's reader refuses
    "Resources:\n  Topic:\n    Type: AWS::SNS::Topic\n",  # a YAML template
    "[1, 2]",  # JSON, but not an object
])
def test_a_document_pyyaml_reads_otherwise_is_moto_s_to_parse(text):
    # Given a template JSON would read otherwise than PyYAML (or that is not JSON)
    with pytest.raises(ValueError):
        speed.json_as_yaml(text)
    # When moto's CloudFormation parses it
    ours, theirs = _both(text)
    # Then the document (or the error) is moto's own
    assert ours == theirs


@pytest.mark.parametrize("text", ['{"Count": 30, "Ratio": 0.5, "Big": 1.5e+30, "Neg": -2.0E-3, "On": true, "No": null}',
                                  '{"Text": "caf\\u00e9 \\/ \\"q\\" \\t", "List": [], "Map": {}}'])
def test_json_yaml_reads_alike_is_read_as_json(text):
    assert speed.json_as_yaml(text) == _both(text)[1] == json.loads(text)


# ----------------------------------------------------------------------- regions

SERVICES = ["ec2", "sagemaker", "cloudformation", "ssm", "sns", "sqs", "dynamodb", "lambda", "events", "kms", "logs",
            "cloudwatch", "secretsmanager", "s3", "iam", "sts", "organizations", "pricing", "cloudfront", "route53",
            "elb", "sdb", "budgets", "mediapackage"]


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_s_regions_are_botocore_s_own(service):
    # Given botocore's region lists made from the whole model, for each partition
    speed.install()
    session = botocore.session.get_session()
    original = botocore.session.Session.get_available_regions.__wrapped__
    partitions = session.get_available_partitions()
    expected = {(p, n): original(session, service, p, n) for p in partitions for n in (False, True)}
    # When they are made from the endpoint prefix alone
    found = {(p, n): session.get_available_regions(service, p, n) for p in partitions for n in (False, True)}
    # Then they are the same, read the fast way, and the prefix is the model's
    assert found == expected and any(expected.values())
    model = session.get_service_model(service)
    assert speed.endpoint_prefix(session, service) == model.metadata.get("endpointPrefix", service)


def test_every_model_of_botocore_gives_its_endpoint_prefix_the_fast_way():
    # Given every service botocore has a model of
    session = botocore.session.get_session()
    services = session.get_available_services()
    # Then each model's metadata is read from the start of its file (none falls back to the whole model): after its
    # version, or its documentation (mediapackage's), sdk-extras merged (s3's, secretsmanager's)
    prefixes = {service: speed.endpoint_prefix(session, service) for service in services}
    assert len(services) > 300 and all(prefixes.values())
    assert prefixes["ec2"] == "ec2" and prefixes["sagemaker"] == "api.sagemaker"


def test_an_unknown_service_has_no_region_and_a_model_s_extras_are_merged_as_botocore_merges_them(tmp_path):
    speed.install()
    session = botocore.session.get_session()
    assert session.get_available_regions("no-such-service") == [] and \
        speed.endpoint_prefix(session, "no-such-service") is None
    # Given two models on a search path of their own (a session's first), sdk-extras merged into one's metadata
    for service, extras in (("widgets", None), ("gadgets", {"version": 1.0, "merge": {"metadata": {
            "endpointPrefix": "merged"}}})):
        folder = tmp_path / "models" / service / "2026-01-01"
        folder.mkdir(parents=True)
        (folder / "service-2.json").write_text(json.dumps({"version": "2.0", "metadata": {
            "endpointPrefix": service, "protocol": "json", "serviceId": service, "apiVersion": "2026-01-01"},
            "operations": {}, "shapes": {}}))
        if extras:
            (folder / "service-2.sdk-extras.json").write_text(json.dumps(extras))
    sessions = [botocore.session.Session() for _ in range(2)]
    for each in sessions:
        each.get_component("data_loader").search_paths.insert(0, str(tmp_path / "models"))
    # Then each prefix is the one botocore reads from the whole model, the extras merged
    for service in ("widgets", "gadgets"):
        assert speed.endpoint_prefix(sessions[0], service) == \
            sessions[1].get_service_data(service)["metadata"]["endpointPrefix"]
    assert speed.endpoint_prefix(sessions[0], "gadgets") == "merged"


def test_search_s_filter_names_convert_as_moto_s():
    speed.install()
    import moto.sagemaker.models as models

    names = ["TrainingJobStatus", "HyperParameterTuningJobStatus", "Tags.team", "TrainingJobName", "ARNName", ""]
    assert [models.camelcase_to_underscores(n) for n in names] == \
        [models.camelcase_to_underscores.__wrapped__(n) for n in names]
    assert get_service_model("sagemaker") is get_service_model("sagemaker")
