"""Where the places of a loaded file stand, and how high: the distance and elevation answers.

Both are answers about pairs of places (home to destination, a place against another), so each
file's pairs form a graph. Its places are set out along a spanning tree: the first place of a
component keeps its coordinates (a known city's are real) and each further one is put at its
answer's distance (moved by metres at most where its real coordinates already give the answer),
or given its answer's height above its parent. A pair that closes a cycle holds only if the
tree already makes it hold (two answers for the same trip cannot both): the loader then finds
the expert's answer differs and lists the task.

Distances must come out exactly as the file writes them (`get_distance` returns geopy's float),
so a place is found by bisection over its longitude until the geodesic equals the answer to the
last bit, at one of a few latitudes a hair apart.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from functools import partial

from geographiclib.geodesic import Geodesic
from geopy.distance import geodesic

from coevo.envs.weather.world import City, WeatherWorld

#: Latitudes (a metre's ten-thousandth apart) tried for a distance: at one, about one longitude
#: in twenty gives the exact float; a value geopy never returns (some of the file's hand-rounded
#: ones) fails them all.
_TRIES = 80
#: (from, to, answer): the answer is distance(from, to) or height(from) - height(to).
Pair = tuple[str, str, float]


def _tree(pairs: Iterable[Pair]) -> list[tuple[str, str, float, bool]]:
    """(parent, child, answer, child is the pair's first) in breadth-first order per component."""
    links: dict[str, list[tuple[str, float, bool]]] = defaultdict(list)
    order: list[str] = []
    for a, b, value in pairs:
        links[a].append((b, value, False))
        links[b].append((a, value, True))
        order += [n for n in (a, b) if n not in order]
    seen: set[str] = set()
    edges = []
    for root in order:
        if root in seen:
            continue
        seen.add(root)
        queue = deque([root])
        while queue:
            parent = queue.popleft()
            for child, value, child_first in links[parent]:
                if child not in seen:
                    seen.add(child)
                    edges.append((parent, child, value, child_first))
                    queue.append(child)
    return edges


def _bisect(f: Callable[[float], float], x0: float, target: float) -> float | None:
    """An x near x0 with f(x) == target exactly, or None."""
    step = 1e-7
    lo = hi = x0
    for _ in range(60):
        lo, hi = x0 - step, x0 + step
        if (f(lo) - target) * (f(hi) - target) <= 0:
            break
        step *= 2
    else:
        return None
    if f(lo) > f(hi):
        lo, hi = hi, lo
    for _ in range(200):
        mid = (lo + hi) / 2
        value = f(mid)
        if value == target:
            return mid
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if value < target else (lo, mid)
    return next((x for x in (lo, hi) if f(x) == target), None)


def _put(anchor: City, moving: City, km: float, moving_first: bool) -> tuple[float, float] | None:
    """Coordinates near `moving`'s for which the pair's geodesic is `km` exactly."""

    def distance(lat: float, lon: float) -> float:
        ends = ((lat, lon), (anchor.latitude, anchor.longitude))
        return float(geodesic(*(ends if moving_first else ends[::-1])).km)

    lat, lon = moving.latitude, moving.longitude
    if abs(distance(lat, lon) - km) > 1e-3:  # not the answer already: go there along the bearing
        azimuth = Geodesic.WGS84.Inverse(anchor.latitude, anchor.longitude, lat, lon)["azi1"]
        point = Geodesic.WGS84.Direct(anchor.latitude, anchor.longitude, azimuth, km * 1000)
        lat, lon = point["lat2"], point["lon2"]
    for nudge in range(_TRIES):
        tried = lat + nudge * 1e-9
        found = _bisect(partial(distance, tried), lon, km)
        if found is not None:
            return tried, found
    return None


def place_distances(world: WeatherWorld, pairs: Iterable[Pair]) -> None:
    """Move the places so that each tree pair's geodesic (from, to) is its answer."""
    for parent, child, km, child_first in _tree(pairs):
        anchor, moving = world.city(parent), world.city(child)
        assert anchor is not None and moving is not None  # the loader added every named place
        spot = _put(anchor, moving, km, child_first)
        if spot is not None:
            world.move(child, *spot)


def pin_heights(world: WeatherWorld, pairs: Iterable[Pair]) -> None:
    """Pin each tree pair's child at its answer's height relative to its parent."""
    for parent, child, metres, child_first in _tree(pairs):
        anchor, moving = world.city(parent), world.city(child)
        assert anchor is not None and moving is not None
        base = world.elevation(anchor.latitude, anchor.longitude)
        world.pin_elevation(moving.latitude, moving.longitude, base + metres if child_first else base - metres)
