"""The pit view, the visual recall, search and export, on a journal of scripted rounds (a
super bonus, a split and a double, a surrender, a void, Match the Dealer and insurance:
``console_support.scripted_journal``) written by the real table procedure, sealed, and
shipped through the real shipper, broker, collector and PostgreSQL; the pages in a real
headless Chromium.

Every expected figure is worked by hand from the cards of ``console_support``; the charts
are checked against a query of the database's per-round lines."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg
import pytest
from console_support import scripted_journal
from console_web import (
    browser,
    console_config,
    http_login,
    log_in,
    no_leaks,
    no_script_errors,
    nothing_left_after_the_module,
    request,
    screenshot,
)
from floor_fixtures import journal_rows, simulated, station_settings
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal
from controller.service.shipper import Shipper
from floor.collector import Collector
from floor.config import FloorConfig
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, wait_for

TABLE, OTHER = "T21", "T22"
MORE = ("T23", "T24", "T25")  # simulated tables too: Pit B, and one in no pit
ZONE = "America/New_York"
__all__ = ["browser", "no_leaks", "nothing_left_after_the_module"]


@dataclass
class Floor:
    """The module's floor: the console, the two journals, the database."""

    monitor: MonitorServer
    journal: Path
    other: Path  # T22's journal (a simulation)
    database: Database
    sam: str  # a surveillance session
    pat: str  # a pit supervisor's


@pytest.fixture(scope="module")
def floor(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, floor_database: Database
) -> Iterator[Floor]:
    directory = tmp_path_factory.mktemp("console")
    state, key = new_sealing(TABLE)
    save_state(directory / "sealing-key", state)
    journal = scripted_journal(directory / "t21.sqlite3", TABLE, directory / "sealing-key")
    other = simulated(directory / "t22.sqlite3", 12, 22)
    more = [simulated(directory / f"{t.lower()}.sqlite3", 6, n) for n, t in enumerate(MORE)]
    config: FloorConfig = console_config(
        directory,
        floor_broker,
        floor_database,
        casino={"time_zone": ZONE, "pits": {"Pit A": [TABLE, OTHER], "Pit B": list(MORE[:2])}},
        keys={TABLE: key.to_text()},
    )
    collector = Collector(config)
    collector.start()
    paths = [journal, other, *more]
    shippers = [
        Shipper(path, table, station_settings(floor_broker, table))
        for path, table in zip(paths, (TABLE, OTHER, *MORE), strict=True)
    ]
    for shipper in shippers:
        shipper.start()
    for shipper, path in zip(shippers, paths, strict=True):
        last = journal_rows(path)[-1][0]
        assert wait_for(lambda s=shipper, n=last: s.acked >= n, 60)
    monitor = MonitorServer(config)
    monitor.start()
    sam, pat = http_login(monitor.url, "sam")[1], http_login(monitor.url, "pat")[1]
    assert sam and pat
    yield Floor(monitor, journal, other, floor_database, sam, pat)
    monitor.stop()
    for shipper in shippers:
        shipper.stop()
    collector.stop()


def _around_now() -> str:
    """A chosen period from two hours ago to an hour ahead, on the casino's clock."""
    now = datetime.now(UTC).astimezone(ZoneInfo(ZONE))
    start, end = now - timedelta(hours=2), now + timedelta(hours=1)
    return f"period=custom&from={start:%Y-%m-%dT%H:%M}&to={end:%Y-%m-%dT%H:%M}"


def _query(database: Database, sql: str, *params: object) -> list[tuple[object, ...]]:
    with psycopg.connect(database.conninfo) as conn:
        return conn.execute(sql.encode(), params).fetchall()


# --- the figures ---------------------------------------------------------------------------

#: Worked by hand from the five scripted rounds (cents). Handle: 1: $25 + $10; 2: $10, a
#: split $10, a double $10; 3: $10 + $10; 4 (void): the main $10 went back, the Match $5
#: stands; 5: $10 + $10, Match $5, insurance $5. The house: 1: -($10 + $50 share +
#: $5,050); 2: -($20 + $10); 3: +$5 surrender, -$10; 4: +$5 Match; 5: +$10 +$10, Match
#: -$40, insurance +$5.
HANDLE_MAIN = 2500 + 1000 + 3 * 1000 + 2 * 1000 + 0 + 2 * 1000
HANDLE_MATCH = 500 + 500
HANDLE_INSURANCE = 500
WIN = -(1000 + 5000 + 505_000) - (2000 + 1000) + (500 - 1000) + 500 + (2000 - 4000 + 500)


