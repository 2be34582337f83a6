"""The end-of-game report: standings, how it ended, curves over time, each team's story."""

from __future__ import annotations

from reportlab.lib.colors import white

from .boards import BANK_COLOUR, header
from .drawing import BOLD, FONT, INK, LIGHT, MONO, PT, colour, finish, new_canvas, paragraph, rounded, text, wrap
from .report_chart import chart, legend_height
from .geometry import A4, MM, Box, paper_size
from .icons import in_words
from .labels import colon, count, name, rate_text, t, typo
from .report_moments import AREA, LINE_SIZE, moments_section, sources_table, whole_height
from .report_data import Summary, summarise
from .report_late import late_section, late_stations

LIST_LIMIT = 8  # lines of trades or fights shown per team before "... and n more"
WIN_SIZE = 14 * PT  # the winner's line


class Flow:
    """Pages filled from the top; a new page (A4, or `size`) starts when a block does not fit.

    The text keeps AREA's width and left edge on every paper; only its height follows the sheet.
    """

    def __init__(self, c, size: tuple = A4):
        self.c, self.size, self.open = c, size, False
        self.top = size[1] - (A4[1] - AREA.top)
        self.y = self.top

    def need(self, height: float) -> float:
        """Room for `height` mm: on this page if it fits, else on a new one; returns the top y."""
        if not self.open or self.y - height < AREA.y:
            self.close()
            self.c.setPageSize((self.size[0] * MM, self.size[1] * MM))
            self.c.saveState()
            self.c.scale(MM, MM)
            self.open, self.y = True, self.top
        top = self.y
        self.y -= height
        return top

    def close(self) -> None:
        if self.open:
            self.c.restoreState()
            self.c.showPage()
            self.open = False


def end_sentence(config, ended: dict | None, lang: str) -> str:
    """Why and when the game ended (R35), or that it has not."""
    if not ended:
        return t(lang, "not_ended")
    reason = {"time": t(lang, "end_time"), "stopped": t(lang, "end_stopped"),
              "reputation": t(lang, "end_reputation", n=config.reputation_threshold),
              "animals": t(lang, "end_animals", n=config.animals_threshold)}.get(ended["reason"], ended["reason"])
    return colon(lang, t(lang, "ended_by"), f"{reason}, {t(lang, 'after', n=round(ended['elapsed'] / 60))}")


def winner_line(config, ended: dict | None, lang: str) -> str:
    """'Winner: Green', or the teams sharing first place."""
    if not ended or not ended["winners"]:
        return ""
    names = ", ".join(name(config.teams[w].label, lang) for w in ended["winners"])
    word = t(lang, "winner" if len(ended["winners"]) == 1 else "winners")
    return colon(lang, word, names)


WHY = {
    "fr": {"wins": "{team} : {points}", "ahead": ", {d} de plus que {second}",
           "behind": ", {d} de moins que {second}", "level": ", autant que {second}", "tie": "{teams} finissent à égalité avec {points}",
           "rule": " ({rule})", "sources": "D'où viennent ces points : {list}.", "none": "Aucun point marqué."},
    "en": {"wins": "{team}: {points}", "ahead": ", {d} more than {second}",
           "behind": ", {d} fewer than {second}", "level": ", as many as {second}", "tie": "{teams} share the win with {points}",
           "rule": " ({rule})", "sources": "Where the points came from: {list}.", "none": "No points scored."},
}


def why_sentence(config, summary: Summary, lang: str) -> str:
    """Why the winner won, in a sentence: its points, its lead over the next team, the rule that
    ended the game when it was not time, and where its points came from (R31, R35)."""
    from .report_data import SOURCES
    from .report_moments import HEADS

    ended, w = summary.ended, WHY[lang]
    if not ended or not ended["winners"]:
        return ""
    points = {row["team"]: row["reputation"] for row in summary.standings}
    label = lambda team: name(config.teams[team].label, lang)  # noqa: E731
    winners = ended["winners"]
    if len(winners) > 1:
        return w["tie"].format(teams=", ".join(label(x) for x in winners), points=count(lang, "point", points[winners[0]])) + "."
    team = winners[0]
    said = w["wins"].format(team=label(team), points=count(lang, "point", points[team]))
    others = sorted((p, x) for x, p in points.items() if x != team)
    if others:
        second_points, second = others[-1]
        d = points[team] - second_points
        key = "ahead" if d > 0 else "behind" if d < 0 else "level"
        said += w[key].format(d=abs(d), second=label(second))
    rule = {"reputation": t(lang, "end_reputation", n=config.reputation_threshold),
            "animals": t(lang, "end_animals", n=config.animals_threshold)}.get(ended["reason"])
    if rule:
        said += w["rule"].format(rule=rule)
    given = summary.teams[team].sources
    ranked = sorted((k for k in SOURCES if given.get(k, 0) > 0), key=lambda k: -given[k])[:3]
    parts = ", ".join(f"{HEADS[lang][k]} {given[k]}" for k in ranked)
    return typo(lang, f"{said}. " + (w["sources"].format(list=parts) if parts else w["none"]))


