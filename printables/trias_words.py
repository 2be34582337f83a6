"""The printed words of the Trias sheets, in French, English and Italian (written for this pack, rules T1-T21).

The Italian takes the game's own terms from its Italian rules (tessera, branco, continente, deriva,
nuotatori, riserva, punti azione, conteggio); the sentences are this pack's own.
"""

from __future__ import annotations

WORDS = {
    "fr": {
        "mountain": "Montagne", "steppe": "Steppe", "woods": "Forêt", "pole": "Pôle Sud", "water": "Eau",
        "herds_cap": "{n} troupeaux max.",
        "setup_title": "Trias : mise en place", "setup_game": "{players} joueurs · graine {seed}",
        "setup_game_id": "Partie {game} · {players} joueurs",
        "legend": "Tuiles posées", "tiles_n": "{n} tuiles", "tiles_1": "{n} tuile",
        "left_out": "Restent dans la boîte, sans les regarder : {tiles}.",
        "water_note": "Les cases bleues sont de l'eau pour toute la partie : on y a posé puis retiré "
                      "les 2 tuiles d'eau (T3).",
        "no_water": "À deux joueurs : 19 tuiles sur les anneaux 1 et 2, pas d'eau (T21).",
        "steps": "1. Le pôle Sud au centre. 2. Chaque tuile sur la case où la carte la montre, anneau "
                 "par anneau depuis le centre. 3. Les coordonnées q,r sont celles de l'application : le "
                 "haut de la feuille est le haut du plateau à l'écran.",
        "herds_note": "Chacun prend {herds} troupeaux et une carte ; les troupeaux se posent ensuite "
                      "2 par 2 (T7, T8).",
        "ring": "anneau {n}",
        "score_title": "Trias : feuille de score (décompte final, T18)",
        "game_line": "Partie : ....................   Date : ..............",
        "mass": "Continent", "tiles": "Tuiles N", "herds": "Trp.", "points": "Pts",
        "player": "Joueur {n}", "main_row": "Continent du pôle Sud : ne compte pas",
        "total": "Total des points", "stock": "Troupeaux en réserve (T19)",
        "presence": "Continents occupés (T19)", "winner": "Gagnant(s)",
        "how_title": "Le calcul, continent par continent",
        "how": ["N = nombre de tuiles du continent ; on compare les troupeaux.",
                "1er seul : N points. 2e : N/2. Un joueur seul sur le continent : N.",
                "Premiers ex æquo : ils se partagent N + N/2, et personne d'autre ne marque.",
                "Un 1er et des 2es ex æquo : le 1er a N, les 2es se partagent N/2.",
                "Chaque part est arrondie au nombre entier supérieur.",
                "Égalité au total : le plus de troupeaux en réserve, puis présent sur le plus de "
                "continents (celui du pôle compris) ; sinon tous gagnent."],
        "table_title": "Table des parts (arrondies au-dessus)",
        "col_n": "N", "col_first": "1er", "col_second": "2e", "col_2nd2": "2 × 2e", "col_2nd3": "3 × 2e",
        "col_1st2": "2 × 1er", "col_1st3": "3 × 1er", "col_1st4": "4 × 1er",
        "example": "Exemple : N = 5, Noir 3 trp., Blanc 1, Gris 1 : Noir 5 ; Blanc et Gris 5/2/2 = 1,25, arrondi à 2.",
        "aid_title": "Trias : aide de jeu",
        "aid_goal": "Posez vos troupeaux sur les continents qui s'éloignent du pôle Sud : à la fin, chaque "
                    "continent sauf celui du pôle récompense ceux qui y ont le plus de troupeaux.",
        "aid_setup": "Mise en place", "aid_setup_text": "15 troupeaux et 1 carte chacun (10 troupeaux à deux). "
                     "Deux tours de pose, 2 troupeaux ensemble sur une tuile vide ; le dernier à poser "
                     "commence, puis on joue dans le sens horaire (T7, T8).",
        "aid_turn": "Votre tour en quatre phases",
        "aid_p1": "1. Dérive obligatoire (T9-T11)",
        "aid_p1_text": "Jouez votre carte, ou piochez et jouez la carte piochée. Déplacez une tuile du paysage "
                       "de la carte : elle touche l'eau libre, elle est sur un continent où vous avez un "
                       "troupeau, ce n'est ni le pôle ni une tuile isolée. Reposez-la plus loin du pôle, "
                       "contre son continent d'origine et au bord de l'eau libre. Les troupeaux restés "
                       "sur place nagent. Impossible avec ce paysage : prenez-en un autre ; impossible "
                       "avec tous : pas de dérive.",
        "aid_meteor": "Météorite piochée en phase 1 : pas de dérive, votre tour ouvre le dernier tour de table.",
        "aid_p2": "2. Actions (T12, T13)",
        "aid_p2_text": "{ap} points d'action (3 à deux joueurs, 2 au dernier tour de table). Les points non "
                       "dépensés sont perdus. Dans l'ordre que vous voulez :",
        "aid_cost": "Coût", "aid_action": "Action",
        "act_drift": "Dérive : une tuile de plus, mêmes conditions, sans carte",
        "act_move": "Déplacer un troupeau d'une tuile vers une tuile voisine (par pas)",
        "act_rescue": "Sauver jusqu'à 3 de vos nageurs sur des tuiles voisines",
        "act_reproduce": "Reproduire : un troupeau ajoute un troupeau de votre réserve sur sa tuile "
                         "(une fois par tour ; un nouveau-né attend votre tour suivant)",
        "cost_drift": "3", "cost_move": "1 par pas", "cost_rescue": "1", "cost_reproduce": "1",
        "aid_capacity": "Capacité : montagne 2, steppe 3, forêt 4, pôle Sud 3. Une tuile pleine bloque : "
                        "personne n'y entre, ne la traverse ni n'y naît.",
        "aid_p3": "3. Nageurs et surpopulation (T14)",
        "aid_p3_text": "Vos nageurs retournent dans votre réserve. Sur une tuile trop peuplée, retirez vos "
                       "troupeaux jusqu'à la capacité (ou jusqu'au dernier des vôtres).",
        "aid_p4": "4. Pioche (T15)",
        "aid_p4_text": "Si vous avez joué votre carte, piochez-en une. Météorite : montrez-la, le dernier tour "
                       "de table commence au joueur suivant. On finit toujours son tour avec une carte.",
        "aid_interim": "Décompte en cours de partie (T16, pas à deux)",
        "aid_interim_text": "Une dérive qui coupe un continent en deux et pose la tuile contre une seule des "
                            "parties, sans toucher d'autre continent ni la partie du pôle : cette partie, "
                            "tuile comprise, rapporte 2 points au(x) plus nombreux, 1 au(x) suivant(s).",
        "aid_end": "Dernier tour et décompte final (T17-T19)",
        "aid_end_text": "Pas de phase 1, 2 points d'action chacun, puis le décompte : chaque continent sauf "
                        "celui du pôle, de N tuiles, donne N au premier et N/2 au deuxième (parts "
                        "arrondies au-dessus ; voir la feuille de score). Le plus de points gagne ; à "
                        "égalité, le plus de troupeaux en réserve, puis la présence sur le plus de continents.",
        "aid_two": "À deux joueurs : 10 troupeaux, 19 tuiles sans eau, 3 points d'action, pas de décompte en "
                   "cours de partie (T21).",
    },
    "en": {
        "mountain": "Mountain", "steppe": "Steppe", "woods": "Woods", "pole": "South Pole", "water": "Water",
        "herds_cap": "holds {n} herds",
        "setup_title": "Trias: set-up", "setup_game": "{players} players · seed {seed}",
        "setup_game_id": "Game {game} · {players} players",
        "legend": "Tiles on the board", "tiles_n": "{n} tiles", "tiles_1": "{n} tile",
        "left_out": "Left in the box, unseen: {tiles}.",
        "water_note": "The blue places are water for the whole game: the 2 water tiles were laid there, "
                      "then taken away (T3).",
        "no_water": "Two players: 19 tiles on rings 1 and 2, no water (T21).",
        "steps": "1. The South Pole in the middle. 2. Each tile on the place the map shows, ring by ring "
                 "from the centre. 3. The q,r coordinates are the app's: the top of the sheet is the top "
                 "of the board on screen.",
        "herds_note": "Everyone takes {herds} herds and one card; herds are then placed 2 at a time (T7, T8).",
        "ring": "ring {n}",
        "score_title": "Trias: score sheet (final scoring, T18)",
        "game_line": "Game: ....................   Date: ..............",
        "mass": "Land mass", "tiles": "Tiles N", "herds": "Herds", "points": "Pts",
        "player": "Player {n}", "main_row": "The South Pole's land mass: not scored",
        "total": "Total points", "stock": "Herds in stock (T19)",
        "presence": "Land masses present on (T19)", "winner": "Winner(s)",
        "how_title": "The arithmetic, land mass by land mass",
        "how": ["N = the land mass's tiles; compare the herds on it.",
                "A single first: N points. Second: N/2. A player alone on it: N.",
                "Tied firsts share N + N/2, and nobody else scores.",
                "One first and tied seconds: the first gets N, the seconds share N/2.",
                "Every share is rounded up to a whole number.",
                "Tied totals: most herds in stock, then present on most land masses (the pole's "
                "included); still tied, all win."],
        "table_title": "Shares (rounded up)",
        "col_n": "N", "col_first": "1st", "col_second": "2nd", "col_2nd2": "2 × 2nd", "col_2nd3": "3 × 2nd",
        "col_1st2": "2 × 1st", "col_1st3": "3 × 1st", "col_1st4": "4 × 1st",
        "example": "Example: N = 5, Black 3 herds, White 1, Grey 1: Black 5; White and Grey 5/2/2 = 1.25, "
                   "rounded up to 2.",
        "aid_title": "Trias: player aid",
        "aid_goal": "Spread your herds over the land masses drifting away from the South Pole: at the end, "
                    "every land mass but the pole's rewards those with the most herds on it.",
        "aid_setup": "Set-up", "aid_setup_text": "15 herds and 1 card each (10 herds with two players). Two "
                     "rounds of placing 2 herds together on an empty tile; the last to place starts, then "
                     "play goes clockwise (T7, T8).",
        "aid_turn": "Your turn in four phases",
        "aid_p1": "1. Mandatory drift (T9-T11)",
        "aid_p1_text": "Play your card, or draw one and play it. Move a tile of the card's landscape: it "
                       "touches open water, lies in a land mass where you have a herd, and is neither the "
                       "pole nor a lone tile. Put it down farther from the pole, against the land mass it "
                       "left and at the edge of open water. Herds left behind swim. Not possible with that "
                       "landscape: take another; not possible at all: no drift.",
        "aid_meteor": "Meteorite Impact drawn in phase 1: no drift, and your turn opens the last round.",
        "aid_p2": "2. Actions (T12, T13)",
        "aid_p2_text": "{ap} action points (3 with two players, 2 in the last round). Points not spent are "
                       "lost. In any order:",
        "aid_cost": "Cost", "aid_action": "Action",
        "act_drift": "Drift: one more tile, same conditions, no card",
        "act_move": "Move a herd from a tile to a neighbouring tile (per step)",
        "act_rescue": "Rescue up to 3 of your swimmers onto tiles next to them",
        "act_reproduce": "Reproduce: a herd adds a herd from your stock on its tile (once a turn; a newborn "
                         "waits for your next turn)",
        "cost_drift": "3", "cost_move": "1 a step", "cost_rescue": "1", "cost_reproduce": "1",
        "aid_capacity": "Capacity: mountain 2, steppe 3, woods 4, South Pole 3. A full tile blocks: no herd "
                        "enters it, crosses it or is born on it.",
        "aid_p3": "3. Swimmers and crowding (T14)",
        "aid_p3_text": "Your swimmers go back to your stock. On an overcrowded tile, take your herds off "
                       "until it is at capacity (or none of yours is left).",
        "aid_p4": "4. Draw (T15)",
        "aid_p4_text": "If you played your card, draw one. Meteorite Impact: show it, the last round starts "
                       "with the next player. Everyone ends a turn holding one card.",
        "aid_interim": "Scoring during the game (T16, not with two players)",
        "aid_interim_text": "A drift that splits a land mass and lays the tile against only one of the parts, "
                            "touching no other land mass and not the pole's part: that part, tile included, "
                            "pays 2 points to the most herds and 1 to the next most (ties all score).",
        "aid_end": "Last round and final scoring (T17-T19)",
        "aid_end_text": "No phase 1, 2 action points each, then final scoring: every land mass but the pole's, "
                        "of N tiles, gives N to the first and N/2 to the second (shares rounded up; see the "
                        "score sheet). Most points wins; ties go to most herds in stock, then presence on "
                        "most land masses.",
        "aid_two": "Two players: 10 herds, 19 tiles and no water, 3 action points, no scoring during the "
                   "game (T21).",
    },
    "it": {
        "mountain": "Montagna", "steppe": "Steppa", "woods": "Bosco", "pole": "Polo Sud", "water": "Acqua",
        "herds_cap": "max. {n} branchi",
        "setup_title": "Trias: preparazione", "setup_game": "{players} giocatori · seme {seed}",
        "setup_game_id": "Partita {game} · {players} giocatori",
        "legend": "Tessere in gioco", "tiles_n": "{n} tessere", "tiles_1": "{n} tessera",
        "left_out": "Restano nella scatola, senza guardarle: {tiles}.",
        "water_note": "Le caselle azzurre restano acqua per tutta la partita: le 2 tessere d'acqua vi sono "
                      "state posate e poi tolte (T3).",
        "no_water": "In due giocatori: 19 tessere sui primi due anelli, niente acqua (T21).",
        "steps": "1. Il Polo Sud al centro. 2. Ogni tessera sulla casella indicata dalla mappa, un anello "
                 "dopo l'altro partendo dal centro. 3. Le coordinate q,r sono quelle dell'app: il lato alto "
                 "del foglio è il lato alto della plancia sullo schermo.",
        "herds_note": "Ognuno prende {herds} branchi e una carta; poi i branchi si piazzano 2 alla volta (T7, T8).",
        "ring": "anello {n}",
        "score_title": "Trias: foglio dei punti (conteggio finale, T18)",
        "game_line": "Partita: ....................   Data: ..............",
        "mass": "Continente", "tiles": "Tess. N", "herds": "Br.", "points": "Pt",
        "player": "Giocatore {n}", "main_row": "Continente del Polo Sud: non conta",
        "total": "Totale dei punti", "stock": "Branchi in riserva (T19)",
        "presence": "Continenti occupati (T19)", "winner": "Vincitore/i",
        "how_title": "Il calcolo, continente per continente",
        "how": ["N = numero di tessere del continente; si confrontano i branchi.",
                "Un solo primo: N punti. Secondo: N/2. Un giocatore da solo sul continente: N.",
                "Primi a pari merito: si dividono N + N/2, e nessun altro segna.",
                "Un primo e secondi a pari merito: il primo ha N, i secondi si dividono N/2.",
                "Ogni quota si arrotonda all'intero superiore.",
                "Parità nel totale: vince chi ha più branchi in riserva, poi chi è presente su più "
                "continenti (compreso quello del Polo Sud); altrimenti vincono tutti."],
        "table_title": "Tabella delle quote (arrotondate per eccesso)",
        "col_n": "N", "col_first": "1°", "col_second": "2°", "col_2nd2": "2 × 2°", "col_2nd3": "3 × 2°",
        "col_1st2": "2 × 1°", "col_1st3": "3 × 1°", "col_1st4": "4 × 1°",
        "example": "Esempio: N = 5, Nero 3 branchi, Bianco 1, Grigio 1: Nero 5; Bianco e Grigio 5/2/2 = 1,25, "
                   "arrotondato a 2.",
        "aid_title": "Trias: riassunto delle regole",
        "aid_goal": "Distribuite i vostri branchi sui continenti che si allontanano dal Polo Sud: alla fine, ogni "
                    "continente tranne quello del Polo premia chi vi ha più branchi.",
        "aid_setup": "Preparazione", "aid_setup_text": "15 branchi e 1 carta a testa (10 branchi in due). Due "
                     "giri di piazzamento, 2 branchi insieme su una tessera vuota; chi piazza per ultimo "
                     "comincia, poi si gioca in senso orario (T7, T8).",
        "aid_turn": "Il tuo turno in quattro fasi",
        "aid_p1": "1. Deriva obbligatoria (T9-T11)",
        "aid_p1_text": "Gioca la tua carta, oppure pescane una e gioca quella. Sposta una tessera del paesaggio "
                       "della carta: confina con il mare esterno, sta su un continente dove hai un branco, non è "
                       "il Polo né una tessera isolata. Rimettila più lontana dal Polo, attaccata al continente "
                       "da cui viene e sul bordo del mare esterno. I branchi rimasti lì diventano nuotatori. "
                       "Impossibile con quel paesaggio: scegline un altro; impossibile con tutti: nessuna deriva.",
        "aid_meteor": "Impatto del meteorite pescato in fase 1: nessuna deriva, e il tuo turno apre l'ultimo giro.",
        "aid_p2": "2. Azioni (T12, T13)",
        "aid_p2_text": "{ap} punti azione (3 in due giocatori, 2 nell'ultimo giro). I punti non spesi sono persi. "
                       "In qualunque ordine:",
        "aid_cost": "Costo", "aid_action": "Azione",
        "act_drift": "Deriva: un'altra tessera, stesse condizioni, senza carta",
        "act_move": "Spostare un branco da una tessera a una tessera adiacente (per passo)",
        "act_rescue": "Salvare fino a 3 dei tuoi nuotatori su tessere adiacenti",
        "act_reproduce": "Riproduzione: un branco aggiunge sulla sua tessera un branco della tua riserva "
                         "(una volta per turno; il nuovo nato aspetta il tuo turno successivo)",
        "cost_drift": "3", "cost_move": "1 per passo", "cost_rescue": "1", "cost_reproduce": "1",
        "aid_capacity": "Capacità: montagna 2, steppa 3, bosco 4, Polo Sud 3. Una tessera piena blocca: nessun "
                        "branco vi entra, la attraversa o vi nasce.",
        "aid_p3": "3. Nuotatori e sovrappopolazione (T14)",
        "aid_p3_text": "I tuoi nuotatori tornano nella tua riserva. Su una tessera sovrappopolata togli i tuoi "
                       "branchi finché è rispettata la capacità (o finché non ne resta nessuno dei tuoi).",
        "aid_p4": "4. Pesca (T15)",
        "aid_p4_text": "Se hai giocato la tua carta, pescane una. Impatto del meteorite: mostralo, l'ultimo giro "
                       "comincia dal giocatore successivo. Ognuno finisce il turno con una carta in mano.",
        "aid_interim": "Conteggio intermedio (T16, non in due)",
        "aid_interim_text": "Una deriva che divide un continente e posa la tessera contro una sola delle parti, "
                            "senza toccare altri continenti né la parte del Polo: quella parte, tessera compresa, "
                            "dà 2 punti a chi vi ha più branchi e 1 al secondo (a pari merito segnano tutti).",
        "aid_end": "Ultimo giro e conteggio finale (T17-T19)",
        "aid_end_text": "Niente fase 1, 2 punti azione a testa, poi il conteggio: ogni continente tranne quello "
                        "del Polo, di N tessere, dà N al primo e N/2 al secondo (quote arrotondate per eccesso; "
                        "vedi il foglio dei punti). Vince chi ha più punti; a pari merito chi ha più branchi in "
                        "riserva, poi chi è presente su più continenti.",
        "aid_two": "In due giocatori: 10 branchi, 19 tessere senza acqua, 3 punti azione, nessun conteggio "
                   "intermedio (T21).",
    },
}


LANGUAGES = tuple(WORDS)  # fr, en, it: Trias prints in Italian too, the field game's sheets do not


def check_language(lang: str) -> str:
    """The language, or ValueError naming the ones the Trias sheets are printed in."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    return lang


def w(lang: str, key: str, **fields):
    """A Trias sheet's words in `lang`, with its fields filled in (lists come back as they are)."""
    value = WORDS[check_language(lang)][key]
    return value.format(**fields) if isinstance(value, str) and fields else value
