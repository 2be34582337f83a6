"""The print pack: which PDFs each kind writes, under fixed safe names, inside one folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .bank_sheets import render_bank_sheets
from .boards import render_team_boards
from .cards import render_cards
from .commons import render_common
from .dice import render_dice
from .geometry import paper_size
from .game_aids import render_event_sheet, render_rate_sign, render_score_track
from .join import render_join, render_poster
from .labels import check_language
from .report import render_report
from .rules_summary import render_rules_summary
from .state_procedure import render_bank_down

# boards: each team's own A4 boards, the players' rules page, the bonus dice; sheets: the shared boards at
# the bank (A3, and two A4 halves each), the score track (A3, and two A4 halves), the rate sign, the event
# sheet, the bank's summary. With paper "letter", everything but the A3 boards is laid out for US Letter.
KINDS = ("cards", "boards", "sheets", "join", "report", "all")
SAFE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*\.pdf$")


def safe_path(out_dir, filename: str) -> Path:
    """`out_dir/filename`, refusing any name that could leave the folder."""
    if not SAFE_NAME.match(filename):
        raise ValueError(f"unsafe output file name {filename!r}")
    folder = Path(out_dir).resolve()
    path = (folder / filename).resolve()
    if path.parent != folder:
        raise ValueError(f"{filename!r} would be written outside {folder}")
    return path


# PDFs that carry a secret: each team's link (whoever holds it plays for that team), the Wi-Fi
# password, and the game state (every team's stock, which the rules keep private). Readable by their
# owner only, like the game file; the rest of the pack is for everyone.
SECRET_PREFIXES = ("join-cards-", "big-screen-poster-", "game-state-")  # the state: every team's stock


def write(out_dir, filename: str, data: bytes) -> Path:
    """Write a PDF atomically (a reader never sees half a file); returns its path."""
    path = safe_path(out_dir, filename)
    tmp = path.with_name(f".{path.name}.tmp")
    mode = 0o600 if filename.startswith(SECRET_PREFIXES) else 0o644
    if tmp.exists():
        tmp.unlink()  # left by a print that was stopped: its mode may be wider than this file's
    # Created with its mode (and the umask may only narrow it): never readable by others, not even for a moment.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def documents(kind: str, config, lang: str, *, bank=None, team_urls=None, base=None, wifi=None,
              paper: str = "a4") -> list:
    """(file name, render function) pairs for `kind`; rendering happens only when called.

    `paper` ("a4" or "letter") is the sheet every printable is laid out for; the A3
    boards and score track stay A3, and their halves come on `paper`. Letter files say so
    in their names, so an A4 pack and a Letter pack can share a folder.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    paper_size(paper)  # refuses an unknown paper before anything is rendered
    sheet = "" if paper == "a4" else f"{paper}-"
    halves = "a4-halves" if paper == "a4" else f"{paper}-halves"
    wanted = {"cards", "boards", "sheets", "join", "report"} if kind == "all" else {kind}
    docs = []
    if "cards" in wanted:
        docs.append((f"cards-{sheet}{lang}.pdf", lambda: render_cards(config, lang, paper=paper)))
    if "boards" in wanted:
        docs.append((f"team-boards-{sheet}{lang}.pdf", lambda: render_team_boards(config, lang, paper)))
        docs.append((f"rules-summary-{sheet}{lang}.pdf", lambda: render_rules_summary(config, lang, paper)))
        docs.append((f"bonus-dice-{sheet}{lang}.pdf", lambda: render_dice(config, lang, paper)))
    if "sheets" in wanted:
        docs.append((f"bank-sheets-{sheet}{lang}.pdf", lambda: render_bank_sheets(config, lang, paper)))
        docs.append((f"shared-boards-a3-{lang}.pdf", lambda: render_common(config, lang)))
        docs.append((f"shared-boards-{halves}-{lang}.pdf", lambda: render_common(config, lang, True, paper)))
        docs.append((f"score-track-{lang}.pdf", lambda: render_score_track(config, lang)))
        docs.append((f"score-track-{halves}-{lang}.pdf", lambda: render_score_track(config, lang, True, paper)))
        docs.append((f"exchange-rate-sign-{sheet}{lang}.pdf", lambda: render_rate_sign(config, lang, paper)))
        docs.append((f"event-sheet-{sheet}{lang}.pdf", lambda: render_event_sheet(config, lang, paper)))
        docs.append((f"bank-down-{sheet}{lang}.pdf", lambda: render_bank_down(config, lang, paper)))  # where paper takes over
    if "join" in wanted and team_urls:
        docs.append((f"join-cards-{sheet}{lang}.pdf", lambda: render_join(config, team_urls, lang, wifi, paper)))
    if "join" in wanted and base:
        docs.append((f"big-screen-poster-{sheet}{lang}.pdf",
                     lambda: render_poster(config, f"{base.rstrip('/')}/display", lang, paper)))
    if "report" in wanted and bank is not None:
        docs.append((f"report-{sheet}{lang}.pdf", lambda: render_report(bank, lang, paper)))
    return docs


def build(kind: str, out_dir, config, lang: str | None = None, *, bank=None, team_urls: dict | None = None,
          base: str | None = None, wifi: tuple | None = None, paper: str | None = None) -> list:
    """Write the PDFs of `kind` into `out_dir` (created if needed); returns the paths written.

    Join cards need `team_urls` ({team: phone page URL}), the poster `base`, the
    report an open `bank`; with kind "all" what lacks its input is skipped.
    """
    lang = check_language(lang or config.language)
    if kind == "join" and not (team_urls or base):
        raise ValueError("join cards need each team's phone page address, and the poster the bank's address")
    if kind == "report" and bank is None:
        raise ValueError("the report needs a game: open the bank's database")
    paper = paper or getattr(config, "print_paper", "a4")
    docs = documents(kind, config, lang, bank=bank, team_urls=team_urls, base=base, wifi=wifi, paper=paper)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return [write(out_dir, filename, render()) for filename, render in docs]
