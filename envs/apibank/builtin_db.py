"""Generated initial databases, used when no API-Bank data folder is configured.

They have the shapes of API-Bank's `init_database/*.json` tables (same keys, value types and
formats) but are our own synthetic content, built deterministically from the word lists below,
so the env serves episodes on a machine that has never seen the benchmark's files.
"""

from __future__ import annotations

import random
import string
from functools import lru_cache
from typing import Any

from coevo.envs.apibank.search_engine import word_tokenize

SEED = 20230331

FIRST_NAMES = [
    "Alice",
    "Brian",
    "Chloe",
    "Daniel",
    "Emma",
    "Felix",
    "Grace",
    "Henry",
    "Iris",
    "Jonas",
    "Kara",
    "Liam",
    "Maya",
    "Noah",
    "Olga",
    "Pavel",
]
LAST_NAMES = [
    "Adams",
    "Baker",
    "Carter",
    "Diaz",
    "Evans",
    "Foster",
    "Garcia",
    "Hughes",
    "Ito",
    "Jensen",
    "Khan",
    "Lopez",
    "Moreau",
    "Novak",
    "Okafor",
    "Park",
]
CITIES = [
    "Boston",
    "Denver",
    "Seattle",
    "Austin",
    "Miami",
    "Portland",
    "Atlanta",
    "Chicago",
    "Phoenix",
    "Detroit",
    "Nashville",
    "Orlando",
]
AGENDA_ITEMS = [
    ("Dentist appointment", "Smile Dental Clinic"),
    ("Team lunch", "Green Bowl Cafe"),
    ("Piano lesson", "Harmony Music School"),
    ("Car service", "QuickFix Garage"),
    ("Book club", "City Library"),
    ("Yoga class", "Lotus Studio"),
    ("Parent-teacher meeting", "Oak Elementary School"),
    ("Grocery shopping", "FreshMart"),
    ("Haircut", "Style Corner"),
    ("Project review", "Office Room 3B"),
    ("Birthday party", "Riverside Park"),
    ("Flight check-in", "City Airport"),
]
REMINDERS = [
    "Water the plants",
    "Pay the electricity bill",
    "Call the plumber",
    "Submit the expense report",
    "Renew the passport",
    "Buy a birthday gift",
    "Take the medicine",
    "Back up the laptop",
    "Return library books",
    "Book a table for dinner",
    "Send the invoice",
    "Feed the cat",
]
MEETINGS = [
    ("Budget Planning", "Finance Room"),
    ("Design Review", "Studio 2"),
    ("Quarterly Kickoff", "Main Hall"),
    ("Client Onboarding", "Meeting Room C"),
    ("Security Training", "Training Center"),
    ("Roadmap Sync", "Conference Room 5"),
    ("Hiring Committee", "HR Office"),
    ("Product Demo", "Showroom"),
    ("Vendor Negotiation", "Boardroom"),
    ("Sprint Retrospective", "Team Space"),
]
DOCTORS = ["Dr. Allen", "Dr. Brooks", "Dr. Chen", "Dr. Dubois", "Dr. Ekwueme", "Dr. Fischer", "Dr. Gupta", "Dr. Hansen"]
HOTELS = [
    "Harbor View Hotel",
    "Grand Plaza",
    "Maple Inn",
    "Seaside Resort",
    "Summit Lodge",
    "Royal Garden Hotel",
    "Lakeside Suites",
    "Central Station Hotel",
]
STOCKS = {
    "NOVA": 112.0,
    "QBIT": 48.5,
    "ORCA": 230.0,
    "LUMN": 17.25,
    "VRDE": 75.4,
    "KITE": 302.1,
    "PIXL": 58.9,
    "HELX": 141.3,
}
DEVICES = [
    "lamp",
    "heater",
    "fan",
    "kettle",
    "dishwasher",
    "speaker",
    "projector",
    "water heater",
    "garage door",
    "sprinkler",
]
SCENES = {
    "reading time": [("lamp", "Smart lamp in the study"), ("speaker", "Smart speaker in the study")],
    "dinner party": [
        ("lamp", "Smart lamp in the dining room"),
        ("speaker", "Smart speaker in the dining room"),
        ("dishwasher", "Smart dishwasher in the kitchen"),
    ],
    "home cinema": [
        ("projector", "Smart projector in the living room"),
        ("speaker", "Smart speaker in the living room"),
        ("lamp", "Smart lamp in the living room"),
    ],
    "wake up": [("kettle", "Smart kettle in the kitchen"), ("heater", "Smart heater in the bedroom")],
    "leaving home": [("garage door", "Smart garage door"), ("heater", "Smart heater in the hall")],
    "garden care": [("sprinkler", "Smart sprinkler in the garden")],
    "cool down": [("fan", "Smart fan in the bedroom"), ("lamp", "Smart lamp in the bedroom")],
    "hot bath": [("water heater", "Smart water heater in the bathroom"), ("speaker", "Smart speaker in the bathroom")],
}
SYMPTOMS = {
    "sore throat": [
        (
            "Pharyngitis",
            "Inflammation of the throat, usually from a viral infection.",
            "Rest, warm fluids and throat lozenges; see a doctor if it lasts over a week.",
        )
    ],
    "dizziness": [
        (
            "Dehydration",
            "A lack of body water that can cause light-headedness.",
            "Sit down, drink water slowly and rest in a cool place.",
        ),
        (
            "Low blood pressure",
            "Blood pressure that drops too low when standing.",
            "Lie down with legs raised and stand up slowly afterwards.",
        ),
    ],
    "cough": [
        ("Common cold", "A mild viral infection of the nose and throat.", "Rest, fluids and honey in warm water."),
        (
            "Bronchitis",
            "Inflammation of the airways in the lungs.",
            "Rest, humidified air, and medical advice if breathing is hard.",
        ),
    ],
    "back pain": [
        (
            "Muscle strain",
            "Overstretched or torn back muscles.",
            "Gentle movement, heat packs and over-the-counter pain relief.",
        )
    ],
    "nosebleed": [
        (
            "Dry nasal lining",
            "Dry air that cracks the small vessels in the nose.",
            "Lean forward and pinch the soft part of the nose for ten minutes.",
        )
    ],
    "burn": [
        (
            "First-degree burn",
            "A burn that affects only the outer layer of skin.",
            "Cool the burn under running water for twenty minutes; do not apply ice.",
        )
    ],
    "insomnia": [
        (
            "Sleep disorder",
            "Persistent difficulty falling or staying asleep.",
            "Keep a regular sleep schedule and avoid screens before bed.",
        )
    ],
    "stomach ache": [
        ("Indigestion", "Discomfort in the upper abdomen after eating.", "Eat smaller meals and avoid fatty food."),
        (
            "Food poisoning",
            "Illness caused by contaminated food.",
            "Drink oral rehydration fluids and seek care if symptoms are severe.",
        ),
    ],
}
TOPICS = {
    "solar energy": "Solar energy is radiant light and heat from the Sun that is harnessed with "
    "photovoltaic panels and solar thermal collectors.",
    "coral reef": "A coral reef is an underwater ecosystem built by colonies of tiny animals that "
    "secrete calcium carbonate skeletons.",
    "printing press": "The printing press is a machine that transfers ink from movable type to "
    "paper, enabling the mass production of books.",
    "volcano": "A volcano is an opening in a planet's crust through which molten rock, ash and "
    "gases escape from below the surface.",
    "honey bee": "The honey bee is a flying insect known for building wax nests and producing "
    "honey from flower nectar.",
    "glacier": "A glacier is a persistent body of dense ice that moves slowly under its own weight.",
    "blockchain": "A blockchain is a distributed ledger of records linked together with cryptographic hashes.",
    "photosynthesis": "Photosynthesis is the process by which plants convert light, water and "
    "carbon dioxide into sugar and oxygen.",
    "marathon": "A marathon is a long-distance foot race with a distance of 42.195 kilometres.",
    "origami": "Origami is the art of folding paper into decorative shapes and figures.",
}
HISTORY = {
    "01-15": [
        (
            "Opening of the City Museum",
            "1921-01-15",
            "The city's first public museum opened its doors with a collection of local art.",
        )
    ],
    "03-08": [
        (
            "First Transatlantic Radio Chat",
            "1927-03-08",
            "Engineers held a two-way radio conversation across the Atlantic.",
        ),
        (
            "Founding of the Botanical Society",
            "1885-03-08",
            "A group of gardeners founded a society to catalogue local plants.",
        ),
    ],
    "05-20": [
        (
            "Launch of the Harbor Bridge",
            "1932-05-20",
            "The harbour bridge opened to traffic after six years of construction.",
        )
    ],
    "07-04": [
        ("Great Kite Festival", "1958-07-04", "Thousands gathered for the first kite festival on the northern beach.")
    ],
    "08-19": [
        ("First Solar-Powered Car Race", "1987-08-19", "Teams raced cars powered only by sunlight across the desert.")
    ],
    "10-06": [
        ("Opening of the Public Library", "1910-10-06", "The central public library opened with fifty thousand books."),
        ("First Weather Satellite Image", "1960-10-06", "A satellite transmitted its first cloud image back to Earth."),
    ],
    "11-11": [
        ("Signing of the River Treaty", "1899-11-11", "Neighbouring towns agreed to share the river's water fairly.")
    ],
    "12-01": [
        (
            "First Snow Sculpture Contest",
            "1964-12-01",
            "Artists carved the first entries of the annual snow sculpture contest.",
        )
    ],
}
SPEECH = [
    "Please remind me to buy milk tomorrow.",
    "What time does the museum open?",
    "Turn off the lights in the kitchen.",
    "How far is the nearest train station?",
    "Book a table for two at seven tonight.",
    "Play some relaxing jazz music.",
    "What's the weather like this weekend?",
    "Add eggs to my shopping list.",
    "Call my sister when I get home.",
    "How do I get to the airport from here?",
]
CAPTIONS = [
    "a dog running across a green field",
    "a red bicycle leaning against a brick wall",
    "two children building a sandcastle on the beach",
    "a bowl of fresh fruit on a table",
    "a city skyline at sunset",
    "a cat sleeping on a windowsill",
    "a sailboat on a calm blue lake",
    "a snowy mountain peak under a clear sky",
    "a plate of pasta with tomato sauce",
    "people walking through a busy market",
]
ARTICLES = {
    "https://www.example.org/doc-1.txt": "urban gardening",
    "https://www.example.org/doc-2.txt": "electric cars",
    "https://www.example.org/doc-3.txt": "remote work",
    "https://www.example.org/doc-4.txt": "ocean plastic",
}


