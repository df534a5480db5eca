"""API-Bank's per-API correctness rules: is a call's result the ground-truth result?

Each API decides what must match (API-Bank's `check_api_call_correctness`): usually input,
output and exception; content fields by word-set Jaccard > 0.5; dates and names after the same
normalisation the API applies; ids from random generators only by presence; ToolSearcher by
output and exception. A rule that raises KeyError counts as wrong, as in the original evaluator.

One repair, in the corrected mode only: the originals for DeleteAgenda/DeleteMeeting/
DeleteReminder compare `input['time']` when both outputs are 'success', which raises KeyError
for DeleteMeeting (its input has no 'time'), making a correct DeleteMeeting unscoreable; the
corrected mode compares `start_time` there; TimedSwitch/CancelTimedSwitch read the device
from `device_id`, the recorded calls' parameter, where the original reads `name`; and the
meeting rules compare `attendees` as lists whether a side holds the list or the string that
spells it (ToolManager passes the string). The official mode keeps the original's rules.
"""

from __future__ import annotations

import ast
import copy
import datetime
from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.apibank.apis.smarthome import checked_datetime, normalise_year
from coevo.envs.apibank.modes import ScoringMode

Result = Mapping[str, Any]
Check = Callable[[Result, Result], bool]


def _same(a: Result, b: Result, *keys: str) -> bool:
    return all(a.get(k) == b.get(k) for k in keys)


def exact(response: Result, truth: Result) -> bool:
    return _same(response, truth, "input", "output", "exception")


def _jaccard_over_half(a: str, b: str, lower: bool = False) -> bool:
    if lower:
        a, b = a.lower(), b.lower()
    x, y = set(a.split(" ")), set(b.split(" "))
    return len(x & y) / len(x | y) > 0.5


def content_and_fields(field: str, *same_fields: str, lower: bool = False) -> Check:
    def check(response: Result, truth: Result) -> bool:
        ok = _jaccard_over_half(response["input"][field], truth["input"][field], lower)
        return (
            ok
            and all(response["input"][f] == truth["input"][f] for f in same_fields)
            and _same(response, truth, "output", "exception")
        )

    return check


def meeting_topic_rest_equal(response: Result, truth: Result) -> bool:
    ok = _jaccard_over_half(response["input"]["meeting_topic"], truth["input"]["meeting_topic"])
    rest_r = {k: v for k, v in response["input"].items() if k != "meeting_topic"}
    rest_t = {k: v for k, v in truth["input"].items() if k != "meeting_topic"}
    return ok and rest_r == rest_t and _same(response, truth, "output", "exception")


def _as_literal(value: Any) -> Any:
    """A list argument recorded as the string the call wrote (as API-Bank's ToolManager passes
    it, and so the generated dialogues record it) read as the list it spells."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return value
    return value


def meeting_lists_read(response: Result, truth: Result) -> bool:
    """The corrected meeting rule: `attendees` compared as lists, whether a side holds the list
    or the string that spells it."""

    def read(result: Result) -> dict[str, Any]:
        return {**result, "input": {k: _as_literal(v) for k, v in result["input"].items()}}

    return meeting_topic_rest_equal(read(response), read(truth))


def delete_by(time_field: str) -> Check:
    def check(response: Result, truth: Result) -> bool:
        if truth["output"] == "success" and response["output"] == "success":
            return response["input"][time_field] == truth["input"][time_field]
        return _same(response, truth, "output", "exception")

    return check


def _devices(devices: Any) -> list[dict[str, Any]]:
    normalised = [
        {**d, "name": d["name"].strip().lower(), "description": d["description"].strip()}
        for d in copy.deepcopy(devices)
    ]
    return sorted(normalised, key=lambda d: d["name"])


def scene_devices(compare_output: bool) -> Check:
    def check(response: Result, truth: Result) -> bool:
        if response["input"]["name"].strip().lower() != truth["input"]["name"].strip().lower():
            return False
        if _devices(response["input"]["devices"]) != _devices(truth["input"]["devices"]):
            return False
        if compare_output:
            if response["output"] != truth["output"]:
                return False
        elif truth["output"] is None and response["output"] is not None:
            return False
        return response["exception"] == truth["exception"]

    return check


def _date(value: Any, fmt: str = "%Y-%m-%d") -> Any:
    return checked_datetime(value, fmt) if isinstance(value, str) else value


def _errors_equal(a: Any, b: Any) -> bool:
    """Normalised values compare like the original's: exceptions equal only when identical."""
    if isinstance(a, Exception) or isinstance(b, Exception):
        return a is b
    return a == b


