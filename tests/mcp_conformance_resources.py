"""The resources, prompts and completion the official MCP conformance suite's ``resources-*``,
``prompts-*`` and ``completion-complete`` scenarios expect, written with the project's own
``@resource`` / ``@prompt``; served by ``python -m workbench.mcp serve tests/mcp_conformance_resources.py``
(tests/test_mcp/test_conformance_server.py). ``touch_watched`` changes ``test://watched-resource`` and
tells its subscribers."""

from __future__ import annotations

import base64

from workbench import tool
from workbench.mcp import prompt, resource

#: a 1×1 PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
PNG_BASE64 = base64.b64encode(PNG).decode()

watched = {"version": 0}


@resource("test://static-text", name="static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@resource("test://static-binary", name="static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (a PNG image)."""
    return PNG


@resource(
    "test://template/{id}/data",
    name="template-data",
    mime_type="application/json",
    complete={"id": ["123", "124", "200"]},
)
def template_data(id: str) -> dict:
    """Data for one ID (a resource template)."""
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


@resource("test://watched-resource", name="watched-resource", mime_type="text/plain")
def watched_resource() -> str:
    """A resource clients can subscribe to; ``touch_watched`` changes it."""
    return f"watched version {watched['version']}"


@tool
def touch_watched() -> int:
    """Change test://watched-resource and notify its subscribers; returns its new version."""
    watched["version"] += 1
    watched_resource.updated()
    return watched["version"]


@prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@prompt(
    complete={
        "arg1": ["paris", "park", "party", "test-value"],
        "arg2": lambda typed, others: [f"{others.get('arg1', '')}-{typed}"],
    }
)
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two arguments.

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list:
    """A prompt embedding a resource.

    Args:
        resourceUri: URI of the resource to embed
    """
    return [
        {
            "role": "user",
            "content": {
                "type": "resource",
                "resource": {
                    "uri": resourceUri,
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing.",
                },
            },
        },
        {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
    ]


@prompt
def test_prompt_with_image() -> list:
    """A prompt with an image."""
    return [
        {"role": "user", "content": {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
    ]
