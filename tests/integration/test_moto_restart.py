"""What the restart action needs of the embedded AWS: CreateTrainingJob as SageMaker does it (a name in use refused, the
new job InProgress and Starting, every member of the request kept and described), UpdateTrainingJob, and checkpoints
listed by ListObjectsV2 at the simulated time they were written (rule_actions_cli.emulator.sagemaker and .s3), each
checked against botocore's service model, in-process and over HTTP (a ThreadedMotoServer of this process); and that
moto alone does otherwise (each gap still there)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.server import ThreadedMotoServer
from test_moto_fills import MODEL, valid

from rule_actions_cli.emulator import s3 as moto_s3
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

REGION = "us-east-1"
ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/SageMakerRole"
CHECKPOINTS = "s3://rule-actions-checkpoints/churn-train/checkpoints"
NOW = dt.datetime(2026, 11, 24, 14, 0, tzinfo=dt.UTC)

Clients = Callable[[str], Any]  # a service's name -> a boto3 client of the embedded AWS


def minimal(name: str, **more: Any) -> dict[str, Any]:
    return {"TrainingJobName": name, "RoleArn": ROLE, "OutputDataConfig": {"S3OutputPath": "s3://out/churn"},
            "AlgorithmSpecification": {"TrainingImage": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/train:1",
                                       "TrainingInputMode": "File"},
            "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
            "StoppingCondition": {"MaxRuntimeInSeconds": 3600}, **more}


def full(name: str) -> dict[str, Any]:
    """A request with many members, as a restart copies them: VPC, instance groups, spot with MaxWaitTimeInSeconds,
    checkpoints, RetryStrategy, Environment, a warm pool, Tags, and the members moto's backend does not take."""
    return minimal(
        name,
        HyperParameters={"epochs": "40", "lr": "0.001"},
        AlgorithmSpecification={"TrainingImage": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/train:1",
                                "TrainingInputMode": "FastFile",
                                "MetricDefinitions": [{"Name": "validation:loss", "Regex": "val_loss=([0-9.]+)"}]},
        InputDataConfig=[{"ChannelName": "train", "DataSource": {"S3DataSource": {
            "S3DataType": "S3Prefix", "S3Uri": "s3://in/churn/train", "S3DataDistributionType": "FullyReplicated"}}}],
        ResourceConfig={"VolumeSizeInGB": 100, "KeepAlivePeriodInSeconds": 1800, "InstanceGroups": [
            {"InstanceType": "ml.g5.xlarge", "InstanceCount": 2, "InstanceGroupName": "gpu"},
            {"InstanceType": "ml.c5.xlarge", "InstanceCount": 1, "InstanceGroupName": "cpu"}]},
        VpcConfig={"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0123456789abcdef0"]},
        StoppingCondition={"MaxRuntimeInSeconds": 7200, "MaxWaitTimeInSeconds": 14400},
        EnableManagedSpotTraining=True, EnableNetworkIsolation=True, EnableInterContainerTrafficEncryption=True,
        CheckpointConfig={"S3Uri": CHECKPOINTS, "LocalPath": "/opt/ml/checkpoints"},
        RetryStrategy={"MaximumRetryAttempts": 3},
        Environment={"TRAINING_STAGE": "restart", "NCCL_DEBUG": "WARN"},
        RemoteDebugConfig={"EnableRemoteDebug": False},
        InfraCheckConfig={"EnableInfraCheck": True},
        ProfilerConfig={"S3OutputPath": "s3://out/profiler", "ProfilingIntervalInMilliseconds": 500},
        ProfilerRuleConfigurations=[{"RuleConfigurationName": "LowGPUUtilization",
                                     "RuleEvaluatorImage": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/rules:1",
                                     "RuleParameters": {"rule_to_invoke": "LowGPUUtilization"}}],
        DebugHookConfig={"S3OutputPath": "s3://out/debug", "CollectionConfigurations": [{"CollectionName": "losses"}]},
        DebugRuleConfigurations=[{"RuleConfigurationName": "LossNotDecreasing",
                                  "RuleEvaluatorImage": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/rules:1",
                                  "RuleParameters": {"rule_to_invoke": "LossNotDecreasing"}}],
        TensorBoardOutputConfig={"S3OutputPath": "s3://out/tensorboard", "LocalPath": "/opt/ml/tensorboard"},
        ExperimentConfig={"ExperimentName": "churn", "TrialName": "churn-trial-7"},
        SessionChainingConfig={"EnableSessionTagChaining": True},
        Tags=[{"Key": "team", "Value": "churn"}, {"Key": "rule-actions:restart-of", "Value": "churn-train"}],
    )


