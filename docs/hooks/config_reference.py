"""MkDocs hook: the configuration reference, generated from `schemas/config.schema.json` at every build.

A page that holds the line `<!-- config-reference -->` gets, in its place, a table of the top-level keys (type,
default, description); then, under "Nested blocks", a section per nested block (`organization`, `monitor`,
`monitor.rules.StalledTraining`, the objects of a map such as `webhooks.<name>` or of a list such as
`chat.slack[]`), each key's path linking to its section; then, under "Action forms", the forms an action may take,
read from the schema's `$defs`. Nothing is copied by hand: a key the schema gains appears at the next build, and a
key without a description fails it (`mkdocs build --strict`).

`reference(schema)` is the whole generator (the tests call it too); the hook only reads the file and fills it in.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = "<!-- config-reference -->"
SCHEMA = Path("schemas") / "config.schema.json"
DASH = "\N{EM DASH}"
ANCHORED = re.compile(r"\^\(\?:(.*)\)\$\(\?!\[\\s\\S\]\)")  # fields.anchored()'s wrapper
NOCASE = re.compile(r"\[([a-z])([A-Z])\]|\[([A-Z])([a-z])\]")  # [sS][tT]...: a name in any case
SHOWN_PATTERN = 40  # longer patterns (email addresses, ARNs) are left to the description


def _root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    path = _root(config) / SCHEMA
    try:
        schema = json.loads(path.read_text())
        return markdown.replace(MARKER, reference(schema))
    except (OSError, ValueError, KeyError) as err:
        raise PluginError(f"config_reference: cannot generate the reference from {path}: {err}") from err


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    server.watch(str(_root(config) / SCHEMA))
    return server


def reference(schema: dict[str, Any]) -> str:
    """The reference, in Markdown: the keys, a section per nested block, the action forms."""
    defs = schema.get("$defs", {})
    blocks: list[tuple[str, dict[str, Any]]] = []  # (path, object schema with properties), in document order
    lines = ["| key | type | default | description |", "|---|---|---|---|"]
    lines += _rows("", schema["properties"], defs, blocks)
    out = [*lines, "", "## Nested blocks", ""]
    while blocks:
        path, block = blocks.pop(0)
        nested: list[tuple[str, dict[str, Any]]] = []
        out += [f"### `{path}` {{ #{anchor(path)} }}", ""]
        if block.get("description"):
            out += [_text(block["description"]), ""]
        required = block.get("required", [])
        if required:
            out += ["Required: " + ", ".join(f"`{key}`" for key in required) + ".", ""]
        out += ["| key | type | default | description |", "|---|---|---|---|"]
        out += _rows(path, block["properties"], defs, nested)
        out.append("")
        blocks[:0] = nested  # depth first: a block's own blocks follow it
    out += ["## Action forms", ""]
    for name, definition in defs.items():
        out += _actions(name, definition)
    return "\n".join(out)


def anchor(path: str) -> str:
    return "cfg-" + re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def _rows(parent: str, properties: dict[str, Any], defs: dict[str, Any],
          blocks: list[tuple[str, dict[str, Any]]]) -> list[str]:
    rows = []
    for key, prop in properties.items():
        path = f"{parent}.{key}" if parent else key
        if key == "$schema":  # the editor's pointer to the schema, not a setting
            rows.append(f"| `{key}` | string | {DASH} | the JSON Schema editors complete and check the file with "
                        f"(`rule-actions init` writes it) |")
            continue
        if not prop.get("description"):
            raise KeyError(f"{path} has no description in the schema")
        inner = _nested(path, prop, defs)
        cell = f"[`{path}`](#{anchor(inner[0])})" if inner else f"`{path}`"
        blocks += inner and [(inner[0], inner[1])]
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else DASH
        rows.append(f"| {cell} | {_type(prop, defs)} | {_cell(default)} | {_text(prop['description'])} |")
    return rows


def _nested(path: str, prop: dict[str, Any], defs: dict[str, Any]) -> tuple[str, dict[str, Any]] | tuple[()]:
    """The object whose keys this property holds, and the path its section is named by (none for a leaf)."""
    prop = _resolve(prop, defs)
    if prop.get("properties"):
        return path, prop
    values = prop.get("additionalProperties")
    if isinstance(values, dict) and _resolve(values, defs).get("properties"):
        return f"{path}.<name>", _resolve(values, defs)
    items = prop.get("items")
    if isinstance(items, dict) and items.get("properties"):
        return f"{path}[]", items
    return ()


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref", "")
    return defs[ref.rsplit("/", 1)[-1]] if ref.startswith("#/$defs/") else prop


def _type(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    ref = prop.get("$ref", "")
    if ref.startswith("#/$defs/"):
        name = ref.rsplit("/", 1)[-1]
        return f"[actions](#{anchor('actions-' + name)})"
    if "enum" in prop:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    kinds = prop.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    words = []
    for kind in kinds:
        if kind == "array":
            words.append("list of " + _plural(_type(prop.get("items", {}), defs))
                         + (", no repeats" if prop.get("uniqueItems") else ""))
        elif kind == "object" and isinstance(prop.get("additionalProperties"), dict):
            names = prop.get("propertyNames", {})
            key = ("`" + "` \\| `".join(names["enum"]) + "`") if "enum" in names else "name"
            words.append(f"map: {key} {chr(0x2192)} " + _type(prop["additionalProperties"], defs))
        elif kind in ("integer", "number"):
            words.append(kind + _range(prop))
        elif kind == "string":
            words.append("string" + _pattern(prop))
        else:
            words.append(kind)
    return " or ".join(words)


def _plural(words: str) -> str:
    """"string matching `x`" -> "strings matching `x`"; "object" -> "objects"."""
    first, sep, rest = words.partition(" ")
    return first + ("" if first.endswith("s") or first.startswith("[") else "s") + sep + rest


def _range(prop: dict[str, Any]) -> str:
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is None and high is None:
        return ""
    return f" ({low if low is not None else '…'} to {high if high is not None else '…'})"


def _pattern(prop: dict[str, Any]) -> str:
    pattern = prop.get("pattern")
    if not pattern:
        return f" (at most {prop['maxLength']} characters)" if "maxLength" in prop else ""
    match = ANCHORED.fullmatch(pattern)
    shown = match[1] if match else pattern
    return f" matching `{shown}`" if len(shown) <= SHOWN_PATTERN else ""


def _actions(name: str, definition: dict[str, Any]) -> list[str]:
    """The forms an action of `name`'s place may take (a string, or an object naming its kind), from the schema."""
    forms: list[str] = []
    for variant in _variants(definition):
        if variant.get("type") == "string":
            names = _names(variant.get("pattern", ""))
            forms.append("a bare name: " + ", ".join(f'`"{n}"`' for n in names))
        elif variant.get("type") == "object":
            props = variant.get("properties", {})
            kind = ", ".join(_names(props.get("name", {}).get("pattern", ""))) or "?"
            others = [k for k in props if k != "name"]
            need = set(variant.get("required", []))
            parts = [f'"name": "{kind}"'] + [f'"{k}": …' if k in need else f'["{k}": …]' for k in others]
            forms.append("`{" + ", ".join(parts) + "}`")
    title = f"Actions in `{name}`" if name != "rules" else "Actions in `rules`"
    return [f"### {title} {{ #{anchor('actions-' + name)} }}", "",
            _text(definition.get("description", "")) + " Each action is one of (a name in any case; `[...]` is "
            "optional):", "", *(f"- {form}" for form in dict.fromkeys(forms)), ""]


def _variants(definition: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for option in definition.get("anyOf", [definition]):
        if "anyOf" in option:
            found += _variants(option)
        elif option.get("type") == "array":
            found += _variants(option.get("items", {}))
        else:
            found.append(option)
    return found


def _names(pattern: str) -> list[str]:
    """`^(?:[sS][tT][oO][pP]...|[nN]...)$` -> ["stop...", "n..."]: the names a case-insensitive pattern accepts."""
    match = ANCHORED.fullmatch(pattern)
    body = match[1] if match else pattern
    return [NOCASE.sub(lambda m: (m[1] or m[4]).lower(), alt) for alt in body.split("|") if alt]


def _text(text: str) -> str:
    """Schema prose as a table cell: no HTML from `<name>`, no column break from `|`."""
    return _cell(html.escape(text, quote=False))


def _cell(text: str) -> str:
    """No column break from `|` outside code spans (inside them the table extension keeps it), no line break."""
    parts = text.replace("\n", " ").split("`")
    return "`".join(part if inside % 2 else part.replace("|", "\\|") for inside, part in enumerate(parts))
