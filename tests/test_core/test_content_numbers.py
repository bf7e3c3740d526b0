"""Number-like tool results (mpmath's mpf, which BFCL's MathAPI returns; Decimal; numpy scalars)
become JSON numbers in the tool result, not their repr or a string."""

from __future__ import annotations

import json
from decimal import Decimal

import mpmath
import numpy as np
import pytest

from workbench import tool
from workbench._content import to_content_blocks
from workbench.executor import SequentialExecutor


@pytest.mark.parametrize(
    "value, number",
    [
        (mpmath.mpf("2.0"), 2.0),
        (mpmath.mpf(1) / 3, float(mpmath.mpf(1) / 3)),
        (Decimal("2.5"), 2.5),
        (Decimal("3"), 3),
        (Decimal("1E+2"), 100),
        (np.int64(7), 7),
        (np.float32(1.5), 1.5),
        (np.bool_(True), True),
    ],
)
def test_a_number_like_result_is_a_json_number(value, number):
    text, data = to_content_blocks(value)
    assert data == {"json": number} and type(data["json"]) is type(number)
    assert json.loads(text["text"]) == number


def test_number_likes_inside_containers_are_json_numbers():
    value = {
        "result": mpmath.mpf("2.0"),
        "items": [Decimal("1.25"), np.int64(3)],
        "pair": (np.float64(0.5), Decimal("4")),
    }
    _, data = to_content_blocks(value)
    assert data["json"] == {"result": 2.0, "items": [1.25, 3], "pair": [0.5, 4]}
    assert "mpf" not in json.dumps(data["json"])


def test_what_is_not_a_number_keeps_its_repr():
    _, data = to_content_blocks({"z": mpmath.mpc(1, 2)})
    assert data["json"] == {"z": "mpc(real='1.0', imag='2.0')"}


def test_a_tool_returning_mpf_gives_the_model_a_number():
    @tool
    def log_base(value: float, base: float) -> dict:
        """The logarithm of value in base (mpmath, as BFCL's MathAPI computes it)."""
        return {"result": mpmath.log(value) / mpmath.log(base)}

    [result] = SequentialExecutor().run(
        [{"toolUseId": "1", "name": "log_base", "input": {"value": 8, "base": 2}}], [log_base]
    )
    assert result.status == "success"
    assert result.to_dict()["content"][-1]["json"] == {"result": pytest.approx(3.0)}
    assert "mpf" not in result.text
