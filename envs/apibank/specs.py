"""The API catalogue: every API's name, description and parameter docs, as API-Bank documents them.

These are the interface facts an agent sees (level-1 docs, ToolSearcher results), so they must match
the benchmark text exactly: ToolSearcher results are scored by equality. The descriptions are the
ones the released dialogues were recorded with (the first public API-Bank release); the only
change is the smart-device APIs, whose recorded calls name the device `device_id` (see
docs/apibank.md). Behaviour lives in `apis/`; this module is data only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ApiSpec:
    """One API's documented interface."""

    name: str
    description: str
    input_parameters: Mapping[str, Mapping[str, str]]
    output_parameters: Mapping[str, Mapping[str, str]]
    #: The initial database table the API reads and writes, if any.
    database: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def needs_token(self) -> bool:
        return "token" in self.input_parameters

    def doc(self) -> dict[str, Any]:
        """The API description as ToolManager.get_api_description shows it (name first)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_parameters": {k: dict(v) for k, v in self.input_parameters.items()},
            "output_parameters": {k: dict(v) for k, v in self.output_parameters.items()},
        }


#: Levels 1 and 2: the 53 APIs of the sandbox (ToolSearcher included).
LEVEL12_SPECS: tuple[ApiSpec, ...] = (
    ApiSpec(
        name='AddAgenda',
        description='The API for adding a schedule item includes parameters for token, content, time, and location.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the agenda.'},
            'time': {'type': 'str', 'description': 'The time for agenda. Format: %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location of the agenda.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Agenda',
    ),
    ApiSpec(
        name='AddAlarm',
        description='The API for setting an alarm includes a parameter for the time.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'time': {'type': 'str', 'description': 'The time for alarm. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Alarm',
    ),
    ApiSpec(
        name='AddMeeting',
        description='This API allows users to make a reservation for a meeting and store the meeting information in the database.Function：Allow users to make a reservation for a meeting.Exception Handling：1. If the reservation is successful, return a success message.2. If the reservation fails, return a corresponding error message.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'meeting_topic': {'type': 'str', 'description': 'The title of the meeting, no more than 50 characters.'},
            'start_time': {'type': 'str', 'description': 'The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'end_time': {'type': 'str', 'description': 'The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location where the meeting to be held, no more than 100 characters.'},
            'attendees': {'type': 'list(str)', 'description': 'The attendees of the meeting, including names, positions and other information.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Meeting',
    ),
    ApiSpec(
        name='AddReminder',
        description="Add a reminder API that takes three parameters - 'token'，'content' and 'time'. The 'token' parameter refers to the user's token and the 'content' parameter refers to the description of the reminder and the 'time' parameter specifies the time at which the reminder should be triggered.",
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the conference.'},
            'time': {'type': 'str', 'description': 'The time for conference. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Reminder',
    ),
    ApiSpec(
        name='AddScene',
        description='This API adds a scene of smart home system, given the scene name and a list of smart devices',
        input_parameters={
            'name': {'type': 'str', 'description': 'The name of the scene.'},
            'devices': {'type': 'list', 'description': 'The list of smart devices, containing the name and description. Format be like [{"name": "light", "description": "Smart light in the kitchen"}, {"name": "oven", "description": "Smart oven in the kitchen"}, {"name": "range hood", "description": "Smart range hood in the kitchen"}]'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Whether succeed.'},
        },
        database='Scenes',
    ),
    ApiSpec(
        name='AppointmentRegistration',
        description='This API registers an appointment of hospital.',
        input_parameters={
            'patient_name': {'type': 'str', 'description': 'The name of patient.'},
            'date': {'type': 'str', 'description': 'The date of appointment. Format be like %Y-%m-%d'},
            'doctor_name': {'type': 'str', 'description': 'The name of appointed doctor.'},
        },
        output_parameters={
            'appointment_id': {'type': 'str', 'description': 'The ID of appointment.'},
        },
        database='Appointments',
    ),
    ApiSpec(
        name='BookHotel',
        description='This API orders a hotel room. Two rooms are ordered if the number of adults is greater than 2. Only one order can be made at same time.',
        input_parameters={
            'hotel_name': {'type': 'str', 'description': 'The name of the hotel.'},
            'check_in_time': {'type': 'str', 'description': 'The time to check in. Format: %Y-%m-%d'},
            'check_out_time': {'type': 'str', 'description': 'The time to check out. Format: %Y-%m-%d'},
            'room_count': {'type': 'int', 'description': 'The number of rooms to order.'},
            'adult_count': {'type': 'int', 'description': 'The number of adults.'},
            'child_count': {'type': 'int', 'description': 'The number of children.'},
        },
        output_parameters={
            'order_id': {'type': 'str', 'description': 'The ID of the order.'},
        },
        database='Hotel',
    ),
    ApiSpec(
        name='Calculator',
        description='This API provides basic arithmetic operations: addition, subtraction, multiplication, and division.',
        input_parameters={
            'formula': {'type': 'str', 'description': "The formula that needs to be calculated. Only integers are supported. Valid operators are +, -, *, /, and (, ). For example, '(1 + 2) * 3'."},
        },
        output_parameters={
            'result': {'type': 'float', 'description': 'The result of the formula.'},
        },
    ),
    ApiSpec(
        name='CancelRegistration',
        description='This API cancels the registration of a patient given appointment ID.',
        input_parameters={
            'appointment_id': {'type': 'str', 'description': 'The ID of appointment.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'The status of cancellation.'},
        },
        database='Appointments',
    ),
    ApiSpec(
        name='CancelTimedSwitch',
        description='Cancels a timed switch for a smart device.',
        input_parameters={
            'device_id': {'type': 'str', 'description': 'The ID of the smart device.'},
            'time': {'type': 'str', 'description': 'The time to switch the device on or off. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Whether the time switch is successful.'},
        },
        database='TimeSwitch',
    ),
    ApiSpec(
        name='CheckToken',
        description='Check the user token.',
        input_parameters={
            'token': {'type': 'str', 'description': 'The token of the user.'},
        },
        output_parameters={
            'username': {'type': 'str', 'description': 'The username of the user.'},
        },
        database='Account',
    ),
    ApiSpec(
        name='DeleteAccount',
        description='Delete an account.',
        input_parameters={
            'token': {'type': 'str', 'description': 'The token of the user.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Account',
    ),
    ApiSpec(
        name='DeleteAgenda',
        description='The API for deleting a schedule item includes parameters for token, content, time, and location.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the agenda.'},
            'time': {'type': 'str', 'description': 'The time for agenda. Format: %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location of the agenda.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Agenda',
    ),
    ApiSpec(
        name='DeleteAlarm',
        description='The API for removing an alarm includes a parameter for the time.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'time': {'type': 'str', 'description': 'The time for alarm. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Alarm',
    ),
    ApiSpec(
        name='DeleteMeeting',
        description="This API allows users to delete a reservation for a meeting and remove the meeting information in the database.Function：Delete user's reservation for a meeting.Exception Handling：1. If the deletion is successful, return a success message.2. If the deletion fails, return a corresponding error message.",
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'meeting_topic': {'type': 'str', 'description': 'The title of the meeting, no more than 50 characters.'},
            'start_time': {'type': 'str', 'description': 'The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'end_time': {'type': 'str', 'description': 'The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location where the meeting to be held, no more than 100 characters.'},
            'attendees': {'type': 'list(str)', 'description': 'The attendees of the meeting, including names, positions and other information.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Meeting',
    ),
    ApiSpec(
        name='DeleteReminder',
        description="Delete a reminder API that takes three parameters - 'token'，'content' and 'time'. The 'token' parameter refers to the user's token and the 'content' parameter refers to the description of the reminder and the 'time' parameter specifies the time at which the reminder should be triggered.",
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the conference.'},
            'time': {'type': 'str', 'description': 'The time for conference. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Reminder',
    ),
    ApiSpec(
        name='DeleteScene',
        description='This API deletes a scene.',
        input_parameters={
            'name': {'type': 'str', 'description': 'The name of the scene.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Whether the deletion is successful.'},
        },
        database='Scenes',
    ),
    ApiSpec(
        name='Dictionary',
        description='This API searches for a given keyword.',
        input_parameters={
            'keyword': {'type': 'str', 'description': 'The keyword to search.'},
        },
        output_parameters={
            'results': {'type': 'list', 'description': 'The list of results. Format be like [{"partOfSpeech": "xxx", "definitions": [{"definition": "xxx", "example": "xxx", "synonyms": ["xxx", "xxx"]}, ...]'},
        },
    ),
    ApiSpec(
        name='DocumentQA',
        description='This API answers the question from a given document url.',
        input_parameters={
            'url': {'type': 'str', 'description': 'The url to download the document. It should end with .txt.'},
            'question': {'type': 'str', 'description': 'The question to be answered.'},
        },
        output_parameters={
            'answer': {'type': 'str', 'description': 'The answer to the question.'},
        },
        database='QuestionAnswering',
    ),
    ApiSpec(
        name='EmergencyKnowledge',
        description='This API searches for a given symptom.',
        input_parameters={
            'symptom': {'type': 'str', 'description': 'The symptom to search.'},
        },
        output_parameters={
            'results': {'type': 'list', 'description': 'The list of results. Format be like [{"name":possible disease name, "aid": first-aid method},...]'},
        },
        database='Symptom',
    ),
    ApiSpec(
        name='ForgotPassword',
        description="Sends an email to the user with a link to reset the password. Need call twice, first with 'Forgot Password' status to get the verification code, then call again with 'Verification Code' status to change the password. Must pass the name of the parameters when calling the API, like ForgotPassword(status='Forgot Password', username='username').",
        input_parameters={
            'status': {'type': 'str', 'description': "'Forgot Password' for first call, after get the verification code, call again with 'Verification Code' to change the password."},
            'username': {'type': 'str', 'description': 'The username of the user. Only needed for the first call.'},
            'email': {'type': 'str', 'description': 'The email of the user. Only needed for the first call.'},
            'verification_code': {'type': 'int', 'description': 'The verification code sent to the user. Only needed for the second call.'},
            'new_password': {'type': 'str', 'description': 'The new password of the user. Only needed for the second call.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Account',
    ),
    ApiSpec(
        name='GetToday',
        description='This API gets the current date.',
        input_parameters={
        },
        output_parameters={
            'date': {'type': 'str', 'description': 'The current date. Format: %Y-%m-%d'},
        },
    ),
    ApiSpec(
        name='GetUserToken',
        description='Get the user token.',
        input_parameters={
            'username': {'type': 'str', 'description': 'The username of the user.'},
            'password': {'type': 'str', 'description': 'The password of the user.'},
        },
        output_parameters={
            'token': {'type': 'str', 'description': 'The token of the user.'},
        },
        database='Account',
    ),
    ApiSpec(
        name='ImageCaption',
        description='This API generates a caption for a given image.',
        input_parameters={
            'url': {'type': 'str', 'description': 'The url to download the image. It should end with .jpg, .jpeg or .png.'},
        },
        output_parameters={
            'caption': {'type': 'str', 'description': 'The generated caption.'},
        },
        database='ImageCaptioning',
    ),
    ApiSpec(
        name='ModifyAgenda',
        description='The API for modifying a schedule item includes parameters for token, content, time, and location.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the agenda.'},
            'time': {'type': 'str', 'description': 'The new time for agenda. Format: %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The new location of the agenda.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Agenda',
    ),
    ApiSpec(
        name='ModifyAlarm',
        description='The API for modifying an alarm includes a parameter for the from_time to to_time.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'from_time': {'type': 'str', 'description': 'The time for alarm which changed from. Format: %Y-%m-%d %H:%M:%S'},
            'to_time': {'type': 'str', 'description': 'The time for alarm which changed to. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Alarm',
    ),
    ApiSpec(
        name='ModifyMeeting',
        description="This API allows users to modify a reservation for a meetingFunction：Delete user's reservation for a meeting.Exception Handling：1. If the modification is successful, return a success message.2. If the modification fails, return a corresponding error message.",
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'meeting_topic': {'type': 'str', 'description': 'The title of the meeting, no more than 50 characters.'},
            'start_time': {'type': 'str', 'description': 'The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'end_time': {'type': 'str', 'description': 'The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location where the meeting to be held, no more than 100 characters.'},
            'attendees': {'type': 'list(str)', 'description': 'The attendees of the meeting, including names, positions and other information.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Meeting',
    ),
    ApiSpec(
        name='ModifyPassword',
        description='Modify the password of an account.',
        input_parameters={
            'token': {'type': 'str', 'description': 'The token of the user.'},
            'old_password': {'type': 'str', 'description': 'The old password of the user.'},
            'new_password': {'type': 'str', 'description': 'The new password of the user.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Account',
    ),
    ApiSpec(
        name='ModifyRegistration',
        description='This API modifies the registration of a patient given appointment ID.',
        input_parameters={
            'appointment_id': {'type': 'str', 'description': 'The ID of appointment.'},
            'new_appointment_date': {'type': 'str', 'description': 'The new appointment date. Format: %Y-%m-%d.'},
            'new_appointment_doctor': {'type': 'str', 'description': 'The new appointment doctor.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'The status of modification.'},
        },
        database='Appointments',
    ),
    ApiSpec(
        name='ModifyReminder',
        description="Modify a reminder API that takes three parameters - 'token'，'content' and 'time'. The 'token' parameter refers to the user's token and the 'content' parameter refers to the description of the reminder and the 'time' parameter specifies the time at which the reminder should be triggered.",
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the conference.'},
            'time': {'type': 'str', 'description': 'The time for conference. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
        database='Reminder',
    ),
    ApiSpec(
        name='ModifyScene',
        description='This API modifies a scene of smart home system, given the scene name and a list of smart devices',
        input_parameters={
            'name': {'type': 'str', 'description': 'The name of the scene.'},
            'devices': {'type': 'list', 'description': 'The list of smart devices, containing the name and description.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Whether the modification is successful.'},
        },
        database='Scenes',
    ),
    ApiSpec(
        name='OpenBankAccount',
        description="This is an API for opening a bank account with three required parameters: account (string), password (string), and name (string). The API creates a new account with the specified account identifier, password, and account holder's name. If an account with the same identifier already exists, the API will return an error message. If the account is successfully created, the API will return a success message.",
        input_parameters={
            'account': {'type': 'str', 'description': 'The account for the user.'},
            'password': {'type': 'str', 'description': 'The password.'},
            'name': {'type': 'str', 'description': 'account holder name.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
    ),
    ApiSpec(
        name='PlayMusic',
        description='This API triggers a music player to play music.',
        input_parameters={
            'music_name': {'type': 'str', 'description': 'The name of the music to play.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'The corresponding url scheme to trigger the music player.'},
        },
    ),
    ApiSpec(
        name='QueryAgenda',
        description='The API for getting a schedule item includes parameters for token, content, time, and location.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the agenda.'},
            'time': {'type': 'str', 'description': 'The time for agenda. Format: %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location of the agenda.'},
        },
        output_parameters={
            'info': {'type': 'json', 'description': 'agenda info including username and time'},
        },
        database='Agenda',
    ),
    ApiSpec(
        name='QueryAlarm',
        description='The API for querying alarm clock, help user to check the alarm clock they have set.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'time': {'type': 'str', 'description': 'The time for alarm. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'info': {'type': 'json', 'description': 'alarm info including username, time, content and location'},
        },
        database='Alarm',
    ),
    ApiSpec(
        name='QueryBalance',
        description='This API queries the balance of a given user.',
        input_parameters={
            'token': {'type': 'str', 'description': 'The token of the user.'},
        },
        output_parameters={
            'balance': {'type': 'float', 'description': 'The balance of the user.'},
        },
        database='Bank',
    ),
    ApiSpec(
        name='QueryHealthData',
        description='This API queries the recorded health data in database of a given user and time span.',
        input_parameters={
            'user_id': {'type': 'str', 'description': 'The user id of the given user. Cases are ignored.'},
            'start_time': {'type': 'str', 'description': 'The start time of the time span. Format: %Y-%m-%d %H:%M:%S'},
            'end_time': {'type': 'str', 'description': 'The end time of the time span. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'health_data': {'type': 'list', 'description': 'The health data of the given user and time span.'},
        },
        database='HealthData',
    ),
    ApiSpec(
        name='QueryHistoryToday',
        description='This API queries the history of a given user today.',
        input_parameters={
            'date': {'type': 'str', 'description': 'The date of the history. Format: %m-%d'},
        },
        output_parameters={
            'history': {'type': 'list', 'description': 'The history of the user today.'},
        },
        database='History',
    ),
    ApiSpec(
        name='QueryMeeting',
        description='This API allows users to query a reservation for a meeting.Function：Query infomation for a meeting.Exception Handling：1. If the Query is successful, return a meeting infomation with json.2. If the Query fails, return a error message.',
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'meeting_topic': {'type': 'str', 'description': 'The title of the meeting, no more than 50 characters.'},
            'start_time': {'type': 'str', 'description': 'The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'end_time': {'type': 'str', 'description': 'The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location where the meeting to be held, no more than 100 characters.'},
            'attendees': {'type': 'list(str)', 'description': 'The attendees of the meeting, including names, positions and other information.'},
        },
        output_parameters={
            'meeting_info': {'type': 'json', 'description': 'meeting info'},
        },
        database='Meeting',
    ),
    ApiSpec(
        name='QueryRegistration',
        description='This API queries the registration of a patient given patient ID.',
        input_parameters={
            'patient_name': {'type': 'str', 'description': 'The name of patient.'},
            'date': {'type': 'str', 'description': 'The date of appointment. Format be like %Y-%m-%d'},
        },
        output_parameters={
            'appointments': {'type': 'list', 'description': 'The dict where from appointment_id to a list like ["patient_name":xxx, "date":xxx, "doctor_name":xxx]'},
        },
        database='Appointments',
    ),
    ApiSpec(
        name='QueryReminder',
        description="Query a reminder API that takes three parameters - 'token'，'content' and 'time'. The API used to help user query a reminder. If the reminder exists, the API will return the reminder information. ",
        input_parameters={
            'token': {'type': 'str', 'description': "User's token."},
            'content': {'type': 'str', 'description': 'The content of the reminder.'},
            'time': {'type': 'str', 'description': 'The time for the reminder. Format: %Y-%m-%d %H:%M:%S'},
        },
        output_parameters={
            'reminder_info': {'type': 'json', 'description': 'remind info'},
        },
        database='Reminder',
    ),
    ApiSpec(
        name='QueryScene',
        description='This API queries a scene of smart home system, given the scene name',
        input_parameters={
            'name': {'type': 'str', 'description': 'The name of the scene.'},
        },
        output_parameters={
            'devices': {'type': 'list', 'description': 'The list of smart devices, containing the name and description.'},
        },
        database='Scenes',
    ),
    ApiSpec(
        name='QueryStock',
        description='This API queries the stock price of a given stock.',
        input_parameters={
            'stock_code': {'type': 'str', 'description': 'The stock code of the given stock.'},
            'date': {'type': 'str', 'description': 'The date of the stock price. Format: %Y-%m-%d'},
        },
        output_parameters={
            'stock_price': {'type': 'float', 'description': 'The stock price of the given stock.'},
        },
        database='Stock',
    ),
    ApiSpec(
        name='RecordHealthData',
        description='This API records the health history of a patient given user ID, time and health data.',
        input_parameters={
            'user_id': {'type': 'str', 'description': 'The ID of user.'},
            'time': {'type': 'str', 'description': 'The time of health data. Format: %Y-%m-%d %H:%M:%S'},
            'health_data': {'type': 'list', 'description': "The health data, with the format like [{'name': 'blood_pressure', 'value': '120/80'}, {'name': 'heart_rate', 'value': '80'}]"},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'The status of recording.'},
        },
        database='HealthData',
    ),
    ApiSpec(
        name='RegisterUser',
        description='Register a user.',
        input_parameters={
            'username': {'type': 'str', 'description': 'The username of the user.'},
            'password': {'type': 'str', 'description': 'The password of the user.'},
            'email': {'type': 'str', 'description': 'The email of the user.'},
        },
        output_parameters={
            'token': {'type': 'str', 'description': 'The token of the user.'},
        },
        database='Account',
    ),
    ApiSpec(
        name='SearchEngine',
        description='This API searches for a given keyword.',
        input_parameters={
            'keyword': {'type': 'str', 'description': 'The keyword to search.'},
        },
        output_parameters={
            'results': {'type': 'list', 'description': 'The list of results.'},
        },
        database='SearchEngine',
    ),
    ApiSpec(
        name='SendEmail',
        description='This API sends an email.',
        input_parameters={
            'receiver': {'type': 'str', 'description': 'The receiver address of the email.'},
            'subject': {'type': 'str', 'description': 'The subject address of the email.'},
            'content': {'type': 'str', 'description': 'The content of the email.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'The status of the email.'},
        },
    ),
    ApiSpec(
        name='SpeechRecognition',
        description='This API recognizes the speech from a given audio url.',
        input_parameters={
            'url': {'type': 'str', 'description': 'The url to download the audio. It should end with .wav.'},
        },
        output_parameters={
            'transcript': {'type': 'str', 'description': 'The transcript of the audio.'},
        },
        database='SpeechRecognition',
    ),
    ApiSpec(
        name='SymptomSearch',
        description='This API searches for a given symptom.',
        input_parameters={
            'symptom': {'type': 'str', 'description': 'The symptom to search.'},
        },
        output_parameters={
            'results': {'type': 'list', 'description': 'The list of results. Format be like [{"name":possible disease name, "description": disease details},...]'},
        },
        database='Symptom',
    ),
    ApiSpec(
        name='TimedSwitch',
        description='This API switches a smart device on or off at a specified time',
        input_parameters={
            'device_id': {'type': 'str', 'description': 'The ID of the smart device.'},
            'time': {'type': 'str', 'description': 'The time to switch the device on or off. Format: %Y-%m-%d %H:%M:%S'},
            'on': {'type': 'bool', 'description': 'Whether to switch the device on or off.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Whether the time switch is successful.'},
        },
        database='TimeSwitch',
    ),
    ApiSpec(
        name='ToolSearcher',
        description='Searches for relevant tools in library based on the keyword.',
        input_parameters={
            'keywords': {'type': 'str', 'description': 'The keyword to search for.'},
        },
        output_parameters={
            'best_matchs': {'type': 'Union[List[dict], dict]', 'description': 'The best match tool(s).'},
        },
    ),
    ApiSpec(
        name='Translate',
        description='Translate the text to the target language.',
        input_parameters={
            'src': {'type': 'str', 'description': 'The text to be translated.'},
            'src_lang': {'type': 'str', 'description': '[Optional] The source language to translate from. Default is auto.'},
            'tgt_lang': {'type': 'str', 'description': '[Optional] The target language to translate to. Default is english/en.'},
        },
        output_parameters={
            'translated_text': {'type': 'str', 'description': 'The translated text.'},
        },
    ),
    ApiSpec(
        name='Wiki',
        description='This API searches for a given keyword.',
        input_parameters={
            'keyword': {'type': 'str', 'description': 'The keyword to search.'},
        },
        output_parameters={
            'results': {'type': 'dict', 'description': 'The list of results. Format be like {"url": "xxx", "summary": "xxx", "content": "xxx"}'},
        },
        database='Wiki',
    ),)

#: Level 3: the planning APIs (their own AddMeeting, Calculator, QueryMeeting and ToolSearcher).
LEVEL3_SPECS: tuple[ApiSpec, ...] = (
    ApiSpec(
        name='AccountInfo',
        description='API for retrieving and updating user account information.',
        input_parameters={
            'username': {'type': 'str', 'description': 'Name of the user.'},
            'password': {'type': 'str', 'description': 'Password of the user.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
            'account_info': {'type': 'dict', 'description': 'User account information'},
        },
    ),
    ApiSpec(
        name='AddMeeting',
        description='This API allows users to make a reservation for a meeting and store the meeting information in the database.Function：Allow users to make a reservation for a meeting.Exception Handling：1. If the reservation is successful, return a success message.2. If the reservation fails, return a corresponding error message.',
        input_parameters={
            'meeting_topic': {'type': 'str', 'description': 'The title of the meeting, no more than 50 characters.'},
            'start_time': {'type': 'str', 'description': 'The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'end_time': {'type': 'str', 'description': 'The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location where the meeting to be held, no more than 100 characters.'},
            'attendees': {'type': 'list(str)', 'description': 'The attendees of the meeting, including names, positions and other information.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
    ),
    ApiSpec(
        name='Calculator',
        description='This API provides basic arithmetic operations: addition, subtraction, multiplication, and division.',
        input_parameters={
            'formula': {'type': 'str', 'description': "The formula that needs to be calculated. Only integers are supported. Valid operators are +, -, *, /, and (, ). For example, '(1 + 2) * 3'."},
        },
        output_parameters={
            'result': {'type': 'float', 'description': 'The result of the formula.'},
        },
    ),
    ApiSpec(
        name='ClothingRecommendation',
        description='API for providing clothing recommendations based on weather conditions.',
        input_parameters={
            'temperature': {'type': 'float', 'description': 'Temperature in Celsius.'},
            'humidity': {'type': 'float', 'description': 'Relative humidity in percentage.'},
            'weather_conditions': {'type': 'str', 'description': 'Description of weather conditions.'},
        },
        output_parameters={
            'clothing_options': {'type': 'list', 'description': 'List of recommended clothing options.'},
        },
    ),
    ApiSpec(
        name='EmailReminder',
        description='This API sends an email reminder to the user with the meeting details.',
        input_parameters={
            'content': {'type': 'str', 'description': 'The content of the email.'},
            'time': {'type': 'str', 'description': 'The time for the meeting. Format: %Y-%m-%d %H:%M:%S'},
            'location': {'type': 'str', 'description': 'The location of the meeting.'},
            'recipient': {'type': 'str', 'description': 'The email address of the recipient.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'success or failed'},
        },
    ),
    ApiSpec(
        name='FlightSearch',
        description='API to retrieve flight options based on the destination and travel dates.',
        input_parameters={
            'source': {'type': 'str', 'description': 'Source for the flight.'},
            'destination': {'type': 'str', 'description': 'Destination for the flight.'},
            'travel_dates': {'type': 'str', 'description': 'Travel dates. Format: %Y-%m-%d'},
        },
        output_parameters={
            'flights': {'type': 'list', 'description': 'List of available flight options.'},
        },
    ),
    ApiSpec(
        name='Geocoding',
        description='The API for converting an address or place name to geographical coordinates.',
        input_parameters={
            'address': {'type': 'str', 'description': 'The address or place name to be converted.'},
        },
        output_parameters={
            'latitude': {'type': 'float', 'description': 'The latitude of the location.'},
            'longitude': {'type': 'float', 'description': 'The longitude of the location.'},
        },
    ),
    ApiSpec(
        name='GetOccupationSalary',
        description='API for querying the salary of a given occupation.',
        input_parameters={
            'occupation': {'type': 'str', 'description': 'The occupation to query.'},
        },
        output_parameters={
            'salary': {'type': 'float', 'description': 'The salary of the given occupation.'},
        },
    ),
    ApiSpec(
        name='GetWeatherForCoordinates',
        description='Retrieves current weather information based on the provided coordinates.',
        input_parameters={
            'latitude': {'type': 'float', 'description': 'Latitude of the location.'},
            'longitude': {'type': 'float', 'description': 'Longitude of the location.'},
        },
        output_parameters={
            'temperature': {'type': 'float', 'description': 'Current temperature in Celsius.'},
            'humidity': {'type': 'float', 'description': 'Current humidity level.'},
            'description': {'type': 'str', 'description': 'Weather description.'},
        },
    ),
    ApiSpec(
        name='HotelAvailability',
        description='API for checking hotel availability based on the destination and travel dates.',
        input_parameters={
            'destination': {'type': 'str', 'description': 'Destination for hotel search.'},
            'check_in_date': {'type': 'str', 'description': 'Check-in date. Format: %Y-%m-%d'},
            'check_out_date': {'type': 'str', 'description': 'Check-out date. Format: %Y-%m-%d'},
        },
        output_parameters={
            'hotels': {'type': 'list', 'description': 'List of available hotels.'},
        },
    ),
    ApiSpec(
        name='LikeCount',
        description='API to retrieve the number of likes for a given post ID.',
        input_parameters={
            'post_id': {'type': 'int', 'description': 'Post ID.'},
        },
        output_parameters={
            'like_count': {'type': 'int', 'description': 'Number of likes for the post.'},
        },
    ),
    ApiSpec(
        name='MovieRecommendations',
        description='The API for retrieving recommended movies based on user preferences and filtering watched movies.',
        input_parameters={
            'preferences': {'type': 'list', 'description': "User's movie preferences."},
        },
        output_parameters={
            'recommended_movies': {'type': 'list', 'description': 'List of recommended movies.'},
        },
    ),
    ApiSpec(
        name='NearbyRestaurants',
        description='Retrieves nearby restaurants based on the provided coordinates and search parameters.',
        input_parameters={
            'latitude': {'type': 'float', 'description': 'Latitude of the location.'},
            'longitude': {'type': 'float', 'description': 'Longitude of the location.'},
            'distance': {'type': 'int', 'description': 'The distance in meters from the location to search for restaurants.'},
        },
        output_parameters={
            'restaurants': {'type': 'list', 'description': 'A list of nearby restaurants.'},
        },
    ),
    ApiSpec(
        name='OrganizationMembers',
        description='API to retrieve the list of members in the organization.',
        input_parameters={
            'organization': {'type': 'str', 'description': 'Name of the organization.'},
        },
        output_parameters={
            'members': {'type': 'list', 'description': 'List of organization members.'},
        },
    ),
    ApiSpec(
        name='PersonalInfoUpdate',
        description="The API for updating a user's personal information and address.",
        input_parameters={
            'username': {'type': 'str', 'description': 'Name of the user.'},
            'password': {'type': 'str', 'description': 'Password of the user.'},
            'address': {'type': 'str', 'description': 'Updated address information.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Success or failure'},
        },
    ),
    ApiSpec(
        name='QueryMeeting',
        description="The API for retrieving the meeting details from the user's calendar.",
        input_parameters={
            'user_name': {'type': 'str', 'description': 'Name of the user.'},
        },
        output_parameters={
            'meetings': {'type': 'list', 'description': 'List of meetings.'},
        },
    ),
    ApiSpec(
        name='TaxCalculator',
        description='API for calculating tax deductions based on the given salary.',
        input_parameters={
            'salary': {'type': 'float', 'description': 'The salary to calculate tax deductions for.'},
        },
        output_parameters={
            'salary_after_tax': {'type': 'float', 'description': 'The salary after tax deductions.'},
        },
    ),
    ApiSpec(
        name='ToolSearcher',
        description='Searches for relevant tools in library based on the keyword.',
        input_parameters={
            'keywords': {'type': 'str', 'description': 'The keyword to search for.'},
        },
        output_parameters={
            'best_matchs': {'type': 'Union[List[dict], dict]', 'description': 'The best match tool(s).'},
        },
    ),
    ApiSpec(
        name='TravelStatus',
        description='API for retrieving the current travel status of each member.',
        input_parameters={
            'member_name': {'type': 'str', 'description': 'Name of the member.'},
        },
        output_parameters={
            'status': {'type': 'str', 'description': 'Travel status'},
        },
    ),
    ApiSpec(
        name='UserMoviePreferences',
        description='API for retrieving user preferences for movie recommendations.',
        input_parameters={
            'user_name': {'type': 'str', 'description': 'Name of the user.'},
        },
        output_parameters={
            'preferences': {'type': 'list', 'description': 'List of movie preferences.'},
        },
    ),
    ApiSpec(
        name='UserPosts',
        description='API to retrieve the post IDs for a specific user.',
        input_parameters={
            'user_id': {'type': 'int', 'description': "User's ID."},
        },
        output_parameters={
            'post_ids': {'type': 'list', 'description': 'List of post IDs.'},
        },
    ),
    ApiSpec(
        name='UserWatchedMovies',
        description="API for retrieving a user's watched movie list.",
        input_parameters={
            'user_name': {'type': 'str', 'description': 'Name of the user.'},
        },
        output_parameters={
            'watched_movies': {'type': 'list', 'description': 'List of watched movies.'},
        },
    ),)

LEVEL12: dict[str, ApiSpec] = {spec.name: spec for spec in LEVEL12_SPECS}
LEVEL3: dict[str, ApiSpec] = {spec.name: spec for spec in LEVEL3_SPECS}


def catalogue(level: int) -> dict[str, ApiSpec]:
    """The APIs an episode of `level` runs against."""
    return LEVEL3 if level == 3 else LEVEL12
