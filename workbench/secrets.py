"""The one secrets policy: which names, schemas and strings are credentials, and how they are masked.

Every serialised thing the workbench writes — transcripts, cassettes, the execution log, exported MCP
configs, saved evaluation reports, the notebook's saved widget state, errors and reprs — masks secrets
through this module, so a rule changed here changes everywhere at once.

Three kinds of secret are recognised:

* **Known values**: the exact keys a model, a connection or an adapter was configured with, whatever
  their shape (``sk-…``, ``gsk_…``, an Azure hex key). :func:`mask` and :func:`scrub_text` replace
  every occurrence with ``***``. This is the rule that matters; the others are a safety net.
* **Secret names**: a field, header, parameter, environment variable or option whose name says it
  holds a credential (:func:`is_secret_name`: ``api_key``, ``Authorization``, ``aws_session_token``,
  ``password``, ``X-Key`` …). Names are matched by whole words, so ``max_tokens`` is not a secret.
* **Secret-shaped text**: ``Bearer …``/``Basic …`` credentials, well-known key prefixes (``sk-``,
  ``gsk_``, ``AIza``, ``ghp_``, ``xoxb-``, ``AKIA``…), credential query parameters and the password of
  a ``user:password@host`` URL (:func:`scrub_text`), for text such as an SDK's error message where no
  structure tells what is what.

A tool parameter is secret when its JSON Schema says so (:func:`is_secret_schema`: ``format:
"password"`` or ``writeOnly: true`` — what pydantic emits for ``SecretStr``); :func:`mask_arguments`
masks such arguments.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Callable, Iterable, Mapping, Optional
from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

from workbench._refs import resolved

__all__ = [
    "MASK",
    "Replace",
    "SecretCalls",
    "command_secrets",
    "header_secrets",
    "is_secret_name",
    "is_secret_query_name",
    "is_secret_schema",
    "mask",
    "mask_arguments",
    "mask_command",
    "mask_header",
    "masked_parameters",
    "mask_params",
    "mask_result",
    "mask_url",
    "mask_values",
    "secret_parameters",
    "secret_values",
    "scrub_text",
    "url_secrets",
]

MASK = "***"

# a name (normalised: ``X-Api-Key`` → ``x_api_key``) holds a credential when it contains one of the
# strong words anywhere (``dbpassword``, ``myapikey``), ``token``/``auth`` as a word's end (``github_token``,
# ``apitoken``, ``x_auth`` — not ``max_tokens``, ``tokenizer`` or ``author``), or ends in ``key`` or
# ``session`` (``x_key`` — not ``key_id`` or ``session_id``)
_SECRET_NAME = re.compile(
    r"passw|pwd|secret|api_?key|credential|private_?key|access_?key|bearer|cookie"
    r"|token(?:$|_)|auth(?:$|_|orization|entication)"
    r"|(?:^|_)(?:key|session|code_verifier)$"
)
# in a URL's query a signature is a credential too (a presigned URL); in a body it is not (Anthropic's
# thinking blocks carry a ``signature`` that must go back as sent)
_SECRET_QUERY_ONLY = frozenset({"sig", "signature", "code"})

# secret-shaped text: (prefix kept, secret masked)
_SECRET_TEXT = re.compile(
    r"(?P<scheme>\b(?:Bearer|Basic)\s+)[^\s'\",;]{8,}"
    r"|(?P<prefixed>\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}|\bgsk_[A-Za-z0-9]{8,}|\bAIza[0-9A-Za-z_\-]{20,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{16,}|\bxox[abprs]-[A-Za-z0-9\-]{8,}|\bAKIA[0-9A-Z]{12,}|\bhf_[A-Za-z0-9]{16,})"
    r"|(?P<query>[?&;](?:api[_-]?key|key|token|access_token|sig|signature|secret|password|code)=)[^&\s'\"#]+"
    r"|(?P<userinfo>://[^/\s:@]+:)[^@\s/]+(?=@)",
    re.IGNORECASE,
)


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def is_secret_name(name: str) -> bool:
    """True for a name (a field, header, parameter, env var, option or query parameter) that
    says it holds a credential: ``api_key``, ``Authorization``, ``X-Key``, ``AWS_SESSION_TOKEN``,
    ``--token``… — but not ``max_tokens`` or ``key_id``."""
    return bool(_SECRET_NAME.search(_normal(name)))


def is_secret_query_name(name: str) -> bool:
    """True for a URL query parameter that carries a credential: a secret name, or ``sig``,
    ``signature`` or ``code`` (presigned URLs, OAuth redirects)."""
    return is_secret_name(name) or _normal(name) in _SECRET_QUERY_ONLY


def is_secret_schema(schema: Any) -> bool:
    """True for a JSON Schema of a secret value: ``format: "password"`` or ``writeOnly: true``
    (pydantic's schema for ``SecretStr``/``SecretBytes``), also under a nullable ``anyOf``."""
    if not isinstance(schema, Mapping):
        return False
    if schema.get("format") == "password" or schema.get("writeOnly") is True:
        return True
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list):
        return any(is_secret_schema(v) for v in variants if isinstance(v, Mapping) and v.get("type") != "null")
    return False


