"""JSON Schema from Python signatures, through pydantic (README.md, "Behaviour worth knowing").

``inspect_function`` builds one pydantic model per tool from its signature; the
model gives both the JSON Schema and the input validator, so the schema a model
sees and the checks its inputs get can never drift apart.
"""

from __future__ import annotations

import inspect
import sys
import threading
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import PydanticUndefined

from workbench._docstrings import parse_docstring
from workbench._errors import ToolSpecError
from workbench._field_schemas import is_json_scalar, remember, shared_parameters
from workbench._json_copy import copy_json
from workbench._refs import RefError, lookup_schema

__all__ = ["FunctionInfo", "inspect_function", "clean_schema", "schema_type_of", "decimal_pattern"]

#: marks (in a schema the validator keeps, never in a published one) a number that may be NaN/Infinity
INF_NAN_MARK = "x-workbench-allow-inf-nan"

# Keywords whose value is a mapping of name → subschema, a list of subschemas, or one subschema.
_MAP_KEYWORDS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_LIST_KEYWORDS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUB_KEYWORDS = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)


class _MethodTable(dict):
    """Core-schema type → generator method, bound on first lookup."""

    def __init__(self, owner: GenerateJsonSchema) -> None:
        super().__init__()
        self._owner = owner

    def __missing__(self, key: str) -> Any:
        method = self[key] = getattr(self._owner, f"{key.replace('-', '_')}_schema")
        return method


class ToolJsonSchema(GenerateJsonSchema):
    """pydantic's JSON Schema generator without its per-instance set-up cost.

    ``GenerateJsonSchema.__init__`` binds a method for every one of ~100 core-schema types each time
    it is created — about a third of the time it takes to build a tool, which needs two generators
    (inputs and return value). Binding on lookup gives the same schemas.
    """

    def build_schema_type_to_method(self) -> dict:
        return _MethodTable(self)

    def float_schema(self, schema: Any) -> Any:
        """Mark a ``float`` that allows NaN/Infinity (``allow_inf_nan=True`` on it or its model) for the
        validator, which refuses them everywhere else; ``clean_schema`` drops the mark from what is shown."""
        json_schema = super().float_schema(schema)
        allowed = schema.get("allow_inf_nan")
        if allowed is None:
            allowed = self._config.config_dict.get("allow_inf_nan")
        if allowed:
            json_schema[INF_NAN_MARK] = True
        return json_schema

    def encode_default(self, dft: Any) -> Any:
        """A JSON-native default is its own encoding: pydantic builds a ``TypeAdapter`` for every
        default it encodes (a quarter of a tool's build); the others still go through it."""
        if is_json_scalar(dft):
            return dft
        return super().encode_default(dft)

    def get_decimal_pattern(self, schema: Any) -> str:
        """Give ``Decimal`` strings a pattern; the validator enforces the same one (``workbench._strict_json``)."""
        return decimal_pattern(schema, bool(self._config.config_dict.get("allow_inf_nan", False)))


#: pydantic's pattern allows any exponent, but ``decimal.Decimal`` refuses one past ~10**18: nine digits is plenty
_EXPONENT, _BOUNDED_EXPONENT = "[eE][+-]?[0-9]+", "[eE][+-]?[0-9]{1,9}"


def decimal_pattern(decimal_core_schema: Any, config_allows_inf_nan: bool = False) -> str:
    """The regular expression a ``Decimal`` string must match, from pydantic's validation-mode pattern.

    It uses ``[0-9]`` and no inline flags, so Python's ``re`` and ECMA-262 (JSON Schema) read it
    alike, and every string it matches is one ``decimal.Decimal`` — so pydantic — accepts. Strings
    are matched with ``re.search``, as jsonschema applies ``pattern``.
    """
    schema = dict(decimal_core_schema)
    if schema.get("allow_inf_nan") is None:  # the field's own setting wins over its model's config
        schema["allow_inf_nan"] = config_allows_inf_nan
    return ToolJsonSchema().build_decimal_pattern(schema).replace(_EXPONENT, _BOUNDED_EXPONENT)  # type: ignore[arg-type]


