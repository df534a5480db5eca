"""Level-3 APIs (plan + retrieve + call): small fixed lookup tables, as API-Bank defines them.

Their data are the few records the benchmark's level-3 APIs carry; outputs and error texts
(including Python's KeyError text, e.g. "'Berlin'", for unknown keys) follow the originals.
"""

from __future__ import annotations

import datetime
from typing import Any

from coevo.envs.apibank.calculator import FormulaError, calculate
from coevo.envs.apibank.sandbox import ApiException, CallContext, implements

ACCOUNTS: dict[tuple[str, str], dict[str, str]] = {
    ("John", "123456"): {"email": "john@example.com", "phone": "1234567890"},
    ("Mary", "abcdef"): {"email": "mary@example.com", "phone": "0987654321"},
    ("Peter", "qwerty"): {"email": "peter@example.com", "phone": "1231231234"},
    ("Tom", "asdfgh"): {"email": "tom@example.com", "phone": "4564564567"},
    ("Jerry", "zxcvbn"): {"email": "jerry@example.com", "phone": "7897897890"},
}
COORDINATES: dict[str, tuple[float, float]] = {
    "New York City": (40.7128, 74.0060),
    "San Francisco": (37.7749, 122.4194),
    "London": (51.5074, 0.1278),
    "Paris": (48.8566, 2.3522),
    "Tokyo": (35.6762, 139.6503),
}
WEATHER: dict[tuple[float, float], dict[str, Any]] = {
    (40.7128, 74.0060): {"temperature": 10, "humidity": 0.5, "description": "Clear"},
    (37.7749, 122.4194): {"temperature": 20, "humidity": 0.8, "description": "Cloudy"},
    (51.5074, 0.1278): {"temperature": 5, "humidity": 0.9, "description": "Rainy"},
    (48.8566, 2.3522): {"temperature": 15, "humidity": 0.7, "description": "Sunny"},
    (35.6762, 139.6503): {"temperature": 25, "humidity": 0.6, "description": "Rainy"},
}
SALARIES: dict[str, int] = {
    "Financial Analyst": 100000,
    "Software Engineer": 120000,
    "Data Scientist": 150000,
    "Product Manager": 130000,
    "Doctor": 200000,
}
FLIGHTS: list[tuple[str, str, datetime.datetime]] = [
    ("New York", "San Francisco", datetime.datetime(2022, 1, 1, 12)),
    ("Los Angeles", "San Francisco", datetime.datetime(2022, 1, 2, 12)),
    ("London", "San Francisco", datetime.datetime(2022, 1, 3, 12)),
    ("New York", "London", datetime.datetime(2022, 1, 4, 12)),
    ("New York", "Los Angeles", datetime.datetime(2022, 1, 5, 12)),
]
HOTELS: dict[str, tuple[str, datetime.datetime, datetime.datetime]] = {
    f"hotel_{i}": ("San Francisco", datetime.datetime(2022, 1, i), datetime.datetime(2022, 1, i + 1))
    for i in range(1, 6)
}
LIKES: dict[int, int] = {post: post * 10 for post in range(1, 16)}
POSTS: dict[int, list[int]] = {user: [3 * user - 2, 3 * user - 1, 3 * user] for user in range(1, 6)}
MOVIES_BY_GENRE: dict[str, list[str]] = {
    "Action": ["The Dark Knight", "The Matrix", "The Lord of the Rings"],
    "Comedy": ["The Hangover", "Knives Out", "Deadpool"],
    "Drama": ["The Shawshank Redemption", "Forrest Gump", "Joker"],
    "Romance": ["Titanic", "La La Land", "The Notebook"],
    "Thriller": ["Inception", "Parasite", "Get Out"],
}
ORGANIZATIONS: dict[str, list[str]] = {
    "Alibaba": ["John", "Mary", "Peter"],
    "Tencent": ["Tom", "Jerry"],
    "Baidu": ["Jack", "Rose"],
    "ByteDance": ["Bob", "Alice"],
    "JD": ["Mike", "Jane"],
}
_TEAM_MEETINGS = [
    {
        "meeting_id": 1,
        "meeting_name": "Meeting with the client",
        "meeting_time": "2021-01-01 10:00:00",
        "meeting_location": "Room 1",
        "meeting_attendees": ["John", "Mary", "Peter"],
    },
    {
        "meeting_id": 2,
        "meeting_name": "Meeting about the new project",
        "meeting_time": "2021-01-02 10:00:00",
        "meeting_location": "Room 2",
        "meeting_attendees": ["John", "Mary", "Peter"],
    },
]
_PAIR_MEETINGS = [
    {
        "meeting_id": 1,
        "meeting_name": "Meeting",
        "meeting_time": "2021-01-01 10:00:00",
        "meeting_location": "Room 1",
        "meeting_attendees": ["Tom", "Jerry"],
    },
]
MEETINGS: dict[str, list[dict[str, Any]]] = {
    "John": _TEAM_MEETINGS,
    "Mary": _TEAM_MEETINGS,
    "Peter": _TEAM_MEETINGS,
    "Tom": _PAIR_MEETINGS,
    "Jerry": _PAIR_MEETINGS,
}
TRAVEL: dict[str, str] = {
    "John": "Traveling",
    "Mary": "Working from home",
    "Peter": "Working from office",
    "Tom": "Traveling",
    "Jerry": "Working from home",
    "Jack": "Working from office",
    "Rose": "Working from office",
    "Bob": "Traveling",
    "Alice": "Working from home",
    "Mike": "Working from office",
    "Jane": "Working from office",
}
_WATCHED_A = ["The Matrix", "The Lord of the Rings", "The Dark Knight"]
_WATCHED_B = ["The Lord of the Rings", "The Dark Knight", "The Matrix"]
WATCHED: dict[str, list[str]] = {
    "John": _WATCHED_A,
    "Mary": _WATCHED_B,
    "Peter": _WATCHED_A,
    "Tom": _WATCHED_B,
    "Jerry": _WATCHED_A,
}
PREFERENCES: dict[str, list[str]] = {
    "John": ["Action", "Comedy", "Drama"],
    "Mary": ["Comedy", "Drama", "Romance"],
    "Peter": ["Action", "Drama", "Thriller"],
    "Tom": ["Action", "Comedy", "Drama"],
    "Jerry": ["Comedy", "Drama", "Romance"],
}
#: TaxCalculator's brackets: the rate of the highest threshold the salary reaches.
TAX_BRACKETS: list[tuple[float, float]] = [
    (float("inf"), 0.4),
    (5000, 0.3),
    (3000, 0.2),
    (1000, 0.1),
    (0, 0.0),
]


