#!/usr/bin/env python3
"""The print pack's pictures for the README and docs, for docs/print/.

Renders every printable to PDF in a temporary folder (the pack of printables/pack.py on a
game played by tests/printkit.py's play_sample for the report, with the six long, emoji team
names of tests/print_names_kit.py; the game-state sheet and
continuation ledgers on the seeded hour of bench/web/field/screenshots.py, a game still
running; the report's chart and story on the game day of tests/report_game_kit.py; the Trias
documents of printables/trias_pack.py), then turns the pages the README
shows into PNGs with pdftoppm, each at a resolution that keeps it near 100-200 KB:
A4 pages at 70 dpi, A3 at 50, the Trias sheets at 80, a join card cut out of its sheet at 115.

    .venv/bin/python bench/printables/print_pngs.py [--out docs/print] [--keep-pdfs DIR]

Needs pdftoppm (Debian: apt-get install poppler-utils) and the test helpers in tests/.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "web" / "field"))  # screenshots: the seeded hour

LANG = "fr"  # the pack's default language, as a French facilitator prints it
BASE = "http://192.168.4.1:5000"
WIFI = ("Terrabank", "sol-vert-42")
MM_PER_INCH = 25.4

# PNG name -> (PDF name, page, dpi). The names are those README.md and docs/ show; the last
# four are the paper takeover and the Italian player aid.
PAGES = {
    "cards-front.png": ("cards-fr.pdf", 1, 70),
    "cards-back.png": ("cards-fr.pdf", 2, 70),
    "team-board-1.png": ("team-boards-fr.pdf", 1, 70),
    "team-board-2.png": ("team-boards-fr.pdf", 2, 70),
    "rules-summary.png": ("rules-summary-fr.pdf", 1, 70),
    "bonus-dice-nets.png": ("bonus-dice-fr.pdf", 1, 70),
    "bonus-dice-stickers.png": ("bonus-dice-fr.pdf", 2, 70),
    "bank-summary.png": ("bank-sheets-fr.pdf", 1, 70),
    "bank-ledger.png": ("bank-sheets-fr.pdf", 2, 70),
    "tracks-board.png": ("shared-boards-a3-fr.pdf", 1, 50),
    "animals-board.png": ("shared-boards-a3-fr.pdf", 2, 50),
    "tracks-half-1.png": ("shared-boards-a4-halves-fr.pdf", 1, 70),
    "tracks-half-2.png": ("shared-boards-a4-halves-fr.pdf", 2, 70),
    "score-track.png": ("score-track-fr.pdf", 1, 50),
    "exchange-rate-sign.png": ("exchange-rate-sign-fr.pdf", 1, 70),
    "event-sheet.png": ("event-sheet-fr.pdf", 1, 70),
    "report-1.png": ("report-fr.pdf", 1, 70),
    "report-2.png": ("report-fr.pdf", 2, 70),
    "report-chart.png": ("report-game-day-fr.pdf", 1, 70),
    "report-story.png": ("report-game-day-fr.pdf", 2, 70),
    "trias-setup.png": ("trias-setup-4p-seed-7-a4-fr.pdf", 1, 80),
    "trias-score-sheet.png": ("trias-score-sheet-fr.pdf", 1, 80),
    "trias-aid.png": ("trias-aid-fr.pdf", 1, 80),
    "game-state.png": ("game-state-fr.pdf", 1, 70),
    "continuation-ledger.png": ("continuation-ledgers-fr.pdf", 1, 70),
    "bank-down.png": ("bank-down-fr.pdf", 1, 70),
    "trias-aid-it.png": ("trias-aid-it.pdf", 1, 80),
}
JOIN_CARD = ("join-card.png", "join-cards-fr.pdf", 115)  # the first card of the sheet, cut on its trim line


def ended_game(folder: Path, config):
    """The short game of tests/printkit.py, played to its end: what the report tells."""
    from printkit import play_sample

    from bank.services.bank import Bank

    bank = Bank.create(folder / "ended.db", config)
    play_sample(bank)
    return bank


def running_game(folder: Path, config):
    """bench/web/field/screenshots.py's hour of play (an event open, a pirate waiting), still running: (bank, now)."""
    from screenshots import seed

    from bank.services.bank import Bank

    bank = Bank.create(folder / "running.db", config)
    seed(SimpleNamespace(extensions={"terrabank": SimpleNamespace(bank=bank)}))
    return bank, time.time()