def test_the_database_keeps_each_rounds_figures_as_worked_by_hand(floor: Floor) -> None:
    found = _query(
        floor.database,
        "SELECT round, status, seats, hands, handle_main, handle_match, handle_insurance,"
        " win_main + win_match + win_insurance, bonuses, super_bonuses, super_bonus_cents,"
        " faults, best_seat_cents, worst_seat_cents, outcomes, problem FROM round_stat"
        " WHERE table_id = %s ORDER BY round",
        TABLE,
    )
    assert found == [
        (1, "completed", 2, 2, 3500, 0, 0, -511_000, 0, 1, 505_000, 0, 505_000, 6000,
         ["super_bonus"], None),
        (2, "completed", 1, 2, 3000, 0, 0, -3000, 0, 0, 0, 0, 3000, 3000,
         ["double", "split"], None),
        (3, "completed", 2, 2, 2000, 0, 0, -500, 0, 0, 0, 0, 1000, -500, ["surrender"], None),
        (4, "voided", 1, 1, 0, 500, 0, 500, 0, 0, 0, 1, -500, -500, ["fault", "void"], None),
        (5, "completed", 2, 2, 2000, 500, 500, -1500, 0, 0, 0, 0, 3000, -1500,
         ["insurance"], None),
    ]  # fmt: skip
    assert sum(r[4] for r in found) == HANDLE_MAIN and sum(r[7] for r in found) == WIN
    # The cards as they left the shoe, the hole card where it was dealt.
    (cards,) = _query(
        floor.database, "SELECT cards FROM round_stat WHERE table_id = %s AND round = 1", TABLE
    )[0]
    assert cards == "7D 9S 7C 7D 9H 5C 7D KS"


def test_the_pit_view_shows_the_figures_of_the_record(
    floor: Floor, browser: webdriver.Chrome
) -> None:
    log_in(browser, floor.monitor.url, "pat")
    browser.get(floor.monitor.url + "pit?" + _around_now())
    line = browser.find_element(By.ID, f"line-table-{TABLE}")
    shown = {
        cell.get_attribute("data-figure"): cell.text
        for cell in line.find_elements(By.CSS_SELECTOR, "td[data-figure]")
    }
    total = HANDLE_MAIN + HANDLE_MATCH + HANDLE_INSURANCE
    assert shown["rounds"] == "5" and shown["voids"] == "1" and shown["faults"] == "1"
    assert shown["handle_main"] == "$105.00" and shown["handle_match"] == "$10.00"
    assert shown["handle"] == "$120.00" and total == 12_000
    assert shown["win"] == "-$5,155.00" and WIN == -515_500
    assert shown["hold"] == f"{WIN * 100 / total:.1f}%"
    assert shown["super_bonuses"] == "1 ($5,050.00)" and shown["bonuses"] == "0 ($0.00)"
    assert shown["average"] == "$11.66"  # $105.00 over 9 hands
    assert shown["seats"] == "1.6"  # 8 seats in 5 rounds
    # The pit's line is the sum of its two tables'.
    pit = browser.find_element(By.ID, "line-pit-Pit A")
    other = browser.find_element(By.ID, f"line-table-{OTHER}")
    rounds = [
        int(e.find_element(By.CSS_SELECTOR, "td[data-figure='rounds']").text)
        for e in (pit, line, other)
    ]
    assert rounds[0] == rounds[1] + rounds[2] == 5 + 12
    floor_total = browser.find_element(By.ID, "line-floor")
    total = int(floor_total.find_element(By.CSS_SELECTOR, "td[data-figure='rounds']").text)
    assert total == 5 + 12 + 3 * 6
    assert no_script_errors(browser) == []
    screenshot(browser, "floor-pits")


