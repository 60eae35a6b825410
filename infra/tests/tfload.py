"""Load every infra/*.tf with python-hcl2 into plain Python values (no cloud, no terraform binary)."""

from __future__ import annotations

import pathlib
import re

import hcl2

INFRA = pathlib.Path(__file__).resolve().parent.parent


def unquote(value):
    """python-hcl2 keeps string literals quoted ('"AttestGate"'); strip one level of quotes."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def is_literal(value) -> bool:
    """True when a parsed attribute is a plain literal (no ${...} interpolation)."""
    return not (isinstance(value, str) and "${" in value)


def load(directory: pathlib.Path = INFRA) -> dict[str, dict]:
    """Parses every .tf file; a syntax error raises with the file's name."""
    parsed = {}
    for path in sorted(directory.glob("*.tf")):
        with path.open() as handle:
            try:
                parsed[path.name] = hcl2.load(handle)
            except Exception as error:  # lark's errors do not share a base class worth naming
                raise SystemExit(f"infra-check: {path.name} does not parse: {error}") from error
    if not parsed:
        raise SystemExit(f"infra-check: no .tf files in {directory}")
    return parsed


def blocks(parsed: dict[str, dict], kind: str):
    """Yields (file, block) for every top-level block of `kind` (resource, variable, output, ...)."""
    for name, document in parsed.items():
        for block in document.get(kind, []):
            yield name, block


def resources(parsed: dict[str, dict], rtype: str) -> dict[str, dict]:
    """All resources of one type, by name (quotes stripped)."""
    found = {}
    for _, block in blocks(parsed, "resource"):
        for typ, named in block.items():
            if unquote(typ) != rtype:
                continue
            for name, body in named.items():
                found[unquote(name)] = body
    return found


def data_sources(parsed: dict[str, dict], dtype: str) -> dict[str, dict]:
    found = {}
    for _, block in blocks(parsed, "data"):
        for typ, named in block.items():
            if unquote(typ) == dtype:
                for name, body in named.items():
                    found[unquote(name)] = body
    return found


def named_blocks(parsed: dict[str, dict], kind: str) -> dict[str, dict]:
    """variable/output blocks by name."""
    found = {}
    for _, block in blocks(parsed, kind):
        for name, body in block.items():
            found[unquote(name)] = body
    return found


def locals_(parsed: dict[str, dict]) -> dict[str, object]:
    found = {}
    for _, block in blocks(parsed, "locals"):
        found.update({k: v for k, v in block.items() if not k.startswith("__")})
    return found


def env_names(expression: str) -> list[str]:
    """The variable names in the function_environment map expression (`NAME = value` pairs)."""
    return re.findall(r"(?:\{|, )([A-Z][A-Z0-9_]+) = ", expression)
