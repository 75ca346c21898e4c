"""What the job families share besides base.py: SageMaker's operation names for each job type (a family's own API,
and the jobs another family's events lead to: a pipeline step's job, a tuning job's trials), and the settings
that one family documents and others obey: a parent's outcome field (`tuning_job_outcomes`, `pipeline_outcomes`)
and its switch (`tuning_trials_alert`: the training family holds a tuning job's trials' outcomes back;
`pipeline_step_jobs_alert`: every family may hold back the outcomes of the jobs a pipeline's steps launched).

A switch governs job outcomes only, and only while the parent reports (its outcome field attaches actions): then
the child's outcome is held back (shown skipped, naming the parent), else the child reports on its own. A rule
status of a trial or a step job is acted on like any job's, whatever the switches say."""

from __future__ import annotations

import re
from typing import Any

from rule_actions.contract import IN_PROGRESS, JOB_NAME_PREFIX
from rule_actions.fields import ActionMap, Actions, Flag, TextList
from rule_actions.ports import Configured
from rule_actions.records import Action, JobApi, JobRef, Place

TRAINING = JobApi(describe="DescribeTrainingJob", stop="StopTrainingJob", list="ListTrainingJobs",
                  name="TrainingJobName", summaries="TrainingJobSummaries", search="TrainingJob",
                  create="CreateTrainingJob", update="UpdateTrainingJob")
TUNING = JobApi(describe="DescribeHyperParameterTuningJob", stop="StopHyperParameterTuningJob",
                list="ListHyperParameterTuningJobs", name="HyperParameterTuningJobName",
                summaries="HyperParameterTuningJobSummaries", search="HyperParameterTuningJob")
PROCESSING = JobApi(describe="DescribeProcessingJob", stop="StopProcessingJob", list="ListProcessingJobs",
                    name="ProcessingJobName", summaries="ProcessingJobSummaries")
TRANSFORM = JobApi(describe="DescribeTransformJob", stop="StopTransformJob", list="ListTransformJobs",
                   name="TransformJobName", summaries="TransformJobSummaries")
PIPELINE_EXECUTION = JobApi(describe="DescribePipelineExecution", stop="StopPipelineExecution",
                            list="ListPipelineExecutions", name="PipelineExecutionArn",
                            summaries="PipelineExecutionSummaries")
# A tuning job's trials: ListTrainingJobsForHyperParameterTuningJob (its failed ones, with their reasons).
LIST_TRIALS = "ListTrainingJobsForHyperParameterTuningJob"
# The ARN resource type of each job type (arn:...:sagemaker:<region>:<account>:<resource>/<name>).
TRAINING_JOB, TUNING_JOB, PROCESSING_JOB, TRANSFORM_JOB = (
    "training-job", "hyper-parameter-tuning-job", "processing-job", "transform-job")
# Each job type's page in the SageMaker console (#/<path>/<name>) and its CloudWatch Logs group (a tuning job's
# trials log as training jobs, in streams that start with the tuning job's name).
CONSOLE_PATHS = {TRAINING_JOB: "jobs", TUNING_JOB: "hyper-tuning-jobs", PROCESSING_JOB: "processing-jobs",
                 TRANSFORM_JOB: "transform-jobs"}
LOG_GROUPS = {TRAINING_JOB: "/aws/sagemaker/TrainingJobs", TUNING_JOB: "/aws/sagemaker/TrainingJobs",
              PROCESSING_JOB: "/aws/sagemaker/ProcessingJobs", TRANSFORM_JOB: "/aws/sagemaker/TransformJobs"}



def scope_field(key: str, noun: str) -> TextList:
    return TextList(key, f"Act only on {noun}s whose names start with one of these (the EventBridge pattern and IAM "
                    "narrow to them); empty: every job.", pattern=JOB_NAME_PREFIX,
                    hint=f"a {noun} name prefix (letters, digits, '-'; at most 63)",
                    check=re.compile(JOB_NAME_PREFIX, re.ASCII).fullmatch)


# The parents' scopes (declared here: a child's stop may name its parent: `stop` with job tuning_job or
# pipeline_execution) and how a stop names them.
TUNING_SCOPE = scope_field("tuning_job_prefixes", "hyperparameter tuning job")
PIPELINE_SCOPE = scope_field("pipeline_prefixes", "pipeline")
OWN_JOB, TUNING_OWNER, PIPELINE_OWNER = "job", "tuning_job", "pipeline_execution"
# The names SageMaker gives (botocore's model): a pipeline's name (PipelineName: at most 256) and an execution's id
# (no shape of its own: PipelineExecutionArn says only `.*`; SageMaker gives 12 lower-case letters and digits, and
# the bound here is PipelineExecutionName's, 82), in an ARN of at most 2,048 characters (PipelineExecutionArn); a
# tuning job's name (HyperParameterTuningJobName: at most 32) in an ARN of at most 256.
PIPELINE_NAME = r"[a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,255}"
EXECUTION_ID = r"[a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,81}"
EXECUTION_ARN = (r"arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:pipeline/(?P<pipeline>" + PIPELINE_NAME +
                 r")/execution/(?P<id>" + EXECUTION_ID + ")")  # compiled on first use (re's cache)