def clean_schema(schema: Any, *, keep_marks: bool = False) -> Any:
    """Drop pydantic's noise: ``title`` keys, ``items: {}`` and ``additionalProperties: true``
    (and the validator's ``INF_NAN_MARK`` unless ``keep_marks``).

    Only keywords in schema position are touched, so a *property* called
    ``title`` survives.
    """
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if (key == "title" and isinstance(value, str)) or (key == INF_NAN_MARK and not keep_marks):
            continue
        if key in _MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {k: clean_schema(v, keep_marks=keep_marks) for k, v in value.items()}
        elif key in _LIST_KEYWORDS and isinstance(value, list):
            out[key] = [clean_schema(v, keep_marks=keep_marks) for v in value]
        elif key in _SUB_KEYWORDS:
            if (key == "items" and value == {}) or (key == "additionalProperties" and value is True):
                continue
            out[key] = clean_schema(value, keep_marks=keep_marks)
        else:
            out[key] = value
    return out


def schema_type_of(schema: dict, defs: dict | None = None, _open: tuple = ()) -> set[str]:
    """The set of JSON types a (sub)schema admits, following ``$ref`` s into ``defs`` (a schema's
    ``$defs``) and ``anyOf``/``oneOf``; a ref that cannot be followed, or that is already being
    followed (a cycle), admits no type it can name."""
    if not isinstance(schema, dict):
        return set()
    ref = schema.get("$ref")
    if isinstance(ref, str) and defs is not None:
        if ref in _open:
            return set()
        try:
            target = lookup_schema({"$defs": defs}, ref)
        except RefError:
            return set()
        return schema_type_of(target, defs, (*_open, ref))
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return set(declared)
    types: set[str] = set()
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, []):
            types |= schema_type_of(sub, defs, _open)
    return types


def _is_tool_context(annotation: Any) -> bool:
    from workbench.context import ToolContext

    if annotation is ToolContext:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_tool_context(typing.get_args(annotation)[0])
    if origin is typing.Union or (sys.version_info >= (3, 10) and origin is __import__("types").UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return len(args) == 1 and _is_tool_context(args[0])
    return False


def _is_typing_typeddict(tp: Any) -> bool:
    return (
        isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__") and type(tp).__module__ == "typing"
    )


def _upgrade_typeddicts(annotation: Any) -> Any:
    """Rebuild ``typing.TypedDict`` classes as ``typing_extensions.TypedDict``.

    pydantic refuses ``typing.TypedDict`` before Python 3.12 (it lacks the
    runtime information pydantic needs); users naturally write it, so we
    convert rather than fail.
    """
    if sys.version_info >= (3, 12):
        return annotation
    if _is_typing_typeddict(annotation):
        import typing_extensions

        hints = typing.get_type_hints(annotation, include_extras=True)
        fields = {}
        for key, hint in hints.items():
            hint = _upgrade_typeddicts(hint)
            if key in annotation.__required_keys__:
                fields[key] = typing_extensions.Required[hint]
            else:
                fields[key] = typing_extensions.NotRequired[hint]
        # the functional form with a name known only at run time: mypy wants a literal to define a type statically
        new = typing_extensions.TypedDict(annotation.__name__, fields)  # type: ignore[misc]
        new.__doc__ = annotation.__doc__
        return new
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if not args or origin is None:
        return annotation
    new_args = tuple(_upgrade_typeddicts(a) if not isinstance(a, FieldInfo) else a for a in args)
    if new_args == args:
        return annotation
    if origin is typing.Annotated:
        return typing.Annotated[new_args]  # a tuple subscript: Annotated[first, *rest]
    if origin is typing.Union:
        return typing.Union[new_args]
    try:
        return annotation.copy_with(new_args)  # typing generics
    except AttributeError:
        return origin[new_args]


def _annotated_description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, FieldInfo) and meta.description:
                return meta.description
    return None


def _caller_namespace() -> dict[str, Any]:
    """Locals of the frames that called into workbench, innermost first (as pydantic's
    ``validate_call`` does), so string annotations naming a class local to a function resolve."""
    namespace: dict[str, Any] = {}
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if not frame.f_globals.get("__name__", "").startswith("workbench"):
            for key, value in frame.f_locals.items():
                namespace.setdefault(key, value)
            if len(namespace) > 500:
                break
        frame = frame.f_back
    return namespace


def _type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except NameError:
        # the hints of a callable object are its __call__ method's
        target = getattr(fn, "__call__", fn) if not inspect.isfunction(fn) and not inspect.ismethod(fn) else fn  # noqa: B004
        return typing.get_type_hints(target, localns=_caller_namespace(), include_extras=True)


