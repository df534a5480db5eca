"""The sandbox on generated databases: API behaviour, API-Bank's argument rules, isolation."""

from __future__ import annotations

import copy
import json

import pytest

from coevo.envs.apibank.calculator import FormulaError, calculate
from coevo.envs.apibank.parsing import parse_api_call, request_text
from coevo.envs.apibank.resources import Resources
from coevo.envs.apibank.sandbox import SandboxSession
from coevo.envs.apibank.specs import LEVEL3, LEVEL12
from coevo.envs.apibank.sandbox import IMPLEMENTATIONS


def _user(res: Resources) -> tuple[str, dict]:
    name = sorted(res.tables["Account"])[0]
    return name, res.tables["Account"][name]


def test_every_documented_api_has_an_implementation() -> None:
    assert len(LEVEL12) == 53 and len(LEVEL3) == 22
    assert set(IMPLEMENTATIONS[12]) == set(LEVEL12)
    assert set(IMPLEMENTATIONS[3]) == set(LEVEL3)


def test_token_flow_and_result_format(generated: Resources) -> None:
    s = SandboxSession(generated, 1)
    name, account = _user(generated)
    ok = s.call("GetUserToken", {"username": name, "password": account["password"]})
    assert ok.result == {
        "api_name": "GetUserToken",
        "input": {"username": name, "password": account["password"]},
        "output": {"token": account["token"]},
        "exception": None,
    }
    bad = s.call("GetUserToken", {"username": name, "password": "nope"})
    assert bad.output is None and bad.exception == "The password is incorrect."
    assert s.call("AddAlarm", {"token": "forged", "time": "2023-05-01 07:00:00"}).exception == "The token is invalid."
    # API-Bank's DeleteAccount result has no api_name key.
    gone = s.call("DeleteAccount", {"token": account["token"]})
    assert "api_name" not in gone.result and gone.output == {"status": "success"}
    assert (
        s.call("GetUserToken", {"username": name, "password": account["password"]}).exception
        == "The username does not exist."
    )


def test_sessions_are_isolated_and_shared_tables_untouched(generated: Resources) -> None:
    before = json.dumps(generated.tables, sort_keys=True, default=str)
    a, b = SandboxSession(generated, 1, seed=1), SandboxSession(generated, 1, seed=2)
    name, account = _user(generated)
    token = account["token"]
    assert (
        a.call("AddReminder", {"token": token, "content": "Buy stamps", "time": "2023-06-01 09:00:00"}).output
        == "success"
    )
    assert a.call(
        "ModifyPassword", {"token": token, "old_password": account["password"], "new_password": "pw2"}
    ).output == {"status": "success"}
    scene = sorted(generated.tables["Scenes"])[0]
    assert a.call("DeleteScene", {"name": scene}).output == "success"
    # Session b sees none of it.
    assert b.call("QueryReminder", {"token": token, "content": "Buy stamps", "time": "2023-06-01 09:00:00"}).exception
    assert b.call("GetUserToken", {"username": name, "password": "pw2"}).exception == "The password is incorrect."
    assert b.call("QueryScene", {"name": scene}).exception is None
    # Session a sees its own writes; only the tables it wrote were copied.
    assert a.call("QueryScene", {"name": scene}).exception == "Scene not found."
    assert set(a.state.tables.written) == {"Reminder", "Account", "Scenes"}
    assert b.state.tables.written == ()
    assert json.dumps(generated.tables, sort_keys=True, default=str) == before


def test_argument_rules_follow_tool_manager(generated: Resources) -> None:
    s = SandboxSession(generated, 1)
    wrong = s.call("GetToday", {"day": "x"})
    assert not wrong.valid and wrong.exception == "invalid parameter name. parameter: day"
    typed = s.call(
        "BookHotel",
        {
            "hotel_name": "Inn",
            "check_in_time": "2024-01-01",
            "check_out_time": "2024-01-02",
            "room_count": "one",
            "adult_count": "1",
            "child_count": "0",
        },
    )
    assert not typed.valid and typed.exception == "invalid parameter type. parameter: one"
    missing = s.call("AddAlarm", {"time": "2023-01-01 00:00:00"})
    assert not missing.valid
    assert missing.exception == "AddAlarm.call() missing 1 required positional argument: 'token'"
    unknown = s.call("FlyToMoon", {})
    assert not unknown.valid and unknown.exception == "invalid tool name."
    # Strings become the documented types: int, bool, list.
    switch = s.call("TimedSwitch", {"device_id": "Lamp ", "time": "2023-3-1 08:00:00", "on": "True"})
    assert switch.result["input"]["on"] is True and switch.output == "success"
    bad_time = s.call("AddAlarm", {"token": "t", "time": "tomorrow"})
    assert bad_time.exception == "time data 'tomorrow' does not match format '%Y-%m-%d %H:%M:%S'"


def test_forgot_password_is_a_two_call_protocol(generated: Resources) -> None:
    s = SandboxSession(generated, 1)
    name, account = _user(generated)
    early = s.call(
        "ForgotPassword", {"status": "Verification Code", "verification_code": "970420", "new_password": "x"}
    )
    assert early.exception == "You need to call the API with status 'Forgot Password' at first."
    assert (
        s.call("ForgotPassword", {"status": "Forgot Password", "username": name, "email": account["email"]}).output
        == 970420
    )
    assert (
        s.call(
            "ForgotPassword", {"status": "Verification Code", "verification_code": "111111", "new_password": "x"}
        ).exception
        == "The verification code is incorrect."
    )
    assert (
        s.call(
            "ForgotPassword", {"status": "Verification Code", "verification_code": "970420", "new_password": "fresh"}
        ).output
        == "success"
    )
    assert s.call("GetUserToken", {"username": name, "password": "fresh"}).exception is None


