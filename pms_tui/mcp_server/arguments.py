"""A tool call's arguments checked against its JSON schema, or one sentence saying what is
wrong (the SDK's low-level server checks none): it names the argument and what it should be,
and never echoes the value (a 1 MB string is not quoted back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonschema

from ..core.errors import UsageError

_JSON_TYPES = {
    "string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
    "array": "a list", "object": "an object", "null": "null",
}


class ArgumentError(UsageError):
    """A tool called with arguments its schema does not allow."""


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def check(tool: str, schema: dict, arguments: object, limits: Sequence = ()) -> dict:
    """``arguments`` with the schema's defaults filled in; ArgumentError when they do not fit,
    or, for a value past one of ``limits`` (``limits.Limit``) that has a check of its own, the
    UsageError of that check (the engine's sentence)."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"The {tool} tool takes its arguments as an object, not {json_type(arguments)}.")
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    # an optional argument sent as null means "not given" (many clients send every field)
    arguments = {k: v for k, v in arguments.items() if v is not None or k in required or k not in properties}
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is not None:
        _own_check(limits, arguments, error)
        raise ArgumentError(_sentence(tool, schema, arguments, error))
    filled = {name: spec["default"] for name, spec in properties.items() if "default" in spec}
    filled.update(arguments)
    for name, spec in properties.items():
        if spec.get("type") == "integer" and isinstance(filled.get(name), float):
            filled[name] = int(filled[name])  # JSON Schema counts 5.0 as an integer
    return filled


def _own_check(limits: Sequence, arguments: dict, error: jsonschema.ValidationError) -> None:
    """The check of the limit ``error`` is about, run on the value (it raises its sentence)."""
    path = list(error.absolute_path)
    for limit in limits:
        if limit.check is None:
            continue
        if limit.argument and path == [limit.argument] and error.validator in limit.keywords:
            limit.check(error.instance)
        elif not limit.argument and not path and error.schema_path and error.schema_path[0] in limit.keywords:
            limit.check(arguments)


def _sentence(tool: str, schema: dict, arguments: dict, error: jsonschema.ValidationError) -> str:
    name = ".".join(str(p) for p in error.absolute_path) or None
    where = f"argument {name!r} of {tool}" if name else f"the arguments of {tool}"
    kind = error.validator
    # the schema's value for the failed keyword: always set on an error a validator raised (the
    # stubs also allow jsonschema's "unset" marker, for an error made by hand)
    value: Any = error.validator_value
    if kind == "required":
        missing = [n for n in schema.get("required", []) if n not in arguments]
        return f"The {tool} tool needs the argument {missing[0]!r}." if missing else f"The {tool} tool misses an argument."
    if kind == "additionalProperties":
        known = ", ".join(schema.get("properties", {}))
        extra = sorted(k for k in arguments if k not in schema.get("properties", {}))
        shown = repr(extra[0][:60]) if extra else "an argument"
        if not known:
            return f"The {tool} tool takes no arguments; {shown} is not one."
        return f"The {tool} tool has no argument {shown}; it takes: {known}."
    if kind == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        words = " or ".join(_JSON_TYPES.get(w, w) for w in wanted)
        return f"The {where} must be {words}, not {json_type(error.instance)}."
    if kind == "enum":
        return f"The {where} must be one of {', '.join(map(str, value))}."
    if kind == "minimum":
        return f"The {where} must be at least {error.validator_value}."
    if kind == "maximum":
        return f"The {where} must be at most {error.validator_value}."
    if kind == "maxLength":
        return f"The {where} may be at most {error.validator_value} characters long."
    if kind == "minLength":
        return f"The {where} must not be empty."
    if kind == "maxItems":
        return f"The {where} may hold at most {error.validator_value} items."
    if kind == "minItems":
        return f"The {where} must hold at least {error.validator_value} item."
    if kind in ("oneOf", "anyOf"):
        return f"The {where} has an unexpected shape; see the tool's input schema."
    return f"The {where} is not valid ({kind})."
