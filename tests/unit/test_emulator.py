"""The emulator (rule_actions_cli.emulator): each extension of moto names the gap it fills, an API as botocore's service
model names it, and the gaps of a missing API are still missing from the installed moto (an upgrade that fills one
fails here: its extension is then to be removed or checked again)."""

from __future__ import annotations

import json
import subprocess
import sys

import botocore.session
import pytest
from botocore import xform_name

from rule_actions_cli.emulator import Gap, batch, dynamodb, monitoring, organization, pricing, s3, sagemaker

MODULES = (sagemaker, monitoring, pricing, organization, dynamodb, s3, batch)
GAPS = [gap for module in MODULES for gap in module.GAPS]
# Where moto answers each service's requests (a missing API is a missing method there).
RESPONSES = {"sagemaker": "moto.sagemaker.responses:SageMakerResponse", "logs": "moto.logs.responses:LogsResponse",
             "batch": "moto.batch.responses:BatchResponse"}
PROBE = """
import importlib, json, sys
from moto import backend_index
asked = json.loads(sys.argv[1])
def handler(service):
    module, name = asked["responses"][service].split(":")
    return getattr(importlib.import_module(module), name)
found = [[service, method] for service, method in asked["missing"] if hasattr(handler(service), method)]
pricing = any(name == "pricing" for name, _ in backend_index.backend_url_patterns)
print(json.dumps({"found": found, "pricing": pricing}))
"""


@pytest.mark.parametrize("gap", GAPS, ids=lambda gap: f"{gap.service}.{gap.api}")
def test_each_gap_names_an_api_of_botocore_s_model(gap: Gap):
    # Given a gap an extension fills
    # When its service's model is read from botocore
    model = botocore.session.get_session().get_service_model(gap.service)
    # Then the API it names is one of the service's operations, and the gap says what moto lacks there
    assert gap.api in model.operation_names
    assert gap.lacks and gap.moto


def test_every_module_of_the_emulator_names_its_gaps_each_once():
    # Given the emulator's modules
    # Then each names at least one gap and installs its extensions, and no API is named twice (one extension per gap)
    assert all(module.GAPS and callable(module.install) for module in MODULES)
    named = [(gap.service, gap.api) for gap in GAPS]
    assert len(named) == len(set(named))


def handler_method(gap: Gap) -> str:
    """The method moto's response class would answer the gap's API with: a REST service's (batch) is named after its
    URL path (/v1/submitservicejob -> submitservicejob), the others' after the operation (snake_case)."""
    operation = botocore.session.get_session().get_service_model(gap.service).operation_model(gap.api)
    if operation.metadata["protocol"] == "rest-json":
        return str(operation.http["requestUri"]).rsplit("/", 1)[1]
    return xform_name(gap.api)


def test_the_missing_apis_are_missing_from_the_installed_moto():
    # Given the gaps whose API moto does not implement at all
    missing = [(gap.service, handler_method(gap)) for gap in GAPS
               if gap.lacks.startswith("not implemented") and gap.service in RESPONSES]
    # When a fresh interpreter (no extension installed) looks them up where moto answers each service
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps({"missing": missing, "responses": RESPONSES})],
                          capture_output=True, text=True, timeout=120, check=True)
    answer = json.loads(done.stdout)
    # Then none is there (and moto still has no Price List service)
    assert len(missing) >= 11 and answer == {"found": [], "pricing": False}
