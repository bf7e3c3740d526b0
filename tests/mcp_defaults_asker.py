"""An MCPServer (protocol 2026-07-28) whose tool asks the client for a form whose fields all have
defaults (SEP-1034) and answers with the fields the client's answer actually carried: imported and
connected in memory, or run over stdio."""

import json
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, Field


class Profile(BaseModel):
    name: str = Field("John Doe", description="User name")
    age: int = Field(30, description="User age")
    score: float = Field(95.5, description="User score")
    status: Literal["active", "inactive", "pending"] = Field("active", description="User status")
    verified: bool = Field(True, description="Verification status")


server = MCPServer("defaults-asker", log_level="WARNING")


def ask() -> Elicit[Profile]:
    return Elicit("Your profile, please", Profile)


@server.tool()
def ask_profile(profile: Annotated[Profile, Resolve(ask)]) -> str:
    """Asks the client for a profile; answers with what the client sent (not what validation filled in)."""
    return json.dumps(profile.model_dump(include=profile.model_fields_set), sort_keys=True)


if __name__ == "__main__":
    server.run("stdio")
