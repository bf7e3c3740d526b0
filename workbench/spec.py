"""``ToolSpec``: a tool's contract — name, description, JSON Schemas, runtime hints.

Three construction styles are accepted and normalised to one JSON Schema form:

* the schema form: ``ToolSpec(name=, description=, parameters={JSON Schema}, returns={...})``;
* the wrapped form: ``parameters={"json": {...}}`` (Bedrock's shape) is unwrapped;
* the parameter-list form: ``inputs=[ToolParam(...)]`` and ``returns=ToolReturn(...)``;

plus ``ToolSpec.from_function(fn)``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from workbench._errors import ToolInputError, ToolSpecError
from workbench.secrets import secret_parameters
from workbench.types import Permission

__all__ = ["ToolSpec", "ToolParam", "ToolParameter", "ToolReturn", "update_tool_runtime_metadata", "TOOL_NAME_PATTERN"]

TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})
_TYPE_ALIASES = {"str": "string"}  # the parameter-list form accepts Python's name for a string


class ToolParam(BaseModel):
    """One input parameter of the parameter-list form."""

    model_config = ConfigDict(extra="forbid")

    name: str
    type: str
    description: str = ""
    required: bool = True

    def __init__(
        self,
        name: str | None = None,
        type: str | None = None,
        description: str = "",
        required: bool = True,
        **extra: Any,
    ) -> None:
        # positional construction (``ToolParam("q", "string", "query")``) as well as keywords
        super().__init__(name=name, type=type, description=description, required=required, **extra)


ToolParameter = ToolParam  # Allos' name for the same thing


class ToolReturn(BaseModel):
    """The return value, neurosurfer style."""

    model_config = ConfigDict(extra="forbid")

    type: str
    description: str = ""

    def __init__(self, type: str | None = None, description: str = "", **extra: Any) -> None:
        super().__init__(type=type, description=description, **extra)


def _publisher(spec: "ToolSpec") -> Callable[[Any, Callable[[Any], dict]], None]:
    """What a spec's ``FunctionInputValidator`` calls with its flat check once built: kept for
    ``check_inputs`` while that validator is still the spec's own."""
    private = spec.__pydantic_private__

    def publish(owner: Any, check: Callable[[Any], dict]) -> None:
        if getattr(private.get("_input_validator"), "__self__", None) is owner:
            private["_flat_check"] = check
            private["_call_plan"] = None  # made without the flat check

    return publish


def _wrap_errors(cls_name: str, exc: ValidationError) -> ToolSpecError:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or cls_name}: {e['msg']}" for e in exc.errors(include_url=False)
    )
    return ToolSpecError(f"Invalid {cls_name}: {problems}")