@dataclass(frozen=True)
class FunctionInfo:
    """Everything derived from a function once, at decoration time.

    ``input_model`` (the pydantic model that validates calls) is built when first read: a tool whose
    schema came from shared parameter schemas (``workbench._field_schemas``) needs it only for its
    first call."""

    name: str
    description: str
    parameters: dict
    returns: dict
    param_names: list[str]
    context_param: str | None
    model_factory: Callable[[], type[BaseModel]]
    field_names: tuple[tuple[str, str], ...]  # (model field, parameter name)
    positional_only: tuple[str, ...]
    return_adapter: TypeAdapter | None
    json_string_params: frozenset[str]  # array/object parameters that accept a JSON string
    inf_nan_schema: dict | None = None  # ``parameters`` with INF_NAN_MARK where NaN/Infinity may go, if anywhere
    # (parameter name, annotation, default or inspect.Parameter.empty), for the validator's fast path
    input_fields: tuple[tuple[str, Any, Any], ...] = ()
    _model: list = field(default_factory=list, repr=False, compare=False)  # [the model], once built

    @property
    def input_model(self) -> type[BaseModel]:
        """The tool's input model (built on first use; threads asking together get the same one)."""
        if not self._model:
            with _MODEL_LOCK:
                if not self._model:
                    self._model.append(self.model_factory())
        return self._model[0]


_MODEL_LOCK = threading.RLock()  # reentrant: a model's build may read another tool's (nested tools)
_NO_ANNOTATION = inspect.Parameter.empty


