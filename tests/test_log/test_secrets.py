"""Parameters declared secret (``SecretStr``: schema ``format: password`` / ``writeOnly``) never reach the
execution log: the row's input holds ``***``, and neither the output, the error (a validation error's
``received``, a message quoting the value) nor the metadata holds the value — checked by reading the
SQLite file's bytes, its CSV export and the log's HTML. Replaying such a row refuses to send ``***``."""

from __future__ import annotations

import pytest

from tests.secret_tools import OTP, PASSWORD, login, received  # noqa: F401
from workbench import ConcurrentExecutor, ExecutionLog, SequentialExecutor, ToolRegistry, tool


def _calls() -> list[dict]:
    return [
        {"toolUseId": "ok", "name": "login", "input": {"user": "bob", "password": PASSWORD, "otp": OTP}},
        {"toolUseId": "raised", "name": "login", "input": {"user": "bob", "password": "wrong-" + PASSWORD}},
        {"toolUseId": "refused", "name": "login", "input": {"user": "bob", "password": "short-pw"}},
        {"toolUseId": "number", "name": "login", "input": {"user": "bob", "password": 4815162342}},
    ]


@pytest.mark.parametrize(
    "executor", [SequentialExecutor(), ConcurrentExecutor(max_concurrency=2)], ids=["sequential", "concurrent"]
)
def test_secret_parameters_are_masked_in_every_row_and_export_of_the_log_file(tmp_path, executor):
    received.clear()
    path = tmp_path / "runs.sqlite"
    with ExecutionLog(path) as log:
        results = executor.run(_calls(), ToolRegistry([login]), log=log)
        assert [r.status for r in results] == ["success", "error", "error", "error"]
        assert sorted(received) == sorted([PASSWORD, "wrong-" + PASSWORD])  # the tool got the real values
        rows = {row["tool_use_id"]: row for row in log.rows()}
        assert rows["ok"]["input"] == {"user": "bob", "password": "***", "otp": "***"}
        assert rows["raised"]["input"] == {"user": "bob", "password": "***"}
        assert rows["raised"]["error"] == "ValueError: wrong password '***' for bob"
        assert "received '***' (string)" in rows["refused"]["error"]
        assert rows["number"]["input"]["password"] == "***"
        csv_path = tmp_path / "runs.csv"
        log.export(csv_path)
        html = log._repr_html_()
    # the caller still gets what the tool said (the log is what is masked)
    assert PASSWORD in results[1].text
    saved = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite-*"))
    for secret in (PASSWORD, OTP, "short-pw", "4815162342"):
        assert secret.encode() not in saved
        assert secret not in csv_path.read_text() and secret not in html


def test_replaying_a_row_whose_secret_was_masked_refuses_to_send_the_mask(tmp_path):
    received.clear()
    with ExecutionLog(tmp_path / "runs.sqlite") as log:
        registry = ToolRegistry([login])
        SequentialExecutor().run(_calls()[:1], registry, log=log)
        row_id = log.rows()[0]["id"]
        with pytest.raises(
            ValueError,
            match=r"Cannot replay call \d+ of tool 'login': its secret parameter\(s\) "
            r"otp, password were not stored in the log \(they show as \*\*\*\); "
            r"give them with replay\(\d+, \.\.\., inputs=",
        ):
            log.replay(row_id, registry)
        assert received == [PASSWORD] and len(log) == 1  # nothing was called, nothing logged
        again = log.replay(row_id, registry, inputs={"password": PASSWORD, "otp": OTP})
        assert again.status == "success" and received == [PASSWORD, PASSWORD]
        assert log.rows()[-1]["input"] == {"user": "bob", "password": "***", "otp": "***"}


def test_a_tool_without_secret_parameters_is_logged_as_it_was_called(tmp_path):
    @tool
    def remember(api_key_name: str, note: str) -> str:
        """Keep a note (a name that says key is not a secret parameter: only the schema says so)."""
        return note

    with ExecutionLog(tmp_path / "runs.sqlite") as log:
        SequentialExecutor().run(
            [{"toolUseId": "1", "name": "remember", "input": {"api_key_name": "prod", "note": PASSWORD}}],
            ToolRegistry([remember]),
            log=log,
        )
        assert log.rows()[0]["input"] == {"api_key_name": "prod", "note": PASSWORD}
        assert log.replay(log.rows()[0]["id"], ToolRegistry([remember])).status == "success"


def test_a_row_whose_secret_was_masked_does_not_become_a_case_holding_the_mask(tmp_path):
    from workbench.testing import CaseFileError

    with ExecutionLog(tmp_path / "runs.sqlite") as log:
        registry = ToolRegistry([login])
        SequentialExecutor().run(_calls()[:1], registry, log=log)
        SequentialExecutor().run(
            [{"toolUseId": "plain", "name": "login", "input": {"user": "eve"}}], registry, log=log
        )  # refused (no password): nothing secret was given
        masked_id, plain_id = (row["id"] for row in log.rows())
        message = (
            rf"Log row {masked_id} of tool 'login' cannot become a case: its secret parameter\(s\) otp, "
            r"password were not stored in the log \(they show as \*\*\*\)"
        )
        with pytest.raises(CaseFileError, match=message):
            log.to_cases(registry=registry)
        with pytest.raises(CaseFileError, match=message):  # the tool not registered: *** is taken as masked
            log.to_cases(registry=ToolRegistry())
        [case] = log.to_cases(ids=[plain_id], registry=registry)
        assert case.input == {"user": "eve"} and case.expect == "error"
