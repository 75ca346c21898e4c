"""moto, answering faster what the replay asks of it most, with the same answers: nothing here fills a gap (the other
modules do); each speed-up does what moto or botocore does in less time, and tests/integration/test_moto_speed.py
checks that each answers exactly as their own code does.

    responses  moto's JSON response serializer (what moto writes from the botocore model as JSON: SageMaker's
               answers, DynamoDB's, CloudWatch's GetMetricData...) looks each member of the output shape up anew for
               every value: six alias rules, each building a context, then the object tried under each name they
               give (a scheduled evaluation's Search of 5 running training jobs walks about 500 members so, 55% of
               the call's time). Here each shape's members are walked by a writer made once per shape, and the names
               a member is looked up under are worked out once per member and kind of object, by moto's own alias
               rules: the same JSON, byte for byte.
    search     moto's Search converts each filter's name to snake case, character by character, once per job of the
               account (every training job ever seeded, at every scheduled run): the conversion is memoized.
    templates  moto's CloudFormation parses every template with PyYAML's pure-Python loader, a JSON one too (JSON is
               YAML): a template that is JSON PyYAML reads alike is parsed as JSON (install_templates).
    regions    botocore lists a service's regions (moto asks for each backend's, and for ec2's as moto.ec2 is
               imported: moto's CloudFormation and SSM import it) by parsing the service's whole model for its
               endpoint prefix: ec2's is 4 MB. The prefix is read from the model's metadata alone, at the start of its
               file (after its version and documentation: every botocore model), its sdk-extras merged as botocore
               merges them.

install() is idempotent and affects this process only (the replay's embedded AWS, or a ThreadedMotoServer in it).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from enum import Enum
from typing import Any

from moto.core.constants import MISSING
from moto.core.serialize import (
    DEFAULT_ALIAS_PROVIDERS,
    AttributePickerContext,
    JSONSerializer,
    XFormedAttributePicker,
)
from moto.core.utils import get_value

_MARK = "_rule_actions_speed"


# --------------------------------------------------------------------------- responses: moto's JSON serializer


Writer = Callable[[Any, dict[str, Any], Any, str], None]  # (serializer, into, value, key)


def _name(shape: Any) -> Callable[[str], Any]:
    """moto's get_serialized_name(shape, key): the model's serialized name of the shape, else the key."""
    if "name" in shape.serialization:
        fixed = shape.serialization["name"]
        return lambda key: fixed
    return lambda key: key


class _Writers:
    """One writer per shape (made at its first use, kept with the shape: moto's service models and their shapes are
    made once per process), each doing for a value of its shape what moto's JSONSerializer._serialize does."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[Any, Writer]] = {}

    def of(self, shape: Any) -> Writer:
        found = self._made.get(id(shape))
        if found is None or found[0] is not shape:
            found = (shape, self._make(shape))
            self._made[id(shape)] = found
        return found[1]

    def _make(self, shape: Any) -> Writer:
        name = _name(shape)
        kind = shape.type_name
        if kind == "structure":
            return self._structure(shape, name)
        if kind == "list":
            return self._list(shape, name)
        if kind == "map":
            return self._map(shape, name)
        if kind == "string":
            def string(serializer: Any, into: dict[str, Any], value: Any, key: str) -> None:
                if type(value) is str:
                    into[name(key)] = value
                    return
                if isinstance(value, Enum):
                    value = value.value
                into[name(key)] = str(value) if value not in [None, {}, []] else value
            return string
        if kind == "timestamp":
            def timestamp(serializer: Any, into: dict[str, Any], value: Any, key: str) -> None:
                wrapper: dict[str, Any] = {}
                serializer._timestamp_serializer.serialize(wrapper, value, shape, "timestamp")
                into[name(key)] = wrapper["timestamp"]
            return timestamp
        if kind == "blob":
            return lambda serializer, into, value, key: into.__setitem__(name(key), serializer._base64(value))
        if kind in ("integer", "long"):
            return lambda serializer, into, value, key: into.__setitem__(name(key), int(value))
        if kind in ("float", "double"):
            return lambda serializer, into, value, key: into.__setitem__(name(key), float(value))
        return lambda serializer, into, value, key: into.__setitem__(name(key), value)

    def _structure(self, shape: Any, name: Callable[[str], Any]) -> Writer:
        if shape.is_document_type:
            return lambda serializer, into, value, key: into.__setitem__(key, value)
        made: list[list[_Member]] = []  # its members, made at the first value (a shape may contain itself)

        def structure(serializer: Any, into: dict[str, Any], value: Any, key: str) -> None:
            if value is None:
                return
            if not made:  # (a list made whole, then added: a concurrent request sees it whole or not at all)
                made.append([_Member(self, shape, k, s) for k, s in shape.members.items()])
            members = made[0]
            wrapper: dict[str, Any] = {} if key else into
            if type(value) is dict:  # most of moto's answers: its names looked up with dict.get
                for member in members:
                    plain = member.plain or member.learn(serializer, value)
                    if plain is _DOTTED:
                        found = member.pick(serializer, value)
                    else:
                        for known in plain:
                            found = value.get(known, MISSING)
                            if found is not MISSING:
                                break
                        else:
                            found = None
                    if found is not None:
                        member.write(serializer, wrapper, found, member.key)
            else:
                for member in members:
                    found = member.pick(serializer, value)
                    if found is not None:
                        member.write(serializer, wrapper, found, member.key)
            if key:
                into[name(key)] = wrapper
        return structure

    def _list(self, shape: Any, name: Callable[[str], Any]) -> Writer:
        member = shape.member
        item_key = member.name

        def listed(serializer: Any, into: dict[str, Any], value: Any, key: str) -> None:
            write = self.of(member)
            items = []
            for item in value:
                wrapper: dict[str, Any] = {}
                write(serializer, wrapper, item, item_key)
                items.append(wrapper[item_key] if item_key in wrapper else item)
            into[name(key)] = items
        return listed

    def _map(self, shape: Any, name: Callable[[str], Any]) -> Writer:
        value_shape = shape.value

        def mapped(serializer: Any, into: dict[str, Any], value: Any, key: str) -> None:
            write = self.of(value_shape)
            entries: dict[str, Any] = {}
            into[name(key)] = entries
            for entry_key, entry in value.items():
                write(serializer, entries, entry, entry_key)
        return mapped