def read_signature(fn: Callable[..., Any], tool_name: str) -> "tuple[inspect.Signature, dict[str, Any]]":
    """``fn``'s signature and resolved type hints, or a ``ToolSpecError`` naming the tool. Resolved where
    the tool is declared: string annotations may name classes local to the caller's frames."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolSpecError(f"Tool '{tool_name}': cannot read the signature of {fn!r}: {exc}") from None
    try:
        hints = _type_hints(fn)
    except Exception as exc:  # NameError for unresolved forward refs, mostly
        raise ToolSpecError(
            f"Tool '{tool_name}': cannot resolve the type hints of {getattr(fn, '__qualname__', fn)!r}: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    return signature, hints


#: annotations a tool's schema is known to take as they are (anything else is checked at decoration
#: by building the schema — the same clear error as before — see :func:`plainly_supported`)
_PLAIN_TYPES = frozenset({int, float, str, bool, bytes, type(None), Any, list, dict, tuple, set, frozenset})
_PLAIN_ORIGINS = frozenset(
    {list, dict, tuple, set, frozenset, typing.Union, typing.Literal, typing.Annotated, __import__("types").UnionType}
)


def _plain_annotation(annotation: Any, depth: int = 0) -> bool:
    if depth > 6:
        return False
    if annotation in _PLAIN_TYPES or annotation is _NO_ANNOTATION or annotation is Ellipsis:
        return True
    if isinstance(annotation, type):
        import datetime
        import decimal
        import enum
        import uuid

        if _is_typing_typeddict(annotation) or getattr(annotation, "__total__", None) is not None:
            return False  # TypedDicts are rebuilt for pydantic: the full path
        return issubclass(
            annotation,
            (enum.Enum, BaseModel, datetime.date, datetime.time, datetime.timedelta, decimal.Decimal, uuid.UUID),
        )
    origin = typing.get_origin(annotation)
    if origin not in _PLAIN_ORIGINS:
        return False
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        import enum

        return all(value is None or isinstance(value, (str, int, bool, enum.Enum)) for value in args)
    if origin is typing.Annotated:  # only descriptive metadata: constraints can be misapplied (found late)
        return _plain_annotation(args[0], depth + 1) and all(_descriptive(meta) for meta in args[1:])
    return all(_plain_annotation(arg, depth + 1) for arg in args)


def _descriptive(meta: Any) -> bool:
    """Annotated metadata that only describes (a string, or a Field with a title/description/examples)."""
    if isinstance(meta, str):
        return True
    if isinstance(meta, FieldInfo):
        return (
            not meta.metadata
            and meta.default is PydanticUndefined
            and meta.default_factory is None
            and meta.alias is None
            and meta.json_schema_extra is None
        )
    return False


def plainly_supported(signature: "inspect.Signature", hints: dict[str, Any], context_param: str | None) -> bool:
    """Whether every parameter and the return are annotations the schema is known to accept (builtins,
    their containers and unions, Literal, Annotated, Enum, BaseModel, dates, Decimal, UUID): then the
    schema can wait until it is read. Parameters of other kinds (``*args``, a ToolContext…) say no,
    and the caller builds everything at once, raising what it always raised."""
    for pname, param in signature.parameters.items():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) or pname == context_param:
            return False
        annotation = hints.get(pname, Any if param.annotation is _NO_ANNOTATION else param.annotation)
        if _is_tool_context(annotation) or not _plain_annotation(annotation):
            return False
    return _plain_annotation(hints.get("return", _NO_ANNOTATION))


def inspect_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    context: bool | str = False,
    explicit_schema: bool = False,
    resolved: "tuple[inspect.Signature, dict[str, Any]] | None" = None,
) -> FunctionInfo:
    """Derive a tool's name, description, parameter/return schemas and validator from ``fn``.

    ``explicit_schema=True`` (the caller supplies ``parameters``) lets ``*args``/``**kwargs`` through.
    ``resolved`` is ``(signature, type hints)`` when already read (:func:`read_signature`).
    """
    tool_name = name or getattr(fn, "__name__", None) or type(fn).__name__
    signature, hints = resolved if resolved is not None else read_signature(fn, tool_name)

    context_param = context if isinstance(context, str) else ("tool_context" if context else None)
    if context_param and context_param not in signature.parameters:
        raise ToolSpecError(
            f"Tool '{tool_name}': context={context!r} needs a parameter named '{context_param}', "
            f"but the signature is {tool_name}{signature}"
        )
    doc = parse_docstring(fn)

    fields: dict[str, Any] = {}
    field_names: list[tuple[str, str]] = []
    input_fields: list[tuple[str, Any, Any]] = []
    positional_only: list[str] = []
    for index, (pname, param) in enumerate(signature.parameters.items()):
        if index == 0 and pname in ("self", "cls") and "." in getattr(fn, "__qualname__", ""):
            continue  # a method decorated in its class body: the instance is bound, not an input
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            if explicit_schema:  # @tool(parameters=...): the schema is the user's; **kwargs receives it
                continue
            star = "*" if param.kind is inspect.Parameter.VAR_POSITIONAL else "**"
            raise ToolSpecError(
                f"Tool '{tool_name}': parameter '{star}{pname}' is not supported — a tool's inputs are a JSON "
                f"object with named fields; declare each argument as a named parameter"
            )
        annotation = hints.get(pname, Any if param.annotation is _NO_ANNOTATION else param.annotation)
        if pname == context_param or _is_tool_context(annotation):
            if context_param and pname != context_param:
                raise ToolSpecError(f"Tool '{tool_name}': two ToolContext parameters ('{context_param}', '{pname}')")
            context_param = pname
            continue
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional_only.append(pname)
        annotation = _upgrade_typeddicts(annotation)
        field_kwargs: dict[str, Any] = {"alias": pname}
        if param.default is not inspect.Parameter.empty:
            field_kwargs["default"] = param.default
        if pname in doc.params and not _annotated_description(annotation):
            field_kwargs["description"] = doc.params[pname]
        fields[f"p{index}"] = (annotation, field_kwargs)  # Field(**field_kwargs) when the model is built
        field_names.append((f"p{index}", pname))
        input_fields.append((pname, annotation, param.default))

    def build_model() -> type[BaseModel]:
        try:
            return _input_model(
                f"{tool_name}_inputs",
                {internal: (annotation, Field(**kwargs)) for internal, (annotation, kwargs) in fields.items()},
            )
        except Exception as exc:
            raise ToolSpecError(_explain_unsupported(tool_name, fields, field_names, exc)) from None

    shareable = [
        (pname, annotation, default, fields[internal][1].get("description"))
        for (internal, pname), (_, annotation, default) in zip(field_names, input_fields)
    ]
    ordered = shared_parameters(shareable)
    inf_nan_schema = None
    if ordered is None:  # the model path: a parameter of a kind no tool had before, or not shareable
        model = build_model()
        try:
            raw_schema = model.model_json_schema(by_alias=True, schema_generator=ToolJsonSchema)
        except Exception as exc:
            raise ToolSpecError(_explain_unsupported(tool_name, fields, field_names, exc)) from None
        ordered = _parameters_schema(raw_schema)
        # where NaN/Infinity may go, for the validator; None (the usual case) when nowhere
        if INF_NAN_MARK in repr(raw_schema):
            inf_nan_schema = _parameters_schema(raw_schema, keep_marks=True)
        else:
            remember(shareable, ordered)
        build_model = lambda: model  # noqa: E731

    return_adapter, returns = _returns_schema(hints.get("return", _NO_ANNOTATION), doc.returns)
    defs = ordered.get("$defs")
    json_string_params = frozenset(
        pname
        for pname, sub in ordered["properties"].items()
        if schema_type_of(sub, defs) & {"array", "object"} and "string" not in schema_type_of(sub, defs)
    )
    return FunctionInfo(
        name=tool_name,
        description=description if description is not None else (doc.description or ""),
        parameters=ordered,
        returns=returns,
        param_names=[p for _, p in field_names],
        context_param=context_param,
        model_factory=build_model,
        field_names=tuple(field_names),
        positional_only=tuple(positional_only),
        return_adapter=return_adapter,
        json_string_params=json_string_params,
        inf_nan_schema=inf_nan_schema,
        input_fields=tuple(input_fields),
    )


#: the config of every tool's input model. allow_inf_nan: JSON has no NaN or Infinity (a field's own
#: allow_inf_nan=True still wins)
_INPUT_CONFIG = ConfigDict(extra="forbid", arbitrary_types_allowed=False, protected_namespaces=(), allow_inf_nan=False)


def _input_model(model_name: str, fields: dict[str, Any]) -> type[BaseModel]:
    return create_model(model_name, __config__=_INPUT_CONFIG, **fields)


def _parameters_schema(raw_schema: dict, *, keep_marks: bool = False) -> dict:
    """The input model's JSON Schema as a tool's ``parameters``: clean, ``type``/``properties``/``required`` first."""
    parameters = clean_schema(raw_schema, keep_marks=keep_marks)
    parameters.pop("additionalProperties", None)  # closed by convention; see check_inputs
    parameters.setdefault("properties", {})
    ordered = {"type": "object", "properties": parameters.pop("properties")}
    if "required" in parameters:
        ordered["required"] = parameters.pop("required")
    parameters.pop("type", None)
    ordered.update(parameters)  # $defs etc.
    return ordered


#: return annotation → (adapter, schema): tools of a catalog return the same few types, and a
#: ``TypeAdapter`` is immutable, so it is shared (the schema is copied out for each tool)
_RETURNS: dict[Any, tuple[TypeAdapter | None, dict]] = {}
_RETURNS_MAX = 1024


def _returns_schema(annotation: Any, description: str | None) -> tuple[TypeAdapter | None, dict]:
    if annotation is _NO_ANNOTATION or annotation is typing.Any:
        return None, {}
    try:
        cached: tuple[TypeAdapter | None, dict] | None = _RETURNS.get(annotation)
    except TypeError:  # unhashable metadata in an Annotated: not shared
        cached, annotation_key = None, None
    else:
        annotation_key = annotation
    if cached is None:
        try:
            adapter = TypeAdapter(_upgrade_typeddicts(annotation))
            cached = adapter, clean_schema(adapter.json_schema(schema_generator=ToolJsonSchema))
        except Exception:  # noqa: BLE001 - an un-schemable return type (DataFrame, PIL image…) is not an error
            return None, {}  # not remembered: a model with a forward reference may be rebuilt later
        if annotation_key is not None:
            if len(_RETURNS) >= _RETURNS_MAX:
                _RETURNS.clear()
            _RETURNS[annotation_key] = cached
    return cached[0], copy_json(cached[1])


def _explain_unsupported(tool_name: str, fields: dict, field_names: list, exc: Exception) -> str:
    """Find which parameter pydantic could not handle and say so in one line."""
    for internal, pname in field_names:
        annotation, info = fields[internal]
        try:
            TypeAdapter(annotation).json_schema()
        except Exception as inner:  # noqa: BLE001
            first = str(inner).strip().splitlines()[0]
            return (
                f"Tool '{tool_name}': parameter '{pname}' has a type that cannot be expressed as JSON Schema "
                f"({getattr(annotation, '__name__', annotation)!s}): {first}"
            )
    first = str(exc).strip().splitlines()[0]
    return f"Tool '{tool_name}': cannot build an input schema: {first}"