def _token(rng: random.Random, length: int = 18) -> str:
    return "".join(rng.choices(string.ascii_lowercase + string.digits, k=length))


def _people(rng: random.Random, count: int) -> list[tuple[str, str]]:
    pairs = [(f, l) for f in FIRST_NAMES for l in LAST_NAMES]
    rng.shuffle(pairs)
    return pairs[:count]


@lru_cache(maxsize=1)
def _when(day: int, hour: int, minute: int = 0) -> str:
    return f"2023-03-{day:02d} {hour:02d}:{minute:02d}:00"


# Builders of the tables drawn from the seeded RNG. builtin_tables calls them in a fixed order:
# each consumes the RNG where the one before it stopped, so the order is part of the data.
def _accounts(rng: random.Random, usernames: list[str]) -> dict[str, Any]:
    return {
        u: {"password": f"{u[:3]}{rng.randint(100, 999)}pw", "token": _token(rng), "email": f"{u}@example.com"}
        for u in usernames
    }


def _banks(rng: random.Random, usernames: list[str]) -> dict[str, Any]:
    return {
        u: {"balance": round(rng.uniform(100, 5000), 2), "age": rng.randint(21, 65), "city": rng.choice(CITIES)}
        for u in usernames
    }


def _alarms(rng: random.Random, usernames: list[str]) -> dict[str, Any]:
    return {
        str(i): {
            "time": _when(10 + i, rng.choice([5, 6, 7, 8, 9]), rng.choice([0, 15, 30, 45])),
            "username": usernames[(i * 5) % len(usernames)],
        }
        for i in range(1, 11)
    }


