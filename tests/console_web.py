"""What the console's tests share: a ``floor.toml`` for the console on the test servers,
headless Chromium (Debian's ``chromium`` and ``chromium-driver`` through selenium), and
logins over plain HTTP (the login form's token and its pre-login cookie included)."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.wait import WebDriverWait

from floor.auth import hash_password
from floor.config import FloorConfig, parse_floor_config
from floor.servers import Broker, Database, free_port, wait_for

PASSWORDS = {"sam": "surveil-1234", "pat": "pit-boss-1234"}
ROLES = {"sam": "surveillance", "pat": "pit_supervisor"}
SCREENSHOTS = os.environ.get("FLOOR_SCREENSHOTS")  # a directory: the docs' pictures


def console_config(
    directory: Path,
    broker: Broker,
    database: Database,
    *,
    client_id: str = "collector-console",
    casino: dict[str, Any] | None = None,
    conninfo: str | None = None,
    keys: dict[str, str] | None = None,
) -> FloorConfig:
    """A checked ``floor.toml`` for a collector and the console on these servers
    (``keys``: tables' verification keys as text)."""
    (directory / "session.key").write_text("k" * 48)
    return parse_floor_config(
        {
            "broker": {
                "host": "127.0.0.1",
                "port": broker.port,
                "username": "collector",
                "password_file": str(broker.password_file("collector")),
                "ca_file": str(broker.ca_file),
                "client_id": client_id,
            },
            "database": {"conninfo": conninfo or database.conninfo},
            "monitor": {
                "port": free_port(),
                "session_key_file": "session.key",
                "silent_after_seconds": 30,
                "users": {
                    name: {"role": ROLES[name], "password_hash": hash_password(pw, n=2**12)}
                    for name, pw in PASSWORDS.items()
                },
            },
            **({"casino": casino} if casino else {}),
            "tables": {t: {"verify_key": k} for t, k in (keys or {}).items()},
        },
        directory / "floor.toml",
    )


def monitor_config(directory: Path, conninfo: str, *, listen: str = "127.0.0.1") -> FloorConfig:
    """A checked ``floor.toml`` for the console alone on the database ``conninfo`` (no
    broker: the console never reaches it), with the users of :data:`PASSWORDS`."""
    (directory / "session.key").write_text("k" * 48)
    (directory / "broker.pw").write_text("unused: the console never reaches the broker")
    return parse_floor_config(
        {
            "broker": {
                "host": "127.0.0.1",
                "tls": False,
                "username": "collector",
                "password_file": "broker.pw",
            },
            "database": {"conninfo": conninfo},
            "monitor": {
                "listen": listen,
                "port": free_port(),
                "session_key_file": "session.key",
                "users": {
                    name: {"role": ROLES[name], "password_hash": hash_password(pw, n=2**12)}
                    for name, pw in PASSWORDS.items()
                },
            },
        },
        directory / "floor.toml",
    )


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Replaces conftest's per-test check in a console module: its servers, event streams
    and browser live across the module's tests by design (one server, one browser);
    :func:`nothing_left_after_the_module` checks them at the end."""
    yield


@pytest.fixture(scope="module", autouse=True)
def nothing_left_after_the_module() -> Iterator[None]:
    """No thread of the module's servers, collector, shipper or browser outlives it."""
    before = set(threading.enumerate())
    yield
    assert wait_for(lambda: not (set(threading.enumerate()) - before), 10), [
        t.name for t in set(threading.enumerate()) - before
    ]


def write_console_toml(
    directory: Path, broker: Broker, database: Database, port: int, *, n: int = 2**12
) -> Path:
    """A ``floor.toml`` file for ``dealer-station floor collect`` and ``floor serve`` on
    these servers (password hashes with scrypt's ``n``)."""
    (directory / "session.key").write_text("k" * 48)
    users = "".join(
        f'[monitor.users.{name}]\nrole = "{ROLES[name]}"\n'
        f'password_hash = "{hash_password(pw, n=n)}"\n'
        for name, pw in PASSWORDS.items()
    )
    path = directory / "floor.toml"
    path.write_text(
        f'[broker]\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "collector"\n'
        f'password_file = "{broker.password_file("collector")}"\n'
        f'ca_file = "{broker.ca_file}"\nclient_id = "collector-{port}"\n'
        f'[database]\nconninfo = "{database.conninfo}"\n'
        f'[monitor]\nport = {port}\nsession_key_file = "session.key"\n{users}',
        encoding="utf-8",
    )
    return path


def serve_process(config: Path, port: int) -> subprocess.Popen[bytes]:
    """``dealer-station floor serve --config FILE`` (listening on ``port``) as a child
    process; returns once it answers (its output goes to ``FILE.serve.log``)."""
    with config.with_suffix(".serve.log").open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "controller.cli.main", "floor", "serve", "--config",
             str(config)],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"

    def answers() -> bool:
        try:
            return request(url, "/login", timeout=2).status == 200
        except OSError:
            return process.poll() is not None

    assert wait_for(answers, 30) and process.poll() is None, config.with_suffix(".serve.log")
    return process


