"""A one-page rules summary for players, in plain words; every number from config.toml (item 15)."""

from __future__ import annotations

from .boards import BANK_COLOUR, header
from .drawing import BOLD, FONT, INK, PT, finish, new_canvas, page, paragraph, text
from .geometry import Box, paper_size
from .labels import check_language, count, name, rate_text, typo

TEXT = {
    "fr": [
        ("Le but", "Rendre la planète habitable tous ensemble, et gagner le plus de points de réputation. "
                   "Chaque équipe a sa base, sa boîte de jetons et {own} de sa couleur au départ."),
        ("Sortir de la base", "Il faut une carte de rôle pour sortir. On échange les cartes dans la base. "
                              "On porte autant de jetons qu'on veut."),
        ("Récolteur", "À la banque, il reçoit {harvest} de la ressource de son choix (jamais un joker), puis "
                      "il rapporte sa récolte à la base avant de revenir."),
        ("Marchand", "Il va échanger dans une autre base. Sans accord, c'est un échange forcé : il prend un "
                     "jeton de son choix (pas un joker) et l'autre équipe en prend un parmi ceux qu'il porte."),
        ("Pirate", "Il touche un joueur d'une autre équipe : combat de pierre-feuille-ciseaux à la banque. "
                   "S'il gagne, il prend tout ce que l'autre porte. Ensuite, il attend {won} s s'il a gagné, {lost} s "
                   "s'il a perdu, avant de repartir."),
        ("Constructeur", "À la banque, il construit les bâtiments de l'équipe (au plus {cap} avant : {lifters}), "
                         "achète les animaux et fait avancer les pistes de terraformation."),
        ("Les pistes", "Un pas coûte {step} jetons de la ressource de la piste et rapporte {step_rep} à "
                       "l'équipe qui paie. Certains niveaux donnent un bonus à l'équipe qui les atteint."),
        ("Les animaux", "En vente quand toutes les pistes sont au niveau {unlock}. Chaque équipe peut acheter "
                        "chaque animal commun une fois. Chaque animal unique n'existe qu'une fois dans la "
                        "partie : première équipe arrivée, première servie."),
        ("Les jokers", "Un joker remplace n'importe quel jeton pour payer, ou se rend à la banque contre {joker}."),
        ("Les points", "Bâtiments, avancées des pistes, animaux, jokers rendus, change ({rate}), événements, et "
                       "bonus ou pénalités de l'animation."),
        ("La fin", "Après {minutes} min de jeu, l'équipe qui a le plus de points gagne. La partie peut finir "
                   "plus tôt si toutes les pistes sont au bout et qu'une équipe a {points} points ou {animals} animaux."),
    ],
    "en": [
        ("The goal", "Make the planet a home for everyone, together, and win the most reputation points. "
                     "Each team has its base, its box of tokens and {own} of its colour to start."),
        ("Leaving the base", "You need a role card to leave. Swap cards inside the base. Carry as many tokens "
                             "as you like."),
        ("Harvester", "At the bank, gets {harvest} of the resource they choose (never a joker), then takes it "
                      "back to base before coming again."),
        ("Merchant", "Trades in another team's base. No deal? A forced swap: the merchant takes one token of "
                     "their choice (not a joker) and the other team takes one from what the merchant carries."),
        ("Pirate", "Tags a player of another team: rock-paper-scissors at the bank. Win, and take everything "
                   "they carry. Then wait {won} s after a win, {lost} s after a loss, before going again."),
        ("Builder", "At the bank, builds the team's buildings (at most {cap} before: {lifters}), buys "
                    "animals and moves the terraforming tracks on."),
        ("The tracks", "A step costs {step} tokens of the track's resource and gives {step_rep} to the team "
                       "that pays. Some levels give a bonus to the team that reaches them."),
        ("Animals", "On sale once every track is at level {unlock}. Each team may buy each common animal "
                    "once. Each unique animal exists once in the whole game: first team there, first served."),
        ("Jokers", "A joker pays for any token, or is handed in at the bank for {joker}."),
        ("Points", "Buildings, track steps, animals, jokers handed in, exchange ({rate}), events, and the "
                   "facilitators' bonuses or penalties."),
        ("The end", "After {minutes} min of play, the team with most points wins. It can end sooner when every "
                    "track is at its end and a team has {points} points or {animals} animals."),
    ],
}
TITLE = {"fr": "Les règles en une page", "en": "The rules on one page"}


def fields(config, lang: str) -> dict:
    """The numbers the summary quotes, from the config."""
    track = next(iter(config.tracks.values()))
    pirate = config.cooldowns["base"]
    return {"own": count(lang, "token", config.own_colour_tokens), "harvest": count(lang, "token", config.harvest_base),
            "lifters": " / ".join(name(b.label, lang) for b in config.buildings.values() if b.lifts_cap) or "-",
            "won": pirate.pirate_wins, "lost": pirate.pirate_loses, "cap": config.building_cap,
            "step": track.step_cost, "step_rep": count(lang, "point", track.reputation_per_step),
            "unlock": config.animal_unlock_level, "joker": count(lang, "point", config.points_per_joker),
            "rate": rate_text(lang, config.exchange_tokens, config.exchange_points),
            "minutes": config.duration_seconds // 60, "points": config.reputation_threshold,
            "animals": config.animals_threshold}


def render_rules_summary(config, lang: str | None = None, paper: str = "a4") -> bytes:
    """One A4 (or Letter) page: a titled paragraph for each part of the game, read at arm's length."""
    lang = check_language(lang or config.language)
    values = fields(config, lang)
    size = paper_size(paper)
    area = Box(14, 14, size[0] - 28, size[1] - 28)
    c, buf = new_canvas(TITLE[lang])
    with page(c, size):
        header(c, Box(area.x, area.top - 15, area.w, 15), BANK_COLOUR, name(config.title, lang), TITLE[lang])
        parts = TEXT[lang]
        y, gap = area.top - 22, (area.top - 22 - area.y) / len(parts)
        for title, body in parts:
            text(c, title, area.x, y - 4, 12 * PT, BOLD)
            paragraph(c, typo(lang, body.format(**values)), Box(area.x + 38, y - gap + 2, area.w - 38, gap - 2),
                      11 * PT, FONT, INK, smallest=9 * PT)
            y -= gap
    return finish(c, buf)