def secret_parameters(parameters: Any) -> frozenset[str]:
    """The names of a tool's top-level parameters whose schema marks them secret (``$ref``s into
    ``$defs`` are followed, their sibling keywords kept: ``workbench._refs``)."""
    if not isinstance(parameters, Mapping):
        return frozenset()
    props = parameters.get("properties")
    if not isinstance(props, Mapping):
        return frozenset()
    defs = parameters.get("$defs") or {}
    names = set()
    for name, schema in props.items():
        if isinstance(schema, Mapping) and "$ref" in schema:
            schema = resolved(schema, {"$defs": defs}) or schema
        if is_secret_schema(schema):
            names.add(name)
    return frozenset(names)


def mask_arguments(arguments: Any, secret_names: Iterable[str]) -> Any:
    """``arguments`` (a tool call's input) with the values of the named secret parameters
    replaced by ``***`` — a copy when anything changes, else ``arguments`` itself."""
    names = set(secret_names)
    if not names or not isinstance(arguments, Mapping) or not names.intersection(arguments):
        return arguments
    return {k: (MASK if k in names and v is not None else v) for k, v in arguments.items()}


def masked_parameters(arguments: Any, secret_names: Iterable[str]) -> list[str]:
    """The secret parameters whose value in ``arguments`` is the mask (a logged input): they must be
    given again, never sent as ``***``."""
    if not isinstance(arguments, Mapping):
        return []
    return sorted(name for name in secret_names if arguments.get(name) == MASK)


def secret_values(arguments: Any, secret_names: Iterable[str]) -> list[str]:
    """The string values ``arguments`` gives the named secret parameters (what :func:`mask_values`
    then finds in an error message or a result)."""
    if not isinstance(arguments, Mapping):
        return []
    values = (arguments.get(name) for name in secret_names)
    # a number given for a secret is quoted by the validation error that refuses it
    return [
        v if isinstance(v, str) else str(v)
        for v in values
        if isinstance(v, (str, int, float)) and not isinstance(v, bool)
    ]