def _lookup(table: dict[Any, Any], key: Any) -> Any:
    try:
        return table[key]
    except KeyError as exc:
        raise ApiException(str(exc)) from None
    except TypeError as exc:  # unhashable key
        raise ApiException(str(exc)) from None


@implements("AccountInfo", level=3)
def account_info(ctx: CallContext, username: str, password: str) -> dict[str, str]:
    info = ACCOUNTS.get((username, password))
    if info is None:
        raise ApiException("User not found.")
    return dict(info)


@implements("PersonalInfoUpdate", level=3)
def personal_info_update(ctx: CallContext, username: str, password: str, address: Any) -> dict:
    if (username, password) not in ACCOUNTS:
        raise ApiException("User not found.")
    return {"status": "success"}


@implements("AddMeeting", level=3)
def add_meeting(
    ctx: CallContext,
    meeting_topic: str,
    start_time: str,
    end_time: str,
    location: str,
    attendees: list,
) -> str:
    datetime.datetime.strptime(start_time, "%Y-%m-%d %H:%M:%S")
    datetime.datetime.strptime(end_time, "%Y-%m-%d %H:%M:%S")
    if meeting_topic.strip() == "":
        raise ApiException("Meeting Topic should not be null")
    return "success"


@implements("QueryMeeting", level=3)
def query_meeting(ctx: CallContext, user_name: str) -> dict[str, Any]:
    return {"meetings": _lookup(MEETINGS, user_name)}


@implements("Calculator", level=3)
def calculator(ctx: CallContext, formula: str) -> Any:
    try:
        return calculate(formula)
    except FormulaError as exc:
        raise ApiException(str(exc)) from None


@implements("ClothingRecommendation", level=3)
def clothing_recommendation(
    ctx: CallContext, temperature: float, humidity: float, weather_conditions: str
) -> dict[str, list[str]]:
    options: list[str] = []
    if temperature < 10:
        options += ["Warm coat", "Hat", "Gloves"]
    if 10 <= temperature < 20:
        options += ["Light jacket", "Long-sleeved shirt"]
    if 20 <= temperature < 30:
        options += ["T-shirt", "Shorts"]
    if temperature >= 30:
        options += ["Sun hat", "Sunglasses", "Loose-fitting clothes"]
    if humidity > 70:
        options += ["Umbrella", "Waterproof shoes"]
    if "rain" in weather_conditions.lower():
        options.append("Raincoat")
    return {"clothing_options": options}


@implements("EmailReminder", level=3)
def email_reminder(ctx: CallContext, content: str, time: str, location: str, recipient: str) -> str:
    datetime.datetime.strptime(time, "%Y-%m-%d %H:%M:%S")
    if content.strip() == "":
        raise ApiException("Content should not be empty")
    return "success"


