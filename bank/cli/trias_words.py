"""The terminal game's words in English, French and Italian, with singular and plural ("1 tile", "2 tiles").

The Italian terms are the game's own: those of printables/trias_words.py and
trias/calculator.py (tessera, branco, continente, deriva, riserva, punti azione, Polo Sud...).
"""

from __future__ import annotations

from bank.web.i18n import translate
from trias.calculator import REFUSALS

NOUNS = {
    "en": {"tile": ("tile", "tiles"), "herd": ("herd", "herds"), "ap": ("action point", "action points"),
           "point": ("point", "points"), "card": ("card", "cards"), "place": ("place", "places"),
           "move": ("move", "moves"), "seat": ("seat", "seats")},
    "fr": {"tile": ("tuile", "tuiles"), "herd": ("troupeau", "troupeaux"), "ap": ("point d'action", "points d'action"),
           "point": ("point", "points"), "card": ("carte", "cartes"), "place": ("case", "cases"),
           "move": ("coup", "coups"), "seat": ("place", "places")},
    "it": {"tile": ("tessera", "tessere"), "herd": ("branco", "branchi"), "ap": ("punto azione", "punti azione"),
           "point": ("punto", "punti"), "card": ("carta", "carte"), "place": ("casella", "caselle"),
           "move": ("mossa", "mosse"), "seat": ("posto", "posti")},
}

# A hand may hold the Meteorite Impact too (T15): named, never shown as the engine's "meteorite".
KINDS = {"en": {"meteorite": "Meteorite Impact"},
         "fr": {"mountain": "montagne", "steppe": "steppe", "woods": "forêt", "pole": "pôle",
                "meteorite": "Impact de météorite"},
         "it": {"mountain": "Montagna", "steppe": "Steppa", "woods": "Bosco", "pole": "Polo Sud",
                "meteorite": "Impatto del meteorite"}}

PHASES = {"fr": {"place": "de mise en place", "start": "de départ", "drift": "de dérive", "actions": "d'actions"},
          "it": {"place": "di preparazione", "start": "iniziale", "drift": "di deriva", "actions": "delle azioni"}}

# The player who reads the screen: "You place", "Vous posez", "Tu piazzi".
YOU = {"en": "You", "fr": "Vous", "it": "Tu"}

