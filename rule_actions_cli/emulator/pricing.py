"""The AWS Price List API in the embedded account (`GAPS`: moto has no `pricing` service), answering GetProducts from
a small file of SAMPLE prices (sample-prices.json: for the local replay and the tests only, never AWS's prices),
in-process (``mock_aws``) and on ``ThreadedMotoServer`` alike.

GetProducts answers as AWS does (botocore's `pricing` model; the tests check the shapes): ``FormatVersion``
"aws_v1", ``PriceList`` a list of JSON strings, one per product (``product.productFamily`` "ML Instance",
``product.attributes``: ``regionCode``, ``location``, ``instanceName``, ``platoinstancetype``, ``usagetype``...;
``terms.OnDemand.<sku>.<offer>.priceDimensions.<rate>``: unit "Hrs", ``pricePerUnit.USD`` a decimal string),
``Filters`` of type TERM_MATCH matched on the product's attributes (a field no product has matches nothing, as AWS
answers), ``MaxResults`` (1-100) and ``NextToken`` paging. ``calls()`` counts the GetProducts it answered.

How it hooks in (see :func:`install`): a backend for the service name "pricing" is registered as moto registers its
own (``moto.backend_index``'s URL patterns, the module ``moto.pricing`` that ``moto.backends.get_backend`` imports),
for the Price List endpoints (api.pricing.<region>.amazonaws.com) and for the host moto server infers from a signed
request (pricing.<region>.amazonaws.com). Idempotent.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from moto import backend_index
from moto.core.base_backend import BackendDict, BaseBackend
from moto.core.exceptions import JsonRESTError
from moto.core.responses import BaseResponse

from rule_actions.text import digest
from rule_actions_cli.emulator import Gap

GAPS = (Gap("pricing", "GetProducts", "no pricing service at all: one is registered, over sample prices"),)

SAMPLE_PRICES = Path(__file__).resolve().parent / "sample-prices.json"
SERVICE = "pricing"
ENDPOINTS = ["us-east-1", "eu-central-1", "ap-south-1"]  # where AWS serves the Price List Query API
URL_BASE = r"https?://(api\.)?pricing\.(.+)\.amazonaws\.com"
LOCATIONS = {"us-east-1": "US East (N. Virginia)", "eu-west-1": "EU (Ireland)"}
USAGE = {"Training": "Train", "Processing": "Processing", "BatchTransform": "Tsform"}
PAGE_MAX = 100
_COUNT = {"calls": 0}


def sample_products() -> list[dict[str, Any]]:
    """The sample file's prices as Price List products (region x instance type x component)."""
    sample = json.loads(SAMPLE_PRICES.read_text())
    products = []
    for region, rates in sample["regions"].items():
        code = "".join(part[0] for part in region.split("-")[:-1]).upper() + region.rsplit("-", 1)[1]  # USE1
        for instance_type, usd in rates.items():
            for component in sample["components"]:
                sku = "SAMPLE" + digest(f"{region}|{instance_type}|{component}")[:10].upper()
                products.append({
                    "product": {"productFamily": "ML Instance", "sku": sku, "attributes": {
                        "servicecode": "AmazonSageMaker", "regionCode": region,
                        "location": LOCATIONS.get(region, region), "locationType": "AWS Region",
                        "instanceName": instance_type, "instanceType": instance_type,
                        "platoinstancetype": component, "usagetype": f"{code}-{USAGE[component]}:{instance_type}",
                        "operation": "RunInstance", "productFamily": "ML Instance"}},
                    "serviceCode": "AmazonSageMaker",
                    "terms": {"OnDemand": {f"{sku}.JRTCKXETXF": {
                        "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-01-01T00:00:00Z",
                        "termAttributes": {},
                        "priceDimensions": {f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                            "unit": "Hrs", "beginRange": "0", "endRange": "Inf", "appliesTo": [],
                            "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                            "description": f"${usd} per {component} ML instance hour for {instance_type} (sample)",
                            "pricePerUnit": {"USD": f"{usd:.10f}"}}}}}},
                    "version": "sample", "publicationDate": "2026-01-01T00:00:00Z",
                })
    return products


class PricingError(JsonRESTError):
    def __init__(self, code: str, message: str):
        super().__init__(code, message)


class PricingBackend(BaseBackend):
    """The embedded Price List: the sample products, filtered as GetProducts filters them."""

    def __init__(self, region_name: str, account_id: str):
        super().__init__(region_name, account_id)
        self.products = sample_products()

    @property
    def _url_module(self) -> Any:
        return SimpleNamespace(url_bases=[URL_BASE], url_paths={"{0}/$": PricingResponse.dispatch})

    def get_products(self, service_code: str, filters: list[dict[str, str]], token: str | None,
                     size: int) -> tuple[list[str], str | None]:
        _COUNT["calls"] += 1
        for item in filters:
            if item.get("Type") not in ("TERM_MATCH", "EQUALS", "CONTAINS", "ANY_OF", "NONE_OF"):
                raise PricingError("InvalidParameterException", f"Invalid filter type {item.get('Type')!r}")
        found = [p for p in self.products if p["serviceCode"] == service_code
                 and all(_matches(p, item) for item in filters)]
        start = int(token) if token and token.isdigit() else 0
        page = found[start:start + size]
        more = start + size < len(found)
        return [json.dumps(p) for p in page], (str(start + size) if more else None)


def _matches(product: dict[str, Any], item: dict[str, str]) -> bool:
    """A filter on a product attribute (productFamily is one too); values compare without case, as AWS's do."""
    attributes = {**product["product"]["attributes"], "productFamily": product["product"]["productFamily"]}
    value: str | None = attributes.get(item.get("Field", ""))
    wanted = str(item.get("Value", ""))
    if value is None:
        return item.get("Type") == "NONE_OF"
    if item["Type"] in ("TERM_MATCH", "EQUALS"):
        return value.lower() == wanted.lower()
    if item["Type"] == "CONTAINS":
        return wanted.lower() in value.lower()
    listed = [v.strip().lower() for v in wanted.split(",")]
    return (value.lower() in listed) == (item["Type"] == "ANY_OF")


class PricingResponse(BaseResponse):
    def __init__(self) -> None:
        super().__init__(service_name=SERVICE)

    @property
    def backend(self) -> PricingBackend:
        return pricing_backends[self.current_account][self.region]

    def get_products(self) -> str:
        size = self._get_param("MaxResults") or PAGE_MAX
        if not isinstance(size, int) or not 1 <= size <= PAGE_MAX:
            raise PricingError("InvalidParameterException", "MaxResults must be from 1 to 100")
        items, token = self.backend.get_products(self._get_param("ServiceCode") or "", self._get_param("Filters") or [],
                                                 self._get_param("NextToken"), size)
        return json.dumps({"FormatVersion": self._get_param("FormatVersion") or "aws_v1", "PriceList": items,
                           **({"NextToken": token} if token else {})})


pricing_backends = BackendDict(PricingBackend, SERVICE, use_boto3_regions=False, additional_regions=ENDPOINTS)


def calls() -> int:
    """GetProducts requests the embedded Price List answered in this process."""
    return _COUNT["calls"]


def install() -> None:
    """Register the service with moto (idempotent): its URL patterns, and this module as ``moto.pricing``."""
    sys.modules.setdefault(f"moto.{SERVICE}", sys.modules[__name__])
    if not any(name == SERVICE for name, _ in backend_index.backend_url_patterns):
        backend_index.backend_url_patterns.insert(0, (SERVICE, re.compile(URL_BASE)))