def described(sagemaker: Any, name: str) -> dict[str, Any]:
    """DescribeTrainingJob of ``name``, valid output of botocore's model. The model marks ModelArtifacts required; a
    job that has not trained has none (it is checked absent by the tests that care): the rest is validated."""
    answer = {k: v for k, v in sagemaker.describe_training_job(TrainingJobName=name).items() if k != "ResponseMetadata"}
    valid("DescribeTrainingJob", {"TrainingJobName": name},
          {"ModelArtifacts": {"S3ModelArtifacts": "s3://not/yet"}, **answer})
    return answer


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A moto server on a free port of 127.0.0.1, in this process (the extensions installed serve it)."""
    moto_sagemaker.install()
    moto_s3.install()
    running = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    running.start()
    try:
        host, port = running.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        running.stop()


@pytest.fixture(params=["in-process", "http"])
def aws(request: pytest.FixtureRequest) -> Iterator[Clients]:
    """Clients of the embedded AWS with the extensions installed: in-process mock_aws, or over HTTP."""
    moto_sagemaker.install()
    moto_s3.install()
    if request.param == "in-process":
        with mock_aws():
            yield lambda service: boto3.client(service, region_name=REGION)
    else:
        url = request.getfixturevalue("server")
        # The server never resets by itself: start from empty backends.
        urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/reset", method="POST"), timeout=5)
        yield lambda service: boto3.client(service, region_name=REGION, endpoint_url=url)


# --------------------------------------------------------------------------- moto alone

MOTO_ALONE = """
import json, boto3
from moto import mock_aws
request = json.loads(__import__("sys").argv[1])
with mock_aws():
    sagemaker = boto3.client("sagemaker", region_name="us-east-1")
    sagemaker.create_training_job(**request)
    again = dict(request, StoppingCondition={"MaxRuntimeInSeconds": 60})
    refused = None
    try:
        sagemaker.create_training_job(**again)
    except Exception as error:
        refused = error.response["Error"]["Code"]
    job = sagemaker.describe_training_job(TrainingJobName=request["TrainingJobName"])
    try:
        sagemaker.update_training_job(TrainingJobName=request["TrainingJobName"],
                                      ResourceConfig={"KeepAlivePeriodInSeconds": 60})
        updated = "answered"
    except Exception as error:
        updated = type(error).__name__
