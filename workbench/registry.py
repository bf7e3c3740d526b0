"""``ToolRegistry``: the named collection of tools, and ``as_tool_registry``/``tool_list``: the one reading of a ``tools`` argument."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import threading
import types
import warnings
from collections.abc import MappingView
from typing import Any, Callable, Iterable, Iterator, Optional, Union

from workbench import _entry_points
from workbench._errors import ToolNotFoundError, ToolSpecError
from workbench.protocols import ToolLookup
from workbench.spec import ToolSpec
from workbench.tools import BaseTool, DecoratedFunctionTool, NoImplementationError, SpecOnlyTool, tool

__all__ = [
    "ToolRegistry",
    "UntrustedRefTool",
    "default_registry",
    "normalize_tool_name",
    "FOREIGN_TOOL_MODULES",
    "foreign_kind",
]

#: The hook table for tools of other frameworks: the top-level package of a class in a foreign
#: object's MRO → the ``workbench.adapters`` entry that converts it. Only the class's ``__module__``
#: string is read, so no framework is imported unless the object comes from it.
FOREIGN_TOOL_MODULES: dict[str, str] = {
    "langchain_core": "langchain",
    "langchain": "langchain",
    "langchain_community": "langchain",
    "agents": "openai-agents",
    "pydantic_ai": "pydantic-ai",
    "smolagents": "smolagents",
    "crewai": "crewai",
    "crewai_tools": "crewai",
    "llama_index": "llamaindex",
    "mcp": "mcp-server",  # an MCP server object (MCPServer / Server) in this process
}

#: ``foreign_kind`` of a provider tool dict (OpenAI, Anthropic, Bedrock…, BFCL) that ``ToolSpec`` cannot take as is
PROVIDER_DICT_KIND = "provider-format"


def foreign_kind(obj: Any) -> Optional[str]:
    """The ``FOREIGN_TOOL_MODULES`` entry of ``obj`` (an instance, or a class) if a class of its MRO
    comes from a framework there, else ``None``."""
    if isinstance(obj, dict):
        from workbench.formats._import import detect_format

        return PROVIDER_DICT_KIND if detect_format(obj, plain=False) is not None else None
    mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    for klass in mro:
        kind = FOREIGN_TOOL_MODULES.get(klass.__module__.partition(".")[0])
        if kind is not None:
            return kind
    return None


#: ``from_spec_dict(trust_refs=...)``: ``True`` (every ref), ``False`` (none) or module prefixes.
TrustRefs = Union[bool, Iterable[str]]


def is_tool_file(text: str) -> bool:
    """Whether a ``process_tools`` string names a Python file rather than a module or a ref."""
    return text.endswith(".py") or os.sep in text


def load_tool_file(path: str) -> types.ModuleType:
    """Run a ``.py`` file as the module ``workbench_tools_<stem>`` (kept in ``sys.modules``)."""
    if not os.path.isfile(path):
        raise ValueError(f"Tool file {path!r} does not exist")
    module_name = "workbench_tools_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except Exception as exc:
        raise ValueError(f"Cannot load tools from {path!r}: {type(exc).__name__}: {exc}") from None
    return module


def normalize_tool_name(name: str) -> str:
    """The form two names must not share: ``my-tool`` and ``my_tool`` collide."""
    return name.replace("-", "_")


def _split_ref(ref: str) -> tuple[str, str]:
    if not isinstance(ref, str) or ref.count(":") != 1:
        raise ValueError(f"Invalid tool reference {ref!r}: expected 'package.module:function'")
    module_name, attr = ref.split(":")
    if not module_name or not attr:
        raise ValueError(f"Invalid tool reference {ref!r}: expected 'package.module:function'")
    return module_name, attr


def _resolve_ref(ref: str, *, reload: bool = False) -> Any:
    module_name, attr = _split_ref(ref)
    try:
        module = importlib.import_module(module_name)
        if reload:
            module = importlib.reload(module)
    except Exception as exc:  # ImportError, or the module itself failing to import
        raise ValueError(f"Cannot import tool reference {ref!r}: {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(
                f"Cannot import tool reference {ref!r}: module '{module_name}' has no attribute '{attr}'"
            ) from None
    return obj


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    """Whether dotted module name ``module`` is one of ``prefixes`` or inside one (whole components)."""
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _defining_module(obj: Any) -> Optional[str]:
    """The module that defines ``obj``: a module's own name, a bound method's function's module, else
    ``__module__`` (an instance's comes from its class); None when there is none."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) and module else None


class _RefTrust:
    """What a ``trust_refs`` value allows: which refs may be imported, and which resolved objects kept.

    A prefix trusts the modules under it, not everything reachable from them: ``canary:os.system``
    imports ``canary`` but yields a function defined in ``posix``, so it is refused.
    """

    all: bool
    prefixes: tuple[str, ...]

    def __init__(self, trust_refs: TrustRefs) -> None:
        if isinstance(trust_refs, bool):
            self.all, self.prefixes = trust_refs, ()
            return
        if isinstance(trust_refs, (str, bytes)) or not isinstance(trust_refs, Iterable):
            raise TypeError(
                f"trust_refs must be True, False or a list of module prefixes (e.g. ['myproj']), got {trust_refs!r}"
            )
        prefixes = tuple(trust_refs)
        bad = [p for p in prefixes if not isinstance(p, str)]
        if bad:
            raise TypeError(f"trust_refs must list module prefixes as strings, got {bad[0]!r}")
        self.all, self.prefixes = False, tuple(p for p in prefixes if p)  # an empty prefix trusts nothing

    def imports(self, ref: str) -> bool:
        """Whether the module of ``ref`` may be imported."""
        return self.all or _under(_split_ref(ref)[0], self.prefixes)

    def refusal(self, ref: str, obj: Any) -> Optional[str]:
        """Why the object ``ref`` resolved to may not be used (None: it may)."""
        if self.all:
            return None
        attr = _split_ref(ref)[1]
        module = _defining_module(obj)
        if module is None:
            return f"{attr} has no defining module"
        if not _under(module, self.prefixes):
            allowed = " or ".join(f"'{p}'" for p in self.prefixes)
            return f"{attr} is defined in '{module}', not under {allowed}"
        return None


class UntrustedRefTool(SpecOnlyTool):
    """A spec-file entry whose ``ref`` was not imported because the caller did not trust it.

    It behaves as a spec-only tool (synthetic calls work, real calls fail with a clear error);
    the ref stays recorded so ``to_spec_dict`` writes the entry back unchanged.
    """

    untrusted_ref: str
    spec_given: bool
    untrusted_reason: Optional[str]

    def __init__(
        self, spec: ToolSpec | dict[str, Any], ref: str, *, spec_given: bool = True, reason: Optional[str] = None
    ) -> None:
        super().__init__(spec)
        self.__dict__["untrusted_ref"] = ref
        self.__dict__["spec_given"] = spec_given  # False: a placeholder spec, not written back
        self.__dict__["untrusted_reason"] = reason  # set when the module was trusted but the object is not

    @property
    def status_text(self) -> str:
        why = f": {self.untrusted_reason}" if self.untrusted_reason else ""
        return f"spec-only (ref not trusted: {self.untrusted_ref}{why})"

    def __call__(self, **kwargs: Any) -> Any:
        if self.untrusted_reason:
            raise NoImplementationError(
                f"Tool '{self.tool_name}' has no implementation: its ref '{self.untrusted_ref}' comes from a spec "
                f"dict and is not trusted: {self.untrusted_reason}. A trusted prefix yields only objects defined "
                "under it; call it with synthetic=True, or pass trust_refs=True if you trust the whole file."
            )
        raise NoImplementationError(
            f"Tool '{self.tool_name}' has no implementation: its ref '{self.untrusted_ref}' comes from a spec "
            "dict and is not trusted, so it was not imported. Load the spec with "
            "ToolRegistry.from_spec_dict(..., trust_refs=True) (or trust_refs=['module.prefix']) if you trust "
            "the file, or call it with synthetic=True."
        )

    def get_display_properties(self) -> dict[str, str]:
        props = super().get_display_properties()
        props["Type"] = self.status_text
        return props

    def __repr__(self) -> str:
        return f"<UntrustedRefTool {self.tool_name!r}: {self.status_text}>"


def _derived_ref(item: BaseTool) -> Optional[str]:
    """``module:qualname`` for a module-level function tool that can be imported back."""
    if not isinstance(item, DecoratedFunctionTool):
        return None
    module_name, qualname = getattr(item, "__module__", None), getattr(item, "__qualname__", "")
    if not module_name or module_name == "__main__" or "<" in qualname:
        return None
    module = sys.modules.get(module_name)
    obj: Any = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return f"{module_name}:{qualname}" if obj is item else None


def _describe(obj: Any) -> str:
    text = repr(obj)
    text = text if len(text) <= 80 else text[:77] + "..."
    return f"{text} (a {type(obj).__module__}.{type(obj).__qualname__})"


def _is_spec_dict(value: Any) -> bool:
    return isinstance(value, dict) and {"name", "parameters"} <= set(value)


def tool_list(tools: Any) -> list[Any]:
    """The items of a ``tools`` argument, in order — the one reading of it every entry point shares
    (``as_tool_registry``, the agent loop, ``run_evals`` variants, ``workbench.models.tool_specs``):

    ``None`` → none; a mapping of name → tool → its values; a list, tuple, set or iterator → its
    items; anything else — one tool, ``ToolSpec``, spec dict (``{"name", "parameters", ...}``) or
    function — → that one (a registry says what it cannot register; a registry itself is not read
    here: callers use it as it is)."""
    if tools is None:
        return []
    if isinstance(tools, dict) and not _is_spec_dict(tools):
        return list(tools.values())
    if isinstance(tools, (list, tuple, set, frozenset, Iterator, MappingView)):
        return list(tools)  # type: ignore[arg-type]  # typeshed's MappingView has no __iter__; every view has
    return [tools]


def as_tool_registry(tools: Any, *, synthesize_specs: bool = False) -> ToolLookup:
    """A registry from a ``tools`` argument: a ``ToolRegistry`` (any :class:`~workbench.protocols.ToolLookup`:
    an ``McpConnection``, your own tool source) as it
    is, else a new ``ToolRegistry`` of :func:`tool_list`'s items — what the executors, the agent loop
    and ``run_evals`` accept. ``synthesize_specs``: a registry built here answers calls of tools given
    as specs (no implementation) with generated values (the agent loop's choice). ``None`` is a
    ``TypeError`` here: an executor needs its registry (the agent loop reads ``None`` as no tools)."""
    if isinstance(tools, (ToolRegistry, ToolLookup)):
        return tools
    if tools is None:
        raise TypeError("Expected a ToolRegistry (or a list of tools), got None")
    registry = ToolRegistry(tool_list(tools))
    if synthesize_specs:
        registry.synthetic = any(not t.has_implementation for t in registry.registry.values())
    return registry


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    """Lower-case words; ``snake_case``, ``kebab-case`` and ``camelCase`` names split into their parts."""
    return _WORD.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower())