_DOTTED: tuple[str, ...] = ("",)  # (a name moto never gives: a member's names include a path)


class _Member:
    """A structure's member: its writer, and the names moto's value picker looks a value up under, by kind of object
    (moto's alias rules read the member's shape, its parent and the object's class; an object with a Meta, whose
    aliases are its own, is looked up by moto's picker itself)."""

    __slots__ = ("key", "names", "parent", "plain", "shape", "write")

    def __init__(self, writers: _Writers, parent: Any, key: str, shape: Any) -> None:
        self.key, self.shape, self.parent = key, shape, parent
        self.write = writers.of(shape)
        self.names: dict[type, tuple[tuple[str, bool], ...]] = {}
        self.plain: tuple[str, ...] | None = None  # the names for a dict, when none is a dotted path
        shape.parent = parent  # as moto's _serialize_type_structure sets it before each lookup

    def learn(self, serializer: Any, value: dict[str, Any]) -> tuple[str, ...]:
        """The names a dict's value is looked up under (_DOTTED: one is a path, looked up by pick())."""
        self.pick(serializer, value)
        names = self.names[dict]
        self.plain = _DOTTED if any(dotted for _, dotted in names) else tuple(name for name, _ in names)
        return self.plain

    def pick(self, serializer: Any, obj: Any) -> Any:
        picker = serializer._value_picker
        if hasattr(obj, "Meta"):
            self.shape.parent = self.parent
            return picker(AttributePickerContext(obj=obj, key=self.key, shape=self.shape))
        cls = obj.__class__
        names = self.names.get(cls)
        if names is None:
            self.shape.parent = self.parent
            context = AttributePickerContext(obj=obj, key=self.key, shape=self.shape)
            names = self.names[cls] = tuple((name, "." in name) for name in picker.get_possible_keys(context))
        if cls is dict:
            for name, dotted in names:
                value = get_value(obj, name, MISSING) if dotted else obj.get(name, MISSING)
                if value is not MISSING:
                    return value
            return None
        for name, _dotted in names:
            value = get_value(obj, name, MISSING)
            if value is not MISSING:
                return value
        return None


