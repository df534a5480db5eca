"""What the agent reads at the start of an episode, in each mode."""

from __future__ import annotations

PLAN_FORMAT = """\
A plan lists every day of the trip with these fields (use '-' for anything not needed):
  current_city   - the city of the day, or "from A to B" on a day you travel
  transportation - the leg of a travel day, copied from the tool answer, e.g.
                   "Flight Number: F0123456, from A to B, Departure Time: 08:05, Arrival Time: 10:40" or
                   "Self-driving, from A to B, duration: 2 hours 5 mins, distance: 190 km, cost: 9"
  breakfast, lunch, dinner - "Restaurant Name, City"
  attraction     - "Attraction Name, City;" for each attraction, every one ended by ';'
  accommodation  - "Accommodation Name, City" for each night; '-' on the last day
Submit it as a JSON list of day records with the keys days, current_city, transportation,
breakfast, attraction, lunch, dinner, accommodation, or in the text form
  Day 1:
  Current City: from A to B
  Transportation: ...
  Breakfast: ...
  Attraction: ...
  Lunch: ...
  Dinner: ...
  Accommodation: ...
Everything in the plan must come from the tool answers; trips start and end at the origin,
visit the requested number of cities, avoid repeating restaurants or attractions, respect
minimum-night rules, never mix self-driving with flights or taxis, and stay within the budget
(flights and meals are per person, taxis per 4 people, self-driving per 5, rooms per their
maximum occupancy)."""

TWO_STAGE = f"""\
Plan a trip for the query below. Gather information with one action per step, then submit the plan.
Actions:
  FlightSearch[Departure City, Destination City, YYYY-MM-DD] - flights of a route on a day
  GoogleDistanceMatrix[Origin, Destination, Mode] - duration, distance and cost of a drive;
      Mode is self-driving or taxi
  AccommodationSearch[City] - places to stay, with room type, house rules, minimum nights,
      maximum occupancy and price per night
  RestaurantSearch[City] - restaurants with their cuisines and average cost per person
  AttractionSearch[City] - attractions of a city
  CitySearch[State] - the cities of a state
  NotebookWrite[Short Description] - keep the latest search result in the notebook
  Planner[plan] - submit the final plan; this ends the episode and the plan is scored
{PLAN_FORMAT}

Query: {{query}}"""

SOLE_PLANNING = f"""\
Plan a trip for the query below using only the given information, and reply with the plan
(plain, or inside Planner[...]); the plan is scored and the episode ends.
{PLAN_FORMAT}

Given information: {{information}}
Query: {{query}}
Travel Plan:"""
