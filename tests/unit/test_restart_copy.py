"""What a restart copies is botocore's model: each member CreateTrainingJob takes that DescribeTrainingJob returns
(kinds/restart.py COPIED), but the copy's own name and a serverless job's configuration (never copied)."""

from __future__ import annotations

import botocore.session

from rule_actions.kinds.restart import COPIED, READ_ONLY_RESOURCES, _name

MODEL = botocore.session.get_session().get_service_model("sagemaker")


def test_the_copied_members_are_those_create_takes_and_describe_returns():
    create = set(MODEL.operation_model("CreateTrainingJob").input_shape.members)
    describe = set(MODEL.operation_model("DescribeTrainingJob").output_shape.members)
    assert set(COPIED) == (create & describe) - {"TrainingJobName", "ServerlessJobConfig"}
    # the two Create members Describe never returns: tags (read with ListTags) and session chaining (lost)
    assert create - describe == {"Tags", "SessionChainingConfig"}


def test_the_read_only_resource_members_are_in_create_s_shape_but_stripped():
    resources = MODEL.operation_model("CreateTrainingJob").input_shape.members["ResourceConfig"].members
    assert set(READ_ONLY_RESOURCES) <= set(resources)  # botocore accepts them; SageMaker refuses them


def test_a_copy_s_name_fits_63_characters_never_ends_in_a_dash_and_is_the_same_each_time():
    root = "a" * 59 + "-bcd"  # 63
    assert _name(root, 1) == "a" * 59 + "-r1" and len(_name(root, 1)) == 62
    assert len(_name("x" * 63, 12)) == 63 and _name("x" * 63, 12).endswith("-r12")
    assert _name("llm-pretrain-1", 2) == "llm-pretrain-1-r2" == _name("llm-pretrain-1", 2)