class ToolSpec(BaseModel):
    """A tool's specification; each field is documented where it is declared below."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, validate_assignment=False)
    if TYPE_CHECKING:
        # pydantic declares it Optional; a model with private attributes, as this one, always has the dict
        __pydantic_private__: dict[str, Any]

    name: str = ""
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    returns: dict[str, Any] = Field(default_factory=dict)
    when_to_use: Optional[str] = None
    param_names: Optional[list[str]] = None
    long_running: bool = False
    supports_async: bool = False
    idempotent: bool = False
    permission: Permission = Permission.ALWAYS_ALLOW
    timeout: Optional[float] = None
    validation: Optional[Literal["strict", "lax"]] = None

    _declared_inputs: Optional[list[str]] = PrivateAttr(default=None)
    _input_validator: Optional[Callable[[str, Any], dict]] = PrivateAttr(default=None)
    _return_checker: Optional[Callable[[Any], Optional[str]]] = PrivateAttr(default=None)
    _generated: bool = PrivateAttr(default=False)  # schemas made by pydantic need no meta-schema check
    _call_plan: Any = PrivateAttr(default=None)  # a cache owned by the executor: see call_plan()
    _flat_check: Optional[Callable[[Any], dict]] = PrivateAttr(default=None)  # see check_inputs
    _secret_names: Optional[frozenset[str]] = PrivateAttr(default=None)  # see secret_parameters
    # a function tool's validator of each mode (FunctionInputValidator.for_mode); None: one validator
    # serves every mode (a JSON Schema's, an adapted tool's framework's, one set by hand)
    _variants: Optional[Callable[[str], Callable[[str, Any], dict]]] = PrivateAttr(default=None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "validation":
            from workbench._validation_mode import check_mode

            value = check_mode(value, f"Tool '{self.name}'")
        super().__setattr__(name, value)
        # what the executors derived from this spec is stale once a field (or a validator) changes
        private = self.__pydantic_private__
        if private is not None:
            private["_call_plan"] = None
            if name == "parameters":
                private["_secret_names"] = None
            if name == "_input_validator":
                private["_flat_check"] = None  # it was the old validator's
                private["_variants"] = None  # a validator set by hand serves every mode
            elif name == "validation" and private.get("_variants") is not None:
                self._use_mode(value or "strict")

    def call_plan(self) -> Any:
        """A cache owned by the executor (``workbench.executor.call_plan``): what it derived from this
        spec to run its calls, or ``None``. Any field change (and a new validator) drops it."""
        return self.__pydantic_private__["_call_plan"]

    def keep_call_plan(self, plan: Any) -> None:
        """Store the executor's plan for this spec (see ``call_plan``)."""
        self.__pydantic_private__["_call_plan"] = plan

    def input_checks(self) -> "tuple[Optional[Callable[[Any], dict]], Optional[Callable[[str, Any], dict]]]":
        """``(flat_check, validator)`` as ``check_inputs`` uses them in this spec's own mode: the
        validator (``None`` until built) and, for a tool of scalar parameters, its first check
        ``flat_check(raw) -> arguments`` that raises pydantic's ``ValidationError`` for what the
        validator then explains (``None`` when there is none)."""
        private = self.__pydantic_private__
        return private["_flat_check"], private["_input_validator"]

    def returns_checker(self) -> Optional[Callable[[Any], Optional[str]]]:
        """``check(value) -> None | mismatch message`` of ``returns``; ``None`` when no returns are declared."""
        if not self.returns:
            return None
        checker = self.__pydantic_private__["_return_checker"]
        return checker if checker is not None else self.check_returns

    def _use_mode(self, mode: str) -> None:
        """Make the validator of ``mode`` this spec's own (a function tool's; see ``validation``)."""
        private = self.__pydantic_private__
        validator = private["_variants"](mode)
        private["_input_validator"] = validator
        private["_flat_check"] = getattr(getattr(validator, "__self__", None), "published_check", None)
        private["_call_plan"] = None

    def __init__(self, **data: Any) -> None:
        # the names as given (validated below: once construction succeeds, each is a string)
        declared: list[Any] = [
            getattr(p, "name", None) if not isinstance(p, dict) else p.get("name") for p in data.get("inputs") or []
        ]
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _wrap_errors("ToolSpec", exc) from None
        if "inputs" in data:
            self._declared_inputs = declared

    # -- normalisation of the construction styles ------------------------------------------------
    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for alias in ("input_schema", "inputSchema"):
            if alias in data and "parameters" not in data:
                data["parameters"] = data.pop(alias)
        for alias in ("response_schema", "outputSchema", "output_schema"):
            if alias in data and "returns" not in data:
                data["returns"] = data.pop(alias)
        spark = data.pop("x_spark", None)
        if isinstance(spark, dict):
            data.setdefault("supports_async", bool(spark.get("supports_async", False)))
            data.setdefault("long_running", bool(spark.get("long_running", False)))
        if "inputs" in data:
            data["parameters"] = _params_from_inputs(data.pop("inputs") or [])
        params = data.get("parameters")
        if isinstance(params, dict) and set(params) == {"json"} and isinstance(params["json"], dict):
            data["parameters"] = params["json"]
        if data.get("parameters") is None:
            data.pop("parameters", None)
        returns = data.get("returns")
        if isinstance(returns, ToolReturn):
            data["returns"] = _type_schema(returns.type, returns.description)
        elif isinstance(returns, dict) and set(returns) == {"json"}:
            data["returns"] = returns["json"]
        elif returns is None:
            data.pop("returns", None)
        if "permission" in data and not isinstance(data["permission"], Permission):
            data["permission"] = Permission.coerce(data["permission"])
        return data

    @model_validator(mode="after")
    def _fill_param_names(self) -> "ToolSpec":
        if self.param_names is None:
            props = self.parameters.get("properties") if isinstance(self.parameters, dict) else None
            self.param_names = list(props) if isinstance(props, dict) else []
        return self

    @classmethod
    def coerce(cls, value: "ToolSpec | dict[str, Any]") -> "ToolSpec":
        """A ``ToolSpec`` from a ``ToolSpec``, a Spark ``ToolSpec`` TypedDict or a provider-style dict."""
        if isinstance(value, ToolSpec):
            return value
        if isinstance(value, dict):
            return cls(**value)
        raise ToolSpecError(f"Expected a ToolSpec or a dict, got {type(value).__name__}: {value!r}")

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        context: bool | str = False,
        **runtime: Any,
    ) -> "ToolSpec":
        """Extract a spec from a function's signature, type hints and docstring (via pydantic)."""
        from workbench._schema import inspect_function

        return cls._from_info(inspect_function(fn, name=name, description=description, context=context), **runtime)

    @classmethod
    def _from_info(cls, info: Any, **runtime: Any) -> "ToolSpec":
        from workbench._validation import FunctionInputValidator

        spec = cls.model_construct(
            name=info.name,
            description=info.description,
            parameters=info.parameters,
            returns=info.returns,
            param_names=list(info.param_names),
            **{**_RUNTIME_DEFAULTS, **runtime},
        )
        # the bound method, not the object: calling an instance with a Python __call__ costs ~0.1 µs more
        strict = FunctionInputValidator(info, publish=_publisher(spec))
        spec._input_validator = strict.__call__
        spec._variants = strict.for_mode
        if spec.validation is not None:
            spec._use_mode(spec.validation)
        spec._generated = True
        if info.return_adapter is not None:
            spec._return_checker = _adapter_checker(info.return_adapter)
        return spec

    # -- neurosurfer view --------------------------------------------------------------------------
    @property
    def inputs(self) -> list[ToolParam]:
        """The top-level parameters as ``ToolParam`` objects."""
        props = self.parameters.get("properties") or {}
        required = set(self.parameters.get("required") or [])
        out = []
        for pname, sub in props.items():
            sub = sub if isinstance(sub, dict) else {}
            from workbench._schema import schema_type_of

            types = sorted(schema_type_of(sub, self.parameters.get("$defs")) - {"null"})
            jtype = " | ".join(types) if types else "any"  # a display view: unions read "integer | string"
            out.append(
                ToolParam(name=pname, type=jtype, description=sub.get("description", ""), required=pname in required)
            )
        return out

    # -- checks ----------------------------------------------------------------------------------
    @property
    def secret_parameters(self) -> frozenset[str]:
        """The top-level parameters whose schema marks them secret (``format: "password"`` or
        ``writeOnly``: a ``SecretStr``): their values are masked in the execution log, forms and
        anything else serialised (``workbench.secrets.secret_parameters``)."""
        names = self.__pydantic_private__["_secret_names"]
        if names is None:
            names = self.__pydantic_private__["_secret_names"] = secret_parameters(self.parameters)
        return names

    def validate(self) -> None:  # type: ignore[override]  # pydantic's deprecated classmethod
        """Raise ``ToolSpecError`` naming the first problem with this spec; return None if it is sound.

        Checks: name present and valid, description present, unique input names, supported types,
        ``parameters``/``returns`` valid against the Draft 2020-12 meta-schema.
        """
        self.validate_structure()
        if not self.description or not self.description.strip():
            raise ToolSpecError(f"Tool '{self.name}' is missing a description")

    def validate_structure(self) -> None:
        """Everything ``validate`` checks except the description.

        Registries run this one: a tool without a docstring is still callable (most provider
        APIs make the description optional); ``validate()`` is the stricter lint.
        """
        label = self.name or "<unnamed tool>"
        if not self.name:
            raise ToolSpecError("Tool spec is missing a name")
        if not TOOL_NAME_PATTERN.match(self.name):
            raise ToolSpecError(
                f"Invalid tool name {self.name!r}: names must match ^[a-zA-Z0-9_-]{{1,64}}$ "
                "(letters, digits, '_' and '-', at most 64 characters)"
            )
        if self._declared_inputs is not None:
            seen: set[str] = set()
            for pname in self._declared_inputs:
                if pname in seen:
                    raise ToolSpecError(f"{label}: duplicate input '{pname}'")
                seen.add(pname)
        if not isinstance(self.parameters, dict) or self.parameters.get("type") != "object":
            raise ToolSpecError(
                f'{label}: parameters must be a JSON Schema with "type": "object", got {self.parameters!r}'
            )
        props = self.parameters.get("properties", {})
        if not isinstance(props, dict):
            raise ToolSpecError(f"{label}: parameters.properties must be an object, got {type(props).__name__}")
        for pname, sub in props.items():
            bad = _unsupported_type(sub)
            if bad is not None:
                raise ToolSpecError(f"{label}.{pname} has unsupported type {bad!r}")
        bad = _unsupported_type(self.returns)
        if bad is not None:
            raise ToolSpecError(f"{label}: return value has unsupported type {bad!r}")
        if not self.__pydantic_private__.get("_generated"):
            # pydantic's own output is valid by construction; checking it would import jsonschema,
            # which costs ~1 s when its optional format checkers (rfc3987-syntax) are installed
            _check_meta_schema(label, "parameters", self.parameters)
            if self.returns:
                _check_meta_schema(label, "returns", self.returns)
        for pname in self.parameters.get("required", []) or []:
            if pname not in props:
                raise ToolSpecError(f"{label}: required parameter '{pname}' is not declared in parameters.properties")

    def input_validator(self, mode: Optional[str] = None) -> Callable[[str, Any], dict]:
        """``validate(tool_name, raw) -> arguments`` in ``mode`` (``"strict"``, ``"lax"``; ``None``: this
        spec's own, ``validation`` or strict). Only a function tool has a validator per mode: a tool
        known by its JSON Schema alone, or an adapted tool (its framework's check), has one for all."""
        private = self.__pydantic_private__
        variants = private["_variants"]
        if mode is None or variants is None or mode == (self.validation or "strict"):
            validator = private["_input_validator"]
            if validator is None:
                from workbench._validation import SchemaInputValidator

                validator = self._input_validator = SchemaInputValidator(self.parameters)
            return validator
        from workbench._validation_mode import check_mode

        return variants(check_mode(mode, f"Tool '{self.name}'"))

    def check_inputs(self, raw: Any, validation: Optional[str] = None) -> dict[str, Any]:
        """Validate runtime inputs; return the validated (for function tools: converted) arguments.

        ``validation``: the mode to check in (``"strict"`` or ``"lax"``, pydantic's lax mode: ``"6"``
        is 6 for an ``int``); default this spec's own ``validation`` (strict unless set). See
        ``workbench._validation_mode`` for who decides a call's mode.

        Raises ``ToolInputError`` naming the tool and every failing field. Its ``errors`` come in a
        fixed order, the same for function tools and schema-only tools and whatever the pydantic or
        jsonschema version: by where they sit in the input, depth-first — at an object, the
        properties its schema declares in schema property order (missing ones included), then keys
        the schema does not declare in the order the input has them; at an array, items by index;
        an error about a value before errors inside it; errors at one place by message.

        JSON's rules hold for both kinds of tool: a bool is never a number nor a number a bool (also
        in ``enum``/``const``/``Literal``/``Enum``), ``NaN`` and ``±Infinity`` are refused unless
        the field says ``allow_inf_nan=True``, a ``Decimal`` string must match its schema's
        ``pattern``, and an input nesting objects/arrays deeper than ``MAX_INPUT_DEPTH`` (100)
        levels, the arguments object being level 1, is refused before validation.
        """
        if validation is not None:
            return self.input_validator(validation)(self.name, raw)
        private = self.__pydantic_private__  # direct: pydantic's __getattr__ is slow
        flat_check = private["_flat_check"]
        if flat_check is not None and type(raw) is dict:
            # A tool of scalar parameters: the validator's own first check (FunctionInputValidator.__call__)
            # made here, one call less; it gives every parameter, defaults included, or refuses, and
            # the validator then explains what it refused.
            try:
                return flat_check(raw)
            except ValidationError:
                pass
        validator = private["_input_validator"]
        if validator is None:
            from workbench._validation import SchemaInputValidator

            validator = self._input_validator = SchemaInputValidator(self.parameters)
        return validator(self.name, raw)

    def check_returns(self, value: Any) -> Optional[str]:
        """``None`` if ``value`` matches ``returns``, else a message saying how it does not."""
        if not self.returns:
            return None
        checker = self.__pydantic_private__["_return_checker"]
        if checker is None:
            checker = self._return_checker = _schema_checker(self.returns)
        return checker(value)

    def build_input(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Map positional and keyword arguments to a dict keyed by parameter name."""
        names = list(self.param_names or [])
        errors = []
        if len(args) > len(names):
            errors.append(
                {
                    "path": "$",
                    "field": "$",
                    "expected": f"at most {len(names)} positional arguments ({', '.join(names)})",
                    "received": f"{len(args)}",
                    "message": f"too many positional arguments: expected at most {len(names)} ({', '.join(names) or 'none'}), received {len(args)}",
                }
            )
        built = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in built:
                errors.append(
                    {
                        "path": f"$.{key}",
                        "field": key,
                        "expected": "one value",
                        "received": "two",
                        "message": f"{key}: given both positionally and by keyword",
                    }
                )
            elif key not in names and not self._allows_extra():
                errors.append(
                    {
                        "path": f"$.{key}",
                        "field": key,
                        "expected": f"one of {', '.join(names) or 'no parameters'}",
                        "received": repr(key),
                        "message": f"{key}: unexpected keyword argument (parameters: {', '.join(names) or 'none'})",
                    }
                )
            built[key] = value
        if errors:
            raise ToolInputError(self.name, errors)
        return built

    def _allows_extra(self) -> bool:
        extra = self.parameters.get("additionalProperties", False)
        return extra is not False

    # -- exports ---------------------------------------------------------------------------------
    def to_schema(self) -> dict[str, Any]:
        """``{"name", "description", "parameters", "returns"}``."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "returns": self.returns,
        }

    def to_json(self) -> dict[str, Any]:
        """Every field as a JSON-serialisable dict (plus the neurosurfer ``inputs`` view)."""
        data = self.model_dump(mode="json")
        data["inputs"] = [p.model_dump() for p in self.inputs]
        return data

    def to_provider_format(self, provider: str, **options: Any) -> dict[str, Any]:
        """This spec in a provider's tool format (see ``workbench.formats``)."""
        from workbench import _entry_points  # the formats sit a layer above the spec

        return _entry_points.provider_format(self, provider, **options)

    # -- dunder ----------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolSpec):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        params = ", ".join(f"{p.name}: {p.type}{'' if p.required else '?'}" for p in self.inputs)
        rtype = self.returns.get("type", "any") if self.returns else "any"
        return f"ToolSpec(name={self.name!r}, params=[{params}], returns={rtype})"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from workbench._html import spec_html

        return spec_html(self)