def _standings(c, summary: Summary, config, top: float, lang: str) -> None:
    """Rank, team, reputation, animals, buildings."""
    cols = (AREA.x, AREA.x + 18, AREA.x + 100, AREA.x + 135, AREA.x + 165)
    heads = (t(lang, "rank"), t(lang, "team"), t(lang, "reputation"), t(lang, "board_animals"), t(lang, "board_buildings"))
    for x, head in zip(cols, heads):
        text(c, head, x, top - 4, 9 * PT, BOLD, INK)
    for i, row in enumerate(summary.standings):
        y = top - 6 - 7 * (i + 1)
        if i % 2 == 0:
            c.setFillColor(LIGHT)
            c.rect(AREA.x, y - 2, AREA.w, 7, stroke=0, fill=1)
        c.setFillColor(colour(row["colour"]))
        c.setStrokeColor(INK)  # a dark rim: a yellow dot alone would fade into white paper
        c.setLineWidth(0.2)
        c.circle(cols[1] + 2.5, y + 1.5, 2.2, stroke=1, fill=1)
        values = (str(row["rank"]), name(row["label"], lang), str(row["reputation"]), str(row["animals"]), str(row["buildings"]))
        for j, (x, value) in enumerate(zip(cols, values)):
            text(c, value, x + (7 if j == 1 else 0), y, 11 * PT, BOLD if j < 3 else FONT, width=60 if j == 1 else None)


def _front_page(flow: Flow, summary: Summary, config, lang: str, chain: tuple | None = None) -> None:
    """Title, the journal chain's head it was made at, the end, standings, reputation and track curves."""
    c = flow.c
    top = flow.need(16)
    header(c, Box(AREA.x, top - 14, AREA.w, 14), BANK_COLOUR, name(config.title, lang), t(lang, "report_title"))
    if chain:  # the whole hash, as the state sheet prints it: `terrabank verify --at <entry>` prints the same
        top = flow.need(6)
        text(c, t(lang, "report_chain", seq=chain[0], hash=chain[1]), AREA.x, top - 4, 8 * PT, MONO, INK, width=AREA.w)
    why = why_sentence(config, summary, lang)
    # The winners and the why on as many lines as they take (six long names can share the win), never shrunk.
    winners = wrap(winner_line(config, summary.ended, lang), BOLD, WIN_SIZE, AREA.w - 8, "any")
    more = max(0, len(winners) - 1) * WIN_SIZE * 1.15
    why_h = max(10, whole_height(why, AREA.w - 8, 10 * PT)) if why else 0
    box_h = (28 if why else 18) + more + max(0, why_h - 10)
    top = flow.need(box_h + 6)
    rounded(c, Box(AREA.x, top - box_h - 2, AREA.w, box_h), 2, fill=white, stroke=INK)
    text(c, end_sentence(config, summary.ended, lang), AREA.x + 4, top - 8, 10 * PT, FONT, width=AREA.w - 8)
    for k, line in enumerate(winners):
        text(c, line, AREA.x + 4, top - 16 - k * WIN_SIZE * 1.15, WIN_SIZE, BOLD)
    if why:
        paragraph(c, why, Box(AREA.x + 4, top - 19 - more - why_h, AREA.w - 8, why_h), 10 * PT, FONT, smallest=10 * PT)
    top = flow.need(20 + 7 * len(summary.standings))
    text(c, t(lang, "standings"), AREA.x, top - 5, 12 * PT, BOLD)
    _standings(c, summary, config, top - 7, lang)
    teams = [(name(config.teams[tm].label, lang), config.teams[tm].colour, pts) for tm, pts in summary.reputation.items()]
    tracks = [(name(config.tracks[tr].label, lang), config.resources[config.tracks[tr].resource].colour, pts)
              for tr, pts in summary.tracks.items()]
    longest = max(tr.length for tr in config.tracks.values())
    marks = ((config.animal_unlock_level, t(lang, "unlock_mark", n=config.animal_unlock_level)),
             (longest, t(lang, "end_mark", n=longest)))
    for title, series, height, top_value, lines in ((t(lang, "rep_over_time"), teams, 78, None, ()),
                                                    (t(lang, "track_progress"), tracks, 62, longest, marks)):
        height += legend_height(series, AREA.w) - legend_height(series[:1], AREA.w)  # a row more per row of names
        top = flow.need(height + 8)
        text(c, title, AREA.x, top - 5, 12 * PT, BOLD)
        chart(c, Box(AREA.x, top - 8 - height, AREA.w, height), series, summary.minutes, lang, top_value, lines)


def _story_lines(config, story, lang: str) -> tuple:
    """A team's fights and trades as sentences, newest last."""
    def team_name(team_id):
        return name(config.teams[team_id].label, lang)
    def card(card_id):
        role = config.role_of(card_id)
        return f"{name(role.label, lang)} {card_id.rpartition('-')[2]}" if role else card_id
    fights = [t(lang, "fight_line", m=round(f["minute"]), card=card(f["card"]), other=team_name(f["other"]),
                other_card=card(f["other_card"]), result=t(lang, "won" if f["won"] else "lost")) for f in story.fights]
    trades = [t(lang, "trade_line", m=round(tr["minute"]), other=team_name(tr["other"]), kind=t(lang, tr["kind"]),
                gave=in_words(config, tr["gave"], lang), got=in_words(config, tr["got"], lang)) for tr in story.trades]
    return fights, trades