def chromium(width: int = 1440, height: int = 900) -> webdriver.Chrome:
    """Headless Chromium (as root it needs ``--no-sandbox``)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(
        service=Service(executable_path="/usr/bin/chromedriver"), options=options
    )
    driver.get("about:blank")
    return driver


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    """One headless Chromium for the module."""
    driver = chromium()
    yield driver
    driver.quit()


def log_in(driver: webdriver.Chrome, url: str, user: str) -> None:
    """Log in through the form; returns on the live grid."""
    driver.delete_all_cookies()
    driver.get(url + "login")
    driver.find_element(By.NAME, "user").send_keys(user)
    driver.find_element(By.NAME, "password").send_keys(PASSWORDS[user])
    driver.find_element(By.ID, "login").click()
    WebDriverWait(driver, 10).until(ec.presence_of_element_located((By.ID, "grid")))


def screenshot(driver: webdriver.Chrome, name: str) -> None:
    """Save the page as ``FLOOR_SCREENSHOTS/NAME.png`` when that variable names a directory."""
    if SCREENSHOTS:
        driver.save_screenshot(str(Path(SCREENSHOTS) / f"{name}.png"))


def no_script_errors(driver: webdriver.Chrome) -> list[str]:
    """The browser console's errors since the last call (a CSP violation is one)."""
    return [
        e["message"]
        for e in driver.get_log("browser")
        if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
    ]


# --- plain HTTP ------------------------------------------------------------------------------


def cookie_attributes(headers: Mapping[str, list[str]], name: str) -> dict[str, str]:
    """The attributes of the ``Set-Cookie`` among ``headers`` (lower-case names) that names
    ``name``: lower-case keys, the value under ``value``, a flag as ``yes``."""
    for header in headers.get("set-cookie", []):
        first, *rest = [part.strip() for part in header.split(";")]
        if first.partition("=")[0] == name:
            found = {"value": first.partition("=")[2]}
            for part in rest:
                key, _, value = part.partition("=")
                found[key.lower()] = value or "yes"
            return found
    raise AssertionError(f"no Set-Cookie for {name}: {headers.get('set-cookie')}")


class Answer:
    """An HTTP answer: status, headers (lower-case names), body."""

    def __init__(self, status: int, headers: dict[str, list[str]], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8", "replace")

    def cookie(self, name: str) -> str | None:
        """The value a ``Set-Cookie`` gives ``name``."""
        for header in self.headers.get("set-cookie", []):
            key, _, rest = header.partition("=")
            if key.strip() == name:
                return rest.split(";")[0]
        return None


def request(
    url: str,
    path: str,
    *,
    method: str = "GET",
    cookies: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
    limit: int = 1 << 20,
    source: str | None = None,
) -> Answer:
    """One HTTP request to the console (no redirect followed), from the loopback address
    ``source`` if given."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1",
        parts.port,
        timeout=timeout,
        source_address=(source, 0) if source else None,
    )
    sent = dict(headers or {})
    if cookies:
        sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    if form is not None:
        body = urllib.parse.urlencode(form).encode()
    if body is not None:
        sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
    try:
        conn.request(method, path, body=body, headers=sent)
        answer = conn.getresponse()
        found: dict[str, list[str]] = {}
        for key, value in answer.getheaders():
            found.setdefault(key.lower(), []).append(value)
        return Answer(answer.status, found, answer.read(limit))
    finally:
        conn.close()


def login_form(url: str, source: str | None = None) -> tuple[str, str]:
    """``(pre-login cookie, form token)`` of a fresh login form."""
    answer = request(url, "/login", source=source)
    cookie = answer.cookie("floor_login")
    token = re.search(r'name="form_token" value="([0-9a-f]+)"', answer.text)
    assert cookie and token, answer.text[:300]
    return cookie, token[1]


def http_login(
    url: str, user: str, password: str | None = None, source: str | None = None
) -> tuple[int, str | None]:
    """Log in over HTTP (from the loopback address ``source``): ``(status, session cookie or
    None)``."""
    cookie, token = login_form(url, source)
    answer = request(
        url,
        "/login",
        method="POST",
        source=source,
        cookies={"floor_login": cookie},
        form={"user": user, "password": PASSWORDS.get(user, "x") if password is None else password,
              "form_token": token},
    )  # fmt: skip
    return answer.status, answer.cookie("floor_session")


def page_token(answer: Answer) -> str:
    """The form token in a console page (for a logout or an acknowledgement)."""
    found = re.search(r'name="form_token" value="([0-9a-f]+)"', answer.text) or re.search(
        r'data-form-token="([0-9a-f]+)"', answer.text
    )
    assert found, answer.text[:300]
    return found[1]


class EventStream:
    """An open ``/events`` stream of the console on ``port`` read block by block (a block
    ends with a blank line)."""

    def __init__(self, port: int, cookie: str, host: str = "127.0.0.1") -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=20)
        self.conn.request("GET", "/events", headers={"Cookie": f"floor_session={cookie}"})
        self.answer = self.conn.getresponse()

    def block(self) -> str:
        """The next block, without its blank line ("" at the end of the stream)."""
        lines: list[str] = []
        while True:
            line = self.answer.readline().decode()
            if line in ("", "\n"):
                return "".join(lines).rstrip("\n")
            lines.append(line)

    def close(self) -> None:
        self.conn.close()