def game_day_report(folder: Path) -> bytes:
    """The game day's report (tests/report_game_kit.py): the six emoji teams, corrections with long reasons,
    12 moves typed in from the paper ledgers of which 2 were undone as duplicates: what the chart and the story tell."""
    from print_names_kit import GAME_DAY_NAMES, config_with_teams
    from report_game_kit import LONG_REASONS, Plan, play

    from bank.services.bank import Bank
    from printables.report import render_report

    plan = Plan(GAME_DAY_NAMES, LONG_REASONS, LONG_REASONS[0], paper_moves=12, paper_undone=2, lang=LANG)
    config = config_with_teams(plan.names)
    bank = Bank.create(folder / "game-day.db", config)
    try:
        play(bank, config, plan)
        return render_report(bank, LANG)
    finally:
        bank.close()


def render_all(folder: Path) -> None:
    """Every printable as a PDF in `folder`."""
    from bank.game.config import parse_config
    from bank.store.accounts.access import team_token
    from printables import pack, trias_pack
    from printables.state_data import snapshot
    from printables.state_ledger import render_ledgers
    from printables.state_sheet import render_state

    from print_names_kit import GAME_DAY_NAMES, config_text_with_teams

    # The game day's six teams: long, accented names with emoji, as a lead types them (tests/print_names_kit.py).
    config = parse_config(config_text_with_teams(GAME_DAY_NAMES), "config.toml with the game day's teams")
    urls = {team: f"{BASE}/t/{team_token()}" for team in config.teams}
    ended = ended_game(folder, config)
    for filename, render in pack.documents("all", config, LANG, bank=ended, team_urls=urls, base=BASE, wifi=WIFI):
        (folder / filename).write_bytes(render())
    ended.close()
    running, now = running_game(folder, config)
    snap = snapshot(running.state, config, now, running.last_seq, now, chain_head=running.head_at(running.last_seq),
                    game=running.game_mark())  # each ledger's id with its check, as the bank prints it
    running.close()
    (folder / f"game-state-{LANG}.pdf").write_bytes(render_state(snap, config, LANG))
    (folder / f"continuation-ledgers-{LANG}.pdf").write_bytes(render_ledgers(snap, config, LANG))
    (folder / f"report-game-day-{LANG}.pdf").write_bytes(game_day_report(folder))
    for lang, options in ((LANG, {"players": 4, "seed": 7}), ("it", {})):
        for filename, render in trias_pack.documents(lang, **options).values():
            (folder / filename).write_bytes(render())


def to_png(pdf: Path, page: int, dpi: int, png: Path, crop: tuple | None = None) -> None:
    """One page of `pdf` as `png` (pdftoppm names its output itself: render beside, then move)."""
    stem = png.with_suffix("")
    command = ["pdftoppm", "-r", str(dpi), "-f", str(page), "-l", str(page), "-png", "-singlefile"]
    if crop:
        command += ["-x", str(crop[0]), "-y", str(crop[1]), "-W", str(crop[2]), "-H", str(crop[3])]
    subprocess.run([*command, str(pdf), str(stem)], check=True)


def join_card_crop(dpi: int) -> tuple:
    """(x, y, width, height) in pixels of the join sheet's first card (printables/join.py's layout)."""
    from printables import geometry as geo
    from printables.join import CARD_HEIGHT, JOIN_CARD as CARD

    size = geo.paper_size("a4")
    trim = geo.impose(size, (CARD[0], CARD_HEIGHT["a4"]), bleed=0, gutter=6, margin=7, safe=5).slots[0].trim
    px = dpi / MM_PER_INCH
    # PDF boxes count from the bottom; pixels from the top. One pixel of margin keeps the card's outline.
    return (round(trim.x * px) - 1, round((size[1] - trim.top) * px) - 1, round(trim.w * px) + 3, round(trim.h * px) + 3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "print")
    parser.add_argument("--keep-pdfs", type=Path, help="also copy the PDFs rendered here")
    args = parser.parse_args(argv)
    if shutil.which("pdftoppm") is None:
        raise SystemExit("pdftoppm is missing: apt-get install poppler-utils")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="print-pngs-") as tmp:
        folder = Path(tmp)
        render_all(folder)
        for png, (pdf, page, dpi) in PAGES.items():
            to_png(folder / pdf, page, dpi, args.out / png)
        png, pdf, dpi = JOIN_CARD
        to_png(folder / pdf, 1, dpi, args.out / png, join_card_crop(dpi))
        if args.keep_pdfs:
            args.keep_pdfs.mkdir(parents=True, exist_ok=True)
            for pdf in folder.glob("*.pdf"):
                shutil.copy(pdf, args.keep_pdfs / pdf.name)
    for png in [*PAGES, JOIN_CARD[0]]:
        print(f"{args.out / png}  {(args.out / png).stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