def test_the_charts_draw_what_the_database_holds(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.monitor.url, "pat")
    browser.get(floor.monitor.url + f"table/{TABLE}?" + _around_now())
    WebDriverWait(browser, 10).until(
        lambda d: d.execute_script("return window.floorCharts && window.floorCharts['chart-win']")
    )
    drawn = browser.execute_script(
        "const c = window.floorCharts; return [c['chart-win'].data, c['chart-hands'].data,"
        " c['chart-win'].series.map(s => s.label)];"
    )
    win_data, hands_data, labels = drawn
    assert labels[1:] == [TABLE]
    # The database, per quarter hour, from the per-round lines (not the sums the page read).
    per_quarter = {
        int(quarter.timestamp()): (int(hands), int(win))
        for quarter, hands, win in _query(
            floor.database,
            "SELECT date_bin('15 minutes', ended, TIMESTAMPTZ '2000-01-01 00:00:00+00'),"
            " sum(hands), sum(win_main + win_match + win_insurance) FROM round_stat"
            " WHERE table_id = %s GROUP BY 1",
            TABLE,
        )
    }
    xs = win_data[0]
    assert set(per_quarter) <= set(xs)
    running, expected_win, expected_hands = 0, [], []
    for x in xs:
        hands, win = per_quarter.get(x, (0, 0))
        running += win
        expected_win.append(running)
        expected_hands.append(hands * 4)
    assert win_data[1] == expected_win and running == WIN
    assert hands_data[0] == xs and hands_data[1] == expected_hands
    # Drawn, not only loaded: the canvas has lines on it.
    painted = browser.execute_script(
        "const c = document.querySelector('#chart-win canvas');"
        " const p = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " let n = 0; for (let i = 3; i < p.length; i += 4) if (p[i]) n++; return n;"
    )
    assert painted > 500
    screenshot(browser, "floor-table")


def _grid_ids(browser: webdriver.Chrome) -> list[str]:
    ids: list[str] = browser.execute_script(
        "return Array.from(document.querySelectorAll('#grid tr'), r => r.id);"
    )
    return ids


def _text(browser: webdriver.Chrome, css: str) -> str:
    text: str = browser.execute_script(
        "return document.querySelector(arguments[0]).innerText;", css
    )
    return text


def test_the_live_grid_of_the_floor(floor: Floor, browser: webdriver.Chrome) -> None:
    """The grid with its pits; a fault at T22 goes on top, a pit supervisor acknowledges it."""
    log_in(browser, floor.monitor.url, "pat")
    for table in (TABLE, OTHER, *MORE):
        WebDriverWait(browser, 10).until(ec.presence_of_element_located((By.ID, f"table-{table}")))
    # Each grid event replaces every row (floor/static/console.js), so a row found by one call can
    # be gone by the next: the grid is read in one script call, and a click retried on a stale row.
    assert _text(browser, f"#table-{TABLE} .pit") == "Pit A"
    assert _text(browser, "#table-T25 .pit") == ""
    with Journal.open(floor.other) as station:
        station.append("fault", {"code": "shoe_fault", "message": "jam", "state": "deal"})
        WebDriverWait(browser, 10).until(
            ec.text_to_be_present_in_element((By.CSS_SELECTOR, f"#table-{OTHER} .fault"), "shoe")
        )
        assert _grid_ids(browser)[0] == f"table-{OTHER}"
        WebDriverWait(browser, 5, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "#alerts button.ack").click() is None
        )
        WebDriverWait(browser, 5).until(
            ec.text_to_be_present_in_element((By.ID, "alerts"), "acknowledged by pat")
        )
        station.append("fault", {"code": "device_lost", "message": "reader", "state": "peek"})
        WebDriverWait(browser, 10).until(
            ec.text_to_be_present_in_element((By.CSS_SELECTOR, f"#table-{OTHER} .fault"), "device")
        )
        screenshot(browser, "floor-grid")
        station.append("fault_resolved", {"resolution": "resume"})
    # Filtered to Pit B: its two tables only.
    Select(browser.find_element(By.ID, "filter-pit")).select_by_visible_text("Pit B")
    WebDriverWait(browser, 5).until(ec.text_to_be_present_in_element((By.ID, "count-shown"), "2"))
    assert set(_grid_ids(browser)) == {"table-T23", "table-T24"}


# --- recall ----------------------------------------------------------------------------------


def _journal(floor: Floor, round_no: int, kind: str) -> list[tuple[object, ...]]:
    return [r for r in journal_rows(floor.journal) if r[3] == round_no and r[2] == kind]


def _local_ms(ts: str) -> str:
    moment = datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
    return moment.strftime("%H:%M:%S") + f".{moment.microsecond // 1000:03d}"


def _cards(element: webdriver.remote.webelement.WebElement) -> list[str]:
    return [
        c.get_attribute("data-card") or ""
        for c in element.find_elements(By.CSS_SELECTOR, ".cards .card")
    ]


