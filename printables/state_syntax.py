"""The paper moves as the lead types them back (issue 25, item 6): one example per form, French and English.

Printed on the bank-down page and shown beside the admin page's batch form; the web reads
these lines with bank/web/field/paper_syntax.py (tests/test_paper_syntax.py parses every one).
Kept here because the print pack may not import the web.
"""

from __future__ import annotations

# (French, English, command type)
FORMS = (
    ("Bleu récolte énergie 2", "Blue harvest energy 2", "harvest"),
    ("Bleu construit serre", "Blue build greenhouse", "build"),
    ("Bleu achète mouton", "Blue buy sheep", "buy_animal"),
    ("Bleu achète pirate", "Blue buy pirate", "buy_second_pirate"),
    ("Bleu piste hydrosphère 2 atmosphère 1", "Blue track hydrosphere 2 atmosphere 1", "raise_tracks"),
    ("Bleu jokers 3", "Blue jokers 3", "redeem_jokers"),
    ("Bleu échange 10 eau", "Blue exchange 10 water", "exchange"),
    ("Bleu commerce Rouges donne 2 eau reçoit 2 énergie", "Blue trade Red give 2 water take 2 energy", "trade"),
    ("Bleu commerce Rouges donne 1 eau reçoit 1 flore forcé", "Blue trade Red give 1 water take 1 flora forced", "trade"),
    ("Rouge pirate 1 bat Bleu récolteur 1 prend 2 eau", "Red pirate 1 beats Blue harvester 1 takes 2 water", "fight"),
    ("Bleu pirate 1 perd contre Rouge constructeur 1", "Blue pirate 1 loses to Red builder 1", "fight"),
    ("Bleu contribue ev1 3 eau", "Blue contribute ev1 3 water", "contribute"),
    ("Bleu prime 2 fair-play", "Blue award 2 fair play", "award"),
    ("Bleu pénalité 1 triche", "Blue penalty 1 cheating", "award"),
    ("Bleu compte 3 eau 2 flore", "Blue count 3 water 2 flora", "inventory"),
    ("taux 5 1", "rate 5 1", "set_rate"),
    ("option bonus oui", "option team bonus on", "set_option"),
    ("ferme ev1", "close ev1", "close_event"),
    ("pause", "pause", "pause"),
    ("reprise", "resume", "resume"),
    ("fin de session", "end session", "end_session"),
    ("fin de partie", "end game", "end_game"),
)

NOTES = {
    "fr": ("Le nombre après la ressource est la carte de récolteur (1 si rien). Une heure en tête "
           "(« 14:32 ») est permise. Majuscules, accents et pluriels ne comptent pas."),
    "en": ("The number after the resource is the harvester card (1 if none). A time first ('14:32') "
           "is allowed. Capitals, accents and plurals do not matter."),
}

EXAMPLES = {"fr": [fr for fr, _, _ in FORMS], "en": [en for _, en, _ in FORMS]}
