"""The shape of a validated game configuration (read by bank/game/config_sections.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

LANGUAGES = ("fr", "en")
COST_KINDS = ("buildings", "animals")


@dataclass(frozen=True)
class Resource:
    id: str
    label: dict
    colour: str
    harvestable: bool
    joker: bool


@dataclass(frozen=True)
class Team:
    id: str
    label: dict
    colour: str
    resource: str
    # The name where room is tight (the big screen's chips, chart and replay): {fr, en}, or None for the
    # pages' own cut of the label at a word or grapheme (static/js/board_labels.js, W.teamShort).
    short: dict | None = None


@dataclass(frozen=True)
class Role:
    id: str
    label: dict
    strength: int
    cards: int
    harvests: bool
    pirate: bool


@dataclass(frozen=True)
class FightPair:
    roles: tuple[str, str]
    rounds: tuple[int, int]
    everyone_fights_only: bool


@dataclass(frozen=True)
class Cooldowns:
    pirate_wins: int
    pirate_loses: int
    other_wins: int
    other_loses: int


@dataclass(frozen=True)
class Building:
    id: str
    label: dict
    cost: dict
    reputation: int
    requires_buildings: tuple = ()
    requires_animals: int = 0
    cap_exempt: bool = False
    lifts_cap: bool = False
    harvest_multiplier: dict = field(default_factory=dict)
    discount: dict = field(default_factory=dict)
    discount_applies_to: tuple = ()
    dice_per_harvested_token: int = 0
    dice_on_build: int = 0


@dataclass(frozen=True)
class Track:
    id: str
    label: dict
    resource: str
    length: int
    step_cost: int
    reputation_per_step: int
    icons: dict  # level -> {resource id or "dice": amount}


@dataclass(frozen=True)
class Animal:
    id: str
    label: dict
    kind: str  # "common" or "unique"
    cost: dict
    reputation: int


@dataclass(frozen=True)
class GameConfig:
    """Everything the rules need, read from config.toml. Never mutated."""

    text: str
    title: dict
    duration_seconds: int
    sessions: int
    language: str
    reserve: dict
    low_stock_warning: int
    refuse_when_empty: bool
    own_colour_tokens: int
    extra_start: dict
    resources: dict
    teams: dict
    roles: dict
    harvest_base: int
    team_bonus: int
    harvest_interval: int
    dice_faces: tuple
    points_per_joker: int
    exchange_tokens: int
    exchange_points: int
    options: dict
    second_pirate_cost: dict
    losing_pirate_gives_tokens: bool
    fight_pairs: tuple
    cooldowns: dict  # "base" / "everyone_fights" -> Cooldowns
    building_cap: int
    buildings: dict
    animal_unlock_level: int
    tracks: dict
    animals: dict
    reputation_threshold: int
    animals_threshold: int
    clock_tolerance: int = 120  # seconds of a system-clock jump the game clock shrugs off (R34)
    host: str = "0.0.0.0"
    port: int = 5000
    phones_per_team: int = 50  # [server] phones_per_team: a team's players' phones (the live pages a link may hold)
    spare_pages_per_link: int = 10  # [server] spare_pages_per_link: a few more per link (a reload, a tablet at the base)
    wifi_ssid: str = ""
    wifi_password: str = ""
    print_paper: str = "a4"  # [print] paper: the sheet the print pack is laid out for, "a4" or "letter"
    state_every_minutes: int = 10  # [print] state_every_minutes: the bank writes the game state to disk this often
    storage_url: str = ""  # [storage] url: PostgreSQL for the journal (bank/store/storage_url.py); "" = the SQLite file
    storage_queue: str = ""  # [storage] queue: Redis, so several server processes hear of each row (web/push/peers.py)

    @property
    def live_pages_per_link(self) -> int:
        """Live pages one team link, the big screen's key or a facilitator's session may hold."""
        return self.phones_per_team + self.spare_pages_per_link

    @property
    def joker(self) -> str:
        """The id of the joker resource (R6)."""
        return next(r.id for r in self.resources.values() if r.joker)

    def identity(self) -> dict:
        """The ids a saved game depends on; a database made with others is refused."""
        return {name: sorted(getattr(self, name)) for name in ("teams", "resources", "tracks", "buildings", "animals", "roles")}

    def cards(self, extra: tuple = ()) -> list[str]:
        """The role cards of a team: harvester-1, harvester-2, builder-1... (R9)."""
        cards = [f"{role.id}-{n}" for role in self.roles.values() for n in range(1, role.cards + 1)]
        return cards + list(extra)

    def role_of(self, card: str) -> Role | None:
        """The role printed on a card id such as 'pirate-2'."""
        role_id, _, number = card.rpartition("-")
        return self.roles.get(role_id) if number.isdigit() else None

    def pirate_role(self) -> Role:
        return next(r for r in self.roles.values() if r.pirate)