WORDS = {
    "en": {
        "new_game": "New Trias game {id}: {names}. Type a move's number, u to undo, b for the board, q to stop.",
        "setup": "Set-up (T8): {name} places 2 herds on a vacant tile.",
        "setup_you": "Set-up (T8): you place 2 herds on a vacant tile.",
        "turn": "Turn {turn}{last}: {name} to play, phase {phase}, {ap}.",
        "turn_you": "Turn {turn}{last}: your turn, phase {phase}, {ap}.",
        "last_round": " (last round, T17)",
        "over": "The game is over.",
        "scores": "Scores: {list}",
        "hand": "Your hand: {card}.",
        "stock": "{herds} in stock",
        "your_move": "{name}, your move [1-{n}, u, b, q]: ",
        "your_pick": "{title} [1-{n}, 0 back, u, b, q]: ",
        "type_a_number": "Type a number from 1 to {n}, u, b or q.",
        "type_a_number_back": "Type a number from 1 to {n}, 0 to go back, u, b or q.",
        "taken_back": "Taken back.",
        "stopped": "Stopped. The game is kept: resume with `terrabank trias play {id}`.",
        "group_move": "move a herd ({n})",
        "group_reproduce": "a birth ({n})",
        "group_rescue": "rescue swimmers ({n})",
        "drift_tile": "drift {kind} {tile}{cost} ({n})",
        "play_drift_tile": "play your {card} card: drift {kind} {tile} ({n})",
        "pick_move": "Move which herd where",
        "pick_reproduce": "A birth where",
        "pick_rescue": "Rescue which swimmers",
        "pick_to": "Drift {kind} {tile} to",
        "to": "to {to} (distance {a} -> {b})",
        "cost3": ", 3 points",
        "map_legend": "Map: M mountain (holds 2), S steppe (3), W woods (4), P pole (3); digit: herds; ~ swimmers",
        "touches": "  a tile touches: left, right, up, up-right, down, down-left",
        "did": "{name}: {what}",
        "herds": "Herds: {list}",
        "swimming": "swimming",
        "masses_legend": "Land masses (* the main one, T18 scores the others):",
        "final": "Final scoring (T18), land masses other than the main one:",
        "mass_row": "  {letter}: {tiles} ({herds}): {got}",
        "nobody": "nobody",
        "no_herds": "no herds",
        "winner": "Winner (T19): {names}",
        "winners": "Winners (tied, T19): {names}",
        # `trias new`, `trias show` without an id (the list), and the command line's own refusals
        "created": "Created Trias game {id} ({mode}, {seats}, seed {seed}) in {where}.",
        "board_link": "Board (public, read only): {url}",
        "table_link": "Table (keep it private: undo, rematch, the seats' links): {url}",
        "seat_computer": "{i}. {name}: computer ({level})",
        "seat_link": "{i}. {name}: {url}",
        "seat_mirror": "{i}. {name}: recorded on the board page (mirror)",
        "no_games": "No Trias games in {where}: start one with `terrabank trias new` or `trias play`.",
        "listed_over": "over",
        "listed_turn": "turn {turn}, {phase}",
        "seats_twice": "give either --players or --seat, not both",
        "no_seats": "say who plays: --players N (2 to 5 people) or --seat NAME[:LEVEL] for each seat",
        "bad_opponents": "--opponents must be 1 to 4 (Trias is for 2 to 5 players)",
        "mirror_game": "game {id} mirrors a physical table; record its moves on the board page",
        "table_of": "Table of game {id} (keep it private: undo, rematch, the seats' links): {url}",
        "table_made_now": "This game had no table link (it was stored before them): this one was made now.",
        # what the command line says when a game is not found, `trias verify` finds it sound, or `trias score`'s
        # file cannot be read (the description's own mistakes: CALC below, calc_<code>)
        "unknown_game": "there is no Trias game {id} in {where} (latest: {known}); `terrabank trias show` lists them",
        "none_yet": "none yet",
        "chain_head": "journal chain head: {head} (entry {seq})",
        "cannot_read": "cannot read {path}: {why}; give the path of the JSON file that describes the land masses",
        "why_missing": "no such file",
        "why_folder": "it is a folder",
        "why_denied": "permission denied",
        "not_text": "{path} is not a UTF-8 text file; save the description as JSON text",
        "bad_json": "{path} is not valid JSON (line {line}, column {column}{detail}); correct the file there",
        "too_nested": "{path} is too deeply nested to be a description of land masses",
        "too_long_number": "{path} holds a number too long to be a count of tiles or herds",
    },
    "fr": {
        "new_game": "Nouvelle partie de Trias {id} : {names}. Tapez le numéro d'un coup, u pour annuler, "
                    "b pour le plateau, q pour arrêter.",
        "setup": "Mise en place (T8) : {name} pose 2 troupeaux sur une tuile libre.",
        "setup_you": "Mise en place (T8) : vous posez 2 troupeaux sur une tuile libre.",
        "turn": "Tour {turn}{last} : à {name} de jouer, phase {phase}, {ap}.",
        "turn_you": "Tour {turn}{last} : à vous de jouer, phase {phase}, {ap}.",
        "last_round": " (dernier tour, T17)",
        "over": "La partie est terminée.",
        "scores": "Scores : {list}",
        "hand": "Votre main : {card}.",
        "stock": "{herds} en réserve",
        "your_move": "{name}, votre coup [1-{n}, u, b, q] : ",
        "your_pick": "{title} [1-{n}, 0 retour, u, b, q] : ",
        "type_a_number": "Tapez un nombre de 1 à {n}, u, b ou q.",
        "type_a_number_back": "Tapez un nombre de 1 à {n}, 0 pour revenir, u, b ou q.",
        "taken_back": "Coup annulé.",
        "stopped": "Arrêt. La partie est gardée : reprenez-la avec `terrabank trias play {id}`.",
        "group_move": "déplacer un troupeau ({n})",
        "group_reproduce": "une naissance ({n})",
        "group_rescue": "sauver des nageurs ({n})",
        "drift_tile": "dériver {kind} {tile}{cost} ({n})",
        "play_drift_tile": "jouer votre carte {card} : dériver {kind} {tile} ({n})",
        "pick_move": "Quel troupeau, vers où",
        "pick_reproduce": "Une naissance où",
        "pick_rescue": "Quels nageurs sauver",
        "pick_to": "Dériver {kind} {tile} vers",
        "to": "vers {to} (distance {a} -> {b})",
        "cost3": ", 3 points",
        "map_legend": "Carte : M montagne (porte 2), S steppe (3), F forêt (4), P pôle (3) ; chiffre : troupeaux ; ~ nageurs",
        "touches": "  une tuile touche : gauche, droite, haut, haut-droite, bas, bas-gauche",
        "did": "{name} : {what}",
        "herds": "Troupeaux : {list}",
        "swimming": "à la nage",
        "masses_legend": "Continents (* le principal, T18 compte les autres) :",
        "final": "Décompte final (T18), continents autres que le principal :",
        "mass_row": "  {letter} : {tiles} ({herds}) : {got}",
        "nobody": "personne",
        "no_herds": "aucun troupeau",
        "winner": "Vainqueur (T19) : {names}",
        "winners": "Vainqueurs (à égalité, T19) : {names}",
        "created": "Partie de Trias {id} créée ({mode}, {seats}, graine {seed}) dans {where}.",
        "board_link": "Plateau (public, en lecture seule) : {url}",
        "table_link": "Table (à garder pour vous : annuler, revanche, liens des places) : {url}",
        "seat_computer": "{i}. {name} : ordinateur ({level})",
        "seat_link": "{i}. {name} : {url}",
        "seat_mirror": "{i}. {name} : coups notés sur la page du plateau (miroir)",
        "no_games": "Aucune partie de Trias dans {where} : lancez-en une avec `terrabank trias new` ou `trias play`.",
        "listed_over": "terminée",
        "listed_turn": "tour {turn}, phase {phase}",
        "seats_twice": "donnez --players ou --seat, pas les deux",
        "no_seats": "dites qui joue : --players N (2 à 5 personnes) ou --seat NOM[:NIVEAU] pour chaque place",
        "bad_opponents": "--opponents va de 1 à 4 (Trias se joue de 2 à 5)",
        "mirror_game": "la partie {id} suit une vraie table (miroir) ; notez ses coups sur la page du plateau",
        "table_of": "Table de la partie {id} (à garder pour vous : annuler, revanche, liens des places) : {url}",
        "table_made_now": "Cette partie n'avait pas de lien de table (gardée avant eux) : celui-ci vient d'être créé.",
        "unknown_game": "il n'y a pas de partie de Trias {id} dans {where} (dernières : {known}) ; "
                        "`terrabank trias show` les liste",
        "none_yet": "aucune pour l'instant",
        "chain_head": "tête de la chaîne du journal : {head} (entrée {seq})",
        "cannot_read": "impossible de lire {path} : {why} ; donnez le chemin du fichier JSON qui décrit "
                       "les continents",
        "why_missing": "fichier introuvable",
        "why_folder": "c'est un dossier",
        "why_denied": "accès refusé",
        "not_text": "{path} n'est pas un fichier texte UTF-8 ; enregistrez la description en texte JSON",
        "bad_json": "{path} n'est pas du JSON valide (ligne {line}, colonne {column}{detail}) ; "
                    "corrigez le fichier à cet endroit",
        "too_nested": "{path} est trop imbriqué pour décrire des continents",
        "too_long_number": "{path} contient un nombre trop long pour compter des tuiles ou des troupeaux",
    },
    # Italian speaks to the player with "tu", as the printed player aid does ("Il tuo turno").
    "it": {
        "new_game": "Nuova partita di Trias {id}: {names}. Scrivi il numero di una mossa, u per annullare, "
                    "b per la plancia, q per smettere.",
        "setup": "Preparazione (T8): {name} piazza 2 branchi su una tessera libera.",
        "setup_you": "Preparazione (T8): piazzi 2 branchi su una tessera libera.",
        "turn": "Turno {turn}{last}: tocca a {name}, fase {phase}, {ap}.",
        "turn_you": "Turno {turn}{last}: tocca a te, fase {phase}, {ap}.",
        "last_round": " (ultimo giro, T17)",
        "over": "La partita è finita.",
        "scores": "Punteggi: {list}",
        "hand": "In mano hai: {card}.",
        "stock": "{herds} in riserva",
        "your_move": "{name}, la tua mossa [1-{n}, u, b, q]: ",
        "your_pick": "{title} [1-{n}, 0 indietro, u, b, q]: ",
        "type_a_number": "Scrivi un numero da 1 a {n}, u, b o q.",
        "type_a_number_back": "Scrivi un numero da 1 a {n}, 0 per tornare indietro, u, b o q.",
        "taken_back": "Mossa annullata.",
        "stopped": "Partita interrotta e conservata: riprendila con `terrabank trias play {id}`.",
        "group_move": "spostare un branco ({n})",
        "group_reproduce": "una nascita ({n})",
        "group_rescue": "salvare nuotatori ({n})",
        "drift_tile": "deriva: {kind} {tile}{cost} ({n})",
        "play_drift_tile": "giocare la tua carta {card}, deriva: {kind} {tile} ({n})",
        "pick_move": "Quale branco, verso dove",
        "pick_reproduce": "Una nascita dove",
        "pick_rescue": "Quali nuotatori salvare",
        "pick_to": "Deriva di {kind} {tile} verso",
        "to": "verso {to} (distanza {a} -> {b})",
        "cost3": ", 3 punti",
        "map_legend": "Mappa: M Montagna (ospita 2), S Steppa (3), B Bosco (4), P Polo Sud (3); cifra: branchi; "
                      "~ nuotatori",
        "touches": "  una tessera tocca: sinistra, destra, sopra, sopra a destra, sotto, sotto a sinistra",
        "did": "{name}: {what}",
        "herds": "Branchi: {list}",
        "swimming": "a nuoto",
        "masses_legend": "Continenti (* quello del Polo Sud, il T18 conta gli altri):",
        "final": "Conteggio finale (T18), continenti tranne quello del Polo Sud:",
        "mass_row": "  {letter}: {tiles} ({herds}): {got}",
        "nobody": "nessuno",
        "no_herds": "nessun branco",
        "winner": "Vincitore (T19): {names}",
        "winners": "Vincitori (a pari merito, T19): {names}",
        "created": "Partita di Trias {id} creata ({mode}, {seats}, seme {seed}) in {where}.",
        "board_link": "Plancia (pubblica, sola lettura): {url}",
        "table_link": "Tavolo (tienilo per te: annullare, rivincita, i link dei posti): {url}",
        "seat_computer": "{i}. {name}: computer ({level})",
        "seat_link": "{i}. {name}: {url}",
        "seat_mirror": "{i}. {name}: mosse registrate sulla pagina della plancia (specchio)",
        "no_games": "Nessuna partita di Trias in {where}: iniziane una con `terrabank trias new` o `trias play`.",
        "listed_over": "finita",
        "listed_turn": "turno {turn}, fase {phase}",
        "seats_twice": "indica --players oppure --seat, non entrambi",
        "no_seats": "di' chi gioca: --players N (da 2 a 5 persone) oppure --seat NOME[:LIVELLO] per ogni posto",
        "bad_opponents": "--opponents va da 1 a 4 (Trias si gioca da 2 a 5)",
        "mirror_game": "la partita {id} segue un tavolo vero (specchio); registra le sue mosse sulla pagina della plancia",
        "table_of": "Tavolo della partita {id} (tienilo per te: annullare, rivincita, i link dei posti): {url}",
        "table_made_now": "Questa partita non aveva un link del tavolo (salvata prima che esistessero): è stato creato ora.",
        "unknown_game": "non c'è nessuna partita di Trias {id} in {where} (ultime: {known}); "
                        "`terrabank trias show` le elenca",
        "none_yet": "nessuna finora",
        "chain_head": "testa della catena del registro: {head} (voce {seq})",
        "cannot_read": "impossibile leggere {path}: {why}; indica il percorso del file JSON che descrive i continenti",
        "why_missing": "file inesistente",
        "why_folder": "è una cartella",
        "why_denied": "accesso negato",
        "not_text": "{path} non è un file di testo UTF-8; salva la descrizione come testo JSON",
        "bad_json": "{path} non è JSON valido (riga {line}, colonna {column}{detail}); correggi il file in quel punto",
        "too_nested": "{path} è troppo annidato per descrivere dei continenti",
        "too_long_number": "{path} contiene un numero troppo lungo per contare tessere o branchi",
    },
}