def test_appointments_ids_are_deterministic_and_hints_win(generated: Resources) -> None:
    args = {"patient_name": "Zoe Quinn", "date": "2023-9-9", "doctor_name": "Dr. Who"}
    first = SandboxSession(generated, 1, seed=5).call("AppointmentRegistration", args).output
    again = SandboxSession(generated, 1, seed=5).call("AppointmentRegistration", args).output
    assert first == again and len(first) == 8 and first.isdigit()
    s = SandboxSession(generated, 1, seed=5)
    assert s.call("AppointmentRegistration", args, {"appointment_id": "12121212"}).output == "12121212"
    assert s.call("AppointmentRegistration", args).exception == "This appointment has already been registered."
    assert s.call("QueryRegistration", {"patient_name": "Zoe Quinn", "date": "2023-09-09"}).output == {
        "12121212": {"patient_name": "Zoe Quinn", "date": "2023-09-09", "doctor_name": "Dr. Who"}
    }
    assert (
        s.call("ModifyRegistration", {"appointment_id": "12121212", "new_appointment_doctor": "Dr. Who"}).exception
        == "Fail because doctor is not changed."
    )


@pytest.mark.parametrize(
    "formula, value",
    [
        ("(1 + 2) * 3", 9.0),
        ("2+3*4", 14.0),
        ("8/4/2", 1.0),
        ("10-4-3", 3.0),
        ("7*(6-2)", 28.0),
    ],
)
def test_calculator_values(formula: str, value: float) -> None:
    assert calculate(formula) == value


@pytest.mark.parametrize(
    "formula, message",
    [
        ("2**3", "can't multiply sequence by non-int of type 'float'"),
        ("abc", "invalid formula"),
        ("5", "invalid formula"),
        ("1/0", "float division by zero"),
        ("((1+2)*3)", "')' is not in list"),
        ("__import__('os')", "invalid formula"),
        ("-5+3", "invalid formula"),
    ],
)
def test_calculator_errors_match_api_bank(formula: str, message: str) -> None:
    with pytest.raises(FormulaError) as err:
        calculate(formula)
    assert str(err.value) == message


def test_parsing_uses_api_bank_rules() -> None:
    call = parse_api_call("API-Request: [SendEmail(receiver='a@b.com', subject='Hi', content='Don't go')]")
    assert call is not None and call.name == "SendEmail"
    assert call.arguments == {"receiver": "a@b.com", "subject": "Hi", "content": "Don"}
    listed = parse_api_call("[AddMeeting(token='t', attendees=['Ann', 'Bo'], location='Room 1')]")
    assert listed is not None and listed.arguments["attendees"] == "['Ann', 'Bo']"
    assert parse_api_call("I will just answer.") is None
    args = {"token": "t", "attendees": "['Ann', 'Bo']", "on": "True", "note": "a, b = c"}
    again = parse_api_call(request_text("AddMeeting", args))
    assert again is not None and again.arguments == args


def test_tool_searcher_returns_token_api_first(generated: Resources) -> None:
    s = SandboxSession(generated, 2)
    out = s.call("ToolSearcher", {"keywords": "add agenda"}).output
    assert [o["name"] for o in out] == ["GetUserToken", "AddAgenda"]
    assert out[0]["desc_for_search"] == "get user tokenGet the user token."
    assert "desc_for_search" not in out[1]
    single = s.call("ToolSearcher", {"keywords": "query stock price"}).output
    assert single["name"] == "QueryStock"
    nothing = s.call("ToolSearcher", {"keywords": "zzzz"})
    assert nothing.exception == "'NoneType' object has no attribute 'pop'"


def test_level3_apis(generated: Resources) -> None:
    s = SandboxSession(generated, 3)
    geo = s.call("Geocoding", {"address": "London"}).output
    weather = s.call(
        "GetWeatherForCoordinates", {"latitude": str(geo["latitude"]), "longitude": str(geo["longitude"])}
    ).output
    assert weather == {"temperature": 5, "humidity": 0.9, "description": "Rainy"}
    assert s.call("Geocoding", {"address": "Berlin"}).exception == "'Berlin'"
    assert s.call("TaxCalculator", {"salary": "4000"}).output == {"salary_after_tax": 3200.0}
    assert s.call("ToolSearcher", {"keywords": "GetOccupationSalary"}).output["name"] == "GetOccupationSalary"


def test_search_engine_and_dictionary_offline(generated: Resources) -> None:
    s = SandboxSession(generated, 1)
    hits = s.call("SearchEngine", {"keyword": "solar energy"}).output
    assert len(hits) == 2 and all("solar" in h["title"].lower() for h in hits)
    word = sorted(generated.dictionary)[0]
    assert s.call("Dictionary", {"keyword": word}).output == generated.dictionary[word]
    assert s.call("Dictionary", {"keyword": "qwxyz"}).exception == "Failed."
    assert s.call("Translate", {"src": "Good morning", "tgt_lang": "French"}).output == "Bonjour"
    assert s.call("Translate", {"src": "Hi", "tgt_lang": "klingon"}).exception == "Language not supported."


def test_fork_is_independent(generated: Resources) -> None:
    s = SandboxSession(generated, 1)
    scene = sorted(generated.tables["Scenes"])[1]
    fork = s.fork()
    assert fork.call("DeleteScene", {"name": scene}).output == "success"
    assert s.call("QueryScene", {"name": scene}).exception is None
    snapshot = copy.deepcopy(fork.state.tables.read("Scenes"))
    s.call("DeleteScene", {"name": scene})
    assert fork.state.tables.read("Scenes") == snapshot