def test_the_visual_recall_of_a_super_bonus_round(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.monitor.url, "sam")
    browser.get(floor.monitor.url + f"recall/{TABLE}/1")
    dealer = browser.find_element(By.ID, "dealer")
    assert _cards(dealer) == ["7C", "5C", "KS"]
    seat1 = browser.find_element(By.ID, "seat-1")
    hand = seat1.find_element(By.ID, "seat-1-hand-1")
    assert _cards(hand) == ["7D", "7D", "7D"]
    (paid,) = hand.find_elements(By.CSS_SELECTOR, "ol.payments li")
    super_row = next(r for r in _journal(floor, 1, "settlement") if '"seat":1' in str(r[4]))
    assert paid.find_element(By.CSS_SELECTOR, ".row").text == f"row {super_row[0]}"
    assert paid.find_element(By.TAG_NAME, "time").text == _local_ms(str(super_row[1]))
    assert paid.find_element(By.CSS_SELECTOR, ".text").text == (
        "21 win at 2:1 bonus 777 suited super bonus $5,000.00: +$5,050.00"
    )
    # Seat 2: its own hand's payment under the hand, the super bonus share on its own line.
    seat2 = browser.find_element(By.ID, "seat-2")
    own = seat2.find_element(By.CSS_SELECTOR, "#seat-2-hand-1 ol.payments li .text").text
    assert own == "18 win at 1:1: +$10.00"
    (share,) = seat2.find_elements(By.CSS_SELECTOR, "ol.side li")
    assert share.find_element(By.CSS_SELECTOR, ".text").text == (
        "super bonus share win (super bonus at seat 1): +$50.00"
    )
    # Before the round: the shuffle, the shuffler's count, the load and the burn.
    before = browser.find_element(By.ID, "before").text
    assert "shuffle of 6 decks commanded" in before
    assert "shuffler counted 288 cards: A x24, 2 x24" in before
    assert "burn 2C (load)" in before
    assert no_script_errors(browser) == []
    screenshot(browser, "floor-recall")


def test_the_visual_recall_of_a_split_a_double_and_a_surrender(
    floor: Floor, browser: webdriver.Chrome
) -> None:
    log_in(browser, floor.monitor.url, "sam")
    browser.get(floor.monitor.url + f"recall/{TABLE}/2")
    first = browser.find_element(By.ID, "seat-1-hand-1")
    second = browser.find_element(By.ID, "seat-1-hand-2")
    assert _cards(first) == ["8H", "3S", "KS"] and _cards(second) == ["8D", "2C", "9D"]
    decisions = [e.text for e in first.find_elements(By.CSS_SELECTOR, "ol.decisions .text")]
    assert decisions == ["split", "double"]
    assert [e.text for e in second.find_elements(By.CSS_SELECTOR, "ol.decisions .text")] == [
        "hit",
        "stand",
    ]
    assert first.find_element(By.CSS_SELECTOR, "ol.payments .text").text == "21 win at 1:1: +$20.00"
    assert second.find_element(By.CSS_SELECTOR, "ol.payments .text").text == (
        "19 win at 1:1: +$10.00"
    )
    journal_decisions = [r[0] for r in _journal(floor, 2, "decision")]
    shown_rows = [
        int(e.text.split()[1]) for e in browser.find_elements(By.CSS_SELECTOR, "ol.decisions .row")
    ]
    assert sorted(shown_rows) == journal_decisions
    browser.get(floor.monitor.url + f"recall/{TABLE}/3")
    hand = browser.find_element(By.ID, "seat-1-hand-1")
    assert [e.text for e in hand.find_elements(By.CSS_SELECTOR, "ol.decisions .text")] == [
        "surrender"
    ]
    assert hand.find_element(By.CSS_SELECTOR, "ol.payments .text").text == "16 surrender: -$5.00"
    browser.get(floor.monitor.url + f"recall/{TABLE}/4")
    assert browser.find_element(By.ID, "round-status").text == "voided"
    void = browser.find_element(By.ID, "void").text
    assert "returned: seat 1 main hand 1, $10.00" in void
    assert "stands: seat 1 match, net -$5.00" in void


def test_the_text_recall_reads_without_python_reprs(floor: Floor) -> None:
    for round_no in range(1, 6):
        answer = request(
            floor.monitor.url, f"/recall/{TABLE}/{round_no}?view=text",
            cookies={"floor_session": floor.sam},
        )  # fmt: skip
        assert answer.status == 200
        text = answer.text.split('<pre id="recall-text">')[1].split("</pre>")[0]
        for repr_mark in ("{", "}", "None", "=", "&#39;", "[", "]"):
            assert repr_mark not in text, (round_no, repr_mark, text)
    answer = request(
        floor.monitor.url, f"/recall/{TABLE}/1?view=text", cookies={"floor_session": floor.sam}
    )
    assert "paid: 21 win at 2:1 bonus 777 suited super bonus $5,000.00: +$5,050.00" in answer.text
    assert "super bonus share win (super bonus at seat 1): +$50.00" in answer.text