def _meetings(rng: random.Random, people: list[tuple[str, str]], usernames: list[str]) -> dict[str, Any]:
    meeting = {}
    for i, (topic, room) in enumerate(MEETINGS, start=1):
        attendees = [f"{f} {l}" for f, l in rng.sample(people, 2)]
        meeting[str(i)] = {
            "meeting_topic": topic,
            "start_time": _when(14 + i, 10 + i % 6),
            "end_time": _when(14 + i, 11 + i % 6),
            "location": room,
            "attendees": attendees,
            "username": usernames[(i * 3) % len(usernames)],
        }
    return meeting


def _appointments(rng: random.Random, people: list[tuple[str, str]]) -> dict[str, Any]:
    appointments = {}
    for i in range(10):
        f, l = people[i]
        appointments[str(rng.randint(10000000, 99999999))] = {
            "patient_name": f"{f} {l}",
            "date": f"2023-04-{3 + 2 * i:02d}",
            "doctor_name": rng.choice(DOCTORS),
        }
    return appointments


def _health(rng: random.Random) -> dict[str, list]:
    health: dict[str, list] = {}
    for i in range(10):
        user_id = f"{string.ascii_uppercase[i]}{rng.randint(10000, 99999)}"
        records = []
        for j in range(rng.randint(1, 3)):
            record: dict[str, Any] = {"time": _when(3 + 9 * j + i % 5, 8 + i % 10, 15 * (j % 4))}
            record["blood_pressure"] = [rng.randint(105, 145), rng.randint(65, 95)]
            record[rng.choice(["heart_rate", "weight", "blood_sugar"])] = rng.randint(60, 110)
            records.append(record)
        health[user_id] = records
    return health


