"""Join cards (Wi-Fi and team page QR codes) and the big-screen poster."""

from __future__ import annotations

import pytest
from printkit import all_text, page_count, page_sizes_mm, pages_text, scan_qr_codes

from printables import join
from printables.join import render_join, render_poster, team_url, wifi_payload

URLS = {"blue": "http://10.0.0.1:5000/t/tok-blue", "yellow": "http://10.0.0.1:5000/t/tok-yellow",
        "red": "http://10.0.0.1:5000/t/tok-red", "green": "http://10.0.0.1:5000/t/tok-green"}


def test_wifi_payload_is_the_standard_format():
    assert wifi_payload("Terrabank", "sol-vert-42") == "WIFI:T:WPA;S:Terrabank;P:sol-vert-42;;"


def test_wifi_payload_escapes_reserved_characters():
    assert wifi_payload('my;net', 'a:b,c"d\\e') == 'WIFI:T:WPA;S:my\\;net;P:a\\:b\\,c\\"d\\\\e;;'


def test_an_open_network_has_no_password():
    assert wifi_payload("Field") == "WIFI:T:nopass;S:Field;;"
    with pytest.raises(ValueError, match="ssid"):
        wifi_payload("", "secret")


def test_team_url_joins_base_and_token():
    assert team_url("http://10.0.0.1:5000/", "abc") == "http://10.0.0.1:5000/t/abc"


def test_join_cards_are_reproducible(config):
    assert render_join(config, URLS, "en", ("Net", "pw")) == render_join(config, URLS, "en", ("Net", "pw"))


def test_four_join_cards_on_one_a4_sheet(config):
    pdf = render_join(config, URLS, "en", ("Terrabank", "sol-vert-42"))
    assert page_count(pdf) == 1 and page_sizes_mm(pdf) == [(210, 297)]
    text = pages_text(pdf)[0]
    assert [line for line in text if line in ("Blue", "Yellow", "Red", "Green")] == ["Blue", "Yellow", "Red", "Green"]
    assert "Network: Terrabank" in text and "Password: sol-vert-42" in text


def test_qr_codes_carry_the_wifi_and_each_team_page(config, monkeypatch):
    seen = []
    monkeypatch.setattr(join, "qr", lambda c, payload, *a, **k: seen.append(payload))
    render_join(config, URLS, "fr", ("Terrabank", "sol-vert-42"))
    assert seen == ["WIFI:T:WPA;S:Terrabank;P:sol-vert-42;;", URLS["blue"]] + \
        [p for team in ("yellow", "red", "green") for p in ("WIFI:T:WPA;S:Terrabank;P:sol-vert-42;;", URLS[team])]


def test_without_wifi_the_card_says_whom_to_ask(config, monkeypatch):
    seen = []
    monkeypatch.setattr(join, "qr", lambda c, payload, *a, **k: seen.append(payload))
    text = all_text(render_join(config, {"red": URLS["red"]}, "en"))
    assert "Ask the facilitators for the Wi-Fi." in text and seen == [URLS["red"]]


def test_the_team_address_is_printed_for_typing(config):
    lines = pages_text(render_join(config, {"blue": URLS["blue"]}, "en"))[0]
    assert URLS["blue"] in "".join(lines)


def test_an_unknown_team_is_refused(config):
    with pytest.raises(ValueError, match="purple"):
        render_join(config, {"purple": "http://x/t/1"})


def test_poster_shows_the_big_screen_address(config):
    pdf = render_poster(config, "http://10.0.0.1:5000/display", "en")
    assert page_sizes_mm(pdf) == [(297, 210)]
    assert "http://10.0.0.1:5000/display" in all_text(pdf)
    assert render_poster(config, "http://x/display") == render_poster(config, "http://x/display")


def test_printed_join_codes_scan(config, tmp_path):
    pdf = render_join(config, {"green": URLS["green"]}, "en", ("Terra;bank", "sol-vert-42"))
    assert scan_qr_codes(pdf, tmp_path) == sorted([URLS["green"], "WIFI:T:WPA;S:Terra\\;bank;P:sol-vert-42;;"])