# --- search and export -------------------------------------------------------------------


def _found(floor: Floor, query: str) -> list[tuple[str, int]]:
    answer = request(
        floor.monitor.url, f"/search?table={TABLE}&{query}", cookies={"floor_session": floor.sam}
    )
    assert answer.status == 200, answer.text[:300]
    rows = answer.text.split("<tbody>")[1].split("</tbody>")[0]
    return [
        (TABLE, int(part.split(">round ")[1].split("<")[0]))
        for part in rows.split('class="recall-link"')[1:]
    ]


@pytest.mark.parametrize(
    ("query", "rounds"),
    [
        ("outcome=super_bonus", [1]),
        ("outcome=surrender", [3]),
        ("outcome=split", [2]),
        ("outcome=double", [2]),
        ("outcome=void", [4]),
        ("outcome=insurance", [5]),
        ("fault=yes", [4]),
        ("won=5050", [1]),  # seat 1 won $5,050 in round 1
        ("won=5050.01", []),
        ("won=30", [5, 2, 1]),  # seat 1 won $30.00 in rounds 2 and 5 ($40 Match, -$10)
        ("lost=15", [5]),  # seat 2 lost $15.00 in round 5
        ("lost=15.01", []),
        ("cards=9H 5C 7D", [1]),  # the hole card 5C between seat 2's 9H and the hit 7D
        ("cards=7 9 7", [1]),
        ("cards=8h 6c 8d", [2]),
        ("cards=KD 7S", []),
    ],
)
def test_search_finds_the_rounds_it_should(floor: Floor, query: str, rounds: list[int]) -> None:
    period = _around_now().replace("period=custom&", "")
    found = _found(floor, query.replace(" ", "+") + "&" + period)
    assert [r for _t, r in found] == rounds


def test_a_bad_search_is_one_line(floor: Floor) -> None:
    for query, problem in (
        ("cards=10S", "is not a card of a Spanish deck"),
        ("won=lots", "is not an amount"),
        ("outcome=jackpot", "outcome: one of"),
        ("from=2026-13-01T00:00", "is not a date"),
        ("from=2026-01-01T00:00&to=2026-12-01T00:00", "at most 92 days"),
    ):
        answer = request(
            floor.monitor.url, f"/search?{query}", cookies={"floor_session": floor.sam}
        )
        assert answer.status == 400 and problem in answer.text, query


def test_search_links_to_the_visual_recall(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.monitor.url, "sam")
    browser.get(floor.monitor.url + f"search?table={TABLE}&outcome=super_bonus")
    screenshot(browser, "floor-search")
    browser.find_element(By.CSS_SELECTOR, "a.recall-link").click()
    WebDriverWait(browser, 10).until(ec.presence_of_element_located((By.ID, "seat-1-hand-1")))
    assert browser.current_url.endswith(f"/recall/{TABLE}/1")


def test_the_export_names_the_journals_rows_hashes_and_seals(floor: Floor) -> None:
    answer = request(
        floor.monitor.url, f"/search.csv?table={TABLE}", cookies={"floor_session": floor.sam}
    )
    assert answer.status == 200 and answer.headers["content-type"][0].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(answer.text)))
    assert [int(r["round"]) for r in table] == [1, 2, 3, 4, 5]
    journal = journal_rows(floor.journal)
    by_id = {r[0]: r for r in journal}
    for line in table:
        end = by_id[int(line["end_row"])]
        assert end[2] in ("round_completed", "round_voided") and end[3] == int(line["round"])
        assert line["end_row_hash"] == end[6]
        first = by_id[int(line["first_row"])]
        assert first[2] == "round_started" and first[3] == int(line["round"])
        seal = by_id[int(line["seal_row"])]  # the seal right after the round, as sealed
        assert seal[2] == "seal" and line["seal_row_hash"] == seal[6]
        assert int(line["seal_row"]) == int(line["end_row"]) + 1
    assert sum(int(r["house_win_cents"]) for r in table) == WIN
    assert table[0]["cards"] == "7D 9S 7C 7D 9H 5C 7D KS"
    # Pit supervisors do not export rounds.
    refused = request(
        floor.monitor.url, f"/search.csv?table={TABLE}", cookies={"floor_session": floor.pat}
    )
    assert refused.status == 403