_WRITERS = _Writers()


def _fast(serializer: Any) -> bool:
    """Whether moto would serialize this response as the writers do: JSONSerializer itself, moto's default picker
    (its alias rules, no response transformers)."""
    picker = serializer._value_picker
    return (type(serializer) is JSONSerializer and type(picker) is XFormedAttributePicker
            and not picker.response_transformers and picker.alias_providers == DEFAULT_ALIAS_PROVIDERS)


def _serialize_result(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def serialize_result(self: Any, resp: Any, result: Any) -> Any:
        if not _fast(self):
            return original(self, resp, result)
        output_shape = self.operation_model.output_shape
        serialized: dict[str, Any] = self.MAP_TYPE()
        if output_shape is not None:
            _WRITERS.of(output_shape)(self, serialized, result, "")
        return self._serialized_result_to_response(resp, result, output_shape, serialized)
    return serialize_result


# --------------------------------------------------------------------------- templates: JSON parsed as JSON

# Where PyYAML (YAML 1.1) would read a JSON document otherwise than json does, the template goes to moto's own parse:
# a float without a dot or with an unsigned exponent (a string in YAML 1.1), a merge key "<<", a surrogate escape
# (json joins a pair into one character, YAML keeps two), a raw line break of YAML's own inside a string (YAML folds
# it), a character PyYAML's reader refuses.
_YAML_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_YAML_BREAKS = re.compile("[\x85\u2028\u2029]")


class _NotAsYaml(ValueError):
    """A JSON document PyYAML would read otherwise."""


def _float(literal: str) -> float:
    if not _YAML_FLOAT.fullmatch(literal):
        raise _NotAsYaml(literal)
    return float(literal)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if any(key == "<<" for key, _ in pairs):
        raise _NotAsYaml("<<")
    return dict(pairs)


def json_as_yaml(text: str) -> Any:
    """The document `text` as PyYAML's loader reads it when `text` is JSON that json reads the same way; else
    ValueError (the caller parses it as before)."""
    from yaml.reader import Reader  # type: ignore[import-untyped]

    if (not text.lstrip().startswith("{") or _SURROGATE_ESCAPE.search(text) or _YAML_BREAKS.search(text)
            or Reader.NON_PRINTABLE.search(text)):
        raise _NotAsYaml("not a JSON object read alike")
    return json.loads(text, parse_float=_float, object_pairs_hook=_pairs)


def _parse_template(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
    @functools.wraps(original)
    def parse_template(template: Any) -> Any:
        if isinstance(template, str):
            try:
                parsed = json_as_yaml(template)
            except ValueError:
                pass
            else:
                import yaml  # type: ignore[import-untyped]
                from moto.cloudformation.utils import yaml_tag_constructor

                yaml.add_multi_constructor("", yaml_tag_constructor)  # as moto's does, for the YAML ones after
                return parsed
        return original(template)
    return parse_template


# --------------------------------------------------------------------------- regions: the endpoint prefix alone

# The model's opening: its top-level members before "metadata" (each a string: "version", "documentation"), then it.
_HEAD = re.compile(r'\s*\{\s*(?:"[^"\\]*"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*)*"metadata"\s*:\s*')
_HEAD_CHARACTERS = 8192  # a model's metadata: a few hundred characters at its start


@functools.cache
def _prefix_in(search_paths: tuple[str, ...], extras_types: tuple[str, ...], service_name: str,
               version: str) -> str | None:
    """The endpoint prefix in the metadata at the start of the model file botocore's loader would read (its search
    paths in order, .json before .json.gz), with the sdk-extras it would merge into the model merged into it."""
    from botocore import loaders

    name = os.path.join(service_name, version, "service-2")
    roots = [root for root in search_paths if os.path.isdir(root)]
    metadata: Any = None
    for root in roots:
        for extension, opener in loaders._JSON_OPEN_METHODS.items():
            path = os.path.join(root, name) + extension
            if metadata is None and os.path.isfile(path):
                with opener(path, "rb") as file:
                    head = file.read(_HEAD_CHARACTERS).decode("utf-8", errors="replace")
                match = _HEAD.match(head)
                try:
                    metadata = json.JSONDecoder().raw_decode(head, match.end())[0] if match else False
                except ValueError:
                    metadata = False
    if not isinstance(metadata, dict):
        return None
    extras = []
    for kind in extras_types:  # as Loader._find_extras: each kind's first file on the search paths
        found = (loaders.JSONFileLoader().load_file(os.path.join(root, f"{name}.{kind}-extras")) for root in roots)
        extras += [data for data in found if data is not None][:1]
    model = {"metadata": metadata}
    loaders.ExtrasProcessor().process(model, extras)
    prefix = model["metadata"].get("endpointPrefix", service_name)
    return prefix if isinstance(prefix, str) else None


def endpoint_prefix(session: Any, service_name: str) -> str | None:
    """The service's endpointPrefix (else its name, as botocore falls back) read from the start of its model file,
    where botocore's loader would find the file, with the model's sdk-extras merged as botocore merges them; None
    when it cannot be read so (an unknown service, a loader of another kind, a file that does not begin with its
    metadata): botocore's own way then."""
    from botocore import loaders

    loader = session.get_component("data_loader")
    if type(loader) is not loaders.Loader or service_name not in loader.list_available_services("service-2"):
        return None
    version = loader.determine_latest_version(service_name, "service-2")
    return _prefix_in(tuple(loader.search_paths), tuple(loader.extras_types), service_name, version)


def _get_available_regions(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def get_available_regions(self: Any, service_name: str, partition_name: str = "aws",
                              allow_non_regional: bool = False) -> Any:
        prefix = endpoint_prefix(self, service_name)
        if prefix is None:
            return original(self, service_name, partition_name, allow_non_regional)
        resolver = self._get_internal_component("endpoint_resolver")
        return resolver.get_available_endpoints(prefix, partition_name, allow_non_regional)
    return get_available_regions


# --------------------------------------------------------------------------- install


def install() -> None:
    """Idempotent; for in-process mocks and a ThreadedMotoServer in this process alike. Call it before moto.ec2 is
    imported (moto's CloudFormation imports it) for its region list to be read the fast way."""
    import botocore.session
    import moto.sagemaker.models as sagemaker_models

    if getattr(JSONSerializer._serialize_result, _MARK, False):
        return
    patches: list[tuple[Any, str, Callable[..., Any]]] = [
        (JSONSerializer, "_serialize_result", _serialize_result(JSONSerializer._serialize_result)),
        (botocore.session.Session, "get_available_regions",
         _get_available_regions(botocore.session.Session.get_available_regions)),
        (sagemaker_models, "camelcase_to_underscores",
         functools.cache(vars(sagemaker_models)["camelcase_to_underscores"])),
    ]
    for owner, name, patched in patches:
        setattr(patched, _MARK, True)
        setattr(owner, name, patched)


def install_templates() -> None:
    """JSON templates parsed as JSON by moto's CloudFormation (which this imports, and moto.ec2 with it: call it when
    deploying, after install()). Idempotent."""
    from moto.cloudformation.models import Stack

    if getattr(Stack.parse_template, _MARK, False):
        return
    patched = _parse_template(Stack.parse_template)
    setattr(patched, _MARK, True)
    setattr(Stack, "parse_template", staticmethod(patched))  # noqa: B010 (a static method of moto's, replaced)