EXECUTION_ARN_MAX = 2048
EXECUTION_ARN_HINT = ("arn:...:pipeline/<pipeline>/execution/<id>: a pipeline name and an execution id of letters, "
                      "digits and '-' (at most 256 and 82), at most 2048 in all")
TUNING_NAME = r"[a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,31}"
TUNING_NAME_HINT = "letters, digits and '-', at most 32"
TUNING_ARN = r"arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:hyper-parameter-tuning-job/" + TUNING_NAME
TRAINING_ARN = (r"arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:training-job/[a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,62}")
JOB_ARN_MAX = 256  # TrainingJobArn, HyperParameterTuningJobArn
PIPELINE_RUNNING = "Executing"


def execution_name(arn: Any) -> str | None:
    """<pipeline>/<execution id> of a pipeline execution's ARN, None when it is none SageMaker gives."""
    if not isinstance(arn, str) or len(arn) > EXECUTION_ARN_MAX:
        return None
    found = re.fullmatch(EXECUTION_ARN, arn, re.ASCII)
    return f"{found['pipeline']}/{found['id']}" if found else None


def is_arn(arn: Any, pattern: str) -> bool:
    """`arn` is a job ARN of the pattern SageMaker gives (TUNING_ARN, TRAINING_ARN), at most JOB_ARN_MAX."""
    return isinstance(arn, str) and len(arn) <= JOB_ARN_MAX and re.fullmatch(pattern, arn, re.ASCII) is not None


# What SageMaker does when a job of the family is stopped, as the stop's row says it (JobRef.consequence)
TUNING_STOPPED = "SageMaker stops its running trials too, and launches no more"
EXECUTION_STOPPED = ("SageMaker does not interrupt a running Callback or Lambda step: the execution stays Stopping "
                     "until it ends")


def tuning_ref(arn: str, status: str = "") -> JobRef:
    """A tuning job, by its ARN (one is_arn(arn, TUNING_ARN) holds for)."""
    name = arn.rpartition("/")[2]
    return JobRef(TUNING, "hyperparameter tuning job", name, name, arn, IN_PROGRESS, "HyperParameterTuningJobStatus",
                  TUNING_SCOPE, status=status, consequence=TUNING_STOPPED)


def execution_ref(arn: str, status: str = "") -> JobRef | None:
    """A pipeline execution, by its ARN (None when `arn` is not one)."""
    name = execution_name(arn)
    if name is None:
        return None
    return JobRef(PIPELINE_EXECUTION, "pipeline execution", name, arn, arn, PIPELINE_RUNNING,
                  "PipelineExecutionStatus", PIPELINE_SCOPE, insensitive=True, status=status,
                  consequence=EXECUTION_STOPPED)


# The parents' outcome fields (declared here: their children obey them) and their outcomes, in their order.
TUNING_OUTCOME_NAMES = ("Failed", "Stopped", "Completed")
PIPELINE_OUTCOME_NAMES = ("Failed", "CompletedWithFailures", "Stopped", "Succeeded")
TUNING_JOB_OUTCOMES = ActionMap(
    "tuning_job_outcomes", (), "Hyperparameter tuning job outcome (" + ", ".join(TUNING_OUTCOME_NAMES) + ") -> actions "
    "(notify, email, sms, webhook): one message per tuning job, with its counters, its best training job and, "
    "when it failed, its failed trials' reasons. None by default. While it attaches actions, its trials' outcomes "
    "are held back unless tuning_trials_alert.",
    Place.JOB_OUTCOMES, "tuning job outcome", TUNING_OUTCOME_NAMES)
PIPELINE_OUTCOMES = ActionMap(
    "pipeline_outcomes", (), "Pipeline execution outcome (" + ", ".join(PIPELINE_OUTCOME_NAMES) + ") -> actions "
    "(notify, email, sms, webhook): one message per execution, naming every failed step, its type and its job's "
    "own failure reason. None by default. While it attaches actions and pipeline_step_jobs_alert is false, the "
    "outcomes of the jobs its steps launch are held back.",
    Place.JOB_OUTCOMES, "pipeline outcome", PIPELINE_OUTCOME_NAMES)
