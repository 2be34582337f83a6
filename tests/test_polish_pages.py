"""Page defects from the review of docs/screenshots/*.png (polish pass): each test failed before its fix."""

from __future__ import annotations

import re
from pathlib import Path

from test_pages import login, strings

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "static" / "js"


def test_fight_page_says_1_manche_and_2_manches_not_manche_s_r18(app):
    client = app.test_client()
    login(client)
    said = strings(client.get("/fight").get_data(as_text=True))
    assert not [v for v in said.values() if "manche(s)" in v]
    assert said["rounds_one"] == "%(n)s manche" and said["rounds_n"] == "%(n)s manches"
    # fight.js picks the singular by the page's own rule for one (TB.one: 0 and 1 in French).
    assert 'TB.one(r[i]) ? "rounds_one" : "rounds_n"' in (JS / "fight.js").read_text(encoding="utf-8")
