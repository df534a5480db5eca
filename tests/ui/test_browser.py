"""The UI in a real browser (headless Chromium): each test drives the pages as a person would,
takes a screenshot and asserts on what is visible (Selenium's element text is the rendered,
visible text), against live env servers, a real `coevo eval` result and a real GenEnv run.
`browser` comes first in each signature: without Chromium the tests skip before the servers and
the GenEnv run are started."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ui.conftest import Stack, copy_run

pytestmark = pytest.mark.slow


def _by() -> Any:
    from selenium.webdriver.common.by import By

    return By


def visible(driver: Any) -> str:
    return driver.find_element(_by().TAG_NAME, "body").text


def wait_for(check: Callable[[], bool], what: str, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never became true: {what}")
        time.sleep(0.2)


def shot(driver: Any, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"no screenshot {path}"
    assert path.stat().st_size > 5000
    return path


def follow(driver: Any, element: Any) -> None:
    """Click what leads to another page and wait until that page has replaced this one (a
    click returns before the navigation it starts)."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element(_by().TAG_NAME, "html")
    element.click()

    def replaced(_: Any) -> bool:
        # Chromium 156 may report a node of the replaced document as an inspector error rather
        # than as a stale element: both say the old page is gone.
        try:
            page.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" in str(exc):
                return True
            raise
        return False

    WebDriverWait(driver, 30).until(replaced)
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")


def click(driver: Any, css: str) -> None:
    follow(driver, driver.find_element(_by().CSS_SELECTOR, css))


def test_list_open_play_to_the_end_and_find_it_in_the_list(browser: Any, stack: Stack, shots: Path) -> None:
    by = _by()
    browser.get(f"{stack.ui}/episodes")
    text = visible(browser)
    assert "Episodes" in text and "eval-guess-test-expert" in text and "✔ yes" in text
    shot(browser, shots, "episodes")

    # Open an evaluated episode, then ask a live server for the expert's action beside each turn.
    follow(browser, browser.find_element(by.CSS_SELECTOR, "table.episodes tbody tr td a"))
    text = visible(browser)
    assert "step 1" in text and "success\nyes" in text.replace(": ", "\n")
    follow(browser, browser.find_element(by.PARTIAL_LINK_TEXT, stack.guess))
    assert browser.find_elements(by.CSS_SELECTOR, ".expert code")
    assert all(e.text.startswith("guess ") for e in browser.find_elements(by.CSS_SELECTOR, ".expert code"))
    shot(browser, shots, "episode")

    # Play train-5 to the end in the browser: ask the expert, act on the hint, until it is won.
    browser.get(f"{stack.ui}/play")
    browser.find_element(by.CSS_SELECTOR, "form.start input[name=task_id]").send_keys("train-5")
    click(browser, "#start-0")
    assert "I am thinking of a number between 1 and 100" in visible(browser)
    for turn in range(12):
        if browser.find_elements(by.ID, "finished"):
            break
        click(browser, "#ask-hint")
        hint = browser.find_element(by.ID, "hint").text
        assert "Expert's next action: guess" in hint
        assert browser.find_element(by.ID, "action").get_attribute("value") == hint.split(": ", 1)[1]
        click(browser, "#act")
        if turn == 0:  # fork after the first step and finish the episode in the fork
            parent = browser.current_url
            click(browser, "#fork")
            assert browser.current_url != parent and "step 1 of at most 12" in visible(browser)
    assert browser.find_element(by.ID, "finished").is_displayed()
    assert "correct" in visible(browser)
    shot(browser, shots, "play")

    # The played episode is stored: its page, then the list filtered to what people played.
    click(browser, "#recorded")
    text = visible(browser)
    assert "guess · train-5" in text and "human · ui-play" in text and "forked from" in text and "step 1" in text
    assert "I am thinking of a number between 1 and 100" in text  # the fork's page starts at the root's reset
    browser.get(f"{stack.ui}/episodes?policy=human&success=yes")
    rows = browser.find_elements(by.CSS_SELECTOR, "table.episodes tbody tr")
    assert rows and "train-5" in rows[0].text and "✔ yes" in rows[0].text

    # A second episode of train-5 (by a client over HTTP), then both side by side.
    with httpx.Client(base_url=stack.guess) as client:
        sid = client.post("/sessions", json={"task_id": "train-5", "policy": "guesser", "run": "manual"}).json()
        client.post(f"/sessions/{sid['session_id']}/step", json={"action": "guess 99"})
    follow(browser, rows[0].find_element(by.TAG_NAME, "a"))
    click(browser, "a.compare")
    columns = browser.find_elements(by.CSS_SELECTOR, ".side-by-side .column")
    assert len(columns) >= 4 and columns[0].is_displayed() and columns[1].is_displayed()
    assert "guess 99" in visible(browser)
    shot(browser, shots, "compare")


