"""WebShop's colour normalisation, applied to options before they are compared.

The list and the first-match rule are WebShop's (`engine/normalize.py`): the first entry of the
alphabetical list that occurs in the value wins, so "navy blue" normalises to "blue". For a
tuple (WebShop passes synthetic goals' `(name, value)` pairs unchanged) `in` tests element
equality, which is why only an option whose whole value is a colour word is normalised there.
"""

from __future__ import annotations

COLOR_SET: tuple[str, ...] = (
    "alabaster", "apricot", "aqua", "ash", "asphalt", "azure",
    "banana", "beige", "black", "blue", "blush", "bordeaux", "bronze",
    "brown", "burgundy", "camel", "camo", "caramel", "champagne",
    "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee",
    "cognac", "copper", "coral", "cranberry", "cream", "crystal", "dark",
    "denim", "eggplant", "elephant", "espresso", "fuchsia", "gold", "granite",
    "grape", "graphite", "grass", "gray", "green", "grey", "heather", "indigo",
    "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac",
    "lime", "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha",
    "multicolor", "mushroom", "mustard", "natural", "navy", "nude", "olive",
    "orange", "peach", "pewter", "pink", "plum", "purple", "rainbow", "red",
    "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver", "skull",
    "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal",
    "tiger", "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow",
)


def normalize_color(value: str | tuple[str, ...]) -> str | tuple[str, ...]:
    """The first colour of COLOR_SET contained in `value`, else `value` unchanged."""
    for color in COLOR_SET:
        if color in value:
            return color
    return value