class SecretCalls:
    """The secret parameters of the tools offered somewhere (an agent run, a model request), and the
    values calls gave them: :meth:`call` masks a call's secret arguments, :meth:`values` /
    :meth:`result` mask those values wherever else they show up (a provider's raw request or
    response, a result that echoes one). Values are learned from every call seen, masked or not."""

    def __init__(self, names_by_tool: Mapping[str, Iterable[str]]) -> None:
        self.names = {tool: frozenset(names) for tool, names in names_by_tool.items() if names}
        self.secrets: list[str] = []  #: the values seen, in the order first seen

    @classmethod
    def of(cls, specs: Iterable[Any]) -> "SecretCalls":
        """From tool specs: ``ToolSpec``s (their cached ``secret_parameters``) or spec dicts."""
        names: dict[str, Iterable[str]] = {}
        for spec in specs or ():
            if isinstance(spec, Mapping):
                names[str(spec.get("name"))] = secret_parameters(spec.get("parameters"))
            else:
                names[spec.name] = spec.secret_parameters
        return cls(names)

    def __bool__(self) -> bool:
        return bool(self.names)

    def names_of(self, call: Any) -> frozenset[str]:
        """The secret parameters of the tool ``call`` (a ToolUse dict) calls."""
        name = call.get("name") if isinstance(call, Mapping) else None
        return self.names.get(name, frozenset()) if isinstance(name, str) else frozenset()

    def learn(self, call: Any) -> None:
        """Note the values ``call`` gives secret parameters (``***`` is not one)."""
        for value in secret_values(call.get("input"), self.names_of(call)) if isinstance(call, Mapping) else ():
            if value != MASK and value not in self.secrets:
                self.secrets.append(value)

    def call(self, call: Any) -> Any:
        """``call`` with its secret arguments ``***`` (learned first) — a copy when anything changes."""
        names = self.names_of(call)
        if not names:
            return call
        self.learn(call)
        masked = mask_arguments(call.get("input"), names)
        return call if masked is call.get("input") else {**call, "input": masked}

    def values(self, value: Any) -> Any:
        """``value`` (JSON) with every secret value seen so far replaced by ``***``."""
        return mask_values(value, self.secrets) if self.secrets else value

    def result(self, result: Any) -> Any:
        """A ``ToolResult`` holding none of the secret values seen so far."""
        return mask_result(result, self.secrets) if self.secrets else result