def test_env_and_agent_text_stays_text(browser: Any, stack: Stack, shots: Path) -> None:
    """`<script>` in an action (and so in the echo env's observation) is shown, never run."""
    by = _by()
    payload = "<script>window.__pwned = 1</script><img src=x onerror='window.__pwned = 2'>"
    browser.get(f"{stack.ui}/play")
    click(browser, "#start-1")
    assert "Say something <b>bold</b>." in visible(browser)  # the reset observation, tags as text
    browser.find_element(by.ID, "action").send_keys(payload)
    click(browser, "#act")
    assert f"You said: {payload}" in visible(browser)
    assert browser.execute_script("return window.__pwned === undefined")
    click(browser, "#recorded")
    text = visible(browser)
    assert payload in text and f"You said: {payload}" in text
    assert browser.execute_script("return window.__pwned === undefined")
    assert not browser.find_elements(by.CSS_SELECTOR, "main img")
    shot(browser, shots, "escaped")


def test_leaderboard_links_to_its_episodes(browser: Any, stack: Stack, shots: Path) -> None:
    by = _by()
    browser.get(f"{stack.ui}/leaderboards")
    row = browser.find_element(by.CSS_SELECTOR, "table.board tbody tr")
    # The expert solves all 5 tasks: 100% with a Wilson 95% interval of 56.6%-100%.
    assert "GuessEnv expert eval-guess-test-expert" in row.text and "100.0%" in row.text and "56.6%" in row.text
    click(browser, "table.board thead th:nth-child(4) a")  # sort by n
    assert "n ▼" in visible(browser)
    shot(browser, shots, "leaderboards")
    follow(browser, browser.find_element(by.LINK_TEXT, "episodes"))
    rows = browser.find_elements(by.CSS_SELECTOR, "table.episodes tbody tr")
    assert len(rows) == 5 and all("expert" in r.text and "eval-guess-test-expert" in r.text for r in rows)