def _stocks(rng: random.Random) -> dict[str, Any]:
    stock = {}
    for code, price in STOCKS.items():
        series = {}
        for day in range(1, 29):
            price = round(price * (1 + rng.uniform(-0.03, 0.03)), 1)
            series[f"2022-02-{day:02d}"] = price
        stock[code] = series
    return stock


# Builders of the tables that depend on the word lists alone.
def _agenda(usernames: list[str]) -> dict[str, Any]:
    return {
        str(i): {
            "content": content,
            "time": f"2023-03-{10 + i:02d}",
            "location": location,
            "username": usernames[i % len(usernames)],
        }
        for i, (content, location) in enumerate(AGENDA_ITEMS, start=1)
    }


def _reminders(usernames: list[str]) -> dict[str, Any]:
    return {
        str(i): {
            "content": c,
            "time": _when(12 + i % 15, 9 + i % 8, 30 * (i % 2)),
            "username": usernames[(i * 7) % len(usernames)],
        }
        for i, c in enumerate(REMINDERS, start=1)
    }


def _hotels() -> dict[str, Any]:
    hotel = {}
    for i, name in enumerate(HOTELS, start=1):
        start = 1 + 3 * i
        hotel[str(i)] = {
            "hotel_name": name,
            "check_in_time": f"2023-05-{start:02d}",
            "check_out_time": f"2023-05-{start + 2:02d}",
            "room_count": 1 + i % 2,
            "adult_count": 2 + i % 3,
            "child_count": i % 2,
        }
    return hotel


def _search_engine() -> dict[str, Any]:
    raw_documents = []
    for topic, summary in TOPICS.items():
        slug = topic.replace(" ", "-")
        raw_documents.append(
            {
                "title": f"An Introduction to {topic.title()}",
                "url": f"https://www.example.org/articles/{slug}",
                "abstract": summary,
            }
        )
        raw_documents.append(
            {
                "title": f"{topic.title()}: Frequently Asked Questions",
                "url": f"https://www.example.org/faq/{slug}",
                "abstract": f"Common questions about {topic}, answered briefly.",
            }
        )
    return {
        "raw_documents": raw_documents,
        "tokenized_documents": [word_tokenize(f"{d['title']} - {d['abstract']}".lower()) for d in raw_documents],
        "sample_queries": list(TOPICS),
    }


def _word_list_tables() -> dict[str, Any]:
    """The tables that are the word lists reshaped."""
    return {
        "History": {
            day: [{"Title": t, "Date": d, "Description": s} for t, d, s in events] for day, events in HISTORY.items()
        },
        "ImageCaptioning": [
            {"url": f"https://images.example.org/photos/{i:04d}.jpg", "caption": c}
            for i, c in enumerate(CAPTIONS, start=1)
        ],
        "QuestionAnswering": {
            url: [{"question": "What is the main topic of this article?", "answer": f"The article is about {topic}."}]
            for url, topic in ARTICLES.items()
        },
        "Scenes": {name: [{"name": n, "description": d} for n, d in devices] for name, devices in SCENES.items()},
        "SpeechRecognition": {f"https://audio.example.org/clip{i}.wav": text for i, text in enumerate(SPEECH, start=1)},
        "Symptom": {s: [{"name": n, "description": d, "aid": a} for n, d, a in items] for s, items in SYMPTOMS.items()},
        "TimeSwitch": {d: [{"time": _when(15 + i, 7 + i, 0), "on": i % 2 == 0}] for i, d in enumerate(DEVICES)},
        "Wiki": {
            t: {"url": f"https://en.wikipedia.org/wiki/{t.title().replace(' ', '_')}", "summary": s, "content": s}
            for t, s in TOPICS.items()
        },
    }