TUNING_TRIALS_ALERT = Flag(
    "tuning_trials_alert", False,
    "A tuning job's training jobs (its trials) also report their outcomes on their own, through job_outcomes. "
    "False: while tuning_job_outcomes attaches actions, only the tuning job reports, once for all its trials (a "
    "trial's outcome is shown skipped, naming its tuning job); with tuning_job_outcomes empty, trials report "
    "through job_outcomes as any training job. Job outcomes only: a trial's rule statuses (Debugger, Profiler, "
    "monitor rules) are acted on whatever this says.")
PIPELINE_STEP_JOBS_ALERT = Flag(
    "pipeline_step_jobs_alert", True,
    "The jobs a pipeline's steps launch (tagged sagemaker:pipeline-execution-arn) also report their outcomes on "
    "their own, through their family's outcomes. False: while pipeline_outcomes attaches actions, only the "
    "pipeline execution reports them (a step job's outcome is shown skipped, naming its execution); with "
    "pipeline_outcomes empty, they report on their own. Job outcomes only: a step job's rule statuses (Debugger, "
    "Profiler, monitor rules) are acted on whatever this says.")
PIPELINE_TAG = "sagemaker:pipeline-execution-arn"  # the tag SageMaker Pipelines puts on every job a step launches
# A trial's name: the tuning job's name (the prefix of every training job it launches, as the API documents it),
# the trial's three-digit number and eight hex digits (tuning-name-001-0a1b2c3d).
TRIAL_NAME = r"(?P<tuning>[A-Za-z0-9](?:-*[A-Za-z0-9]){0,31})-[0-9]{3}-[0-9a-f]{8}"


# The lines of a FailureReason that only frame the cause (a traceback's frames, the command, the exit code). The
# patterns here are compiled on first use (re's cache), not at import: a cold start never pays for them.
_FRAME = r"\s*(Traceback \(most recent call last\)|File \"|Command \"|, exit code|ExitCode \d|\^+$)"


def reports(config: Configured, outcomes: ActionMap) -> bool:
    """The family whose outcome field this is reports: some outcome of it attaches actions."""
    return any(actions for _, actions in config[outcomes])


def trials_held_back(config: Configured) -> bool:
    """A trial's outcomes are held back: its tuning job reports for it, and tuning_trials_alert is false."""
    return not config[TUNING_TRIALS_ALERT] and reports(config, TUNING_JOB_OUTCOMES)


def step_jobs_held_back(config: Configured) -> bool:
    """A pipeline step's job's outcomes are held back: the execution reports for it, and pipeline_step_jobs_alert
    is false."""
    return not config[PIPELINE_STEP_JOBS_ALERT] and reports(config, PIPELINE_OUTCOMES)


def is_trial_name(name: str) -> bool:
    """A trial's name: <tuning job>-NNN-<8 hex>."""
    return re.fullmatch(TRIAL_NAME, name, re.ASCII) is not None


def essence(reason: str) -> str:
    """The line of a FailureReason that names the cause: SageMaker's reasons end a traceback or a script's error
    message with it ("ValueError: could not convert string to float: 'Month-to-month'"); a one-line reason is
    itself. Plain text is made by the caller."""
    every = [line.strip() for line in reason.splitlines() if line.strip()]
    lines = [line for line in every if not re.match(_FRAME, line)]
    last = lines[-1] if lines else reason.strip()
    if last.startswith("ErrorMessage "):
        last = last[len("ErrorMessage "):].strip().strip('"').strip()
    return last if len(lines) > 1 or len(every) > len(lines) > 0 else reason.strip()


def generic(reason: str) -> bool:
    """A FailureReason that names no cause: empty, or SageMaker's pointer to the logs ("AlgorithmError: See job logs
    for more information", "ClientError: See job logs..."), whose job's ExitMessage says more."""
    text = reason.strip().rstrip(".").strip()
    if not text:
        return True
    head, _, tail = text.partition(":")
    said = (tail if tail and " " not in head.strip() else text).strip().rstrip(".").lower()
    return said in ("see job logs for more information", "see job logs for more details", "see job logs")


def arn_resource(arn: str) -> str:
    """The resource type of a SageMaker ARN (training-job, hyper-parameter-tuning-job...), "" when it has none."""
    head = arn.split("/", 1)[0]
    return head.rpartition(":")[2] if "/" in arn else ""


def attached(config: Configured, field: ActionMap) -> dict[str, tuple[Action, ...]]:
    """What one of the configuration's action maps attaches: key -> its actions."""
    found: Actions = config[field]
    return dict(found)
