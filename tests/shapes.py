"""A raw (JSON) answer or event detail held to botocore's model, strictly: botocore's own parser drops members its
shape lacks and checks no type, so a wrong answer would pass through it unseen."""

from __future__ import annotations

from typing import Any

from botocore.model import Shape

# What botocore's batch model marks required but a service job that has not started cannot have (AWS does not say
# what DescribeServiceJob answers then).
NOT_YET = {"startedAt"}
TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "integer": int, "long": int, "boolean": bool,
                                             "double": (int, float), "float": (int, float)}


def conforms(value: Any, shape: Shape, where: str = "") -> list[str]:
    """What in a raw (JSON) answer is not the model's `shape`: unknown members, wrong types, missing required
    members (but NOT_YET), values outside an enum."""
    problems: list[str] = []
    if shape.type_name == "structure":
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        members = shape.members
        problems += [f"{where}.{key}: not in {shape.name}" for key in value if key not in members]
        problems += [f"{where}.{key}: required by {shape.name}, missing" for key in shape.required_members
                     if key not in value and key not in NOT_YET]
        for key, item in value.items():
            if key in members:
                problems += conforms(item, members[key], f"{where}.{key}")
    elif shape.type_name == "list":
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        for index, item in enumerate(value):
            problems += conforms(item, shape.member, f"{where}[{index}]")  # type: ignore[attr-defined]
    elif shape.type_name == "map":
        if not isinstance(value, dict):
            return [f"{where}: not a map"]
        for key, item in value.items():
            problems += conforms(key, shape.key, f"{where} key") + conforms(item, shape.value, f"{where}.{key}")  # type: ignore[attr-defined]
    else:
        wanted = TYPES[shape.type_name]
        if not isinstance(value, wanted) or (shape.type_name != "boolean" and isinstance(value, bool)):
            problems.append(f"{where}: {value!r} is not a {shape.type_name}")
        elif getattr(shape, "enum", None) and value not in shape.enum:  # type: ignore[attr-defined]
            problems.append(f"{where}: {value!r} is not one of {shape.enum}")
    return problems
