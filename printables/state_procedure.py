"""The 'bank down' page: what the lead does, step by step, when the bank machine stops.

One page, in French or English, for the kit box beside the bank summary: where the last game
state is, how the game goes on with the continuation ledgers, and how the moves come back
as entries (the admin page's batch form) once the machine is back.
"""

from __future__ import annotations

from . import geometry as geo
from .drawing import BOLD, FONT, GREY, INK, LIGHT, PT, finish, new_canvas, page, paragraph, text, wrap
from .geometry import Box
from .labels import check_language, typo
from .state_syntax import examples, names, notes

MARGIN = 14.0

STEPS = {
    "fr": {
        "title": "Banque en panne : la partie continue sur papier",
        "intro": "La banque ne répond plus (écran noir, page qui ne charge pas, coupure de courant). "
                 "Le jeu ne s'arrête pas : les banquiers continuent sur papier, l'animateur principal suit ces étapes.",
        "steps": [
            ("Noter l'heure", "Notez l'heure de la panne. Annoncez-la aux animateurs : « on passe au papier ». "
                              "Les joueurs continuent de jouer."),
            ("Prendre le dernier état", "La feuille « État de la partie » la plus récente : imprimée depuis la page "
                                        "Animation si la banque répond encore ; sinon le dernier PDF écrit par la banque "
                                        "dans le dossier indiqué sur la page Pilotage (à côté du fichier de la partie, "
                                        "à lire depuis un autre ordinateur), ou la feuille imprimée à la fin de la session."),
            ("Distribuer les registres de reprise", "Un registre par équipe, qui part des totaux de cet état (même fichier "
                                                     "PDF, pages suivantes). À défaut : un registre papier vierge, où vous "
                                                     "recopiez la ligne de l'équipe de l'état."),
            ("Tenir les registres", "Une ligne par mouvement, écrite comme elle sera saisie : « {A} récolte {r1} 2 », "
                                    "« {A} construit {building} », « {A} piste {t1} 1 ». Puis + reçu ou - payé et le "
                                    "nouveau total, sur la ligne numérotée suivante. Échange ou combat : sur les deux registres, compté une fois."),
            ("Appliquer les règles à la main", "Les prix et les règles sont dans l'aide-mémoire de la banque. L'état dit "
                                               "combien chaque équipe récolte, les niveaux des pistes, le taux, les options "
                                               "et les événements ouverts. Avancez les pistes sur le plateau commun."),
            ("Garder l'heure", "L'animateur principal suit l'horloge à sa montre depuis l'heure de jeu de l'état. "
                               "La banque ne compte pas le temps de la panne : à son retour, terminez la session ou la "
                               "partie à la main si l'heure est passée."),
            ("Au retour de la banque", "Page Pilotage : si l'horloge est en pause, appuyez sur Reprendre (sinon les "
                                       "mouvements sont refusés). Dans « Reprise depuis le papier », tapez chaque registre : "
                                       "son identifiant en haut à droite, avec sa clé (« feuille\u00a0143A-K7 », « feuille\u00a0143A-K7/2 » "
                                       "pour sa 2e copie), puis ses lignes avec leur numéro (« 1 {A} récolte {r1} 2 »), puis Saisir."),
            ("Lire les refus", "Chaque ligne refusée est dite avec sa raison ; les autres sont enregistrées. Corrigez "
                               "la ligne et renvoyez tout le texte : une ligne numérotée d'une feuille n'est jamais "
                               "enregistrée deux fois, même renvoyée depuis un autre appareil. Ce qu'une console restée ouverte a gardé, "
                               "elle l'envoie seule au retour de la banque : sa ligne est dite « déjà enregistré ». Une feuille refusée comme "
                               "« d'une autre partie » (une répétition) : rien n'est enregistré, mettez-la de côté."),
            ("Comparer les totaux", "Comparez le stock de chaque équipe (console) au dernier total de son registre. "
                                    "Les dés tirés sur papier ne sont pas ceux de la banque : corrigez par une ligne "
                                    "« {A} compte 3 {r1} 2 {r2} » (inventaire)."),
            ("Repartir", "Imprimez un nouvel « État de la partie » et rangez les registres avec lui."),
        ],
        "syntax": "Les mouvements, tels qu'ils se tapent",
    },
    "en": {
        "title": "Bank down: the game goes on on paper",
        "intro": "The bank no longer answers (black screen, a page that will not load, a power cut). The game does "
                 "not stop: the bankers go on on paper, the lead facilitator follows these steps.",
        "steps": [
            ("Note the time", "Note when the bank stopped. Tell the facilitators: 'we go to paper'. The players "
                              "keep playing."),
            ("Take the latest state", "The most recent 'Game state' sheet: printed from the admin page if the bank "
                                      "still answers; otherwise the last PDF the bank wrote in the folder the admin page "
                                      "names (beside the game file, read from another computer), or the sheet printed at "
                                      "the end of the session."),
            ("Hand out the continuation ledgers", "One ledger per team, starting from that state's totals (same PDF, "
                                                  "next pages). Failing that: a blank paper ledger, where you copy the "
                                                  "team's line from the state."),
            ("Keep the ledgers", "One line per move, written as it will be typed: '{A} harvest {r1} 2', '{A} build "
                                 "{building}', '{A} track {t1} 1'. Then + received or - paid and the new total, on the next numbered line. "
                                 "A trade or a fight: on both ledgers, counted once."),
            ("Apply the rules by hand", "Prices and rules are in the bank's quick reference. The state says how much each "
                                        "team harvests, the tracks' levels, the rate, the options and the open events. "
                                        "Move the tracks on the shared board."),
            ("Keep the time", "The lead follows the clock on a watch from the state's game time. The bank does not "
                              "count the time it was down: when it is back, end the session or the game by hand if "
                              "the time is up."),
            ("When the bank is back", "Admin page: if the clock is paused, press Resume (moves are refused otherwise). "
                                      "In 'Re-entry from paper', type each ledger: its id at the top right "
                                      "with its check ('sheet\u00a0143A-K7', 'sheet\u00a0143A-K7/2' for its second copy), then its lines with their number "
                                      "('1 {A} harvest {r1} 2'), then Book them."),
            ("Read the refusals", "Each refused line is shown with its reason; the others are booked. Fix the line and "
                                  "send the whole text again: a sheet's numbered line is never booked twice, even sent "
                                  "again from another device. A move a console kept (its page left open) is sent by it when the bank is back: "
                                  "its line is answered 'already booked'. A sheet refused as "
                                  "'another game's' (a rehearsal's): nothing is booked, set it aside."),
            ("Compare the totals", "Compare each team's stock (console) with the last total on its ledger. Dice rolled "
                                   "on paper are not the bank's: correct with one line '{A} count 3 {r1} 2 {r2}' "
                                   "(inventory)."),
            ("Start again", "Print a new 'Game state' and file the ledgers with it."),
        ],
        "syntax": "The moves, as they are typed",
    },
}


