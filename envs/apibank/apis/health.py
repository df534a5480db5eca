"""Health APIs: health records, symptom look-ups and hospital appointments."""

from __future__ import annotations

import datetime
from typing import Any

from coevo.envs.apibank.apis.smarthome import checked_datetime, normalise_year
from coevo.envs.apibank.sandbox import ApiException, CallContext, implements

DATE = "%Y-%m-%d"
DATETIME = "%Y-%m-%d %H:%M:%S"


# ---------------------------------------------------------------------------- health data
@implements("RecordHealthData")
def record_health_data(ctx: CallContext, user_id: str, time: str, health_data: list | None = None) -> str:
    user_id = user_id.upper().strip()
    if user_id == "":
        raise ApiException("The user id cannot be empty.")
    checked = checked_datetime(time, DATETIME)
    if isinstance(checked, Exception):
        raise checked
    if health_data is None or len(health_data) == 0:
        raise ApiException("The health data cannot be empty.")
    names: set[Any] = set()
    for item in health_data:
        if "name" not in item:
            raise ApiException("The health data has invalid format.")
        if item["name"] in names:
            raise ApiException("The health data cannot contain duplicate items.")
        names.add(item["name"])
    records = list(ctx.read("HealthData").get(user_id, []))
    # API-Bank updates the last record with the same time, else appends a new one.
    index = max((i for i, r in enumerate(records) if r["time"] == checked), default=None)
    record = dict(records[index]) if index is not None else {"time": checked}
    for item in health_data:
        record[item["name"]] = item["value"]
    if index is None:
        records.append(record)
    else:
        records[index] = record
    ctx.write("HealthData")[user_id] = records
    return "success"


def _span_bound(value: str) -> datetime.datetime | Exception:
    try:
        return datetime.datetime.strptime(normalise_year(value), DATETIME)
    except Exception as exc:  # noqa: BLE001
        return exc


@implements("QueryHealthData")
def query_health_data(ctx: CallContext, user_id: str, start_time: str, end_time: str) -> list:
    user = user_id.upper().strip() or None
    start, end = _span_bound(start_time), _span_bound(end_time)
    if user is None:
        raise ApiException("The user id cannot be empty.")
    if isinstance(start, Exception) and isinstance(end, Exception):
        raise ApiException(f"{start}; {end}")
    if isinstance(start, Exception):
        raise start
    if isinstance(end, Exception):
        raise end
    if start > end:
        raise ApiException("The start time cannot be later than the end time.")
    table = ctx.read("HealthData")
    if user not in table:
        raise ApiException("The user id does not exist.")
    found = [r for r in table[user] if start <= datetime.datetime.strptime(r["time"], DATETIME) <= end]
    if not found:
        raise ApiException("There is no health data in the given time span.")
    return found


# ---------------------------------------------------------------------------- symptoms
@implements("SymptomSearch")
def symptom_search(ctx: CallContext, symptom: str) -> list:
    symptom = symptom.strip().lower()
    if symptom == "":
        raise ApiException("The symptom cannot be empty.")
    table = ctx.read("Symptom")
    if symptom not in table:
        raise ApiException("The symptom does not exist.")
    return [{"name": d["name"], "description": d["description"]} for d in table[symptom]]


@implements("EmergencyKnowledge")
def emergency_knowledge(ctx: CallContext, symptom: str) -> list:
    symptom = symptom.strip()
    if symptom == "":
        # API-Bank builds an Exception and then calls .lower() on it; this is the text it raises.
        raise ApiException("'Exception' object has no attribute 'lower'")
    symptom = symptom.lower()
    table = ctx.read("Symptom")
    if symptom not in table:
        raise ApiException("The symptom does not exist.")
    return [{"name": d["name"], "aid": d["aid"]} for d in table[symptom]]


# ---------------------------------------------------------------------------- appointments
@implements("AppointmentRegistration")
def appointment_registration(ctx: CallContext, patient_name: str, date: str, doctor_name: str) -> str:
    patient_name, doctor_name = patient_name.strip(), doctor_name.strip()
    if patient_name == "" or doctor_name == "":
        raise ApiException("Patient name or doctor name cannot be empty.")
    day = checked_datetime(date, DATE)
    if isinstance(day, Exception):
        raise day
    appointments = ctx.read("Appointments")
    for item in appointments.values():
        if item["patient_name"] == patient_name and checked_datetime(item["date"], DATE) == day:
            if item["doctor_name"] == doctor_name:
                raise ApiException("This appointment has already been registered.")
            raise ApiException("This patient has already been registered in this day.")
    hinted = ctx.hints.get("appointment_id")
    if isinstance(hinted, str) and hinted.isdigit() and hinted not in appointments:
        appointment_id = hinted
    else:
        rng = ctx.rng()
        appointment_id = str(rng.randint(10000000, 99999999))
        while appointment_id in appointments:
            appointment_id = str(rng.randint(10000000, 99999999))
    ctx.write("Appointments")[appointment_id] = {
        "patient_name": patient_name,
        "date": day,
        "doctor_name": doctor_name,
    }
    return appointment_id


@implements("CancelRegistration")
def cancel_registration(ctx: CallContext, appointment_id: str) -> str:
    appointment_id = appointment_id.strip()
    if appointment_id not in ctx.read("Appointments"):
        raise ApiException("The appointment ID is incorrect.")
    del ctx.write("Appointments")[appointment_id]
    return "success"


@implements("ModifyRegistration")
def modify_registration(
    ctx: CallContext,
    appointment_id: str,
    new_appointment_date: str | None = None,
    new_appointment_doctor: str | None = None,
) -> str:
    appointment_id = appointment_id.strip()
    appointments = ctx.read("Appointments")
    if appointment_id not in appointments:
        raise ApiException("The appointment ID does not exist.")
    new_date: str | Exception | None = None
    if new_appointment_date is not None:
        new_date = checked_datetime(new_appointment_date, DATE)
    new_doctor = None
    if new_appointment_doctor is not None:
        new_doctor = new_appointment_doctor.strip()
        if new_doctor == "":
            raise ApiException("Fail because the doctor name is empty.")
    if isinstance(new_date, Exception):
        raise new_date
    if new_date is None and new_doctor is None:
        raise ApiException("Fail because no modification is made.")
    item = dict(appointments[appointment_id])
    if new_date is None:
        if new_doctor == item["doctor_name"]:
            raise ApiException("Fail because doctor is not changed.")
        item["doctor_name"] = new_doctor
    elif new_doctor is None:
        if new_date == item["date"]:
            raise ApiException("Fail because date is not changed.")
        item["date"] = new_date
    else:
        if new_date == item["date"] and new_doctor == item["doctor_name"]:
            raise ApiException("Fail because no modification is made.")
        if new_date == item["date"]:
            raise ApiException("Fail because date is not changed.")
        if new_doctor == item["doctor_name"]:
            raise ApiException("Fail because doctor is not changed.")
        item["date"], item["doctor_name"] = new_date, new_doctor
    ctx.write("Appointments")[appointment_id] = item
    return "success"


@implements("QueryRegistration")
def query_registration(ctx: CallContext, patient_name: str, date: str) -> dict:
    patient_name = patient_name.strip()
    day = checked_datetime(date, DATE)
    if isinstance(day, Exception):
        raise day
    found = {
        key: item
        for key, item in ctx.read("Appointments").items()
        if item["patient_name"] == patient_name and checked_datetime(item["date"], DATE) == day
    }
    if not found:
        raise ApiException("No appointments found.")
    return found