print(json.dumps({"refused": refused, "job": job, "updated": updated}, default=str))
"""


def test_moto_alone_replaces_a_job_of_the_same_name_makes_it_completed_and_drops_members():
    # Given a fresh interpreter where no extension is installed
    request = full("churn-train")
    # When it creates a training job twice under one name, describes it and updates it
    done = subprocess.run([sys.executable, "-c", MOTO_ALONE, json.dumps(request)], capture_output=True, text=True,
                          timeout=120, check=True)
    answer = json.loads(done.stdout)
    job = answer["job"]
    # Then the second create is not refused and replaced the first; the job is Completed at once, with artifacts,
    # metrics and a MetricDefinitions of moto's; the members moto's backend does not take are gone; no update
    assert answer["refused"] is None and job["StoppingCondition"] == {"MaxRuntimeInSeconds": 60}
    assert job["TrainingJobStatus"] == "Completed" and "ModelArtifacts" in job and "FinalMetricDataList" in job
    assert [d["Name"] for d in job["AlgorithmSpecification"]["MetricDefinitions"]] == ["test:dcg"]
    assert not {"RetryStrategy", "Environment", "RemoteDebugConfig", "InfraCheckConfig", "ProfilerConfig",
                "ProfilerRuleConfigurations"} & set(job)
    assert answer["updated"] != "answered"


def test_moto_alone_stamps_an_object_with_the_wall_clock():
    # Given moto alone (put_checkpoint is not used)
    with mock_aws():
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket="rule-actions-checkpoints")
        before = dt.datetime.now(dt.UTC).replace(microsecond=0)
        # When a checkpoint is put through the API
        s3.put_object(Bucket="rule-actions-checkpoints", Key="churn-train/checkpoints/c.pt", Body=b"x")
        listed = s3.list_objects_v2(Bucket="rule-actions-checkpoints")["Contents"][0]["LastModified"]
    # Then it is listed at the wall clock's time: no simulated time can be given
    assert before <= listed <= dt.datetime.now(dt.UTC) and listed != NOW


# --------------------------------------------------------------------------- CreateTrainingJob with install()


def test_a_name_in_use_is_refused_with_resource_in_use_and_the_job_is_kept(aws: Clients):
    # Given a training job
    sagemaker = aws("sagemaker")
    arn = sagemaker.create_training_job(**minimal("churn-train"))["TrainingJobArn"]
    # When a job of the same name is created again, with another definition
    with pytest.raises(ClientError) as refused:
        sagemaker.create_training_job(**minimal("churn-train", StoppingCondition={"MaxRuntimeInSeconds": 60}))
    # Then it is refused as SageMaker refuses it (an error the operation's model lists, naming the job's ARN), and
    # the first job is left as it was
    error = refused.value.response["Error"]
    assert error["Code"] == "ResourceInUse"
    assert error["Code"] in {e.name for e in MODEL.operation_model("CreateTrainingJob").error_shapes}
    assert error["Message"] == ("Training job names must be unique within an AWS account and region, and a training "
                                f"job with this name already exists ({arn})")
    assert described(sagemaker, "churn-train")["StoppingCondition"] == {"MaxRuntimeInSeconds": 3600}


def test_a_new_job_is_in_progress_and_starting_with_nothing_invented(aws: Clients):
    # Given a request with metric definitions of its own, and one without any
    sagemaker = aws("sagemaker")
    request = full("churn-train")
    created = sagemaker.create_training_job(**request)
    valid("CreateTrainingJob", request, created)
    sagemaker.create_training_job(**minimal("bare"))
    # When they are described
    job, bare = described(sagemaker, "churn-train"), described(sagemaker, "bare")
    # Then each is InProgress and Starting, its one transition so far, not started nor ended, without artifacts or
    # metrics, and its AlgorithmSpecification is the request's (no MetricDefinitions of moto's)
    assert created["TrainingJobArn"] == job["TrainingJobArn"] == f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/churn-train"
    for answer in (job, bare):
        assert (answer["TrainingJobStatus"], answer["SecondaryStatus"]) == ("InProgress", "Starting")
        assert [{k: v for k, v in t.items() if k != "StartTime"} for t in answer["SecondaryStatusTransitions"]] == [
            {"Status": "Starting", "StatusMessage": "Preparing the instances for training"}]
        assert answer["SecondaryStatusTransitions"][0]["StartTime"] == answer["CreationTime"]
        assert not {"TrainingStartTime", "TrainingEndTime", "ModelArtifacts", "FinalMetricDataList"} & set(answer)
    assert job["AlgorithmSpecification"] == request["AlgorithmSpecification"]
    assert bare["AlgorithmSpecification"] == minimal("bare")["AlgorithmSpecification"]
    assert moto_sagemaker.training_job_status("churn-train") == "InProgress"  # the backend both modes read


def test_every_member_of_the_request_round_trips_through_describe_and_list_tags(aws: Clients):
    # Given a request with many members (the ones moto's backend takes and the ones it does not)
    sagemaker = aws("sagemaker")
    request = full("churn-train")
    arn = sagemaker.create_training_job(**request)["TrainingJobArn"]
    # When the job is described and its tags listed
    job = described(sagemaker, "churn-train")
    tags = sagemaker.list_tags(ResourceArn=arn)
    valid("ListTags", {"ResourceArn": arn}, tags)
    # Then every member Describe's output has comes back as given; Tags (not Describe's) come back from ListTags, and
    # SessionChainingConfig, which Describe's output has not, is not returned
    output = MODEL.operation_model("DescribeTrainingJob").output_shape.members
    assert set(request) - set(output) == {"Tags", "SessionChainingConfig"}
    assert {key: job.get(key) for key in request if key in output} == {
        key: value for key, value in request.items() if key in output}
    assert tags["Tags"] == request["Tags"]
    assert not {"Tags", "SessionChainingConfig"} & set(job)


def test_defaults_are_described_as_sagemaker_describes_them(aws: Clients):
    # Given a request without the flags
    sagemaker = aws("sagemaker")
    sagemaker.create_training_job(**minimal("bare"))
    # When it is described
    job = described(sagemaker, "bare")
    # Then the flags are False, and the members not given are absent
    assert (job["EnableNetworkIsolation"], job["EnableInterContainerTrafficEncryption"],
            job["EnableManagedSpotTraining"]) == (False, False, False)
    assert not {"RetryStrategy", "Environment", "CheckpointConfig", "VpcConfig", "HyperParameters"} & set(job)


def test_a_restart_copies_describe_into_a_new_job_with_the_same_checkpoints(aws: Clients):
    # Given a job that was stopped after running over its time
    sagemaker = aws("sagemaker")
    sagemaker.create_training_job(**full("churn-train"))
    moto_sagemaker_job_stopped(aws, "churn-train")
    old = described(sagemaker, "churn-train")
    # When a restart copies its description into CreateTrainingJob's request under a new name, with its tags
    members = MODEL.operation_model("CreateTrainingJob").input_shape.members
    request = {key: value for key, value in old.items() if key in members}
    request.update(TrainingJobName="churn-train-r1",
                   Tags=sagemaker.list_tags(ResourceArn=old["TrainingJobArn"])["Tags"])
    created = sagemaker.create_training_job(**request)
    valid("CreateTrainingJob", request, created)
    # Then the new job starts, with the old one's definition and checkpoints; the old one stays as it was, and a
    # second restart under the same name is refused
    new = described(sagemaker, "churn-train-r1")
    assert (new["TrainingJobStatus"], new["SecondaryStatus"]) == ("InProgress", "Starting")
    assert new["CheckpointConfig"] == old["CheckpointConfig"] == full("x")["CheckpointConfig"]
    assert {k: v for k, v in new.items() if k in members and k != "TrainingJobName"} == {
        k: v for k, v in old.items() if k in members and k != "TrainingJobName"}
    assert described(sagemaker, "churn-train")["TrainingJobStatus"] == "Stopped"
    with pytest.raises(ClientError, match="ResourceInUse"):
        sagemaker.create_training_job(**request)


def moto_sagemaker_job_stopped(aws: Clients, name: str) -> None:
    """StopTrainingJob, then Stopped (MaxRuntimeExceeded), as SageMaker would end it (put_training_job plays it)."""
    aws("sagemaker").stop_training_job(TrainingJobName=name)
    moto_sagemaker.put_training_job(name, "Stopped", secondary_status="MaxRuntimeExceeded")


# --------------------------------------------------------------------------- UpdateTrainingJob


def test_update_training_job_sets_the_warm_pool_s_keep_alive(aws: Clients):
    # Given a job with a warm pool of 30 minutes
    sagemaker = aws("sagemaker")
    request = full("churn-train")
    sagemaker.create_training_job(**request)
    # When its keep-alive period is updated
    update = {"TrainingJobName": "churn-train", "ResourceConfig": {"KeepAlivePeriodInSeconds": 120}}
    answer = sagemaker.update_training_job(**update)
    # Then the answer is the job's ARN, and only the keep-alive period of its ResourceConfig changed
    valid("UpdateTrainingJob", update, answer)
    job = described(sagemaker, "churn-train")
    assert answer["TrainingJobArn"] == job["TrainingJobArn"]
    assert job["ResourceConfig"] == {**request["ResourceConfig"], "KeepAlivePeriodInSeconds": 120}
    assert job["LastModifiedTime"] >= job["CreationTime"]


def test_update_training_job_of_an_unknown_job_is_resource_not_found(aws: Clients):
    # Given no job
    sagemaker = aws("sagemaker")
    # When one is updated
    with pytest.raises(ClientError) as refused:
        sagemaker.update_training_job(TrainingJobName="nobody", ResourceConfig={"KeepAlivePeriodInSeconds": 60})
    # Then it is not found, an error the operation's model lists
    code = refused.value.response["Error"]["Code"]
    assert code == "ResourceNotFound"
    assert code in {e.name for e in MODEL.operation_model("UpdateTrainingJob").error_shapes}


# --------------------------------------------------------------------------- put_checkpoint


def test_checkpoints_are_listed_at_the_simulated_times_they_were_written(aws: Clients):
    # Given checkpoints written at simulated times, the bucket created by the first one (a time with microseconds,
    # one naive, taken as UTC, one in another zone)
    times = [NOW, NOW + dt.timedelta(minutes=30, microseconds=250_000),
             (NOW + dt.timedelta(hours=1)).replace(tzinfo=None),
             (NOW + dt.timedelta(hours=2)).astimezone(dt.timezone(dt.timedelta(hours=-5)))]
    uris = [moto_s3.put_checkpoint(CHECKPOINTS, when) for when in times]
    # When the checkpoint prefix is listed (as the restart's loop guard lists it) and the newest read
    s3 = aws("s3")
    request = {"Bucket": "rule-actions-checkpoints", "Prefix": "churn-train/checkpoints/"}
    listed = s3.list_objects_v2(**request)
    newest = max(listed["Contents"], key=lambda item: item["LastModified"])
    # Then each is listed at its time (whole seconds), the newest the last written, under the prefix, as the URI says
    expected = [NOW, NOW + dt.timedelta(minutes=30), NOW + dt.timedelta(hours=1), NOW + dt.timedelta(hours=2)]
    assert sorted(item["LastModified"] for item in listed["Contents"]) == expected
    assert newest["LastModified"] == NOW + dt.timedelta(hours=2)
    assert uris[-1] == f"{CHECKPOINTS}/checkpoint-{int(expected[-1].timestamp())}.pt"
    assert sorted(f"s3://rule-actions-checkpoints/{item['Key']}" for item in listed["Contents"]) == sorted(uris)
    assert all(item["Size"] > 0 for item in listed["Contents"])
    head = s3.head_object(Bucket="rule-actions-checkpoints", Key=newest["Key"])
    assert head["LastModified"] == NOW + dt.timedelta(hours=2)


def test_a_checkpoint_goes_into_an_existing_bucket_and_at_its_root(aws: Clients):
    # Given a bucket that exists, with an object of its own
    s3 = aws("s3")
    s3.create_bucket(Bucket="rule-actions-checkpoints")
    s3.put_object(Bucket="rule-actions-checkpoints", Key="other/readme.txt", Body=b"kept")
    # When checkpoints are written under a prefix and at the bucket's root
    moto_s3.put_checkpoint(CHECKPOINTS + "/", NOW)
    root = moto_s3.put_checkpoint("s3://rule-actions-checkpoints", NOW)
    # Then the bucket keeps its object and has both, each at the time given
    keys = {item["Key"]: item["LastModified"] for item in s3.list_objects_v2(Bucket="rule-actions-checkpoints")["Contents"]}
    epoch = int(NOW.timestamp())
    assert root == f"s3://rule-actions-checkpoints/checkpoint-{epoch}.pt"
    assert set(keys) == {"other/readme.txt", f"churn-train/checkpoints/checkpoint-{epoch}.pt", f"checkpoint-{epoch}.pt"}
    assert keys[f"checkpoint-{epoch}.pt"] == keys[f"churn-train/checkpoints/checkpoint-{epoch}.pt"] == NOW
    with pytest.raises(ValueError, match="s3://"):
        moto_s3.put_checkpoint("/opt/ml/checkpoints", NOW)


def test_the_gaps_name_apis_of_botocore_s_models():
    # Given the gaps this change fills
    import botocore.session

    gaps = [gap for gap in (*moto_sagemaker.GAPS, *moto_s3.GAPS)
            if gap.api in ("CreateTrainingJob", "UpdateTrainingJob", "ListObjectsV2")]
    # Then each names an operation of its service's model, and says what moto lacks
    assert {(gap.service, gap.api) for gap in gaps} == {
        ("sagemaker", "CreateTrainingJob"), ("sagemaker", "UpdateTrainingJob"), ("s3", "ListObjectsV2")}
    for gap in gaps:
        assert gap.api in botocore.session.get_session().get_service_model(gap.service).operation_names and gap.lacks
    assert callable(moto_s3.install)
