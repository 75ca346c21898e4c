"""The AWS Price List the embedded account adds to moto (rule_actions_cli.emulator.pricing: moto has no `pricing`
service), checked against botocore's `pricing` model: every request the function makes is valid input, every answer
valid output (PriceList: JSON strings), its filters and pages answered as AWS answers them, in-process and over HTTP
(moto server, the client honouring AWS_ENDPOINT_URL); and the function's adapter reading it."""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.exceptions import ClientError
from botocore.validate import ParamValidator
from moto import mock_aws
from moto.server import ThreadedMotoServer

from rule_actions.effects import client as function_client
from rule_actions.effects.pricing import PriceListApi, filters
from rule_actions_cli.emulator import pricing as moto_pricing

MODEL = botocore.session.get_session().get_service_model("pricing")
P4D = "ml.p4d.24xlarge"


def valid(request: dict[str, Any], response: dict[str, Any]) -> None:
    op = MODEL.operation_model("GetProducts")
    report = ParamValidator().validate(request, op.input_shape)
    assert not report.has_errors(), report.generate_report()
    report = ParamValidator().validate({k: v for k, v in response.items() if k != "ResponseMetadata"},
                                       op.output_shape)
    assert not report.has_errors(), report.generate_report()


@pytest.fixture
def pricing():
    moto_pricing.install()
    with mock_aws():
        yield boto3.client("pricing", region_name="us-east-1")


def test_the_function_s_request_and_the_answer_are_the_model_s(pricing):
    # Given the request the adapter makes for p4d in us-east-1
    request = {"ServiceCode": "AmazonSageMaker", "Filters": filters(P4D, "us-east-1"), "FormatVersion": "aws_v1",
               "MaxResults": 100}
    # When the embedded Price List answers it
    answer = pricing.get_products(**request)
    # Then both are the model's shapes: PriceList a list of JSON strings, one per component of the sample prices
    valid(request, answer)
    products = [json.loads(item) for item in answer["PriceList"]]
    assert {p["product"]["attributes"]["platoinstancetype"] for p in products} == {"Training", "Processing",
                                                                                  "BatchTransform"}
    assert all(p["product"]["attributes"]["instanceName"] == P4D and p["serviceCode"] == "AmazonSageMaker"
               for p in products)
    [offer] = products[0]["terms"]["OnDemand"].values()
    [dimension] = offer["priceDimensions"].values()
    assert dimension["unit"] == "Hrs" and float(dimension["pricePerUnit"]["USD"]) == 37.688


def test_filters_and_pages_are_answered_as_aws_answers_them(pricing):
    # A field no product has matches nothing; a page of one gives a token, the last page none
    assert pricing.get_products(ServiceCode="AmazonSageMaker", Filters=[
        {"Type": "TERM_MATCH", "Field": "nope", "Value": "x"}])["PriceList"] == []
    first = pricing.get_products(ServiceCode="AmazonSageMaker", Filters=filters(P4D, "us-east-1"), MaxResults=2)
    rest = pricing.get_products(ServiceCode="AmazonSageMaker", Filters=filters(P4D, "us-east-1"), MaxResults=2,
                                NextToken=first["NextToken"])
    assert len(first["PriceList"]) == 2 and len(rest["PriceList"]) == 1 and "NextToken" not in rest
    assert pricing.get_products(ServiceCode="AmazonEC2", Filters=[])["PriceList"] == []
    with pytest.raises(ClientError, match="InvalidParameterException"):
        pricing.get_products(ServiceCode="AmazonSageMaker", MaxResults=1000)


def test_the_adapter_reads_it_over_http_through_aws_endpoint_url(monkeypatch):
    # Given moto server on a free port of 127.0.0.1 and AWS_ENDPOINT_URL pointing at it, as the artifact tests run
    moto_pricing.install()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        urllib.request.urlopen(urllib.request.Request(f"http://{host}:{port}/moto-api/reset", method="POST"),
                               timeout=5)
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
        for key, value in (("AWS_ACCESS_KEY_ID", "x"), ("AWS_SECRET_ACCESS_KEY", "x")):
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
        served = moto_pricing.calls()
        # When the function's adapter asks for a price in eu-west-1 (its endpoint: eu-central-1) twice
        prices = PriceListApi(lambda endpoint: function_client("pricing", endpoint))
        found = prices.products("ml.g5.2xlarge", "eu-west-1")
        assert prices.products("ml.g5.2xlarge", "eu-west-1") == found
        # Then the server answered it, once, with the sample price of that region
        assert found["Training"] == 1.685 and moto_pricing.calls() - served == prices.calls == 1
        assert os.environ["AWS_ENDPOINT_URL"].startswith("http://127.0.0.1:")
    finally:
        server.stop()