def _rank(query: str, words: list[str], name: str, description: str) -> Optional[int]:
    """The rank of one tool for ``query`` (lower is better; None: no match). See ToolRegistry.search."""
    lname, ldesc = name.lower(), description.lower()
    if not all(w in lname or w in ldesc for w in words):
        return None
    if lname == query:
        return 0
    if lname.startswith(query):
        return 1
    name_words = _words(name)
    if all(any(nw.startswith(w) for nw in name_words) for w in words):
        return 2
    if query in lname:
        return 3
    if all(w in lname for w in words):
        return 4
    desc_words = _words(description)
    if all(any(dw.startswith(w) for dw in desc_words) for w in words):
        return 5
    return 6


def rank_tools(query: str, entries: Iterable[tuple[str, str]]) -> list[str]:
    """The names of ``entries`` (``(name, description)`` pairs) matching ``query``, best first."""
    query = " ".join(str(query or "").lower().split())
    if not query:
        return [name for name, _ in entries]
    words = _WORD.findall(query) or [query]
    ranked = []
    for index, (name, description) in enumerate(entries):
        rank = _rank(query, words, name, description or "")
        if rank is not None:
            ranked.append((rank, index, name))
    ranked.sort()
    return [name for _, _, name in ranked]


_SECTION = re.compile(r"^\s*(?:[A-Z][A-Za-z ]*:\s*$|[A-Z][A-Za-z ]*\n\s*-{3,}|:\w)", re.MULTILINE)


