"""The task source: API-Bank's dialogues, shipped or generated.

Dialogues: API-Bank's level-1/2 jsonl files (turns of User, AI and API) as immutable records.

Generated dialogues: API-Bank-style conversations built from the loaded databases, by seed.

Each dialogue strings together one to three user requests. A request names real entities of
the current tables (a user's agenda item, a stored appointment, a scene, a stock on a listed
day), so its API call succeeds — or, now and then, a request that fails the way the API fails
(an unknown symptom, a wrong password), since API-Bank scores exceptions too. Token APIs are
preceded by the credential exchange and GetUserToken, level-2 requests by a ToolSearcher call,
and every call is executed on a sandbox session as the dialogue is written, so the recorded
results are exactly what the sandbox returns. Level 3 chains the planning APIs from a single
requirement. The same (split, index) always gives the same dialogue.

The dialogues follow the rules API-Bank's evaluator (`evaluator.py`, the `official` scoring)
judges by, so that it judges every ground-truth call correct:
- it runs each call on freshly loaded databases, so no call may depend on what an earlier call
  of the same dialogue wrote: a dialogue's requests are written up front from the initial
  tables, come from different families, and an account change (password, deletion) comes last;
- its ToolManager passes a list argument on as the string the call wrote, so each call's
  recorded result is the one that path returns (a fresh session, lists left as strings);
- requests it can never judge correct are not written: DeleteMeeting (its rule reads
  `input['time']`, which the API lacks), TimedSwitch and CancelTimedSwitch (their rules read
  `input['name']`, the API says `device_id`), and the APIs that reject their list argument as a
  string (RecordHealthData, AddScene, ModifyScene, MovieRecommendations).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coevo.envs.apibank.sandbox import SandboxSession
from coevo.envs.apibank.toolsearch import search_text


LEVEL_DIRS: dict[int, str] = {1: "level-1-given-desc", 2: "level-2-toolsearcher"}


@dataclass(frozen=True)
class Turn:
    role: str  # "User", "AI" or "API"
    text: str = ""
    api_name: str = ""
    #: The call's arguments as written (strings), for API turns.
    param_dict: Mapping[str, Any] = field(default_factory=dict)
    #: The recorded (or, for generated dialogues, sandbox-computed) result dict.
    result: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Dialogue:
    task_id: str
    level: int
    turns: tuple[Turn, ...]
    #: The jsonl file name for shipped dialogues, "generated" otherwise.
    source: str = "generated"

    @property
    def api_names(self) -> tuple[str, ...]:
        """APIs called in the dialogue, in order of first use (level-1 shows their docs)."""
        seen: dict[str, None] = {}
        for turn in self.turns:
            if turn.role == "API":
                seen.setdefault(turn.api_name, None)
        return tuple(seen)

    @property
    def api_turns(self) -> list[int]:
        return [i for i, t in enumerate(self.turns) if t.role == "API"]


def parse_turn(row: Mapping[str, Any]) -> Turn:
    role = row["role"]
    if role == "API":
        return Turn("API", api_name=row["api_name"], param_dict=dict(row["param_dict"]), result=row["result"])
    if role not in ("User", "AI"):
        raise ValueError(f"unknown dialogue role {role!r}")
    return Turn(role, text=row["text"])


def load_dialogue_file(path: Path, level: int, task_id: str) -> Dialogue:
    turns = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                turns.append(parse_turn(json.loads(line)))
    return Dialogue(task_id, level, tuple(turns), source=path.name)


def load_shipped(samples_dir: Path) -> dict[int, list[Dialogue]]:
    """Level -> dialogues of `lv1-lv2-samples/`, sorted by file name (task ids l1-*/l2-*).

    Empty files are skipped (the release's level-1 folder has one: SearchEngine-level-1-1).
    """
    found: dict[int, list[Dialogue]] = {}
    for level, sub in LEVEL_DIRS.items():
        folder = samples_dir / sub
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder} is missing (expected API-Bank's {sub} dialogues)")
        dialogues = [
            load_dialogue_file(path, level, f"l{level}-{path.stem}") for path in sorted(folder.glob("*.jsonl"))
        ]
        found[level] = [d for d in dialogues if d.turns]
    return found


#: Level mix of the generated splits (level 3 is rarer, as in API-Bank).
LEVEL_CYCLE = (1, 2, 1, 2, 3)


@dataclass
class Request:
    """One user request and the API call that serves it."""

    ask: str
    api: str
    args: dict[str, str]
    reply: Callable[[Any, str | None], str]
    credentials: tuple[str, str] | None = None


def _time(rng: random.Random, year: int = 2023) -> str:
    return (
        f"{year}-{rng.randint(4, 12):02d}-{rng.randint(1, 28):02d} "
        f"{rng.choice([8, 9, 10, 11, 13, 14, 15, 16, 17]):02d}:{rng.choice(['00', '30'])}:00"
    )


def _said(output: Any) -> str:
    return output if isinstance(output, str) else repr(output)


def _done(what: str) -> Callable[[Any, str | None], str]:
    def reply(output: Any, exception: str | None) -> str:
        if exception:
            return f"Sorry, I couldn't {what}: {exception}"
        return f"Done, I managed to {what}."

    return reply


def _found(subject: str) -> Callable[[Any, str | None], str]:
    def reply(output: Any, exception: str | None) -> str:
        if exception:
            return f"Sorry, I couldn't get {subject}: {exception}"
        return f"Here is {subject}: {_said(output)}"

    return reply


def _list_arg(values: list[Any]) -> str:
    return repr(values)


class DialogueWriter:
    """Builds requests from the session's current tables (so ids and items exist)."""

    def __init__(self, session: SandboxSession, rng: random.Random) -> None:
        self.session = session
        self.rng = rng

    def table(self, name: str) -> Any:
        return self.session.state.tables.read(name)

    def user_with(self, table: str) -> tuple[str, str, list[Any]] | None:
        """A user who owns items in `table`: (username, password, their items)."""
        accounts = self.table("Account")
        owned: dict[str, list[Any]] = {}
        for item in self.table(table).values():
            if item.get("username") in accounts:
                owned.setdefault(item["username"], []).append(item)
        if not owned:
            return None
        username = self.rng.choice(sorted(owned))
        return username, accounts[username]["password"], owned[username]

    def any_user(self) -> tuple[str, str, str]:
        accounts = self.table("Account")
        username = self.rng.choice(sorted(accounts))
        return username, accounts[username]["password"], accounts[username]["token"]

    # ------------------------------------------------------------------ token-protected APIs
    def agenda(self) -> Request | None:
        kind = self.rng.choice(["add", "delete", "modify", "query"])
        if kind == "add":
            username, password, token = self.any_user()
            content = self.rng.choice(
                ["Team dinner", "Gym session", "Visit grandparents", "Doctor visit", "Study group"]
            )
            location = self.rng.choice(["Downtown", "City Hall", "Main Street Cafe", "Home"])
            when = _time(self.rng)
            return Request(
                f"Please add '{content}' at {location} to my agenda for {when}.",
                "AddAgenda",
                {"token": token, "content": content, "time": when, "location": location},
                _done("add the agenda item"),
                (username, password),
            )
        found = self.user_with("Agenda")
        if found is None:
            return None
        username, password, items = found
        item = self.rng.choice(items)
        token = self.table("Account")[username]["token"]
        api = {"delete": "DeleteAgenda", "modify": "ModifyAgenda", "query": "QueryAgenda"}[kind]
        when = item["time"] if len(item["time"]) > 10 else item["time"] + " 00:00:00"
        location = item["location"] if kind != "modify" else self.rng.choice(["Room 101", "Online"])
        ask = {
            "delete": f"Remove '{item['content']}' from my agenda.",
            "modify": f"Move my agenda item '{item['content']}' to {location}.",
            "query": f"What do I have in my agenda about '{item['content']}'?",
        }[kind]
        reply = _found("your agenda item") if kind == "query" else _done(f"{kind} the agenda item")
        return Request(
            ask,
            api,
            {"token": token, "content": item["content"], "time": when, "location": location},
            reply,
            (username, password),
        )

    def alarm(self) -> Request | None:
        kind = self.rng.choice(["add", "delete", "modify", "query"])
        if kind == "add":
            username, password, token = self.any_user()
            when = _time(self.rng)
            return Request(
                f"Set an alarm for {when}.",
                "AddAlarm",
                {"token": token, "time": when},
                _done("set the alarm"),
                (username, password),
            )
        found = self.user_with("Alarm")
        if found is None:
            return None
        username, password, items = found
        item = self.rng.choice(items)
        token = self.table("Account")[username]["token"]
        if kind == "modify":
            to_time = item["time"][:11] + self.rng.choice(["06:00:00", "06:45:00", "07:30:00"])
            return Request(
                f"Change my {item['time']} alarm to {to_time}.",
                "ModifyAlarm",
                {"token": token, "from_time": item["time"], "to_time": to_time},
                _done("modify the alarm"),
                (username, password),
            )
        api = "DeleteAlarm" if kind == "delete" else "QueryAlarm"
        ask = (
            f"Cancel my alarm at {item['time']}." if kind == "delete" else f"Do I have an alarm set at {item['time']}?"
        )
        reply = _done("delete the alarm") if kind == "delete" else _found("your alarm")
        return Request(ask, api, {"token": token, "time": item["time"]}, reply, (username, password))

    def reminder(self) -> Request | None:
        kind = self.rng.choice(["add", "delete", "modify", "query"])
        if kind == "add":
            username, password, token = self.any_user()
            content = self.rng.choice(
                ["Call the bank", "Pick up the parcel", "Pay the rent", "Buy flowers", "Charge the car"]
            )
            when = _time(self.rng)
            return Request(
                f"Remind me to {content.lower()} at {when}.",
                "AddReminder",
                {"token": token, "content": content, "time": when},
                _done("add the reminder"),
                (username, password),
            )
        found = self.user_with("Reminder")
        if found is None:
            return None
        username, password, items = found
        item = self.rng.choice(items)
        token = self.table("Account")[username]["token"]
        when = item["time"] if kind != "modify" else item["time"][:11] + "18:00:00"
        api = {"delete": "DeleteReminder", "modify": "ModifyReminder", "query": "QueryReminder"}[kind]
        ask = {
            "delete": f"Delete my reminder '{item['content']}'.",
            "modify": f"Move my reminder '{item['content']}' to {when}.",
            "query": f"Show me my reminder about '{item['content']}'.",
        }[kind]
        reply = _found("your reminder") if kind == "query" else _done(f"{kind} the reminder")
        return Request(
            ask, api, {"token": token, "content": item["content"], "time": when}, reply, (username, password)
        )

    def meeting(self) -> Request | None:
        kind = self.rng.choice(["add", "modify", "query"])
        if kind == "add":
            username, password, token = self.any_user()
            topic = self.rng.choice(["Marketing Sync", "Hiring Plan", "Launch Review"])
            start = _time(self.rng)
            end = start[:11] + f"{int(start[11:13]) + 1:02d}" + start[13:]
            attendees = self.rng.sample(["Ana Ruiz", "Ben Cole", "Chen Wei", "Dana Fox"], 2)
            return Request(
                f"Book a meeting '{topic}' from {start} to {end} in Room 7 with {' and '.join(attendees)}.",
                "AddMeeting",
                {
                    "token": token,
                    "meeting_topic": topic,
                    "start_time": start,
                    "end_time": end,
                    "location": "Room 7",
                    "attendees": _list_arg(attendees),
                },
                _done("add the meeting"),
                (username, password),
            )
        found = self.user_with("Meeting")
        if found is None:
            return None
        username, password, items = found
        item = self.rng.choice(items)
        token = self.table("Account")[username]["token"]
        api = {"modify": "ModifyMeeting", "query": "QueryMeeting"}[kind]
        ask = {
            "modify": f"Update my meeting '{item['meeting_topic']}'; keep the same time.",
            "query": f"Give me the details of my meeting '{item['meeting_topic']}'.",
        }[kind]
        reply = _found("your meeting") if kind == "query" else _done(f"{kind} the meeting")
        return Request(
            ask,
            api,
            {
                "token": token,
                "meeting_topic": item["meeting_topic"],
                "start_time": item["start_time"],
                "end_time": item["end_time"],
                "location": item["location"],
                "attendees": _list_arg(list(item["attendees"])),
            },
            reply,
            (username, password),
        )

    def account(self) -> Request | None:
        username, password, token = self.any_user()
        kind = self.rng.choice(["balance", "password", "delete", "wrong_password"])
        if kind == "balance":
            if username not in self.table("Bank"):
                return None
            return Request(
                "How much money is in my bank account?",
                "QueryBalance",
                {"token": token},
                _found("your balance"),
                (username, password),
            )
        if kind == "password":
            new = f"{username[:4]}{self.rng.randint(1000, 9999)}!"
            return Request(
                f"Change my password to {new}.",
                "ModifyPassword",
                {"token": token, "old_password": password, "new_password": new},
                _done("change the password"),
                (username, password),
            )
        if kind == "delete":
            return Request(
                "Please delete my account.",
                "DeleteAccount",
                {"token": token},
                _done("delete the account"),
                (username, password),
            )
        return Request(
            f"Log me in as {username} with password {password}x.",
            "GetUserToken",
            {"username": username, "password": password + "x"},
            _found("your token"),
        )

    # ------------------------------------------------------------------ open APIs
    def health(self) -> Request | None:
        kind = self.rng.choice(["query", "symptom", "emergency", "missing"])
        if kind == "query":
            users = sorted(self.table("HealthData"))
            if not users:
                return None
            user = self.rng.choice(users)
            records = self.table("HealthData")[user]
            day = self.rng.choice(records)["time"][:10]
            start, end = f"{day} 00:00:00", f"{day} 23:59:59"
            return Request(
                f"Show the health data of user {user} on {day}.",
                "QueryHealthData",
                {"user_id": user, "start_time": start, "end_time": end},
                _found("the health data"),
            )
        symptoms = sorted(self.table("Symptom"))
        symptom = "hiccups" if kind == "missing" else self.rng.choice(symptoms)
        api = "EmergencyKnowledge" if kind == "emergency" else "SymptomSearch"
        return Request(f"I have {symptom}. What could it be?", api, {"symptom": symptom}, _found("what I found"))

    def appointment(self) -> Request | None:
        appointments = self.table("Appointments")
        kind = self.rng.choice(["register", "cancel", "modify", "query"])
        if kind == "register" or not appointments:
            name = self.rng.choice(["Lena Ortiz", "Omar Haddad", "Priya Nair", "Tom Becker"])
            doctor = self.rng.choice(["Dr. Rivera", "Dr. Kim", "Dr. Osei"])
            day = f"2023-{self.rng.randint(5, 11):02d}-{self.rng.randint(1, 28):02d}"
            return Request(
                f"Register an appointment for {name} with {doctor} on {day}.",
                "AppointmentRegistration",
                {"patient_name": name, "date": day, "doctor_name": doctor},
                _found("your appointment ID"),
            )
        appointment_id = self.rng.choice(sorted(appointments))
        item = appointments[appointment_id]
        if kind == "cancel":
            return Request(
                f"Cancel appointment {appointment_id}.",
                "CancelRegistration",
                {"appointment_id": appointment_id},
                _done("cancel the appointment"),
            )
        if kind == "modify":
            day = f"2023-{self.rng.randint(5, 11):02d}-{self.rng.randint(1, 28):02d}"
            doctor = self.rng.choice(["Dr. Rivera", "Dr. Kim", "Dr. Osei"])
            return Request(
                f"Move appointment {appointment_id} to {day} with {doctor}.",
                "ModifyRegistration",
                {"appointment_id": appointment_id, "new_appointment_date": day, "new_appointment_doctor": doctor},
                _done("modify the appointment"),
            )
        return Request(
            f"Which appointments does {item['patient_name']} have on {item['date']}?",
            "QueryRegistration",
            {"patient_name": item["patient_name"], "date": item["date"]},
            _found("the appointments"),
        )

    def smart_home(self) -> Request | None:
        scenes = self.table("Scenes")
        if not scenes:
            return None
        kind = self.rng.choice(["query", "delete"])
        name = self.rng.choice(sorted(scenes))
        api = "QueryScene" if kind == "query" else "DeleteScene"
        ask = f"Which devices are in the '{name}' scene?" if kind == "query" else f"Delete the '{name}' scene."
        reply = _found("the scene") if kind == "query" else _done("delete the scene")
        return Request(ask, api, {"name": name}, reply)

    def finance(self) -> Request | None:
        kind = self.rng.choice(["stock", "hotel", "open"])
        if kind == "stock":
            stocks = self.table("Stock")
            code = self.rng.choice(sorted(stocks))
            day = self.rng.choice(sorted(stocks[code]))
            return Request(
                f"What was the price of {code} on {day}?",
                "QueryStock",
                {"stock_code": code, "date": day},
                _found("the stock price"),
            )
        if kind == "hotel":
            hotel = self.rng.choice(["Harbor View Hotel", "Hilton", "Park Inn", "Grand Plaza"])
            day = self.rng.randint(1, 20)
            adults = self.rng.randint(1, 4)
            rooms = 1 if adults <= 2 else 2
            return Request(
                f"Book {rooms} room(s) at {hotel} for {adults} adult(s) from "
                f"2024-02-{day:02d} to 2024-02-{day + 3:02d}.",
                "BookHotel",
                {
                    "hotel_name": hotel,
                    "check_in_time": f"2024-02-{day:02d}",
                    "check_out_time": f"2024-02-{day + 3:02d}",
                    "room_count": str(rooms),
                    "adult_count": str(adults),
                    "child_count": "0",
                },
                _found("your order ID"),
            )
        account = f"acct{self.rng.randint(1000, 9999)}"
        return Request(
            f"Open a bank account '{account}' with password s3cret for Mia Stone.",
            "OpenBankAccount",
            {"account": account, "password": "s3cret", "name": "Mia Stone"},
            _done("open the account"),
        )

    def knowledge(self) -> Request | None:
        kind = self.rng.choice(
            [
                "calc",
                "today",
                "history",
                "wiki",
                "search",
                "dictionary",
                "translate",
                "image",
                "speech",
                "document",
                "email",
                "music",
            ]
        )
        rng = self.rng
        if kind == "calc":
            a, b, c = rng.randint(2, 60), rng.randint(2, 30), rng.randint(2, 9)
            formula = rng.choice([f"({a}+{b})*{c}", f"{a}*{b}-{c}", f"({a}-{b})/{c}", f"{a}+{b}*{c}"])
            return Request(f"Calculate {formula}.", "Calculator", {"formula": formula}, _found("the result"))
        if kind == "today":
            return Request("What's the date today?", "GetToday", {}, _found("today's date"))
        if kind == "history":
            day = rng.choice(sorted(self.table("History")))
            return Request(
                f"What happened in history on {day}?",
                "QueryHistoryToday",
                {"date": day},
                _found("what happened on that day"),
            )
        if kind == "wiki":
            topic = rng.choice(sorted(self.table("Wiki")))
            return Request(f"Look up {topic} on Wikipedia.", "Wiki", {"keyword": topic}, _found("the Wikipedia entry"))
        if kind == "search":
            docs = self.table("SearchEngine")["raw_documents"]
            words = rng.choice(docs)["title"].lower().split()
            keyword = " ".join(words[-3:])
            return Request(
                f"Search the web for {keyword}.", "SearchEngine", {"keyword": keyword}, _found("the top results")
            )
        if kind == "dictionary":
            word = rng.choice(sorted(self.session.resources.dictionary))
            return Request(f"What does '{word}' mean?", "Dictionary", {"keyword": word}, _found("the definition"))
        if kind == "translate":
            text, lang = rng.choice(sorted(self.session.resources.translations))
            return Request(
                f"Translate '{text}' into {lang}.",
                "Translate",
                {"src": text, "tgt_lang": lang},
                _found("the translation"),
            )
        if kind == "image":
            item = rng.choice(self.table("ImageCaptioning")[:500])
            return Request(
                f"Describe the image at {item['url']}.", "ImageCaption", {"url": item["url"]}, _found("the caption")
            )
        if kind == "speech":
            url = rng.choice(sorted(self.table("SpeechRecognition")))
            return Request(
                f"Transcribe the audio at {url}.", "SpeechRecognition", {"url": url}, _found("the transcript")
            )
        if kind == "document":
            url = rng.choice(sorted(self.table("QuestionAnswering")))
            return Request(
                f"Who wrote the document at {url}?",
                "DocumentQA",
                {"url": url, "question": "Who wrote this article?"},
                _found("the answer"),
            )
        if kind == "email":
            to = rng.choice(["ana@example.com", "ben.cole@example.com", "team@example.org"])
            return Request(
                f"Email {to} with subject 'Status' saying the report is ready.",
                "SendEmail",
                {"receiver": to, "subject": "Status", "content": "The report is ready."},
                _done("send the email"),
            )
        song = rng.choice(["Blue Skies", "Morning Light", "River Song"])
        return Request(f"Play {song}.", "PlayMusic", {"music_name": song}, _found("the player link"))

    FAMILIES = (
        "agenda",
        "alarm",
        "reminder",
        "meeting",
        "account",
        "health",
        "appointment",
        "smart_home",
        "finance",
        "knowledge",
    )

    def request(self, used: set[str]) -> tuple[str, Request]:
        """A request of a family not in `used` (the family, the request)."""
        for _ in range(20):
            family = self.rng.choice([f for f in self.FAMILIES if f not in used] or ["knowledge"])
            built = getattr(self, family)()
            if built is not None:
                return family, built
        return "knowledge", self.knowledge() or Request(
            "What's the date today?", "GetToday", {}, _found("today's date")
        )

    def requests(self, count: int) -> list[Request]:
        """`count` requests written from the tables as they are now, from different families, an
        account change last: API-Bank judges every call on the initial databases, so no request
        may touch what another one of the dialogue wrote."""
        chosen: list[tuple[str, Request]] = []
        for _ in range(count):
            chosen.append(self.request({family for family, _ in chosen}))
        return [request for _, request in sorted(chosen, key=lambda fr: fr[0] == "account")]


def _keywords_for(session: SandboxSession, api: str) -> str:
    """ToolSearcher keywords that retrieve `api` (the name in words, else its description)."""
    spec = session.catalogue[api]
    index = session.resources.tool_index(session.level)
    name_words = "".join(" " + c.lower() if c.isupper() else c for c in api).strip()
    for candidate in (name_words, search_text(spec), f"{name_words} {spec.description}"):
        best = index.best(candidate)
        if best is not None and best.name == api:
            return candidate
    return name_words


class _Recorder:
    def __init__(self, session: SandboxSession) -> None:
        self.session = session
        self.turns: list[Turn] = []

    def say(self, role: str, text: str) -> None:
        self.turns.append(Turn(role, text=text))

    def call(self, api: str, args: dict[str, str]) -> Any:
        """Run the call in the dialogue's session (its state goes on) and record the result
        API-Bank's evaluator gets for it: on the initial databases, list arguments as strings."""
        self.session.call(api, args)
        outcome = self.session.fresh(parse_lists=False).call(api, args)
        self.turns.append(Turn("API", api_name=api, param_dict=dict(args), result=outcome.result))
        return outcome


def generate_level12(resources: Any, task_id: str, seed: int, level: int) -> Dialogue:
    rng = random.Random(seed)
    session = SandboxSession(resources, level, seed=seed)
    writer = DialogueWriter(session, rng)
    recorder = _Recorder(session)
    logged_in: set[str] = set()
    for position, request in enumerate(writer.requests(rng.choice([1, 1, 2, 2, 3]))):
        recorder.say("User", request.ask if position == 0 else f"Also, {request.ask[0].lower()}{request.ask[1:]}")
        if level == 2:
            recorder.say("AI", "Let me search for a suitable tool.")
            recorder.call("ToolSearcher", {"keywords": _keywords_for(session, request.api)})
        if request.credentials and request.credentials[0] not in logged_in:
            username, password = request.credentials
            recorder.say("AI", "To do that I need to log you in. What are your username and password?")
            recorder.say("User", f"My username is {username} and my password is {password}.")
            recorder.call("GetUserToken", {"username": username, "password": password})
            recorder.say("AI", "Thanks, you are logged in.")
            logged_in.add(username)
        outcome = recorder.call(request.api, request.args)
        recorder.say("AI", request.reply(outcome.output, outcome.exception))
    return Dialogue(task_id, level, tuple(recorder.turns))


#: Level-3 plans: (requirement template, steps). A step is (API, argument builder from the
#: previous outputs). Values come from the level-3 APIs' own tables.
def generate_level3(resources: Any, task_id: str, seed: int) -> Dialogue:
    from coevo.envs.apibank.apis import level3 as l3

    rng = random.Random(seed)
    session = SandboxSession(resources, 3, seed=seed)
    recorder = _Recorder(session)
    # No movie plan: MovieRecommendations rejects its `preferences` list when API-Bank's evaluator
    # passes it on as a string.
    plan = rng.choice(["weather", "salary", "team", "likes", "flight"])

    def step(api: str, args: dict[str, str]) -> Any:
        recorder.call("ToolSearcher", {"keywords": _keywords_for(session, api)})
        return recorder.call(api, args)

    if plan == "weather":
        city = rng.choice(sorted(l3.COORDINATES))
        recorder.say("User", f"What should I wear in {city} today?")
        geo = step("Geocoding", {"address": city}).output
        weather = step(
            "GetWeatherForCoordinates", {"latitude": str(geo["latitude"]), "longitude": str(geo["longitude"])}
        ).output
        clothes = step(
            "ClothingRecommendation",
            {
                "temperature": str(float(weather["temperature"])),
                "humidity": str(float(weather["humidity"])),
                "weather_conditions": weather["description"],
            },
        ).output
        answer = (
            f"In {city} it is {weather['description'].lower()}; wear: "
            f"{', '.join(clothes['clothing_options']) or 'anything comfortable'}."
        )
    elif plan == "salary":
        job = rng.choice(sorted(l3.SALARIES))
        recorder.say("User", f"How much does a {job} take home after tax?")
        salary = step("GetOccupationSalary", {"occupation": job}).output["salary"]
        net = step("TaxCalculator", {"salary": str(float(salary))}).output
        answer = f"A {job} earns {salary} and keeps {net['salary_after_tax']} after tax."
    elif plan == "team":
        org = rng.choice(sorted(l3.ORGANIZATIONS))
        recorder.say("User", f"Who in {org} is travelling right now?")
        members = step("OrganizationMembers", {"organization": org}).output["members"]
        travelling = []
        for member in members:
            if step("TravelStatus", {"member_name": member}).output == "Traveling":
                travelling.append(member)
        answer = (
            f"Travelling members of {org}: {', '.join(travelling)}."
            if travelling
            else f"Nobody in {org} is travelling."
        )
    elif plan == "likes":
        user_id = rng.choice(sorted(l3.POSTS))
        recorder.say("User", f"How many likes did user {user_id}'s posts get in total?")
        posts = step("UserPosts", {"user_id": str(user_id)}).output["post_ids"]
        counts = [step("LikeCount", {"post_id": str(p)}).output["like_count"] for p in posts]
        total = step("Calculator", {"formula": "+".join(str(c) for c in counts)}).output
        answer = f"User {user_id}'s posts received {total} likes in total."
    else:
        source, destination, departure = rng.choice(l3.FLIGHTS)
        day = departure.strftime("%Y-%m-%d")
        recorder.say("User", f"Find me a flight from {source} to {destination} on {day}.")
        flights = step("FlightSearch", {"source": source, "destination": destination, "travel_dates": day}).output[
            "flights"
        ]
        answer = f"I found {len(flights)} flight(s): {flights}."
    recorder.say("AI", answer)
    return Dialogue(task_id, 3, tuple(recorder.turns))


def generate(resources: Any, task_id: str, seed: int, level: int) -> Dialogue:
    if level == 3:
        return generate_level3(resources, task_id, seed)
    return generate_level12(resources, task_id, seed, level)
