"""Offline noun extraction for WebShop's title-overlap type reward.

WebShop tags product titles with spaCy's `en_core_web_sm` (not on PyPI) and keeps tokens whose
part of speech is NOUN or PROPN. This module keeps that contract — lower-cased surface forms, in
order, duplicates kept — with a context-free rule instead of a statistical tagger:

* tokens: runs of letters/digits (dotted abbreviations like "d.o.n." and decimals stay whole,
  hyphens, slashes and brackets split, a possessive "'s" is dropped), as spaCy splits titles;
* a token without a letter is a number, never a noun (spaCy: NUM);
* closed-class words (determiners, pronouns, prepositions, conjunctions, auxiliaries, a few
  adverbs) are never nouns;
* a word the LemmInflect lexicon lists as a possible noun (as a form or as a noun lemma) is a
  noun, and so is a bare verb form ("bar", "stand": titles use them as nouns); a word it knows
  only as an adjective or adverb, or as a participle, is not ("breathable", "listed");
* a word the lexicon does not know (brands, model codes, "soundbar") is a proper noun, as
  spaCy tags unknown capitalised title words.

The difference from spaCy: no context, so a word that can be a noun always is ("white" in
"Off White", "casual"), where spaCy may tag it ADJ. docs/webshop.md compares the two on
WebShop's own test titles.
"""

from __future__ import annotations

import importlib.abc
import re
import sys
from functools import lru_cache

_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W_]+(?:\.[^\W_]+)*\.?")
_HAS_LETTER = re.compile(r"[^\W\d_]")

CLOSED_CLASS = frozenset(
    """
    a an the this that these those each every either neither some any no all both half
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    theirs who whom whose which what whatever whichever one ones
    about above across after against along amid among around as at before behind below beneath
    beside besides between beyond by despite down during except for from in inside into like
    near of off on onto out outside over past per plus since than through throughout till to
    toward towards under underneath unlike until up upon via with within without
    and or but nor so yet if because although though while whereas unless whether
    am is are was were be been being do does did done doing have has had having
    can could may might must shall should will would
    not very too also just only even really quite rather more most less least such
    here there then now when where why how again ever never always already
    x vs etc
    """.split()
)


class _NoSpacy(importlib.abc.MetaPathFinder):
    """Makes `import spacy` fail while LemmInflect is imported.

    LemmInflect's package init imports spaCy, when installed (other extras pull it in), only to
    register spaCy token extensions we never use; that would add ~250 MB to every server.
    """

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname == "spacy" or fullname.startswith("spacy."):
            raise ModuleNotFoundError(f"{fullname} is kept out of the WebShop noun extractor")
        return None


@lru_cache(maxsize=1)
def _lexicon():  # type: ignore[no-untyped-def]
    # Imported late: LemmInflect loads its tables (~30 MB) on first use.
    blocker = None if "spacy" in sys.modules else _NoSpacy()
    if blocker is not None:
        sys.meta_path.insert(0, blocker)
    try:
        from lemminflect import getAllInflections, getAllLemmas
    finally:
        if blocker is not None:
            sys.meta_path.remove(blocker)
    return getAllLemmas, getAllInflections


@lru_cache(maxsize=65536)
def is_noun(word: str) -> bool:
    """Whether a lower-cased token counts as NOUN/PROPN under the rule above."""
    if not _HAS_LETTER.search(word) or word in CLOSED_CLASS:
        return False
    lemmas_of, inflections_of = _lexicon()
    word = word.rstrip(".")
    tags = lemmas_of(word)
    if "NOUN" in tags or "PROPN" in tags or inflections_of(word, upos="NOUN"):
        return True
    if not tags:
        return len(word) > 1  # unknown word: a proper noun; lone letters are not
    if set(tags) == {"VERB"}:
        # Bare verb forms double as nouns in titles ("bar", "set", "stand"): the lexicon lists
        # some of those only as verbs. Participles and past forms ("listed") stay verbs.
        return word in tags["VERB"] or word in inflections_of(tags["VERB"][0]).get("VBZ", ())
    return False


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens of a title."""
    return _TOKEN.findall(_POSSESSIVE.sub(" ", text.lower()))


def nouns(text: str) -> list[str]:
    """The title's nouns, lower-cased, in order, duplicates kept (WebShop counts them)."""
    return [t for t in tokens(text) if is_noun(t)]


class SpacyNouns:
    """WebShop's own extraction: tokens spaCy tags NOUN or PROPN (or "PNOUN"), lower-cased.

    For users who installed spaCy and an English pipeline themselves (WebShop used
    `en_core_web_sm` 3.3; the official model is not on PyPI). `spacy.load` reads an installed
    package or a folder and never downloads. Costs ~250 MB per server; titles are cached.
    """

    def __init__(self, model: str) -> None:
        try:
            import spacy
        except ImportError:
            raise ValueError("the spacy_model option needs spaCy installed (pip install spacy)") from None
        try:
            self.nlp = spacy.load(model, disable=["parser", "ner", "lemmatizer"])
        except OSError as exc:
            raise ValueError(
                f"spaCy cannot load {model!r} (install the pipeline package or give its folder): {exc}"
            ) from None
        self.model = model
        self._cached = lru_cache(maxsize=65536)(self._nouns)

    def _nouns(self, text: str) -> list[str]:
        return [t.text.lower() for t in self.nlp(text) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]

    def __call__(self, text: str) -> list[str]:
        return list(self._cached(text))