def builtin_tables() -> dict[str, Any]:
    """The generated initial databases (built once per process, then shared read-only)."""
    rng = random.Random(SEED)
    people = _people(rng, 12)
    usernames = [f"{f.lower()}{l[0].lower()}" for f, l in people]
    drawn = {  # in the order they consume the RNG
        "Account": _accounts(rng, usernames),
        "Bank": _banks(rng, usernames),
        "Alarm": _alarms(rng, usernames),
        "Meeting": _meetings(rng, people, usernames),
        "Appointments": _appointments(rng, people),
        "HealthData": _health(rng),
        "Stock": _stocks(rng),
    }
    tables = {
        **drawn,
        "Agenda": _agenda(usernames),
        "Reminder": _reminders(usernames),
        "Hotel": _hotels(),
        "SearchEngine": _search_engine(),
        **_word_list_tables(),
    }
    return {name: tables[name] for name in sorted(tables)}


DICTIONARY_WORDS = {
    "serene": ("adjective", "Calm, peaceful, and untroubled.", "The lake looked serene at dawn."),
    "meticulous": (
        "adjective",
        "Showing great attention to detail; very careful and precise.",
        "She kept meticulous records of every experiment.",
    ),
    "ephemeral": ("adjective", "Lasting for a very short time.", "Fashions are ephemeral, changing with every season."),
    "candid": ("adjective", "Truthful and straightforward; frank.", "He gave a candid account of what went wrong."),
    "resilient": (
        "adjective",
        "Able to recover quickly from difficult conditions.",
        "The resilient town rebuilt after the flood.",
    ),
    "ubiquitous": ("adjective", "Present, appearing, or found everywhere.", "Smartphones have become ubiquitous."),
    "diligent": (
        "adjective",
        "Having or showing care and effort in one's work.",
        "A diligent student reviews her notes every day.",
    ),
    "eloquent": (
        "adjective",
        "Fluent or persuasive in speaking or writing.",
        "She gave an eloquent speech at the ceremony.",
    ),
    "nostalgia": ("noun", "A sentimental longing for a period in the past.", "Old songs fill him with nostalgia."),
    "itinerary": ("noun", "A planned route or journey.", "Our itinerary includes three cities in five days."),
}


@lru_cache(maxsize=1)
def _dictionary() -> dict[str, Any]:
    return {
        word: [
            {
                "partOfSpeech": pos,
                "definitions": [{"definition": definition, "synonyms": [], "antonyms": [], "example": example}],
                "synonyms": [],
                "antonyms": [],
            }
        ]
        for word, (pos, definition, example) in DICTIONARY_WORDS.items()
    }


def builtin_dictionary() -> dict[str, Any]:
    """Dictionary entries in the dictionaryapi.dev `meanings` shape API-Bank returns."""
    return dict(_dictionary())


PHRASES = {
    "Good morning": {"fr": "Bonjour", "es": "Buenos días", "de": "Guten Morgen", "it": "Buongiorno"},
    "Thank you very much": {"fr": "Merci beaucoup", "es": "Muchas gracias", "de": "Vielen Dank", "it": "Grazie mille"},
    "Where is the train station?": {
        "fr": "Où est la gare ?",
        "es": "¿Dónde está la estación de tren?",
        "de": "Wo ist der Bahnhof?",
        "it": "Dov'è la stazione ferroviaria?",
    },
    "How much does this cost?": {
        "fr": "Combien ça coûte ?",
        "es": "¿Cuánto cuesta esto?",
        "de": "Wie viel kostet das?",
        "it": "Quanto costa questo?",
    },
    "I would like a cup of coffee": {
        "fr": "Je voudrais une tasse de café",
        "es": "Quisiera una taza de café",
        "de": "Ich hätte gern eine Tasse Kaffee",
        "it": "Vorrei una tazza di caffè",
    },
    "See you tomorrow": {"fr": "À demain", "es": "Hasta mañana", "de": "Bis morgen", "it": "A domani"},
}


def builtin_translations() -> dict[tuple[str, str], str]:
    """(text, target language code) -> translation, for the offline Translate API."""
    return {(text, lang): out for text, by_lang in PHRASES.items() for lang, out in by_lang.items()}