def catalog_description(item: BaseTool) -> str:
    """A tool's description without building its schema: the spec's when built; for a deferred
    ``@tool`` the explicit description or its docstring up to the first section (``Args:``…)."""
    if isinstance(item, DecoratedFunctionTool) and item.__dict__.get("_wb_spec", True) is None:
        explicit = item.__dict__.get("_wb_description")
        if explicit is not None:
            return explicit
        doc = inspect.getdoc(item.tool_func) or ""
        match = _SECTION.search(doc)
        return (doc[: match.start()] if match else doc).strip()
    return item.spec.description or ""


class ToolRegistry:
    """Tools by name, with refs, spec round trips, provider exports and hot reload.

    ``synthetic=True`` makes spec-only tools return generated values when called
    through :meth:`call` or an executor. ``validation``: how its tools that set no mode of their own
    check their input when an executor runs them, ``"strict"`` (the default) or ``"lax"`` (pydantic's
    lax mode); a run's mode (``validating()``, an executor's ``validation=``) wins over a tool's,
    which wins over this.
    """

    def __init__(
        self, tools: Optional[list[Any]] = None, *, synthetic: bool = False, validation: Optional[str] = None
    ) -> None:
        from workbench._validation_mode import check_mode

        self.registry: dict[str, BaseTool] = {}
        self.dynamic_tools: dict[str, BaseTool] = {}
        self.tool_refs: dict[str, str] = {}
        self.synthetic = synthetic
        self.validation = check_mode(validation, "ToolRegistry")
        self._normalized: dict[str, str] = {}
        self._listeners: list[Callable[[str, str], None]] = []
        self._lock = threading.RLock()
        if tools:
            self.process_tools(tools)

    # -- registration ------------------------------------------------------------------------------
    def register_tool(self, tool_obj: Any, *, replace: bool = False, ref: Optional[str] = None) -> str:
        """Register a tool (a ``BaseTool``; a plain function is wrapped with ``@tool``).

        Raises ``ValueError`` when the name, or its normalised form, is taken (unless ``replace``).
        Returns the registered name.
        """
        item = self._as_tool(tool_obj)
        name = item._checked_name()
        key = normalize_tool_name(name)
        with self._lock:
            existing = self._normalized.get(key)
            if existing is not None and not replace:
                if existing == name:
                    raise ValueError(f"Tool '{name}' is already registered (use replace=True to overwrite it)")
                raise ValueError(
                    f"Tool '{name}' conflicts with registered tool '{existing}' (names are equal once '-' and '_' are treated alike)"
                )
            if existing is not None and existing != name:
                self._remove(existing)
            elif existing is not None:  # same name: keep its place in the listing
                self.dynamic_tools.pop(name, None)
                self.tool_refs.pop(name, None)
            self.registry[name] = item
            self._normalized[key] = name
            if item.is_dynamic:
                self.dynamic_tools[name] = item
            tool_ref = ref or _derived_ref(item)
            if tool_ref:
                self.tool_refs[name] = tool_ref
        self._notify("replaced" if existing else "registered", name)
        return name

    def register(self, tool_obj: Any, *, replace: bool = False) -> str:
        """Alias of :meth:`register_tool` (locus' name)."""
        return self.register_tool(tool_obj, replace=replace)

    def register_many(self, tools: list[Any], *, replace: bool = False) -> list[str]:
        """Register several tools; returns their names."""
        return [self.register_tool(t, replace=replace) for t in tools]

    def register_spec(self, spec: ToolSpec | dict[str, Any], *, replace: bool = False) -> str:
        """Register a spec without an implementation (rdk's ``world.register_tool(spec)``)."""
        return self.register_tool(SpecOnlyTool(ToolSpec.coerce(spec)), replace=replace)

    def register_tool_by_ref(self, ref: str, tool_name: Optional[str] = None, *, replace: bool = False) -> str:
        """Import ``"package.module:function"`` and register it (optionally under ``tool_name``)."""
        obj = _resolve_ref(ref)
        item = self._as_tool(obj, name=tool_name)
        return self.register_tool(item, replace=replace, ref=ref)

    def unregister(self, name: str) -> Optional[BaseTool]:
        """Remove a tool; returns it, or None if it was not registered."""
        with self._lock:
            item = self._remove(name) if name in self.registry else None
        if item is not None:
            self._notify("unregistered", name)
        return item

    def _remove(self, name: str) -> BaseTool:
        item = self.registry.pop(name)
        self._normalized.pop(normalize_tool_name(name), None)
        self.dynamic_tools.pop(name, None)
        self.tool_refs.pop(name, None)
        return item

    def process_tools(self, tools: list[Any]) -> list[str]:
        """Register tools, functions, modules (their tools), ``"module:function"`` refs,
        module paths and ``.py`` file paths. Returns the names processed."""
        names: list[str] = []
        for item in tools:
            if isinstance(item, str):
                names += self._process_string(item)
            elif isinstance(item, types.ModuleType):
                names += self._process_module(item)
            elif not isinstance(item, BaseTool) and foreign_kind(item) is not None:
                # a framework's tool, or a toolkit / toolset holding several
                names += [self._register_if_new(t) for t in _entry_points.adapt_foreign(item)]
            else:
                item_tool = self._as_tool(item)
                if self.registry.get(item_tool.tool_name) is item_tool:
                    names.append(item_tool.tool_name)
                else:
                    names.append(self.register_tool(item_tool))
        return names

    def _process_string(self, text: str) -> list[str]:
        if text in self.registry:
            return [text]
        if ":" in text:
            resolved = _resolve_ref(text)
            if isinstance(resolved, BaseTool) and self.registry.get(resolved.tool_name) is resolved:
                return [resolved.tool_name]  # already here (e.g. listed by its module too)
            return [self.register_tool_by_ref(text)]
        if is_tool_file(text):
            return self.process_module(load_tool_file(text), dynamic=True)
        try:
            module = importlib.import_module(text)
        except ImportError:
            raise ValueError(
                f"{text!r} is neither a registered tool, a 'module:function' reference nor an importable module"
                + self._suggestion_text(text)
            ) from None
        return self._process_module(module)

    def process_module(self, module: types.ModuleType, *, dynamic: bool = False, required: bool = True) -> list[str]:
        """Register the tools a module defines; ``dynamic`` marks them as loaded from a file (see
        :func:`load_tool_file`). A module without tools is an error unless ``required`` is false."""
        names = self._process_module(module, required=required)
        if dynamic:
            for name in names:
                self.registry[name].mark_dynamic()
                self.dynamic_tools[name] = self.registry[name]
        return names

    def _process_module(self, module: types.ModuleType, required: bool = True) -> list[str]:
        found = [obj for obj in vars(module).values() if isinstance(obj, BaseTool)]
        found += self._foreign_tools_of(module)
        if not found and required:
            raise ValueError(f"Module '{module.__name__}' defines no tools (decorate functions with @tool)")
        names = []
        for obj in found:
            ref = f"{module.__name__}:{obj.__qualname__}" if isinstance(obj, DecoratedFunctionTool) else None
            names.append(self._register_if_new(obj, ref))
        return names

    def _register_if_new(self, item: BaseTool, ref: Optional[str] = None) -> str:
        """Register ``item`` unless it is here already: the same object, or an adapted tool of the
        same foreign tool (each adaptation is a new object; listing it twice is no clash)."""
        existing = self.registry.get(item.tool_name)
        original = getattr(item, "original", None)
        if existing is item or (original is not None and getattr(existing, "original", None) is original):
            return item.tool_name
        return self.register_tool(item, ref=ref)

    @staticmethod
    def _foreign_tools_of(module: types.ModuleType) -> list[BaseTool]:
        """The adapted tools of the other frameworks' tool objects a module defines (an instance of a
        framework class that is not a tool, such as a model client, is not one of them). Tool dicts
        and MCP server objects are taken only when listed: a module's dict constant is data, and
        scanning a module must not start its server."""
        tools: list[BaseTool] = []
        for obj in vars(module).values():
            if isinstance(obj, (type, types.ModuleType, BaseTool, dict)) or foreign_kind(obj) in (None, "mcp-server"):
                continue
            try:
                tools += _entry_points.adapt_foreign(obj)
            except TypeError:
                continue
        return tools

    @staticmethod
    def _as_tool(obj: Any, name: Optional[str] = None) -> BaseTool:
        if isinstance(obj, BaseTool):
            if name and name != obj.tool_name:
                if isinstance(obj, DecoratedFunctionTool):
                    return DecoratedFunctionTool(
                        obj.tool_func,
                        obj.spec.model_copy(update={"name": name}),
                        context_param=obj.context_param,
                        positional_only=obj._positional_only,
                        is_async=obj._is_async,
                    )
                raise ValueError(f"Cannot rename class-based tool '{obj.tool_name}' to '{name}'")
            return obj
        if isinstance(obj, type) and issubclass(obj, BaseTool):
            return obj()
        if isinstance(obj, ToolSpec) or (isinstance(obj, dict) and foreign_kind(obj) is None):
            return SpecOnlyTool(ToolSpec.coerce(obj))
        if foreign_kind(obj) is not None:
            adapted = _entry_points.adapt_foreign(obj)
            if len(adapted) != 1:
                raise ValueError(
                    f"{type(obj).__name__} holds {len(adapted)} tools "
                    f"({', '.join(t.tool_name for t in adapted)}): register them with "
                    "process_tools([...]) or ToolRegistry([...]), which take each of them"
                )
            item = adapted[0]
            if name and name != item.tool_name:
                raise ValueError(
                    f"Cannot rename the {item.tool_type} tool '{item.tool_name}' to '{name}': "
                    "its name is the one its framework sends to a model"
                )
            return item
        if callable(obj):
            return tool(obj, name=name)
        raise ToolSpecError(
            f"Cannot register {_describe(obj)}: expected a workbench tool, a function, a BaseTool subclass, a "
            f"ToolSpec (or spec dict), or a tool of one of the frameworks workbench.adapters converts "
            f"({', '.join(sorted(set(FOREIGN_TOOL_MODULES.values())))})"
        )

    # -- lookup ------------------------------------------------------------------------------------
    def get_tool(self, tool_name: str) -> BaseTool:
        """The tool called ``tool_name``; ``KeyError`` listing the available tools and the closest name."""
        try:
            return self.registry[tool_name]
        except KeyError:
            raise self._not_found(tool_name) from None

    get_or_raise = get_tool

    def get(self, name: str) -> Optional[BaseTool]:
        """The tool called ``name``, or None."""
        return self.registry.get(name)

    def _not_found(self, name: str) -> ToolNotFoundError:
        return ToolNotFoundError(str(name), self.list_tools(), self.closest_name(str(name)))

    def closest_name(self, name: str) -> Optional[str]:
        """The registered name most like ``name`` (normalised match first, then difflib)."""
        normalized = self._normalized.get(normalize_tool_name(name))
        if normalized:
            return normalized
        lowered = {n.lower(): n for n in self.registry}
        if name.lower() in lowered:
            return lowered[name.lower()]
        close = difflib.get_close_matches(name, list(self.registry), n=1, cutoff=0.5)
        return close[0] if close else None

    def _suggestion_text(self, name: str) -> str:
        close = self.closest_name(name)
        return f" (did you mean '{close}'?)" if close else ""

    def list_tools(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self.registry)

    def __contains__(self, name: object) -> bool:
        return name in self.registry

    def __len__(self) -> int:
        return len(self.registry)

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(list(self.registry.values()))

    def search(self, query: str, limit: Optional[int] = None) -> list[str]:
        """Names of the tools matching ``query``, best first (case-insensitive).

        Ranks: the name equals the query, the name starts with it, a word of the name starts with a
        query word, the name contains the query, then the description (a word of it starts with a query
        word, or it contains the query); registration order within a rank. Every query word must
        occur in the name or description. An empty query lists every tool. ``limit`` caps the result.
        Tools whose schema is not built yet are searched by their docstring's description (the
        search never builds a schema).
        """
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
            raise ValueError(f"search(limit=...) must be a non-negative integer, got {limit!r}")
        with self._lock:
            items = list(self.registry.items())
        names = rank_tools(query, [(name, catalog_description(item)) for name, item in items])
        return names if limit is None else names[:limit]

    def get_tool_ref(self, tool_name: str) -> Optional[str]:
        """The ``module:function`` reference of a tool, or None."""
        return self.tool_refs.get(tool_name)

    def get_all_tool_specs(self) -> list[ToolSpec]:
        return [t.spec for t in self.registry.values()]

    def get_all_tools_config(self) -> dict[str, Any]:
        """``{name: spec JSON}`` for every tool (Spark's configuration view)."""
        return {name: t.spec.to_json() for name, t in self.registry.items()}

    @staticmethod
    def validate_tool_spec(tool_spec: ToolSpec | dict[str, Any]) -> None:
        """Raise ``ToolSpecError`` (a ``ValueError``) if ``tool_spec`` is malformed."""
        ToolSpec.coerce(tool_spec).validate()

    # -- serialisation -------------------------------------------------------------------------------
    def to_spec_dict(self) -> dict[str, Any]:
        """``{"tools": [{"name", "ref"?, "spec"}]}`` for every tool."""
        entries = []
        for name, item in self.registry.items():
            entry: dict[str, Any] = {"name": name}
            ref = self.tool_refs.get(name)
            if ref:
                entry["ref"] = ref
            if getattr(item, "spec_given", True):
                entry["spec"] = item.spec.to_json()
            entries.append(entry)
        return {"tools": entries}

    @classmethod
    def from_spec_dict(
        cls, spec: dict[str, Any], *, synthetic: bool = False, trust_refs: TrustRefs = False
    ) -> "ToolRegistry":
        """Rebuild a registry from :meth:`to_spec_dict` output (typically read from a file).

        A spec dict is data and may be untrusted, so by default no ``ref`` is imported: every entry
        becomes a spec-only tool (an :class:`UntrustedRefTool` when it has a ref, which is kept for
        :meth:`to_spec_dict`), and a ``UserWarning`` lists the refs left unresolved.

        Args:
            spec: ``{"tools": [{"name", "ref"?, "spec"?}]}``.
            synthetic: the registry's ``synthetic`` option.
            trust_refs: ``True`` imports every ref (only for files you wrote); a list of module
                prefixes imports the refs under them, matching whole dotted components
                (``["myproj"]`` allows ``myproj.tools:f`` but not ``myproj_evil:f``), and keeps only
                objects defined under them (``myproj:os.system`` is refused although ``myproj``
                imports ``os``: it is defined in ``posix``).
        """
        if not isinstance(spec, dict) or not isinstance(spec.get("tools"), list):
            raise ValueError("A spec dict must look like {'tools': [{'name': ..., 'ref': ..., 'spec': {...}}]}")
        trust = _RefTrust(trust_refs)
        registry = cls(synthetic=synthetic)
        untrusted: list[str] = []
        for index, entry in enumerate(spec["tools"]):
            if not isinstance(entry, dict):
                raise ValueError(f"tools[{index}] must be an object, got {type(entry).__name__}")
            name = entry.get("name") or (entry.get("spec") or {}).get("name")
            ref = entry.get("ref")
            if ref:
                _split_ref(ref)  # a malformed ref is an error whether or not it is trusted
            reason = None
            if ref and trust.imports(ref):
                obj = _resolve_ref(ref)
                reason = trust.refusal(ref, obj)
                if reason is None:
                    registry.register_tool(registry._as_tool(obj, name=name), ref=ref)
                    continue
            if ref:
                name = name or ref.rsplit(":", 1)[1].rsplit(".", 1)[-1]
                registry.register_tool(cls._untrusted_tool(entry.get("spec"), name, ref, reason), ref=ref)
                untrusted.append(f"{name} ({ref}: {reason})" if reason else f"{name} ({ref})")
            elif entry.get("spec"):
                registry.register_spec(cls._spec_data(entry["spec"], name))
            else:
                raise ValueError(f"tools[{index}] ({name or 'unnamed'}) has neither a 'ref' nor a 'spec'")
        if untrusted:
            warnings.warn(
                f"from_spec_dict: {len(untrusted)} ref(s) not trusted, not imported, loaded as spec-only tools: "
                f"{', '.join(untrusted)}. If you trust the file, pass trust_refs=True "
                "(or trust_refs=['module.prefix'])",
                UserWarning,
                stacklevel=2,
            )
        return registry

    @staticmethod
    def _spec_data(data: dict[str, Any], name: Optional[str]) -> dict[str, Any]:
        out = {k: v for k, v in data.items() if k != "inputs"}
        if name:
            out["name"] = name
        return out

    @classmethod
    def _untrusted_tool(
        cls, data: Optional[dict[str, Any]], name: str, ref: str, reason: Optional[str] = None
    ) -> UntrustedRefTool:
        if data:
            return UntrustedRefTool(ToolSpec.coerce(cls._spec_data(data, name)), ref, reason=reason)
        placeholder = ToolSpec(
            name=name,
            description=f"Not loaded: ref '{ref}' is not trusted.",
            parameters={"type": "object", "properties": {}},
        )
        return UntrustedRefTool(placeholder, ref, spec_given=False, reason=reason)

    def to_provider_format(self, provider: str, **options: Any) -> list[dict[str, Any]]:
        """Every tool in one provider's format."""
        from workbench.formats import to_provider_format

        return [to_provider_format(t.spec, provider, **options) for t in self.registry.values()]

    def to_openai_schemas(self) -> list[dict[str, Any]]:
        return self.to_provider_format("openai")

    # -- hot reload --------------------------------------------------------------------------------
    def reload(self, name: str) -> BaseTool:
        """Re-import the module of a ref'd tool and register the fresh version."""
        item = self.get_tool(name)
        ref = self.tool_refs.get(name)
        if not ref:
            raise ValueError(
                f"Tool '{name}' has no module reference to reload from (register it by ref or from a module)"
            )
        if isinstance(item, UntrustedRefTool):
            raise ValueError(
                f"Tool '{name}' came from a spec dict whose ref '{ref}' is not trusted; reload will not "
                f"import it (use register_tool_by_ref({ref!r}, {name!r}, replace=True) if you trust it)"
            )
        fresh = self._as_tool(_resolve_ref(ref, reload=True), name=name if name != ref.split(":")[1] else None)
        fresh.mark_dynamic()
        self.register_tool(fresh, replace=True, ref=ref)
        del item
        return fresh

    # -- calling -----------------------------------------------------------------------------------
    def call(
        self, name: str, input: Optional[dict[str, Any]] = None, *, synthetic: Optional[bool] = None, **options: Any
    ):
        """Call one tool synchronously through a ``SequentialExecutor``; returns the ``ToolResult``."""
        from workbench import _entry_points  # the executors sit a layer above the registry
        from workbench.types import make_tool_use

        return _entry_points.call_one(
            self, make_tool_use(name, input), synthetic=self.synthetic if synthetic is None else synthetic, **options
        )

    # -- change listeners (the notebook UI follows the registry) -----------------------------------
    def on_change(self, callback: Callable[[str, str], None]) -> Callable[[], None]:
        """Call ``callback(event, name)`` on register/replace/unregister; returns an unsubscribe function."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _notify(self, event: str, name: str) -> None:
        for callback in list(self._listeners):
            try:
                callback(event, name)
            except Exception:  # noqa: BLE001 - a UI listener must not break registration
                pass

    def __repr__(self) -> str:
        return f"ToolRegistry({self.list_tools()!r})"

    def _repr_html_(self) -> str:
        from workbench._html import registry_html

        return registry_html(self)


_DEFAULT: Optional[ToolRegistry] = None


def default_registry() -> ToolRegistry:
    """The module-level registry used by the class decorator and the notebook layer."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = ToolRegistry()
    return _DEFAULT