def mask_values(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` (JSON) with every occurrence of the known ``secrets`` replaced by ``***`` — field
    names are not looked at (unlike :func:`mask`) — a copy when anything changes, else ``value``."""
    known = _known(secrets)
    if not known:
        return value
    if isinstance(value, str):
        return _mask(value, known)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        return _replace_known(value, known)
    return _replace_known(value, known) if any(secret in text for secret in known) else value


def _replace_known(value: Any, known: list[str]) -> Any:
    if isinstance(value, str):
        return _mask(value, known)
    if isinstance(value, Mapping):
        return {k: _replace_known(v, known) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replace_known(v, known) for v in value]
    return value


def mask_result(result: Any, secrets: Iterable[str]) -> Any:
    """A ``ToolResult`` whose content and metadata (error message, validation errors' ``received``…)
    hold none of ``secrets`` — a copy when anything changes, else ``result`` itself."""
    known = _known(secrets)
    if not known:
        return result
    from workbench.types import fast_tool_result  # the types sit above this module

    content, metadata, value = (mask_values(part, known) for part in (result.content, result.metadata, result.value))
    if content is result.content and metadata is result.metadata and value is result.value:
        return result
    return fast_tool_result(
        result.tool_use_id,
        result.status,
        content,
        metadata,
        result.started_at,
        result.completed_at,
        result.progress,
        value,
    )


def _known(secrets: Iterable[str]) -> list[str]:
    # longest first, so a key that contains another is masked whole; very short strings would mask
    # ordinary text and are not credentials anyway
    return sorted({s for s in secrets if isinstance(s, str) and len(s) >= 4}, key=len, reverse=True)


def mask(value: Any, secrets: Iterable[str] = ()) -> Any:
    """``value`` as JSON with every known secret string replaced by ``***``, the values of
    secret-named fields masked, and bytes as base64 text — a copy when anything changes, else
    ``value`` itself."""
    known = _known(secrets)
    try:  # the common case, checked at C speed: plain JSON holding no secret and no secret-named field
        text = json.dumps(value)
    except (TypeError, ValueError):
        return _mask(value, known)
    if any(secret in text for secret in known) or _has_secret_field(value):
        return _mask(value, known)
    return value


def _has_secret_field(value: Any) -> bool:
    if isinstance(value, dict):
        return any(is_secret_name(k) and isinstance(v, str) and v or _has_secret_field(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_secret_field(v) for v in value)
    return False


def _mask(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {
            str(k): (MASK if is_secret_name(str(k)) and isinstance(v, str) and v else _mask(v, secrets))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_mask(v, secrets) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _mask(dump(mode="json", by_alias=True, exclude_none=True), secrets)
    return _mask(str(value), secrets)


def mask_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` (a model's settings) with the values of secret-named keys replaced by ``***``."""
    return {k: (MASK if is_secret_name(str(k)) and v not in (None, "") else v) for k, v in params.items()}


def scrub_text(text: Any, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret and every secret-shaped string (``Bearer …``, ``sk-…``,
    ``gsk_…``, ``?api_key=…``, a URL's password…) replaced by ``***``."""
    out = str(text)
    for secret in _known(secrets):
        if secret in out:
            out = out.replace(secret, MASK)
    return _SECRET_TEXT.sub(_mask_match, out)


def _mask_match(match: re.Match) -> str:
    for keep in ("scheme", "query", "userinfo"):
        if match.group(keep):
            return match.group(keep) + MASK
    return match.group(0)[:3] + MASK


#: how a secret is replaced: given the secret's name (a query parameter, header, option or env name;
#: ``url_user`` / ``url_password`` for a URL's user info), the text that stands in for it
Replace = Callable[[str], str]


def _masked(_name: str) -> str:
    return MASK


def mask_url(url: str, replace: Optional[Replace] = None) -> str:
    """``url`` with a password (or a lone token as user name) and secret-named query parameters
    masked: ``https://user:pw@host/v1?api-key=k`` → ``https://user:***@host/v1?api-key=***``.

    ``replace(name)`` gives the text put in a secret's place (default ``***``); ``name`` is the query
    parameter's name, or ``url_password`` / ``url_user``. Everything else keeps its original spelling."""
    replace = replace or _masked
    try:
        parts = urlsplit(str(url))
    except ValueError:
        return scrub_text(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _password = userinfo.partition(":")
        netloc = f"{user}:{replace('url_password')}@{host}" if colon else f"{replace('url_user')}@{host}"
    query = "&".join(_masked_query_item(item, replace) for item in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _masked_query_item(item: str, replace: Replace) -> str:
    raw_name, eq, _value = item.partition("=")
    name = unquote_plus(raw_name)
    return f"{raw_name}={replace(name)}" if eq and is_secret_query_name(name) else item


def mask_header(name: str, value: str, replace: Optional[Replace] = None) -> str:
    """An HTTP header's value with its credential masked: ``Authorization: Bearer X`` keeps its scheme
    (``Bearer ***``), a secret-named header (``X-Api-Key``, ``Cookie``…) is masked whole, any other
    header is returned as it is. ``replace`` as for :func:`mask_url` (called with the header's name)."""
    replace = replace or _masked
    if _normal(name) in _CREDENTIAL_HEADERS:
        scheme, space, credential = str(value).strip().partition(" ")
        return f"{scheme} {replace(name)}" if space and credential else replace(name)
    return replace(name) if is_secret_name(name) else value


# headers whose value is ``<scheme> <credential>``
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy_authorization"})
# short options that take a credential (``-k KEY``); long ones say so by name (``--api-key``)
_SECRET_SHORT_OPTIONS = {"-k": "key"}
# ``Name: value`` (a header given as an argument, as to ``mcp-remote --header`` or ``curl -H``)
_HEADER_ARG = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_\-]*)\s*:(?!//)\s*(.*)$", re.DOTALL)
# ``NAME=value`` (an environment assignment, as to ``env`` or ``docker run -e``)
_ASSIGNMENT_ARG = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)=(.*)$", re.DOTALL)


def mask_command(argv: Iterable[str], replace: Optional[Replace] = None) -> list[str]:
    """A command line's arguments with every credential masked:

    * the value of a secret-named option, as two arguments or one (``--token X``, ``--api-key=X``)
      and of ``-k X``;
    * a secret header given as an argument, alone or as an option's value (``--header "Authorization:
      Bearer X"``, ``--header=X-Key:X``, ``-H "Cookie: …"``): masked as by :func:`mask_header`;
    * a URL argument's password, token user name and credential query parameters (:func:`mask_url`);
    * ``NAME=X`` when ``NAME`` is secret (``docker run -e API_KEY=X``);
    * anything else that looks like a credential (``sk-…``, ``Bearer …``: :func:`scrub_text`).

    ``replace(name)`` gives the text put in a secret's place (default ``***``); ``name`` is the option's,
    header's or variable's name (``secret`` for a bare credential)."""
    replace = replace or _masked
    out: list[str] = []
    pending: Optional[str] = None  # the option whose value is the next argument
    for arg in argv:
        arg = str(arg)
        if pending is not None:
            out.append(replace(pending))
            pending = None
            continue
        if arg.startswith("-"):
            option, eq, value = arg.partition("=")
            name = _SECRET_SHORT_OPTIONS.get(option) or option.lstrip("-")
            if option in _SECRET_SHORT_OPTIONS or (option.startswith("--") and is_secret_name(name)):
                if eq:
                    out.append(f"{option}={replace(name)}")
                else:
                    out.append(arg)
                    pending = name
                continue
            out.append(f"{option}={_mask_value(value, replace)}" if eq else arg)
            continue
        out.append(_mask_value(arg, replace))
    return out


def _mask_value(text: str, replace: Replace) -> str:
    """One argument (or an option's value) with its credentials masked (see :func:`mask_command`)."""
    if "://" in text:
        return mask_url(text, replace)
    header = _HEADER_ARG.match(text)
    if header and (is_secret_name(header.group(1))):
        name, value = header.group(1), header.group(2)
        return f"{text[: header.start(2)]}{mask_header(name, value, replace)}"
    assignment = _ASSIGNMENT_ARG.match(text)
    if assignment and is_secret_name(assignment.group(1)):
        return f"{assignment.group(1)}={replace(assignment.group(1))}"
    return replace("secret") if scrub_text(text) != text else text


def command_secrets(argv: Iterable[str]) -> list[str]:
    """The credentials written into a command line: the values :func:`mask_command` masks, to mask
    wherever they show up besides the command (an error message quoting it, the server's stderr)."""
    argv = [str(arg) for arg in argv]
    found: list[str] = []
    for original, shown in zip(argv, mask_command(argv, _marked)):
        if shown != original:
            found += _replaced(original, shown)
    return list(dict.fromkeys(found))


def header_secrets(headers: Optional[Mapping[str, str]]) -> list[str]:
    """The credentials in HTTP ``headers``: the values :func:`mask_header` masks (``Bearer X`` → ``X``)."""
    found: list[str] = []
    for name, value in (headers or {}).items():
        shown = mask_header(name, str(value), _marked)
        if shown != value:
            found += _replaced(str(value), shown)
    return list(dict.fromkeys(found))


# stands in for a secret while :func:`command_secrets` / :func:`header_secrets` find what it replaced
_MARK = "\x00"


def _marked(_name: str) -> str:
    return _MARK


def _replaced(original: str, shown: str) -> list[str]:
    """The parts of ``original`` that ``shown`` (``original`` masked with :data:`_MARK`) replaced; the
    whole of ``original`` when masking also respelled it (a URL normalised by ``urlunsplit``)."""
    pattern = "(.*?)".join(re.escape(part) for part in shown.split(_MARK))
    match = re.fullmatch(pattern, original, re.DOTALL)
    if match is None:
        return url_secrets(original) or [original]
    return [value for value in match.groups() if value]


def url_secrets(url: Any) -> list[str]:
    """The credentials written into ``url``: the password of ``user:password@host`` (or a lone token
    as user name) and the values of secret-named query parameters — to mask wherever they show up
    (an SDK's error message, a hint naming the server), as :func:`mask_url` masks the URL itself."""
    if not url:
        return []
    try:
        parts = urlsplit(str(url))
    except ValueError:
        return []
    written = []
    if "@" in parts.netloc:
        user, colon, password = parts.netloc.rpartition("@")[0].partition(":")
        written.append(password if colon else user)
    # the values as written (percent-encoded, as an error message may quote the URL) and decoded
    pairs = (pair.partition("=")[::2] for pair in parts.query.split("&"))
    written += [value for name, value in pairs if is_secret_query_name(unquote(name))]
    return [s for s in dict.fromkeys(written + [unquote(s) for s in written]) if s]