# `trias score`'s refusals of a description (trias/calculator.py's REFUSALS, whose English they are): the
# same code and parameters in French and Italian, short and saying what to write instead. The file's own
# keys (land_masses, tiles, herds, main, stock, interim, name) stay as they must be written.
CALC = {
    "fr": {
        "not_an_object": 'la description doit être un objet JSON avec une liste "land_masses", '
                         'comme {{"land_masses": [...]}}',
        "unknown_key": "clé inconnue « {key} » : une description a land_masses, et si besoin stock et interim",
        "no_land_masses": "land_masses doit être une liste non vide de continents, chacun avec name, tiles et herds",
        "too_many_land_masses": "{count} continents sont listés ; un plateau de {max} tuiles a au plus {max} "
                                "continents (T2, T3)",
        "mass_not_an_object": "{where} doit être un objet avec name, tiles et herds",
        "mass_unknown_key": "{where} a une clé inconnue « {key} » : un continent a name, tiles, herds et si besoin main",
        "bad_name": "{where} doit être un nom de 1 à {max} caractères imprimables",
        "bad_player_name": "chaque nom de joueur dans {where} doit avoir de 1 à {max} caractères imprimables",
        "name_twice": "{where} « {name} » est déjà le nom d'un autre continent : donnez à chacun son nom",
        "bad_tiles": "{where} doit être un nombre entier de 1 à {max} : le nombre de tuiles du continent",
        "bad_main": "{where} doit valoir true ou false",
        "counts_not_an_object": '{where} doit donner un nombre par joueur, comme {{"Black": 2}}',
        "bad_count": "{where} doit être un nombre entier de 0 à {max}",
        "player_twice": "{where} nomme {player} deux fois : écrivez chaque joueur une seule fois",
        "crowded": "{where} : trop de troupeaux ({herds}) pour le nombre de tuiles ({tiles}) ; une tuile porte "
                   "au plus {per_tile} troupeaux (T2, T13)",
        "two_main": "un seul continent peut être le principal (celui du pôle Sud, T5) : mettez main à true "
                    "sur un seul",
        "no_herds": "aucun joueur n'a de troupeau : donnez les troupeaux de chaque joueur sur chaque continent, "
                    'comme {{"Black": 2}}',
        "too_many_players": "{count} joueurs sont nommés ({names}) ; Trias se joue de 2 à {max} : gardez-en {max} "
                            "au plus",
        "too_many_herds": "{player} a {held} troupeaux sur les continents et en réserve, plus que les {max} qu'un "
                          "joueur possède (T7)",
    },
    "it": {
        "not_an_object": 'la descrizione deve essere un oggetto JSON con una lista "land_masses", '
                         'come {{"land_masses": [...]}}',
        "unknown_key": "chiave sconosciuta «{key}»: una descrizione ha land_masses e, se serve, stock e interim",
        "no_land_masses": "land_masses deve essere una lista non vuota di continenti, ognuno con name, tiles e herds",
        "too_many_land_masses": "{count} continenti nella lista; una plancia di {max} tessere ha al massimo {max} "
                                "continenti (T2, T3)",
        "mass_not_an_object": "{where} deve essere un oggetto con name, tiles e herds",
        "mass_unknown_key": "{where} ha una chiave sconosciuta «{key}»: un continente ha name, tiles, herds e, "
                            "se serve, main",
        "bad_name": "{where} deve essere un nome da 1 a {max} caratteri stampabili",
        "bad_player_name": "ogni nome di giocatore in {where} deve avere da 1 a {max} caratteri stampabili",
        "name_twice": "{where} «{name}» è già il nome di un altro continente: dai a ognuno il suo nome",
        "bad_tiles": "{where} deve essere un numero intero da 1 a {max}: il numero di tessere del continente",
        "bad_main": "{where} deve essere true o false",
        "counts_not_an_object": '{where} deve dare un numero per giocatore, come {{"Black": 2}}',
        "bad_count": "{where} deve essere un numero intero da 0 a {max}",
        "player_twice": "{where} nomina {player} due volte: scrivi ogni giocatore una volta sola",
        "crowded": "{where}: troppi branchi ({herds}) per il numero di tessere ({tiles}); una tessera ospita al "
                   "massimo {per_tile} branchi (T2, T13)",
        "two_main": "solo un continente può essere quello del Polo Sud (T5): metti main a true su uno solo",
        "no_herds": "nessun giocatore ha un branco: indica i branchi di ogni giocatore su ogni continente, "
                    'come {{"Black": 2}}',
        "too_many_players": "{count} giocatori nominati ({names}); Trias si gioca da 2 a {max}: tienine al "
                            "massimo {max}",
        "too_many_herds": "{player} ha {held} branchi sui continenti e in riserva, più dei {max} che ha un "
                          "giocatore (T7)",
    },
}
for _lang, _refusals in {"en": REFUSALS, **CALC}.items():
    WORDS[_lang].update({f"calc_{code}": text for code, text in _refusals.items()})


def lang_of(lang) -> str:
    return lang if lang in WORDS else "en"


def say(lang, key: str, /, **params) -> str:  # positional: a refusal may carry a `key` parameter
    return WORDS[lang_of(lang)][key].format(**params)


def count(lang, n: int, noun: str) -> str:
    """'1 tile', '2 tiles'; in French 0 and 1 take the singular ('0 tuile', '1 tuile'); in Italian, as in
    English, only 1 does ('1 tessera', '0 tessere', '2 tessere')."""
    one, many = NOUNS[lang_of(lang)][noun]
    return f"{n} {one if is_one(lang, n) else many}"


def is_one(lang, n: int) -> bool:
    """Whether `n` takes the singular: 0 and 1 in French, 1 in English and Italian (as TB.one on the pages)."""
    return n in (0, 1) if lang_of(lang) == "fr" else n == 1


def phase_name(lang, phase: str) -> str:
    return PHASES.get(lang_of(lang), {}).get(phase, phase)


def kind_name(lang, kind: str) -> str:
    return KINDS.get(lang_of(lang), {}).get(kind, kind)


def level_name(lang, level: str) -> str:
    """A computer seat's level ('difficile'), from the pages' catalogues, which name the levels already."""
    return translate(lang_of(lang), str(level))