def appointment_registration(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    if r["patient_name"].strip() != t["patient_name"].strip():
        return False
    if not _errors_equal(_date(r["date"]), _date(t["date"])):
        return False
    if r["doctor_name"].strip() != t["doctor_name"].strip():
        return False
    if truth["output"] is None and response["output"] is not None:
        return False
    return response["exception"] == truth["exception"]


def stripped_field(field: str) -> Check:
    def check(response: Result, truth: Result) -> bool:
        return str(response["input"][field]).strip() == str(truth["input"][field]).strip() and _same(
            response, truth, "output", "exception"
        )

    return check


def modify_registration(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    if str(r["appointment_id"]).strip() != str(t["appointment_id"]).strip():
        return False
    rd, td = r["new_appointment_date"], t["new_appointment_date"]
    if not _errors_equal(_date(rd) if rd is not None else None, _date(td) if td is not None else None):
        return False
    rdoc, tdoc = r["new_appointment_doctor"], t["new_appointment_doctor"]
    if (rdoc.strip() if rdoc is not None else None) != (tdoc.strip() if tdoc is not None else None):
        return False
    return _same(response, truth, "output", "exception")


def query_registration(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    return (
        r["patient_name"].strip() == t["patient_name"].strip()
        and _errors_equal(_date(r["date"]), _date(t["date"]))
        and _same(response, truth, "output", "exception")
    )


def _span(value: str) -> Any:
    try:
        return datetime.datetime.strptime(normalise_year(value), "%Y-%m-%d %H:%M:%S")
    except Exception as exc:  # noqa: BLE001
        return exc


def query_health_data(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    if (r["user_id"].upper().strip() or None) != (t["user_id"].upper().strip() or None):
        return False
    if not _errors_equal(_span(r["start_time"]), _span(t["start_time"])):
        return False
    if not _errors_equal(_span(r["end_time"]), _span(t["end_time"])):
        return False
    return _same(response, truth, "output", "exception")


def record_health_data(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    if str(r["user_id"]).upper().strip() != str(t["user_id"]).upper().strip():
        return False
    if not _errors_equal(_date(r["time"], "%Y-%m-%d %H:%M:%S"), _date(t["time"], "%Y-%m-%d %H:%M:%S")):
        return False
    return _same(response, truth, "output", "exception")


def _stock_key(code: str, date: str) -> tuple[Any, Any]:
    day = _date(date)
    return (code.upper().strip() or None), day


def query_stock(response: Result, truth: Result) -> bool:
    rc, rd = _stock_key(response["input"]["stock_code"], response["input"]["date"])
    tc, td = _stock_key(truth["input"]["stock_code"], truth["input"]["date"])
    return rc == tc and _errors_equal(rd, td) and _same(response, truth, "output", "exception")


def _history_day(value: str) -> Any:
    value = normalise_year(value)
    for fmt in ("%Y-%m-%d", "%m-%d"):
        try:
            return datetime.datetime.strptime(value, fmt).strftime("%m-%d")
        except ValueError as exc:
            error = exc
    return error


def query_history_today(response: Result, truth: Result) -> bool:
    return _errors_equal(_history_day(response["input"]["date"]), _history_day(truth["input"]["date"])) and _same(
        response, truth, "output", "exception"
    )


def timed_switch(with_on: bool, device_field: str = "device_id") -> Check:
    """The original reads the device from `name` (its parameter's name); the recorded calls and
    the sandbox say `device_id`, so under the original's rule (`device_field="name"`) no call is
    ever right (KeyError)."""

    def check(response: Result, truth: Result) -> bool:
        r, t = response["input"], truth["input"]
        if r[device_field].strip().lower() != t[device_field].strip().lower():
            return False
        fmt = "%Y-%m-%d %H:%M:%S"
        if not _errors_equal(_date(r["time"], fmt), _date(t["time"], fmt)):
            return False
        if with_on and r["on"] != t["on"]:
            return False
        return _same(response, truth, "output", "exception")

    return check


def symptom(response: Result, truth: Result) -> bool:
    return response["input"]["symptom"].strip().lower() == truth["input"]["symptom"].strip().lower() and _same(
        response, truth, "output", "exception"
    )


def search_engine(response: Result, truth: Result) -> bool:
    if response.get("api_name") != truth.get("api_name") or response["exception"] != truth["exception"]:
        return False

    def ordered(out: Any) -> Any:
        return None if out is None else sorted(out, key=lambda x: x["title"] + x["abstract"], reverse=True)

    return ordered(response["output"]) == ordered(truth["output"])


def output_and_exception(response: Result, truth: Result) -> bool:
    return _same(response, truth, "output", "exception")


def named_output_and_exception(response: Result, truth: Result) -> bool:
    return response.get("api_name") == truth.get("api_name") and output_and_exception(response, truth)


def calculator(response: Result, truth: Result) -> bool:
    return response["input"]["formula"].replace(" ", "") == truth["input"]["formula"].replace(" ", "") and _same(
        response, truth, "output", "exception"
    )


def get_today(response: Result, truth: Result) -> bool:
    return response["output"] is not None and response["exception"] is None and response["input"] is None


def register_user(response: Result, truth: Result) -> bool:
    if truth["output"] is None and response["output"] is not None:
        return False
    return _same(response, truth, "input", "exception")


def query_balance(response: Result, truth: Result) -> bool:
    return response["input"]["token"].strip() == truth["input"]["token"].strip() and _same(
        response, truth, "output", "exception"
    )


def send_email(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    return (
        r["receiver"].strip().lower() == t["receiver"].strip().lower()
        and r["subject"].strip() == t["subject"].strip()
        and r["content"].strip() == t["content"].strip()
        and _same(response, truth, "output", "exception")
    )


def document_qa(response: Result, truth: Result) -> bool:
    r, t = response["input"], truth["input"]
    return (
        r["url"].strip() == t["url"].strip()
        and r["question"].strip() == t["question"].strip()
        and _same(response, truth, "output", "exception")
    )


def translate(response: Result, truth: Result) -> bool:
    return (
        response.get("api_name") == truth.get("api_name")
        and response["input"]["src"] == truth["input"]["src"]
        and _same(response, truth, "output", "exception")
    )


def play_music(response: Result, truth: Result) -> bool:
    return response["output"] == truth["output"]


LEVEL12_CHECKS: dict[str, Check] = {
    "AddAgenda": content_and_fields("content", "time", "location"),
    "ModifyAgenda": content_and_fields("content", "time", "location"),
    "QueryAgenda": content_and_fields("content", "time", "location"),
    "AddReminder": content_and_fields("content", "time", lower=True),
    "ModifyReminder": content_and_fields("content", "time", lower=True),
    "QueryReminder": content_and_fields("content", "time", lower=True),
    "AddMeeting": meeting_lists_read,
    "ModifyMeeting": meeting_lists_read,
    "QueryMeeting": meeting_lists_read,
    "DeleteAgenda": delete_by("time"),
    "DeleteReminder": delete_by("time"),
    "DeleteMeeting": delete_by("start_time"),
    "AddScene": scene_devices(compare_output=False),
    "ModifyScene": scene_devices(compare_output=True),
    "DeleteScene": lambda r, t: (
        r["input"]["name"].strip().lower() == t["input"]["name"].strip().lower() and _same(r, t, "output", "exception")
    ),
    "QueryScene": lambda r, t: (
        r["input"]["name"].strip().lower() == t["input"]["name"].strip().lower() and _same(r, t, "output", "exception")
    ),
    "AppointmentRegistration": appointment_registration,
    "CancelRegistration": stripped_field("appointment_id"),
    "ModifyRegistration": modify_registration,
    "QueryRegistration": query_registration,
    "QueryHealthData": query_health_data,
    "RecordHealthData": record_health_data,
    "QueryStock": query_stock,
    "QueryHistoryToday": query_history_today,
    "TimedSwitch": timed_switch(with_on=True),
    "CancelTimedSwitch": timed_switch(with_on=False),
    "SymptomSearch": symptom,
    "EmergencyKnowledge": symptom,
    "SearchEngine": search_engine,
    "Wiki": named_output_and_exception,
    "Dictionary": named_output_and_exception,
    "Calculator": calculator,
    "GetToday": get_today,
    "RegisterUser": register_user,
    "QueryBalance": query_balance,
    "SendEmail": send_email,
    "DocumentQA": document_qa,
    "Translate": translate,
    "PlayMusic": play_music,
    "ToolSearcher": output_and_exception,
}

LEVEL3_CHECKS: dict[str, Check] = {
    "AddMeeting": meeting_topic_rest_equal,
    "Calculator": calculator,
    "EmailReminder": lambda r, t: (
        {k: v for k, v in r["input"].items() if k != "content"}
        == {k: v for k, v in t["input"].items() if k != "content"}
        and _same(r, t, "output", "exception")
    ),
    "HotelAvailability": lambda r, t: (
        all(r["input"][k] == t["input"][k] for k in ("destination", "check_in_date", "check_out_date"))
        and r["output"]["hotels"] == t["output"]["hotels"]
    ),
    "NearbyRestaurants": lambda r, t: r["input"] == t["input"],
    "TaxCalculator": lambda r, t: (
        r["input"]["salary"] == t["input"]["salary"]
        and r["output"]["salary_after_tax"] == t["output"]["salary_after_tax"]
        and r["exception"] == t["exception"]
    ),
    "PersonalInfoUpdate": lambda r, t: _same(r, t, "input", "output"),
    "ToolSearcher": output_and_exception,
}


#: The original's rules where the corrected mode repairs them.
OFFICIAL_LEVEL12_CHECKS: dict[str, Check] = {
    **LEVEL12_CHECKS,
    "AddMeeting": meeting_topic_rest_equal,
    "ModifyMeeting": meeting_topic_rest_equal,
    "QueryMeeting": meeting_topic_rest_equal,
    "DeleteMeeting": delete_by("time"),
    "TimedSwitch": timed_switch(with_on=True, device_field="name"),
    "CancelTimedSwitch": timed_switch(with_on=False, device_field="name"),
}


def is_correct(level: int, api_name: str, response: Result, truth: Result, mode: ScoringMode = "official") -> bool:
    """API-Bank's verdict for one call whose name already matches the ground truth.

    A rule that raises counts as wrong (the original's evaluator turns KeyError into a wrong
    call and stops on anything else).
    """
    if level == 3:
        checks = LEVEL3_CHECKS
    else:
        checks = OFFICIAL_LEVEL12_CHECKS if mode == "official" else LEVEL12_CHECKS
    check = checks.get(api_name, exact)
    try:
        return bool(check(response, truth))
    except (KeyError, TypeError, AttributeError):
        return False
