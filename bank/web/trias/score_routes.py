"""The Trias score calculator and the Trias print downloads (blueprint "trias_score", under /trias).

/trias/score: a physical game ends with no record; the table types in each land
mass's tiles and herds and gets the final scoring of T18 and the winners of T19,
with the arithmetic. The scoring itself is trias/calculator.py; this file only
parses, calls and replies. /trias/print/*.pdf: the set-up map, score sheet and
player aid of printables/. Both need no log-in: they reveal
nothing a table does not already have (a stored game's map never shows its seed).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from trias import TriasError
from trias.calculator import score_description

from bank.web.access.auth import csrf_ok, csrf_token, error
from bank.web.body import BodyError, read_object
from bank.web.i18n import TRIAS_LANGUAGES, request_language, translate

bp = Blueprint("trias_score", __name__, url_prefix="/trias")
MAX_BODY = 16 * 1024  # 40 land masses of 5 players is about 4 KB
DOCUMENTS = ("setup", "score-sheet", "aid")


def page_lang() -> str:
    """The page's language (session), else the game's (French by default), as the templates' _() reads it."""
    return request_language()


def lang() -> str:
    """A download's language: ?lang=fr|en|it, else the page's."""
    asked = request.args.get("lang")
    return asked if asked in TRIAS_LANGUAGES else page_lang()


DEFAULT_NAMES = ("Black", "White", "Cross", "Grey", "Striped")  # the players' colours in the rules' examples


@bp.get("/score")
def score_page():
    """The calculator, with the default players' names in every language: a name left as it was given
    follows the page's language (score.js), one typed in stays."""
    every = {code: [translate(code, name) for name in DEFAULT_NAMES] for code in TRIAS_LANGUAGES}
    return render_template("trias/score.html", lang=page_lang(), csrf=csrf_token(), role=None, user=None,
                           default_names_every=every)


@bp.post("/api/score")
def score():
    """{land_masses: [{name, tiles, main?, herds: {player: n}}], stock?, interim?} -> the T18 table, T19 winners
    and the arithmetic in the page's language. A refused description: 400 with the calculator's code, its
    parameters and its English sentence; the page says it in its own language from its "error.<code>" strings
    (templates/trias/score.html), as the Trias board pages do with the engine's refusals."""
    if not csrf_ok():
        return error(403, "csrf_failed", "this page is out of date or came from elsewhere; reload it and try again")
    try:
        body = read_object(MAX_BODY, "score")
        return jsonify(score_description(body, page_lang()))
    except BodyError as exc:
        return error(exc.status, exc.code, exc.message)
    except TriasError as exc:
        return error(400, exc.code, exc.message, exc.params)


def _sentence(status: int, message: str) -> Response:
    """A download link's refusal: one plain sentence, readable in the browser tab that opened it."""
    return Response(message, status=status, mimetype="text/plain; charset=utf-8")


def _options(doc: str, args) -> dict:
    """trias_pack options from ?game=ID (its board and seat names), else ?players=N (&seed=S for the map).

    LookupError for an unknown game, ValueError for a bad parameter; each says what is wrong.
    """
    game_id = args.get("game")
    if game_id:
        games = current_app.extensions.get("trias_games")
        game = games.get(game_id[:40]) if games is not None else None
        if game is None:
            raise LookupError(f"there is no Trias game {game_id[:40]!r}: check the id on the game's board page")
        return {"event": game.table.base[0], "game": game.id, "names": [s["name"] for s in game.public_seats()]}
    players = args.get("players", "4" if doc == "setup" else "5")
    if players not in ("2", "3", "4", "5"):
        raise ValueError(f"players must be 2, 3, 4 or 5, not {players[:20]!r}")
    if doc != "setup":
        return {"players": int(players)}
    seed = args.get("seed", "")
    if not (seed.isdigit() and len(seed) <= 18):
        raise ValueError("give the game's seed as a whole number, e.g. /trias/print/setup.pdf?players=4&seed=7, "
                         "or a stored game's id with ?game=")
    return {"players": int(players), "seed": int(seed)}


@bp.get("/print/<doc>.pdf")
def print_document(doc: str):
    """setup.pdf (?players&seed, ?paper=a3), score-sheet.pdf (?players), aid.pdf; ?lang=fr|en; ?game=ID
    gives a stored game's board and seat names instead."""
    from printables import trias_pack  # ReportLab: loaded on the first print, not on every start

    if doc not in DOCUMENTS:
        return _sentence(404, f"Trias documents: {', '.join(d + '.pdf' for d in DOCUMENTS)}")
    paper = request.args.get("paper", "a4")
    if paper not in ("a4", "a3"):
        return _sentence(400, f"paper must be a4 or a3, not {paper[:20]!r}")
    try:
        options = _options(doc, request.args) if doc != "aid" else {}
    except LookupError as exc:
        return _sentence(404, exc.args[0])
    except ValueError as exc:
        return _sentence(400, str(exc))
    name, render = trias_pack.documents(lang(), paper=paper, **options)[doc]
    return Response(render(), mimetype="application/pdf",
                    headers={"Content-Disposition": f"attachment; filename={name}"})