def _fight_count(lang: str, won: int, lost: int) -> str:
    """'1 gagné, 2 perdus': each number with its agreeing word (French: singular for 0 and 1)."""
    return t(lang, "fights_line", won=t(lang, "won_1" if won <= 1 else "won_n", n=won),
             lost=t(lang, "lost_1" if lost <= 1 else "lost_n", n=lost))


def _limited(lines: list, lang: str) -> list:
    """At most LIST_LIMIT lines, then how many were left out."""
    if len(lines) <= LIST_LIMIT:
        return lines
    return lines[:LIST_LIMIT] + [t(lang, "more", n=len(lines) - LIST_LIMIT)]


def _team_story(flow: Flow, config, team_id: str, summary: Summary, lang: str) -> None:
    """One team's story: owned things, contributions, fights and trades."""
    c, story = flow.c, summary.teams[team_id]
    team = config.teams[team_id]
    fights, trades = _story_lines(config, story, lang)
    won = sum(f["won"] for f in story.fights)
    blocks = [
        (t(lang, "board_buildings"), [", ".join(name(config.buildings[b].label, lang) for b in story.buildings) or "-"]),
        (t(lang, "board_animals"), [", ".join(name(config.animals[a].label, lang) for a in story.animals) or "-"]),
        (t(lang, "contributions"), [colon(lang, title, count(lang, "token", n))
                                    for title, n in story.contributions.items()] or ["-"]),
        (f"{t(lang, 'fights')} ({_fight_count(lang, won, len(story.fights) - won)})", _limited(fights, lang) or ["-"]),
        (t(lang, "trades"), _limited(trades, lang) or ["-"]),
    ]
    height = 14 + sum(6 + sum(whole_height(line, AREA.w - 3) + 0.3 for line in lines) for _, lines in blocks)
    top = flow.need(height)
    points = next(r["reputation"] for r in summary.standings if r["team"] == team_id)
    header(c, Box(AREA.x, top - 11, AREA.w, 11), team.colour, name(team.label, lang), count(lang, "point", points))
    y = top - 15
    for title, lines in blocks:
        text(c, title, AREA.x, y - 3.5, 10 * PT, BOLD)
        y -= 5.5
        for line in lines:  # whole, on as many lines as it takes
            high = whole_height(line, AREA.w - 3) + 0.3
            y -= paragraph(c, line, Box(AREA.x + 3, y - high, AREA.w - 3, high), LINE_SIZE, smallest=LINE_SIZE) + 0.3
        y -= 0.5
    flow.y = min(flow.y, y - 2)


def _rates(flow: Flow, summary: Summary, lang: str) -> None:
    """Every change of the exchange rate, when and by whom (R32)."""
    lines = [t(lang, "rate_line", m=round(r["minute"]), was=rate_text(lang, **r["was"]), now=rate_text(lang, **r["now"]))
             + (f" ({t(lang, 'by', actor=r['actor'])})" if r["actor"] else "") for r in summary.rates] or ["-"]
    top = flow.need(18 + 4.5 * len(lines))
    # Its own grey band, among the whole game's sections and before the teams' stories:
    # a rate change concerns every team, not the team whose story would come last.
    header(flow.c, Box(AREA.x, top - 14, AREA.w, 11), BANK_COLOUR, t(lang, "rate_changes"), "")
    for i, line in enumerate(lines):
        text(flow.c, line, AREA.x + 3, top - 19 - 4.5 * i, 9 * PT, FONT, INK, width=AREA.w - 3)


def render_report(bank, lang: str | None = None, paper: str = "a4") -> bytes:
    """The report of the game in `bank` (a bank.services.bank.Bank), as an A4 (or Letter) PDF."""
    config = bank.config
    lang = lang or config.language
    rows = list(bank.journal_rows(0))  # read twice: the summary, and the commands that came late
    summary = summarise(config, rows)
    # The head of the chain at the last entry read: a report kept after the game witnesses the journal as the
    # state sheets do, so a history rewritten afterwards (its chain rebuilt) shows against it (`verify --at`).
    chain = (rows[-1]["seq"], bank.head_at(rows[-1]["seq"])) if rows else None
    c, buf = new_canvas(f"{name(config.title, lang)} - {t(lang, 'report_title')}")
    flow = Flow(c, paper_size(paper))
    _front_page(flow, summary, config, lang, chain if chain and chain[1] else None)
    sources_table(flow, summary, config, lang)
    moments_section(flow, summary, config, lang)
    _rates(flow, summary, lang)
    late_section(flow, late_stations(rows), lang)
    flow.close()
    for team_id in config.teams:
        _team_story(flow, config, team_id, summary, lang)
    flow.close()
    return finish(c, buf)
