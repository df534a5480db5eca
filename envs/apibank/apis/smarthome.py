"""Smart-home APIs: scenes (table `Scenes`) and timed switches (table `TimeSwitch`)."""

from __future__ import annotations

import datetime
from typing import Any

from coevo.envs.apibank.sandbox import ApiException, CallContext, implements


def normalise_year(value: str) -> str:
    """API-Bank's date clean-up: strip, and zero-pad a short year in 'Y-m-d...' strings."""
    value = value.strip()
    parts = value.split("-")
    if len(parts) == 3 and len(parts[0]) != 4:
        parts[0] = parts[0].zfill(4)
        value = "-".join(parts)
    return value


def checked_datetime(value: str, fmt: str) -> str | Exception:
    """The normalised value in `fmt`, or the parsing error (returned, as API-Bank does)."""
    try:
        return datetime.datetime.strptime(normalise_year(value), fmt).strftime(fmt)
    except Exception as exc:  # noqa: BLE001 - the error text is the API's exception
        return exc


# ---------------------------------------------------------------------------- scenes
def _validated_devices(name: str, devices: list) -> tuple[str, list]:
    name = name.strip().lower()
    if name == "":
        raise ApiException("Scene name cannot be empty.")
    seen: set[str] = set()
    for device in devices:
        if not isinstance(device, dict) or "name" not in device or "description" not in device:
            raise ApiException("Invalid device format.")
        # API-Bank normalises the caller's list in place, so the result's input shows it too.
        device["name"] = device["name"].strip().lower()
        device["description"] = device["description"].strip()
        if device["name"] in seen:
            raise ApiException("Device name cannot be duplicated.")
        seen.add(device["name"])
    devices.sort(key=lambda d: d["name"])
    return name, devices


@implements("AddScene")
def add_scene(ctx: CallContext, name: str, devices: list) -> str:
    name, devices = _validated_devices(name, devices)
    if name in ctx.read("Scenes"):
        raise ApiException("Scene name already exists.")
    ctx.write("Scenes")[name] = devices
    return "success"


@implements("ModifyScene")
def modify_scene(ctx: CallContext, name: str, devices: list) -> str:
    name, devices = _validated_devices(name, devices)
    if name not in ctx.read("Scenes"):
        raise ApiException("The scene does not exist.")
    ctx.write("Scenes")[name] = devices
    return "success"


@implements("DeleteScene")
def delete_scene(ctx: CallContext, name: str) -> str:
    name = name.strip().lower()
    if name == "":
        raise ApiException("Scene name cannot be empty.")
    if name not in ctx.read("Scenes"):
        raise ApiException("The scene does not exist.")
    del ctx.write("Scenes")[name]
    return "success"


@implements("QueryScene")
def query_scene(ctx: CallContext, name: str) -> Any:
    name = name.strip().lower()
    if name == "":
        raise ApiException("Scene name cannot be empty.")
    scenes = ctx.read("Scenes")
    if name not in scenes:
        raise ApiException("Scene not found.")
    return scenes[name]


# ---------------------------------------------------------------------------- timed switches
SWITCH_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def _switch_args(device_id: str, time: str) -> tuple[str, str]:
    device_id = device_id.strip().lower()
    if device_id == "":
        raise ApiException("device_id cannot be empty.")
    checked = checked_datetime(time, SWITCH_TIME_FORMAT)
    if isinstance(checked, Exception):
        raise checked
    return device_id, checked


@implements("TimedSwitch")
def timed_switch(ctx: CallContext, device_id: str, time: str, on: bool) -> str:
    device_id, time = _switch_args(device_id, time)
    schedule = list(ctx.read("TimeSwitch").get(device_id, []))
    for i, entry in enumerate(schedule):
        if entry["time"] == time:
            schedule[i] = {**entry, "on": on}
            break
    else:
        schedule.append({"time": time, "on": on})
    ctx.write("TimeSwitch")[device_id] = schedule
    return "success"


@implements("CancelTimedSwitch")
def cancel_timed_switch(ctx: CallContext, device_id: str, time: str) -> str:
    device_id, time = _switch_args(device_id, time)
    switches = ctx.read("TimeSwitch")
    if device_id not in switches:
        raise ApiException("device_id does not exist.")
    schedule = list(switches[device_id])
    for i, entry in enumerate(schedule):
        if entry["time"] == time:
            del schedule[i]
            ctx.write("TimeSwitch")[device_id] = schedule
            return "success"
    raise ApiException("time does not exist.")
