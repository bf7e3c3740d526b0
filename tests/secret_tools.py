"""A tool with secret parameters (``SecretStr``), shared by the secret-masking tests."""

from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, SecretStr

from workbench import tool

PASSWORD = "hunter2-Correct-Horse"
# a value no other text can hold by chance: a bare 6-digit code also turns up inside the widget ids
# (32 hex digits), timestamps and timings of the thousands of widgets a whole test session keeps alive,
# which made "is the secret anywhere in the saved state?" fail now and then in full runs
OTP = "otp-918273"
#: the passwords the tool was called with, in order (tests clear it first)
received: list[str] = []


@tool
def login(user: str, password: Annotated[SecretStr, Field(min_length=12)], otp: Optional[SecretStr] = None) -> str:
    """Log in.

    Args:
        user: who.
        password: the password.
        otp: a one-time code.
    """
    received.append(password.get_secret_value())
    if password.get_secret_value() != PASSWORD:
        raise ValueError(f"wrong password {password.get_secret_value()!r} for {user}")
    return f"hello {user}"