_RUNTIME_DEFAULTS = {
    "when_to_use": None,
    "long_running": False,
    "supports_async": False,
    "idempotent": False,
    "permission": Permission.ALWAYS_ALLOW,
    "timeout": None,
    "validation": None,
}


def _type_schema(type_name: str, description: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _TYPE_ALIASES.get(type_name, type_name)}
    if description:
        schema["description"] = description
    return schema


def _params_from_inputs(inputs: list[Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for item in inputs:
        param = item if isinstance(item, ToolParam) else ToolParam(**item)
        props[param.name] = _type_schema(param.type, param.description)
        if param.required and param.name not in required:
            required.append(param.name)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def _unsupported_type(schema: Any) -> Optional[str]:
    if not isinstance(schema, dict):
        return None
    declared = schema.get("type")
    for t in declared if isinstance(declared, list) else [declared] if declared is not None else []:
        if not isinstance(t, str) or t not in JSON_TYPES:
            return t
    return None


def _check_meta_schema(label: str, what: str, schema: dict) -> None:
    from workbench._meta_schema import meta_schema_error

    exc = meta_schema_error(schema)
    if exc is not None:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise ToolSpecError(f"{label}: {what} is not a valid JSON Schema (Draft 2020-12) at {where}: {exc.message}")


_PLAIN_SCALARS = {"int": int, "str": str, "float": float, "bool": bool}


def _adapter_checker(adapter: Any) -> Callable[[Any], Optional[str]]:
    core = adapter.validator  # the pydantic-core validator, without TypeAdapter's Python wrapper
    schema = adapter.core_schema
    # ``-> int`` (str, float, bool) with no constraints: a value of exactly that type is what a strict
    # check accepts, so it needs none (every executor call of such a tool asks)
    exact = _PLAIN_SCALARS.get(schema.get("type")) if set(schema) <= {"type", "metadata"} else None

    def check(value: Any) -> Optional[str]:
        if type(value) is exact:
            return None
        try:
            core.validate_python(value, strict=True)
            return None
        except ValidationError:
            pass
        try:
            import json

            from workbench._content import to_jsonable

            adapter.validate_json(json.dumps(to_jsonable(value)), strict=True)
            return None
        except (ValidationError, TypeError, ValueError) as exc:
            return _first_error(exc)

    return check


def _schema_checker(schema: dict) -> Callable[[Any], Optional[str]]:
    import jsonschema

    try:
        validator = jsonschema.Draft202012Validator(schema)
    except Exception as exc:  # noqa: BLE001
        problem = f"returns schema is invalid: {exc}"
        return lambda value: problem

    def check(value: Any) -> Optional[str]:
        from workbench._content import to_jsonable

        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(to_jsonable(value)))
        except Exception as exc:  # noqa: BLE001 - e.g. a $ref that points nowhere
            return f"returns schema cannot be applied: {type(exc).__name__}: {exc}"
        if error is None:
            return None
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        return f"result{where}: {error.message}"

    return check


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors(include_url=False)[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
        return f"result{where}: {err['msg']} (got {err.get('input')!r})"
    return str(exc)


def update_tool_runtime_metadata(
    tool_spec: "ToolSpec | dict", *, supports_async: bool | None = None, long_running: bool | None = None
) -> None:
    """Attach runtime hints to a spec in place (Spark's helper; works on dicts and ``ToolSpec``)."""
    if isinstance(tool_spec, ToolSpec):
        if supports_async is not None:
            tool_spec.supports_async = supports_async
        if long_running is not None:
            tool_spec.long_running = long_running
        return
    meta = tool_spec.setdefault("x_spark", {})
    if supports_async is not None:
        meta["supports_async"] = supports_async
    if long_running is not None:
        meta["long_running"] = long_running
