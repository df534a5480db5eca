"""Personal-organiser APIs: agenda, alarm, meeting and reminder CRUD (token-protected).

Matching follows API-Bank: the first of the user's items whose content (or topic) or time equals
the argument is the one queried, modified or deleted; error texts name what was searched.
"""

from __future__ import annotations

import datetime
from typing import Any

from coevo.envs.apibank.sandbox import ApiException, CallContext, implements

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def _check_time(value: str) -> None:
    datetime.datetime.strptime(value, TIME_FORMAT)


def _next_numeric_key(table: dict[Any, Any]) -> str:
    """Meeting and reminder ids: one past the largest id, as strings ("0" for an empty table)."""
    return str(max(int(k) for k in table) + 1) if table else "0"


def _first_match(table: dict[Any, Any], username: str, **fields: Any) -> Any:
    for key, item in table.items():
        if item["username"] == username and any(item[f] == v for f, v in fields.items()):
            return key
    return None


# ---------------------------------------------------------------------------- agenda
@implements("AddAgenda")
def add_agenda(ctx: CallContext, token: str, content: str, time: str, location: str) -> str:
    _check_time(time)
    if content.strip() == "":
        raise ApiException("Content should not be null")
    agenda = ctx.read("Agenda")
    new_id = len(agenda) + 1
    username = ctx.check_token(token)
    ctx.write("Agenda")[new_id] = {
        "username": username,
        "content": content,
        "time": time,
        "location": location,
    }
    return "success"


@implements("DeleteAgenda")
def delete_agenda(ctx: CallContext, token: str, content: str, time: str, location: str) -> str:
    if time:
        _check_time(time)
    username = ctx.check_token(token)
    key = _first_match(ctx.read("Agenda"), username, content=content, time=time)
    if key is not None:
        del ctx.write("Agenda")[key]
    else:
        if content:
            raise ApiException(f"You have no meeting about {content}")
        if time:
            raise ApiException(f"You have no meeting at time : {time}")
    return "success"


@implements("ModifyAgenda")
def modify_agenda(ctx: CallContext, token: str, content: str, time: str, location: str) -> str:
    if time:
        _check_time(time)
    username = ctx.check_token(token)
    key = _first_match(ctx.read("Agenda"), username, content=content, time=time)
    if key is not None:
        ctx.write("Agenda")[key] = {
            "username": username,
            "content": content,
            "time": time,
            "location": location,
        }
        return "success"
    if content:
        raise ApiException(f"You have no agenda about {content}")
    if time:
        raise ApiException(f"You have no agenda at time : {time}")
    return "Error"  # API-Bank returns (not raises) an Exception('Error') here


@implements("QueryAgenda")
def query_agenda(ctx: CallContext, token: str, content: str, time: str, location: str) -> Any:
    if time:
        _check_time(time)
    username = ctx.check_token(token)
    agenda = ctx.read("Agenda")
    key = _first_match(agenda, username, content=content, time=time)
    if key is not None:
        return agenda[key]
    if content:
        raise ApiException(f"You have no agenda about {content}")
    if time:
        raise ApiException(f"You have no agenda at time : {time}")
    raise ApiException("Error")


# ---------------------------------------------------------------------------- alarm
@implements("AddAlarm")
def add_alarm(ctx: CallContext, token: str, time: str) -> str:
    _check_time(time)
    new_id = len(ctx.read("Alarm")) + 1
    username = ctx.check_token(token)
    ctx.write("Alarm")[new_id] = {"username": username, "time": time}
    return "success"


@implements("DeleteAlarm")
def delete_alarm(ctx: CallContext, token: str, time: str) -> str:
    _check_time(time)
    username = ctx.check_token(token)
    key = _first_match(ctx.read("Alarm"), username, time=time)
    if key is not None:
        del ctx.write("Alarm")[key]
    elif time:
        raise ApiException(f"You have no alarm clock at time : {time}")
    return "success"


@implements("ModifyAlarm")
def modify_alarm(ctx: CallContext, token: str, from_time: str, to_time: str) -> str:
    _check_time(from_time)
    _check_time(to_time)
    username = ctx.check_token(token)
    key = _first_match(ctx.read("Alarm"), username, time=from_time)
    if key is None:
        raise ApiException(f"You have no agenda at time : {from_time}")
    ctx.write("Alarm")[key] = {"username": username, "time": to_time}
    return "success"


@implements("QueryAlarm")
def query_alarm(ctx: CallContext, token: str, time: str) -> Any:
    _check_time(time)
    username = ctx.check_token(token)
    alarms = ctx.read("Alarm")
    key = _first_match(alarms, username, time=time)
    if key is None:
        raise ApiException(f"You have no alarm clock at time : {time}")
    return alarms[key]


# ---------------------------------------------------------------------------- meeting
def _check_meeting_args(meeting_topic: str, start_time: str, end_time: str) -> None:
    if start_time:
        _check_time(start_time)
    if end_time:
        _check_time(end_time)
    if meeting_topic.strip() == "" and not start_time:
        raise ApiException("Meeting Topic and start_time should not be null both")


