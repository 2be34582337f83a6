"""The Trias print pack: set-up map, score sheet, player aid, under fixed safe names."""

from __future__ import annotations

from pathlib import Path

from .trias_words import check_language  # French, English or Italian (the field game's: no Italian)
from .pack import write
from .trias_setup import PAGES, render_setup
from .trias_sheets import render_aid, render_score_sheet

DOCUMENTS = ("setup", "score-sheet", "aid")


def documents(lang: str, *, players: int | None = None, seed=None, event: dict | None = None,
              game: str | None = None, paper: str = "a4", names: list | None = None) -> dict:
    """{document: (file name, render function)}; the set-up map only with a seed or a stored game's set-up.

    `names`: the seats' names, written at the head of the score sheet's columns.
    """
    lang = check_language(lang)
    if paper not in PAGES:
        raise ValueError(f"paper must be a4, a3 or letter, not {paper!r}")
    count = event["players"] if event is not None else players
    docs = {}
    if event is not None:
        docs["setup"] = (f"trias-setup-{game}-{paper}-{lang}.pdf",
                         lambda: render_setup(lang=lang, paper=paper, game=game, event=event))
    elif seed is not None:
        docs["setup"] = (f"trias-setup-{players}p-seed-{seed}-{paper}-{lang}.pdf",
                         lambda: render_setup(players, seed, lang, paper))
    # The score sheet and the aid come on Letter with a Letter map, else on A4 (an A3 map's table has A4 too).
    sheet = "letter" if paper == "letter" else "a4"
    tag = "letter-" if sheet == "letter" else ""
    docs["score-sheet"] = (f"trias-score-sheet-{tag}{lang}.pdf", lambda: render_score_sheet(lang, count or 5, names, sheet))
    docs["aid"] = (f"trias-aid-{tag}{lang}.pdf", lambda: render_aid(lang, sheet))
    return docs


def build(out_dir, lang: str, **options) -> list:
    """Write the Trias documents into `out_dir` (created if needed); returns the paths written."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return [write(out_dir, name, render()) for name, render in documents(lang, **options).values()]