@implements("FlightSearch", level=3)
def flight_search(ctx: CallContext, source: str, destination: str, travel_dates: str) -> dict:
    day = datetime.datetime.strptime(travel_dates, "%Y-%m-%d").date()
    flights = [
        {
            "source": src,
            "destination": dst,
            "departure_date": dep.strftime("%Y-%m-%d %H:%M:%S"),
            "arrival_date": (dep + datetime.timedelta(hours=3)).strftime("%Y-%m-%d %H:%M:%S"),
        }
        for src, dst, dep in FLIGHTS
        if src == source and dst == destination and dep.date() == day
    ]
    return {"flights": flights}


@implements("Geocoding", level=3)
def geocoding(ctx: CallContext, address: str) -> dict[str, float]:
    latitude, longitude = _lookup(COORDINATES, address)
    return {"latitude": latitude, "longitude": longitude}


@implements("GetOccupationSalary", level=3)
def get_occupation_salary(ctx: CallContext, occupation: str) -> dict[str, Any]:
    if occupation not in SALARIES:
        raise ApiException("The occupation is not in the database.")
    return {"salary": SALARIES[occupation]}


@implements("GetWeatherForCoordinates", level=3)
def get_weather(ctx: CallContext, latitude: float, longitude: float) -> dict[str, Any]:
    weather = WEATHER.get((latitude, longitude))
    if weather is None:
        # The original reads fields of a missing record: Python's TypeError text.
        raise ApiException("'NoneType' object is not subscriptable")
    return dict(weather)


@implements("HotelAvailability", level=3)
def hotel_availability(ctx: CallContext, destination: str, check_in_date: str, check_out_date: str) -> dict[str, list]:
    check_in = datetime.datetime.strptime(check_in_date, "%Y-%m-%d")
    check_out = datetime.datetime.strptime(check_out_date, "%Y-%m-%d")
    hotels = [
        {"destination": dest, "check_in_date": start.strftime("%Y-%m-%d"), "check_out_date": end.strftime("%Y-%m-%d")}
        for dest, start, end in HOTELS.values()
        if dest == destination and check_in >= start and check_out <= end
    ]
    return {"hotels": hotels}


@implements("LikeCount", level=3)
def like_count(ctx: CallContext, post_id: int) -> dict[str, int]:
    if post_id not in LIKES:
        raise ApiException(f"Post with ID {post_id} does not exist.")
    return {"like_count": LIKES[post_id]}


@implements("MovieRecommendations", level=3)
def movie_recommendations(ctx: CallContext, preferences: list) -> dict[str, list]:
    movies: list[str] = []
    for preference in preferences:
        movies.extend(_lookup(MOVIES_BY_GENRE, preference))
    return {"recommended_movies": movies}


@implements("NearbyRestaurants", level=3)
def nearby_restaurants(ctx: CallContext, latitude: float, longitude: float, distance: int) -> dict:
    restaurants = [
        {"coordinates": (40.7128, 74.0060), "name": "Restaurant A"},
        {"coordinates": (37.7749, 122.4194), "name": "Restaurant B"},
        {"coordinates": (40.7128, 74.0060), "name": "Restaurant C"},
        {"coordinates": (37.7749, 122.4194), "name": "Restaurant D"},
    ]
    return {"restaurants": restaurants}


@implements("OrganizationMembers", level=3)
def organization_members(ctx: CallContext, organization: str) -> dict[str, list]:
    return {"members": _lookup(ORGANIZATIONS, organization)}


@implements("TaxCalculator", level=3)
def tax_calculator(ctx: CallContext, salary: float) -> dict[str, float]:
    rate = next(rate for threshold, rate in TAX_BRACKETS if salary >= threshold)
    return {"salary_after_tax": salary - salary * rate}


@implements("TravelStatus", level=3)
def travel_status(ctx: CallContext, member_name: str) -> str:
    return _lookup(TRAVEL, member_name)


@implements("UserPosts", level=3)
def user_posts(ctx: CallContext, user_id: int) -> dict[str, list]:
    return {"post_ids": _lookup(POSTS, user_id)}


@implements("UserWatchedMovies", level=3)
def user_watched_movies(ctx: CallContext, user_name: str) -> list[str]:
    if user_name not in WATCHED:
        raise ApiException("User not found.")
    return WATCHED[user_name]


@implements("UserMoviePreferences", level=3)
def user_movie_preferences(ctx: CallContext, user_name: str) -> dict[str, list]:
    return {"preferences": _lookup(PREFERENCES, user_name)}


def _split_by_uppercase(text: str) -> str:
    return "".join(" " + c if c.isupper() else c for c in text).strip()


@implements("ToolSearcher", level=3)
def tool_searcher(ctx: CallContext, keywords: str) -> Any:
    # The level-3 evaluator splits CamelCase keywords before searching.
    return ctx.resources.tool_index(3).search(_split_by_uppercase(keywords))
