"""Word lists for the generated catalog: WebShop's five categories and product types in them.

Each product type carries its Amazon-style search query (WebShop's `query`), the category
breadcrumb (`product_category`, levels joined by " › "), head nouns for titles, the attribute
phrases instructions ask for, bullet-point features and its option groups. Option values are
chosen so that WebShop's colour normalisation never turns one into a colour it does not
contain as a whole word (tests/webshop checks every value).
"""

from __future__ import annotations

from dataclasses import dataclass

COLORS = (
    "black", "white", "navy blue", "gray", "red", "green", "beige", "brown", "pink", "purple",
    "burgundy", "khaki", "olive green", "light blue", "dark gray", "charcoal", "ivory", "teal",
    "coral", "mustard yellow", "white/black", "black/red", "blue/white", "rose gold", "silver",
    "gold", "wine red", "army green", "sky blue", "orange", "lavender", "mint green", "tan",
    "camel", "champagne", "copper", "turquoise", "multicolor", "denim blue", "espresso",
)
APPAREL_SIZES = ("x-small", "small", "medium", "large", "x-large", "xx-large", "3x-large", "4x-large")
SHOE_SIZES = ("6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "10.5", "11", "12", "13")
SHOE_WIDTHS = ("medium", "wide", "x-wide")
PACKS = ("pack of 1", "pack of 2", "pack of 3", "pack of 4", "pack of 6", "pack of 12")
OUNCES = ("1 fl oz", "2 fl oz", "3.4 fl oz", "4 ounce", "8 ounce", "12 ounce", "16 ounce", "32 ounce")
COUNTS = ("10 count", "20 count", "30 count", "60 count", "90 count", "120 count")
BED_SIZES = ("twin", "full", "queen", "king", "california king")
DIMENSIONS = ("24 x 36 inch", "30 x 40 inch", "36 x 48 inch", "40 x 60 inch", "48 x 72 inch")
LENGTHS = ("3 ft", "6 ft", "10 ft", "15 ft", "25 ft")
CAPACITIES = ("32gb", "64gb", "128gb", "256gb", "512gb", "1tb")
FLAVORS = (
    "original", "vanilla", "chocolate", "strawberry", "cinnamon", "honey", "sea salt", "barbecue",
    "peanut butter", "mixed berry", "spicy", "cheddar", "maple", "caramel", "coconut", "mango",
)
SCENTS = ("lavender", "unscented", "eucalyptus", "citrus", "vanilla", "coconut", "fresh linen", "cedarwood")
STYLES = ("modern", "classic", "vintage", "farmhouse", "industrial", "minimalist")


@dataclass(frozen=True)
class ProductType:
    query: str
    product_category: str
    heads: tuple[str, ...]
    attributes: tuple[str, ...]
    features: tuple[str, ...]
    options: tuple[tuple[str, tuple[str, ...]], ...]
    price: tuple[float, float]
    audience: str = ""


def _t(query, category, heads, attributes, features, options, price, audience=""):  # type: ignore[no-untyped-def]
    return ProductType(query, category, tuple(heads), tuple(attributes), tuple(features), tuple(options), price, audience)


_CSJ = "Clothing, Shoes & Jewelry"
_BPC = "Beauty & Personal Care"
_GRO = "Grocery & Gourmet Food"
_HK = "Home & Kitchen"
_EL = "Electronics"

CATEGORIES: dict[str, tuple[ProductType, ...]] = {
    "fashion": (
        _t("men's running shoes", f"{_CSJ} › Men › Shoes › Athletic › Running › Road Running",
           ["Running Shoes", "Road Running Shoe", "Athletic Sneakers", "Trainers"],
           ["rubber sole", "lace up", "non slip", "arch support", "breathable mesh", "memory foam", "lightweight design"],
           ["cushioned midsole absorbs impact on long runs", "knit upper keeps feet cool", "durable outsole grips wet roads"],
           [("color", COLORS), ("size", SHOE_SIZES)], (29.0, 140.0), "Men's"),
        _t("women's sandals", f"{_CSJ} › Women › Shoes › Sandals › Flat Sandals",
           ["Flat Sandals", "Slide Sandals", "Strappy Sandals", "Thong Sandals"],
           ["open toe", "ankle strap", "rubber sole", "arch support", "faux leather", "adjustable buckle"],
           ["soft footbed for all day comfort", "easy to slip on and off", "pairs with dresses and jeans"],
           [("color", COLORS), ("size", SHOE_SIZES)], (15.0, 80.0), "Women's"),
        _t("men's t-shirts & tanks", f"{_CSJ} › Men › Clothing › Shirts › T-Shirts",
           ["T-Shirt", "Crew Neck Tee", "Tank Top", "Graphic Tee"],
           ["short sleeve", "machine wash", "cotton spandex", "slim fit", "moisture wicking", "crew neck"],
           ["tagless collar prevents itching", "holds its shape wash after wash", "soft fabric for layering"],
           [("color", COLORS), ("size", APPAREL_SIZES)], (8.0, 45.0), "Men's"),
        _t("women's jumpsuits, rompers & overalls", f"{_CSJ} › Women › Clothing › Jumpsuits, Rompers & Overalls",
           ["Jumpsuit", "Romper", "Overalls", "Wide Leg Jumpsuit"],
           ["elastic waist", "machine wash", "polyester spandex", "high waist", "wide leg", "button closure", "short sleeve"],
           ["side pockets for your phone", "relaxed fit for daily wear", "belted waist flatters the figure"],
           [("color", COLORS), ("size", APPAREL_SIZES)], (18.0, 60.0), "Women's"),
        _t("women's activewear", f"{_CSJ} › Women › Clothing › Active › Active Leggings",
           ["Yoga Leggings", "Workout Leggings", "Running Tights", "Capri Leggings"],
           ["high waist", "tummy control", "quick drying", "moisture wicking", "four way stretch", "hidden pocket"],
           ["squat proof fabric stays opaque", "wide waistband does not roll down", "flatlock seams reduce chafing"],
           [("color", COLORS), ("size", APPAREL_SIZES)], (12.0, 55.0), "Women's"),
        _t("men's hoodies & sweatshirts", f"{_CSJ} › Men › Clothing › Fashion Hoodies & Sweatshirts",
           ["Pullover Hoodie", "Zip Up Hoodie", "Fleece Sweatshirt", "Hooded Sweatshirt"],
           ["long sleeve", "machine wash", "drawstring closure", "fleece lined", "kangaroo pocket", "ribbed cuffs"],
           ["brushed fleece interior keeps you warm", "adjustable hood blocks the wind", "relaxed fit layers easily"],
           [("color", COLORS), ("size", APPAREL_SIZES)], (19.0, 70.0), "Men's"),
        _t("women's dresses", f"{_CSJ} › Women › Clothing › Dresses › Casual",
           ["Maxi Dress", "Midi Dress", "Wrap Dress", "Swing Dress"],
           ["v neck", "short sleeve", "machine wash", "flowy hem", "side pockets", "elastic waist"],
           ["lightweight fabric drapes nicely", "perfect for beach or party", "easy care fabric resists wrinkles"],
           [("color", COLORS), ("size", APPAREL_SIZES)], (20.0, 75.0), "Women's"),
        _t("men's jeans", f"{_CSJ} › Men › Clothing › Jeans",
           ["Straight Leg Jeans", "Slim Fit Jeans", "Relaxed Fit Jeans", "Denim Pants"],
           ["button closure", "machine wash", "stretch denim", "five pocket", "zipper fly", "classic fit"],
           ["sits at the waist", "durable denim for every day", "comfort stretch moves with you"],
           [("color", ("dark blue", "light blue", "black", "gray", "medium indigo", "dark indigo")),
            ("size", ("30w x 30l", "32w x 30l", "32w x 32l", "34w x 32l", "36w x 32l", "38w x 34l"))], (25.0, 90.0), "Men's"),
        _t("men's wrist watches", f"{_CSJ} › Men › Watches › Wrist Watches",
           ["Analog Watch", "Quartz Watch", "Chronograph Watch", "Sport Watch"],
           ["water resistant", "stainless steel", "quartz movement", "leather strap", "luminous hands", "date display"],
           ["scratch resistant mineral crystal", "adjustable band fits most wrists", "gift box included"],
           [("color", ("black", "silver", "gold", "rose gold", "blue", "brown", "white"))], (19.0, 250.0), "Men's"),
        _t("women's handbags", f"{_CSJ} › Women › Handbags & Wallets › Shoulder Bags",
           ["Shoulder Bag", "Tote Bag", "Crossbody Bag", "Hobo Bag"],
           ["vegan leather", "zipper closure", "adjustable strap", "multiple pockets", "large capacity", "magnetic snap"],
           ["roomy interior holds a tablet", "detachable strap converts to crossbody", "sturdy hardware"],
           [("color", COLORS)], (20.0, 120.0), "Women's"),
        _t("baby boys' clothing sets", f"{_CSJ} › Baby › Baby Boys › Clothing › Clothing Sets",
           ["Outfit Set", "Romper Set", "Pajama Set", "Bodysuit Set"],
           ["cotton blend", "snap closure", "machine wash", "long sleeve", "soft fabric", "tagless"],
           ["gentle on sensitive skin", "easy diaper changes", "cute print for photos"],
           [("color", COLORS), ("size", ("0-3 months", "3-6 months", "6-12 months", "12-18 months", "18-24 months"))],
           (9.0, 35.0), "Baby Boys'"),
    ),
    "beauty": (
        _t("hair extensions", f"{_BPC} › Hair Care › Hair Extensions, Wigs & Accessories › Hair Extensions",
           ["Clip in Hair Extensions", "Tape in Extensions", "Ponytail Extension", "Halo Hair Extension"],
           ["natural looking", "long lasting", "heat resistant", "easy to apply", "human hair", "double weft"],
           ["blends with your own hair", "can be curled and straightened", "secure clips hold all day"],
           [("color", ("jet black", "natural black", "dark brown", "medium brown", "light brown", "blonde", "auburn", "platinum blonde")),
            ("size", ("14 inch", "16 inch", "18 inch", "20 inch", "22 inch"))], (15.0, 120.0)),
        _t("shampoo & conditioner", f"{_BPC} › Hair Care › Shampoo & Conditioner › Sets",
           ["Shampoo and Conditioner Set", "Moisturizing Shampoo", "Clarifying Shampoo", "Hair Conditioner"],
           ["sulfate free", "paraben free", "natural ingredients", "tea tree", "argan oil", "color safe", "cruelty free"],
           ["gently cleanses without stripping", "leaves hair soft and shiny", "safe for daily use"],
           [("scent", SCENTS), ("size", OUNCES)], (8.0, 45.0)),
        _t("face moisturizers", f"{_BPC} › Skin Care › Face › Creams & Moisturizers › Face Moisturizers",
           ["Face Moisturizer", "Night Cream", "Day Cream", "Hydrating Gel Cream"],
           ["hyaluronic acid", "fragrance free", "non comedogenic", "dermatologist tested", "anti aging", "oil free"],
           ["absorbs quickly without residue", "suitable for sensitive skin", "wear under makeup"],
           [("size", OUNCES)], (9.0, 65.0)),
        _t("nail polish", f"{_BPC} › Foot, Hand & Nail Care › Nail Art & Polish › Nail Polish",
           ["Nail Polish", "Gel Nail Polish", "Nail Lacquer Set", "Quick Dry Polish"],
           ["long lasting", "quick drying", "high gloss", "chip resistant", "non toxic", "easy to apply"],
           ["salon finish at home", "rich color in two coats", "brush fits every nail"],
           [("color", COLORS)], (5.0, 30.0)),
        _t("makeup brushes", f"{_BPC} › Tools & Accessories › Makeup Brushes & Tools › Brush Sets",
           ["Makeup Brush Set", "Foundation Brush", "Eyeshadow Brushes", "Kabuki Brush"],
           ["synthetic bristles", "cruelty free", "easy to clean", "travel size", "soft bristles", "wooden handle"],
           ["blends powder cream and liquid", "dense bristles shed no hairs", "pouch keeps brushes tidy"],
           [("color", ("black", "white", "pink", "rose gold", "purple", "champagne"))], (7.0, 40.0)),
        _t("men's shaving razors", f"{_BPC} › Shave & Hair Removal › Men's › Razors & Blades",
           ["Safety Razor", "Cartridge Razor", "Razor Blades", "Shaving Kit"],
           ["stainless steel", "close shave", "sensitive skin", "travel case", "non slip handle", "refill blades"],
           ["reduces razor burn", "balanced weight for control", "blades rinse clean"],
           [("size", PACKS)], (6.0, 50.0)),
        _t("essential oils", f"{_BPC} › Personal Care › Aromatherapy › Essential Oils",
           ["Essential Oil", "Essential Oil Set", "Diffuser Oil", "Aromatherapy Oil"],
           ["100% pure", "therapeutic grade", "natural ingredients", "glass bottle", "dropper cap", "vegan"],
           ["use in diffusers and baths", "steam distilled from plants", "calming scent for sleep"],
           [("scent", SCENTS), ("size", OUNCES)], (6.0, 40.0)),
        _t("toothbrushes", f"{_BPC} › Oral Care › Toothbrushes & Accessories › Powered Toothbrushes",
           ["Electric Toothbrush", "Sonic Toothbrush", "Toothbrush Heads", "Bamboo Toothbrush"],
           ["soft bristles", "rechargeable battery", "built in timer", "travel case", "long battery life", "bpa free"],
           ["removes more plaque than manual brushing", "two minute smart timer", "gentle on gums"],
           [("color", ("black", "white", "pink", "blue", "green", "purple"))], (9.0, 90.0)),
    ),
    "electronics": (
        _t("usb microphones", f"{_EL} › Musical Instruments › Microphones & Accessories › Microphones",
           ["USB Microphone", "Condenser Microphone", "Podcast Microphone", "Gaming Microphone"],
           ["noise cancelling", "plug and play", "cardioid pattern", "mute button", "metal stand", "zero latency monitoring"],
           ["works with pc mac and ps4", "studio quality recording", "shock mount reduces vibration"],
           [("color", ("black", "white", "silver", "blue", "red"))], (20.0, 150.0)),
        _t("bluetooth headphones", f"{_EL} › Headphones, Earbuds & Accessories › Headphones › Over-Ear Headphones",
           ["Bluetooth Headphones", "Wireless Earbuds", "Over Ear Headphones", "Sport Earphones"],
           ["noise cancelling", "long battery life", "built in microphone", "fast charging", "water resistant", "deep bass"],
           ["pairs in seconds with your phone", "memory foam ear cushions", "folds flat for travel"],
           [("color", ("black", "white", "silver", "navy blue", "rose gold", "gray", "green"))], (18.0, 220.0)),
        _t("car subwoofers", f"{_EL} › Car & Vehicle Electronics › Car Electronics › Car Audio › Subwoofers",
           ["Car Subwoofer", "Powered Subwoofer", "Subwoofer Enclosure", "Dual Subwoofer"],
           ["high power", "dual voice coil", "low distortion", "easy installation", "built in amplifier", "compact design"],
           ["punchy bass for any vehicle", "fits under the seat", "includes wiring kit"],
           [("size", ("8 inch", "10 inch", "12 inch", "15 inch"))], (49.0, 400.0)),
        _t("hdmi cables", f"{_EL} › Computers & Accessories › Cables & Accessories › Cables & Interconnects › HDMI Cables",
           ["HDMI Cable", "High Speed HDMI Cable", "Braided HDMI Cord", "HDMI Adapter Cable"],
           ["high speed", "4k ultra hd", "gold plated", "braided cable", "ethernet channel", "backward compatible"],
           ["supports 3d and arc", "nylon jacket resists fraying", "works with tv laptop and console"],
           [("size", LENGTHS), ("color", ("black", "gray", "white"))], (5.0, 30.0)),
        _t("usb flash drives", f"{_EL} › Computers & Accessories › Data Storage › USB Flash Drives",
           ["USB Flash Drive", "Thumb Drive", "Memory Stick", "Jump Drive"],
           ["high speed", "usb 3.0", "metal casing", "key ring", "plug and play", "password protection"],
           ["transfers files in seconds", "fits on your keychain", "compatible with windows and mac"],
           [("capacity", CAPACITIES)], (5.0, 70.0)),
        _t("phone cases", f"{_EL} › Cell Phones & Accessories › Cases, Holsters & Sleeves › Basic Cases",
           ["Phone Case", "Protective Case", "Wallet Case", "Clear Case"],
           ["shockproof", "wireless charging compatible", "raised edges", "slim fit", "card holder", "anti scratch"],
           ["drop tested corners", "precise cutouts for ports", "grippy texture"],
           [("color", COLORS)], (6.0, 35.0)),
        _t("security cameras", f"{_EL} › Camera & Photo › Video Surveillance › Surveillance Cameras",
           ["Security Camera", "WiFi Camera", "Doorbell Camera", "Outdoor Camera"],
           ["night vision", "motion detection", "two way audio", "weatherproof", "cloud storage", "1080p hd"],
           ["instant alerts to your phone", "easy app setup", "sd card slot for local recording"],
           [("color", ("black", "white", "gray")), ("size", ("1 camera", "2 cameras", "4 cameras"))], (25.0, 200.0)),
        _t("wireless mouse", f"{_EL} › Computers & Accessories › Computer Accessories & Peripherals › Keyboards, Mice & Accessories › Mice",
           ["Wireless Mouse", "Ergonomic Mouse", "Silent Mouse", "Gaming Mouse"],
           ["silent click", "ergonomic design", "long battery life", "usb receiver", "adjustable dpi", "plug and play"],
           ["fits right and left hands", "smooth tracking on most surfaces", "auto sleep saves power"],
           [("color", ("black", "white", "gray", "pink", "blue", "red"))], (8.0, 60.0)),
    ),
    "food": (
        _t("bacon", f"{_GRO} › Meat & Seafood › Pork › Bacon",
           ["Smoked Bacon", "Bacon Jerky", "Thick Cut Bacon", "Turkey Bacon"],
           ["gluten free", "keto friendly", "high protein", "no nitrates added", "naturally smoked", "ready to eat"],
           ["slow smoked over hardwood", "great for snacks and recipes", "resealable package"],
           [("flavor", FLAVORS), ("size", PACKS)], (6.0, 45.0)),
        _t("herbal tea", f"{_GRO} › Beverages › Coffee, Tea & Cocoa › Tea › Herbal",
           ["Herbal Tea", "Tea Bags", "Loose Leaf Tea", "Caffeine Free Tea"],
           ["caffeine free", "usda organic", "non gmo", "individually wrapped", "natural ingredients", "kosher"],
           ["steep for five minutes", "soothing blend for evenings", "compostable tea bags"],
           [("flavor", FLAVORS), ("size", COUNTS)], (4.0, 30.0)),
        _t("protein bars", f"{_GRO} › Snacks & Sweets › Bars › Protein Bars",
           ["Protein Bars", "Snack Bars", "Energy Bars", "Keto Bars"],
           ["high protein", "low sugar", "gluten free", "plant based", "non gmo", "keto friendly"],
           ["on the go snack", "twenty grams of protein", "soft chewy texture"],
           [("flavor", FLAVORS), ("size", PACKS)], (8.0, 45.0)),
        _t("coffee beans", f"{_GRO} › Beverages › Coffee, Tea & Cocoa › Coffee › Whole Coffee Beans",
           ["Whole Bean Coffee", "Coffee Beans", "Espresso Beans", "Dark Roast Coffee"],
           ["fair trade", "usda organic", "single origin", "medium roast", "low acid", "freshly roasted"],
           ["notes of cocoa and citrus", "grind just before brewing", "valve bag keeps beans fresh"],
           [("flavor", FLAVORS), ("size", OUNCES)], (9.0, 40.0)),
        _t("olive oil", f"{_GRO} › Pantry Staples › Cooking Oils & Sprays › Oils › Olive",
           ["Extra Virgin Olive Oil", "Olive Oil", "Cold Pressed Olive Oil", "Cooking Oil"],
           ["cold pressed", "extra virgin", "non gmo", "first harvest", "glass bottle", "kosher"],
           ["peppery finish for salads", "great for dipping bread", "dark glass protects flavor"],
           [("size", OUNCES)], (8.0, 50.0)),
        _t("gummy candy", f"{_GRO} › Snacks & Sweets › Candy & Chocolate › Gummy Candy",
           ["Gummy Bears", "Gummy Worms", "Sour Gummies", "Fruit Snacks"],
           ["gluten free", "fat free", "individually wrapped", "real fruit juice", "vegan", "resealable bag"],
           ["chewy candy for parties", "bright fruit flavors", "great for gift baskets"],
           [("flavor", FLAVORS), ("size", PACKS)], (4.0, 30.0)),
        _t("dog treats", f"{_GRO} › Pet Food › Dogs › Treats",
           ["Dog Treats", "Chew Sticks", "Training Treats", "Dental Chews"],
           ["grain free", "made in usa", "all natural", "high protein", "limited ingredient", "no artificial colors"],
           ["small bites for training", "freshens breath", "dogs love the taste"],
           [("flavor", ("chicken", "beef", "salmon", "peanut butter", "bacon", "lamb")), ("size", PACKS)], (6.0, 40.0)),
    ),
    "furniture": (
        _t("ottoman bench", f"{_HK} › Furniture › Living Room Furniture › Ottomans",
           ["Storage Ottoman", "Ottoman Bench", "Footstool", "Tufted Ottoman"],
           ["space saving", "storage space", "easy assembly", "solid wood legs", "faux leather", "button tufted"],
           ["lid lifts to hide blankets", "doubles as extra seating", "wipes clean easily"],
           [("color", COLORS), ("size", ("small", "medium", "large", "x-large"))], (35.0, 180.0)),
        _t("bedspreads & coverlets", f"{_HK} › Bedding › Quilts, Bedspreads & Coverlets › Bedspreads",
           ["Bedspread Set", "Quilt Set", "Coverlet", "Comforter Set"],
           ["machine washable", "lightweight", "all season", "pillow shams included", "soft microfiber", "reversible"],
           ["stitched pattern stays in place", "fits standard mattresses", "fade resistant"],
           [("color", COLORS), ("size", BED_SIZES)], (25.0, 150.0)),
        _t("office chairs", f"{_HK} › Furniture › Home Office Furniture › Home Office Chairs › Desk Chairs",
           ["Office Chair", "Desk Chair", "Ergonomic Chair", "Task Chair"],
           ["lumbar support", "adjustable height", "swivel base", "breathable mesh", "padded armrests", "easy assembly"],
           ["smooth rolling casters", "tilt lock for reclining", "holds up to 300 pounds"],
           [("color", ("black", "gray", "white", "blue", "pink", "brown"))], (45.0, 300.0)),
        _t("bookshelves", f"{_HK} › Furniture › Home Office Furniture › Bookcases",
           ["Bookshelf", "Bookcase", "Ladder Shelf", "Cube Storage Shelf"],
           ["easy assembly", "engineered wood", "metal frame", "space saving", "anti tip kit", "open shelves"],
           ["holds books plants and decor", "sturdy frame does not wobble", "fits small rooms"],
           [("color", ("black", "white", "walnut", "espresso", "gray", "oak")), ("style", STYLES)], (40.0, 250.0)),
        _t("area rugs", f"{_HK} › Home Décor Products › Area Rugs, Runners & Pads › Area Rugs",
           ["Area Rug", "Runner Rug", "Shag Rug", "Washable Rug"],
           ["non slip", "machine washable", "low pile", "stain resistant", "pet friendly", "non shedding"],
           ["soft underfoot", "vivid pattern resists fading", "lies flat out of the box"],
           [("color", COLORS), ("size", DIMENSIONS)], (25.0, 260.0)),
        _t("curtains", f"{_HK} › Home Décor Products › Window Treatments › Curtains & Drapes › Panels",
           ["Blackout Curtains", "Curtain Panels", "Sheer Curtains", "Thermal Curtains"],
           ["thermal insulated", "noise reducing", "grommet top", "machine washable", "light blocking", "wrinkle free"],
           ["keeps rooms cool in summer", "two panels per package", "hangs in minutes"],
           [("color", COLORS), ("size", ("52 x 63 inch", "52 x 84 inch", "52 x 95 inch", "52 x 108 inch"))], (15.0, 80.0)),
        _t("dining chairs", f"{_HK} › Furniture › Kitchen & Dining Room Furniture › Chairs",
           ["Dining Chairs", "Kitchen Chairs", "Side Chairs", "Upholstered Chairs"],
           ["solid wood legs", "easy assembly", "upholstered seat", "high back", "set of two", "floor protectors"],
           ["comfortable padded seat", "fits most dining tables", "easy to clean fabric"],
           [("color", COLORS), ("style", STYLES)], (60.0, 350.0)),
        _t("bath towels", f"{_HK} › Bath › Towels › Bath Towels",
           ["Bath Towels", "Towel Set", "Hand Towels", "Bath Sheets"],
           ["100% cotton", "highly absorbent", "quick drying", "machine washable", "soft and plush", "fade resistant"],
           ["gets softer with every wash", "generous size wraps around", "double stitched hems"],
           [("color", COLORS), ("size", ("pack of 2", "pack of 4", "pack of 6", "pack of 8"))], (15.0, 70.0)),
    ),
}

#: Words for brand names (two syllables joined), title fillers and descriptions.
BRAND_SYLLABLES = (
    "ka", "vo", "ra", "lu", "mi", "zen", "tor", "bel", "qui", "sa", "dor", "fen", "gal", "hix", "jo",
    "lex", "mar", "nel", "os", "pix", "rin", "sol", "tav", "ul", "ven", "wil", "xan", "yor", "zu", "bri",
    "cal", "dex", "el", "fio", "gor", "har", "iv", "jax", "kel", "lom", "mox", "nor", "pal", "quo", "ros",
)
BRAND_ENDINGS = ("", "", "", "ix", "ora", "ly", "co", "tek", "ova", "io", "ex", "ana", "gear", "home", "life")
TITLE_QUALIFIERS = (
    "Premium", "Classic", "Deluxe", "Essential", "Everyday", "Pro", "Ultra", "Signature", "Original",
    "Comfort", "Elite", "Basic", "Plus", "Advanced", "Soft", "Heavy Duty", "Compact", "Portable",
)
DESCRIPTION_OPENERS = (
    "Designed for everyday use, this", "Made with care, our", "Upgrade your routine with this",
    "Built to last, the", "Meet the", "Enjoy the quality of this", "Thoughtfully designed, this",
)
DESCRIPTION_CLOSERS = (
    "Backed by our satisfaction guarantee.", "A thoughtful gift for friends and family.",
    "Order now and see the difference.", "Contact us with any questions.",
    "Makes a great gift for any occasion.", "Loved by thousands of customers.",
)
