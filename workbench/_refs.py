"""Local ``$ref`` resolution: the one JSON-pointer resolver every schema walker uses.

A tool's JSON Schema refers to its own parts (``{"$ref": "#/$defs/Address"}``); so does an OpenAPI
document (``#/components/schemas/Pet``). :func:`lookup` follows one such reference, :func:`follow`
a chain of them. One behaviour for every caller (provider exports, argument normalising, synthetic
values, spec diffs, forms, OpenAPI import):

* a reference is a URI fragment holding a JSON pointer (RFC 6901): percent-escapes are decoded,
  then ``~1`` means ``/`` and ``~0`` means ``~`` in each token; a token walks into an object by key
  or into an array by index (``#/prefixItems/0``);
* a chain of references that comes back to one it already passed (``A → B → A``) names no schema:
  :class:`CyclicRef`. A *recursive* schema (``Tree`` whose ``children`` are ``Tree`` s) is no cycle
  here: its walkers keep their own stack of the references they are inside;
* a reference that is not a string, not local (another document: ``other.json#/X``), points nowhere
  or, for :func:`lookup_schema`, points at something that is not a schema raises a
  :class:`RefError` (a ``ValueError``) whose message names the reference and where it stopped.

Why not ``referencing`` (the resolver ``jsonschema`` uses, already installed): these schemas are one
document with local references only, the walkers look references up per node (a lookup through a
``referencing`` resolver costs ~20 µs against ~1 µs here, plus building a registry per schema),
and its pointer walk fails with an ``AttributeError`` when a token passes through a list that is not
a schema (``#/$defs/List/0``). ``workbench.adapters.openapi`` keeps ``referencing`` only where
``openapi-spec-validator`` speaks it.
"""

from __future__ import annotations

import functools
from typing import Any, Mapping, Optional
from urllib.parse import unquote

__all__ = [
    "RefError",
    "RemoteRef",
    "DanglingRef",
    "CyclicRef",
    "pointer_tokens",
    "escape_token",
    "lookup",
    "lookup_schema",
    "follow",
    "resolved",
    "siblings",
]


class RefError(ValueError):
    """A ``$ref`` that cannot be followed; ``ref`` is the reference, the message says why."""

    def __init__(self, ref: Any, message: str) -> None:
        super().__init__(message)
        self.ref = ref


class RemoteRef(RefError):
    """A reference into another document (or not a ``#`` fragment at all): only local ones are followed."""


class DanglingRef(RefError):
    """A local reference whose pointer leads nowhere (or, for :func:`lookup_schema`, not to a schema)."""


class CyclicRef(RefError):
    """A chain of references that comes back to one it already passed, so names no schema."""


@functools.lru_cache(maxsize=4096)
def pointer_tokens(ref: str) -> tuple[str, ...]:
    """The unescaped tokens of a local reference (``"#/$defs/a~1b"`` → ``("$defs", "a/b")``).

    Raises :class:`RemoteRef` for anything but ``#`` or ``#/...``."""
    if ref == "#":
        return ()
    if not ref.startswith("#/"):
        raise RemoteRef(
            ref, f"$ref {ref!r} is not local: only references into the same schema ('#/...') can be followed"
        )
    # RFC 6901 §6: the fragment is percent-decoded first; then ~1 before ~0, so "~01" reads "~1"
    return tuple(unquote(t).replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/"))


def escape_token(name: str) -> str:
    """``name`` as one JSON-pointer token (``a/b`` → ``a~1b``), to build a reference to a key."""
    return name.replace("~", "~0").replace("/", "~1")


def _pointer(tokens: tuple[str, ...]) -> str:
    return "#" + "".join("/" + escape_token(t) for t in tokens)


def lookup(root: Any, ref: Any) -> Any:
    """What the local reference ``ref`` points at inside ``root`` (any JSON value).

    Raises :class:`RefError`: :class:`RemoteRef` for a reference that is not local,
    :class:`DanglingRef` for one that points nowhere (the message names the last part that exists)."""
    if not isinstance(ref, str):
        raise RefError(ref, f"$ref {ref!r} is not a string (a $ref is a JSON pointer such as '#/$defs/Name')")
    tokens = pointer_tokens(ref)
    node = root
    for depth, token in enumerate(tokens):
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif (
            isinstance(node, list) and token.isdigit() and (token == "0" or token[0] != "0") and int(token) < len(node)
        ):
            node = node[int(token)]
        else:
            where = _pointer(tokens[:depth])
            raise DanglingRef(ref, f"$ref {ref!r} points nowhere: {where!r} {_lacks(node, token)}")
    return node


def _lacks(node: Any, token: str) -> str:
    if isinstance(node, Mapping):
        return f"has no key {token!r}"
    if isinstance(node, list):
        return f"is a list of {len(node)} item(s), with no index {token!r}"
    return f"is {type(node).__name__} {node!r}, with nothing inside"


def lookup_schema(root: Any, ref: Any) -> Any:
    """:func:`lookup`, and the target must be a schema (an object or ``true``/``false``)."""
    target = lookup(root, ref)
    if not isinstance(target, (Mapping, bool)):
        raise DanglingRef(ref, f"$ref {ref!r} points to {type(target).__name__} {target!r}, not to a schema")
    return target


def siblings(schema: Mapping[str, Any], key: str = "$ref") -> dict[str, Any]:
    """The keywords of ``schema`` beside ``key`` (those a reference's target is merged under)."""
    return {k: v for k, v in schema.items() if k != key}


def follow(schema: Any, root: Any, *, single_all_of: bool = False) -> tuple[Any, Optional[str]]:
    """``schema`` with its chain of ``$ref`` s followed, and the last reference passed (None: none).

    Each step merges the reference's siblings over its target (2020-12: keywords beside ``$ref``
    apply too; an annotation such as ``description`` beside it wins). A target that is ``true`` or
    ``false`` ends the chain as it is. ``single_all_of``: an ``allOf`` of one object schema is
    unwrapped the same way (pydantic's way of adding a ``description`` to a reference).

    Raises :class:`RefError` as :func:`lookup_schema` does, and :class:`CyclicRef` for a chain that
    comes back to a reference it passed."""
    passed: list[str] = []
    while isinstance(schema, Mapping):
        ref = schema.get("$ref")
        if ref is not None:
            if ref in passed:
                chain = " → ".join([*passed[passed.index(ref) :], ref])
                raise CyclicRef(ref, f"$ref {ref!r} comes back to itself ({chain}), so it names no schema")
            target = lookup_schema(root, ref)
            passed.append(ref)
            rest = siblings(schema)
            schema = {**target, **rest} if isinstance(target, Mapping) else target
            continue
        all_of = schema.get("allOf") if single_all_of else None
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
            schema = {**all_of[0], **siblings(schema, "allOf")}
            continue
        break
    return schema, (passed[-1] if passed else None)


def resolved(schema: Any, root: Any) -> Any:
    """``schema`` through its ``$ref`` chain (:func:`follow`), or None where the chain cannot be
    followed: for code that only describes a schema (a type name, an "expected …" text, a form
    field) and so says nothing of a reference it cannot resolve, rather than failing."""
    try:
        return follow(schema, root)[0]
    except RefError:
        return None
