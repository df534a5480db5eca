"""Information APIs, all answered from the shared tables (no network): calculator, today's date,
history, wiki, search engine, dictionary, translation, image captions, speech transcripts,
document QA, e-mail, music, and ToolSearcher."""

from __future__ import annotations

import datetime
import re
from typing import Any

from coevo.envs.apibank.apis.smarthome import normalise_year
from coevo.envs.apibank.calculator import FormulaError, calculate
from coevo.envs.apibank.languages import UnsupportedLanguage, resolve_language
from coevo.envs.apibank.sandbox import ApiException, CallContext, implements

#: GetToday's fixed date in API-Bank.
TODAY = "2023-03-31"
_EMAIL = re.compile(r"^[a-z0-9]+[\._]?[a-z0-9]+[@]\w+[.]\w{2,3}$")


@implements("Calculator")
def calculator(ctx: CallContext, formula: str) -> Any:
    try:
        return calculate(formula)
    except FormulaError as exc:
        raise ApiException(str(exc)) from None


@implements("GetToday")
def get_today(ctx: CallContext) -> str:
    return TODAY


@implements("QueryHistoryToday")
def query_history_today(ctx: CallContext, date: str) -> list[str]:
    value = normalise_year(date)
    try:
        day = datetime.datetime.strptime(value, "%Y-%m-%d").strftime("%m-%d")
    except ValueError:
        day = datetime.datetime.strptime(value, "%m-%d").strftime("%m-%d")  # raises its ValueError
    history = ctx.read("History")
    if day not in history:
        raise ApiException("The date is not in the database.")
    return [
        f"Title: {e['Title'].strip()}, Date: {e['Date'].strip()}, Description: {e['Description'].strip()}"
        for e in history[day]
    ]


@implements("Wiki")
def wiki(ctx: CallContext, keyword: str) -> dict[str, str]:
    keyword = keyword.replace("_", " ").strip().lower()
    table = ctx.read("Wiki")
    if keyword not in table:
        raise ApiException("Keyword not found.")
    return {"url": table[keyword]["url"], "summary": table[keyword]["summary"]}


@implements("SearchEngine")
def search_engine(ctx: CallContext, keyword: str) -> list:
    return ctx.resources.search_engine.search(keyword)


@implements("Dictionary")
def dictionary(ctx: CallContext, keyword: str) -> Any:
    keyword = keyword.replace("_", " ").strip().lower()
    entry = ctx.resources.dictionary.get(keyword)
    if entry is None:
        raise ApiException("Failed.")  # what the original raises when the online lookup fails
    return entry


@implements("Translate")
def translate(ctx: CallContext, src: str, **kwargs: Any) -> str:
    try:
        source = resolve_language(kwargs["src_lang"]) if "src_lang" in kwargs else None
        target = resolve_language(kwargs.get("tgt_lang"))
    except UnsupportedLanguage as exc:
        raise ApiException(str(exc)) from None
    text = ctx.resources.translations.get((src, target))
    if text is None:
        raise ApiException(
            f"No offline translation of this text into {target}" + (f" from {source}" if source else "") + "."
        )
    return text


@implements("ImageCaption")
def image_caption(ctx: CallContext, url: str) -> str:
    url = url.strip()
    if not url.endswith((".jpg", ".jpeg", ".png")):
        raise ApiException("The url should end with .jpg, .jpeg or .png.")
    caption = ctx.resources.captions.get(url)
    if caption is None:
        raise ApiException("The image of this url failed to be processed.")
    return caption


@implements("SpeechRecognition")
def speech_recognition(ctx: CallContext, url: str) -> str:
    url = url.strip()
    if not url.endswith(".wav"):
        raise ApiException("The url should end with .wav.")
    table = ctx.read("SpeechRecognition")
    if url not in table:
        raise ApiException("The audio of this url failed to be processed.")
    return table[url]


@implements("DocumentQA")
def document_qa(ctx: CallContext, url: str, question: str) -> str:
    url, question = url.strip(), question.strip()
    if question == "":
        raise ApiException("The question is empty.")
    table = ctx.read("QuestionAnswering")
    if url not in table:
        raise ApiException("The document of this url failed to be processed.")
    answers = table[url]
    # API-Bank tests `question in answers`; its table holds a list of {question, answer} dicts,
    # so the test never matches and every known document answers "too difficult".
    if isinstance(answers, dict) and question in answers:
        return answers[question]
    return "The question is too difficult to answer."


@implements("SendEmail")
def send_email(ctx: CallContext, receiver: str, subject: str, content: str) -> str:
    receiver, subject, content = receiver.strip(), subject.strip(), content.strip()
    if not _EMAIL.match(receiver):
        raise ApiException("Email address of the receiver is invalid.")
    if subject == "":
        raise ApiException("Subject cannot be empty.")
    if content == "":
        raise ApiException("Content cannot be empty.")
    return "success"


@implements("PlayMusic")
def play_music(ctx: CallContext, music_name: str) -> str:
    music_name = music_name.lower().strip()
    if music_name == "":
        raise ApiException("The music name cannot be empty.")
    return f"music://{music_name}"


@implements("ToolSearcher")
def tool_searcher(ctx: CallContext, keywords: str) -> Any:
    return ctx.resources.tool_index(12).search(keywords)