def _no_meeting(meeting_topic: str, start_time: str) -> None:
    if meeting_topic:
        raise ApiException(f"You have no meeting about {meeting_topic}")
    if start_time:
        raise ApiException(f"You have no meeting at time : {start_time}")


@implements("AddMeeting")
def add_meeting(
    ctx: CallContext,
    token: str,
    meeting_topic: str,
    start_time: str,
    end_time: str,
    location: str,
    attendees: list,
) -> str:
    _check_time(start_time)
    _check_time(end_time)
    if meeting_topic.strip() == "":
        raise ApiException("Meeting Topic should not be null")
    new_id = _next_numeric_key(ctx.read("Meeting"))
    username = ctx.check_token(token)
    ctx.write("Meeting")[new_id] = {
        "username": username,
        "meeting_topic": meeting_topic,
        "start_time": start_time,
        "end_time": end_time,
        "location": location,
        "attendees": attendees,
    }
    return "success"


@implements("DeleteMeeting")
def delete_meeting(
    ctx: CallContext,
    token: str,
    meeting_topic: str,
    start_time: str,
    end_time: str,
    location: str,
    attendees: list,
) -> str:
    _check_meeting_args(meeting_topic, start_time, end_time)
    username = ctx.check_token(token)
    key = _first_match(ctx.read("Meeting"), username, meeting_topic=meeting_topic, start_time=start_time)
    if key is None:
        _no_meeting(meeting_topic, start_time)
    else:
        del ctx.write("Meeting")[key]
    return "success"


@implements("ModifyMeeting")
def modify_meeting(
    ctx: CallContext,
    token: str,
    meeting_topic: str,
    start_time: str,
    end_time: str,
    location: str,
    attendees: list,
) -> str:
    _check_meeting_args(meeting_topic, start_time, end_time)
    username = ctx.check_token(token)
    meetings = ctx.read("Meeting")
    key = _first_match(meetings, username, meeting_topic=meeting_topic, start_time=start_time)
    if key is None:
        _no_meeting(meeting_topic, start_time)
        return "success"
    item = dict(meetings[key])
    if meeting_topic:
        item["meeting_topic"] = meeting_topic
    if start_time:
        item["start_time"] = start_time
        item["end_time"] = end_time
    ctx.write("Meeting")[key] = item
    return "success"


@implements("QueryMeeting")
def query_meeting(
    ctx: CallContext,
    token: str,
    meeting_topic: str,
    start_time: str,
    end_time: str,
    location: str,
    attendees: list,
) -> Any:
    _check_meeting_args(meeting_topic, start_time, end_time)
    username = ctx.check_token(token)
    meetings = ctx.read("Meeting")
    key = _first_match(meetings, username, meeting_topic=meeting_topic, start_time=start_time)
    if key is None:
        _no_meeting(meeting_topic, start_time)
        return "Error"  # API-Bank returns (not raises) an Exception('Error') here
    return meetings[key]


# ---------------------------------------------------------------------------- reminder
def _check_reminder_args(content: str, time: str) -> None:
    _check_time(time)
    if content.strip() == "":
        raise ApiException("Content should not be null")


def _no_reminder(content: str, time: str) -> ApiException:
    return ApiException(f"You have no reminder about {content} or at time : {time}")


@implements("AddReminder")
def add_reminder(ctx: CallContext, token: str, content: str, time: str) -> str:
    _check_reminder_args(content, time)
    new_id = _next_numeric_key(ctx.read("Reminder"))
    username = ctx.check_token(token)
    ctx.write("Reminder")[new_id] = {"username": username, "content": content, "time": time}
    return "success"


@implements("DeleteReminder")
def delete_reminder(ctx: CallContext, token: str, content: str, time: str) -> str:
    _check_reminder_args(content, time)
    username = ctx.check_token(token)
    key = _first_match(ctx.read("Reminder"), username, content=content, time=time)
    if key is None:
        raise _no_reminder(content, time)
    del ctx.write("Reminder")[key]
    return "success"


@implements("ModifyReminder")
def modify_reminder(ctx: CallContext, token: str, content: str, time: str) -> str:
    _check_reminder_args(content, time)
    username = ctx.check_token(token)
    reminders = ctx.read("Reminder")
    key = _first_match(reminders, username, content=content, time=time)
    if key is None:
        raise _no_reminder(content, time)
    ctx.write("Reminder")[key] = {**reminders[key], "content": content, "time": time}
    return "success"


@implements("QueryReminder")
def query_reminder(ctx: CallContext, token: str, content: str, time: str) -> Any:
    _check_reminder_args(content, time)
    username = ctx.check_token(token)
    reminders = ctx.read("Reminder")
    key = _first_match(reminders, username, content=content, time=time)
    if key is None:
        raise _no_reminder(content, time)
    return reminders[key]