def test_training_run_charts_update_live(browser: Any, stack: Stack, shots: Path) -> None:
    by = _by()
    browser.get(f"{stack.ui}/training")
    follow(browser, browser.find_element(by.LINK_TEXT, "genenv/ci"))
    wait_for(lambda: browser.find_element(by.ID, "run-status").text.endswith(tuple("0123456789")) or
             "rows" in browser.find_element(by.ID, "run-status").text, "the rows are read")  # fmt: skip
    titles = [e.text for e in browser.find_elements(by.CSS_SELECTOR, ".chart h3")]
    for wanted in ("Held-out success by epoch", "Training success by epoch", "In-band fraction", "Mean R_env",
                   "D_train and D_env", "π_env over families", "π_env over knobs"):  # fmt: skip
        assert any(t.startswith(wanted) for t in titles), (wanted, titles)
    canvases = browser.find_elements(by.CSS_SELECTOR, ".chart canvas")
    assert canvases and all(c.is_displayed() and c.size["height"] > 100 for c in canvases)
    # Chart.js drew on them: a drawn canvas is not blank.
    assert browser.execute_script(
        "const c = document.querySelector('.chart canvas'); const d = c.getContext('2d')"
        ".getImageData(0, 0, c.width, c.height).data; return d.some((v, i) => i % 4 === 3 && v > 0);"
    )
    shot(browser, shots, "training")

    # A trainer still writing: a new complete row, then a line cut short by a kill mid-write.
    live = copy_run(stack.runs / "genenv" / "ci", stack.runs / "genenv" / "live")
    metrics = live / "metrics.jsonl"
    rows = [json.loads(line) for line in metrics.read_text().splitlines()]
    browser.get(f"{stack.ui}/training/genenv/live")
    status = lambda: browser.find_element(by.ID, "run-status").text  # noqa: E731
    wait_for(lambda: status().startswith(f"{len(rows)} rows"), "the first read")
    extra = dict(rows[-1], epoch=rows[-1]["epoch"] + 1)
    with metrics.open("a") as f:
        f.write(json.dumps(extra) + "\n" + json.dumps(extra)[:40])
    wait_for(lambda: status().startswith(f"{len(rows) + 1} rows"), "the page polls the new row", timeout_s=30)
    assert "an incomplete line was left out" in status()


def test_agentevol_run_charts(browser: Any, stack: Stack, shots: Path) -> None:
    """An AgentEvol run folder's rows as its trainer writes them (`kind` heldout and stage)."""
    by = _by()
    run = stack.runs / "agentevol" / "stages"
    run.mkdir(parents=True)
    rows = []
    for stage, rate in (("bc", 0.2), ("iter1", 0.35), ("iter2", 0.4)):
        rows.append({"kind": "heldout", "stage": stage, "arm": "agentevol", "env": "bfcl", "split": "simple_python",
                     "n": 100, "success_rate": rate, "ci95_low": rate - 0.09, "ci95_high": rate + 0.1})  # fmt: skip
        rows.append({"kind": "stage", "stage": stage, "success_rate": rate, "mean_reward": rate,
                     "explore_success_rate": rate + 0.1, "train_loss": 1.5 - rate, "eval_n": 100})  # fmt: skip
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    browser.get(f"{stack.ui}/training/agentevol/stages")
    wait_for(lambda: browser.find_element(by.ID, "run-status").text.startswith("6 rows"), "the rows are read")
    titles = [e.text for e in browser.find_elements(by.CSS_SELECTOR, ".chart h3")]
    assert titles == ["Held-out success by stage (95% interval)", "Success by stage", "Exploration success by stage",
                      "Training loss by stage"]  # fmt: skip
    shot(browser, shots, "training-agentevol")


def test_servers_page_shows_health_and_figures(browser: Any, stack: Stack, shots: Path) -> None:
    by = _by()
    browser.get(f"{stack.ui}/servers")
    sections = browser.find_elements(by.CSS_SELECTOR, "section.server")
    assert [s.find_element(by.CSS_SELECTOR, ".env").text.split()[0] for s in sections] == ["guess", "echo"]
    assert all(" of 4096" in s.find_element(by.CSS_SELECTOR, ".sessions").text for s in sections)
    sections[0].find_element(by.TAG_NAME, "summary").click()
    figures = sections[0].find_element(by.CSS_SELECTOR, "table.figures").text
    assert 'coevo_steps_total{env="guess"}' in figures and "coevo_sessions_active" in figures
    shot(browser, shots, "servers")


def test_pages_fit_a_phone_screen(browser: Any, stack: Stack, shots: Path) -> None:
    browser.set_window_size(390, 844)
    try:
        for path, name in (("/episodes", "phone-episodes"), ("/leaderboards", "phone-leaderboards"), ("/play", None)):
            browser.get(f"{stack.ui}{path}")
            overflow = browser.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, f"{path} is {overflow}px wider than the screen"
            assert browser.find_element(_by().TAG_NAME, "nav").is_displayed()
            if name:
                shot(browser, shots, name)
    finally:
        browser.set_window_size(1280, 1000)