def render_bank_down(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """One page, portrait, on A4 or Letter."""
    lang = check_language(lang or config.language)
    words = STEPS[lang]
    sheet = geo.paper_size(paper)
    c, buf = new_canvas(typo(lang, words["title"]))
    game_names = names(config, lang)  # the examples in the game's own names
    with page(c, sheet):
        x, width = MARGIN, sheet[0] - 2 * MARGIN
        y = sheet[1] - MARGIN
        text(c, typo(lang, words["title"]), x, y - 7, 17 * PT, BOLD, width=width)
        y -= 11
        y -= paragraph(c, typo(lang, words["intro"]), Box(x, y - 12, width, 12), 10 * PT, smallest=8.5 * PT) + 2
        for number, (head, body) in enumerate(words["steps"], 1):
            c.setFillColor(INK)
            c.circle(x + 3.2, y - 3.2, 3.2, stroke=0, fill=1)
            text(c, str(number), x + 3.2, y - 4.4, 10 * PT, BOLD, LIGHT, "centre")
            text(c, typo(lang, head), x + 9, y - 4.3, 11 * PT, BOLD, width=width - 9)
            y -= 5.8
            y -= paragraph(c, typo(lang, body.format(**game_names)), Box(x + 9, y - 16, width - 9, 16), 9.5 * PT, smallest=8.5 * PT) + 2.2
        _syntax(c, config, lang, words, Box(x, MARGIN, width, y - MARGIN))
    return finish(c, buf)


def _syntax(c, config, lang: str, words: dict, box: Box) -> None:
    """One example of each move form (state_syntax.py), in two columns, and how they are read."""
    c.setStrokeColor(GREY)
    c.setLineWidth(0.3)
    c.line(box.x, box.top, box.right, box.top)
    text(c, typo(lang, words["syntax"]), box.x, box.top - 4.8, 11 * PT, BOLD)
    used = paragraph(c, typo(lang, notes(lang)), Box(box.x, box.top - 16, box.w, 9), 9 * PT, FONT, GREY, smallest=8.5 * PT)
    top = box.top - 7.5 - used
    col_w = box.w / 2 - 2
    for size in (9 * PT, 8.5 * PT, 8 * PT):  # long team names wrap an example onto two rows, never below 8 pt
        wrapped = [wrap(line, FONT, size, col_w) for line in examples(config, lang)]
        total = sum(len(rows) for rows in wrapped)
        columns, rows_in = [[], []], 0
        for rows in wrapped:
            columns[int(rows_in >= (total + 1) // 2)].append(rows)
            rows_in += len(rows)
        tallest = max(sum(len(rows) for rows in column) for column in columns)
        row = min(4.4, (top - box.y) / tallest)
        if row >= size * 1.1:
            break
    for col, column in enumerate(columns):
        y = top - 3
        for rows in column:
            for part in rows:
                text(c, part, box.x + col * box.w / 2 + (2 if part is not rows[0] else 0), y, size, FONT, INK)
                y -= row
