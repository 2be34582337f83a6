/* The board's sections: open events and recent results, standings, the shared tracks and the
 * running cooldowns (counted down locally). Needs board_labels.js and board_status.js.
 */
(function () {
  "use strict";

  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  /** "1st: 5 pts · 2nd: 2 jokers": what an open event gives by rank. */
  W.rewardsText = function (rewards) {
    return rewards.map(function (r, i) { return t("reward_rank", { rank: W.ordinal(i + 1), reward: W.rewardText(r) }); }).join(" \u00b7 ");
  };

  W.rewardText = function (reward) {
    if (reward.points) return t(TB.one(reward.points) ? "n_point" : "n_points", { n: reward.points });
    return t(TB.one(reward.jokers) ? "n_joker" : "n_jokers", { n: reward.jokers });
  };

  var RESULTS_FOR = 600; // game seconds a closed event's results stay on the big screen and the phones

  /** Closed events worth showing now: the last two, and not those whose deadline passed long ago. */
  W.recentResults = function (board) {
    var now = TB.clock.elapsed();
    return Object.keys(board.events).filter(function (id) {
      var ev = board.events[id];
      return ev.status !== "open" && (ev.deadline === null || ev.deadline === undefined || now - ev.deadline < RESULTS_FOR);
    }).slice(-2).reverse();
  };

  /** A closed event's results: who ranked where, gave how much and received what. */
  W.eventResults = function (id, ev, highlight) {
    var ranking = ev.ranking || [];
    var rows = ranking.map(function (r) {
      var got = r.reward && (r.reward.points || r.reward.jokers) ? "+" + W.rewardText(r.reward) : t("no_reward");
      return el("li", { class: r.team === highlight ? "mine" : "", dataset: { team: r.team } },
        el("span", { class: "fr-rank", text: W.ordinal(r.rank) }), " ", W.teamChip(r.team), " ",
        el("span", { class: "muted", text: t("given_n", { given: r.given }) }), " ", el("b", { class: "er-got", text: got }));
    });
    return el("div", { class: "event event-results", dataset: { event: id } },
      el("div", { class: "event-head" }, el("b", { class: "event-title", text: ev.title }),
        el("span", { class: "event-given", text: t("event_results") })),
      rows.length ? el("ol", { class: "final-ranking" }, rows) : el("p", { class: "muted", text: t("nobody_gave") }));
  };

  /** Open events with what was given, against the target if there is one, and time left. */
  W.events = function (node, board, options) {
    var o = options || {};
    var open = Object.keys(board.events).filter(function (id) { return board.events[id].status === "open"; });
    var results = o.results ? W.recentResults(board).map(function (id) { return W.eventResults(id, board.events[id], o.highlight); }) : [];
    if (!open.length) { TB.fill(node, results.length ? results : el("p", { class: "muted", text: t("no_events") })); return open; }
    var over = !!(board.clock && board.clock.status === "ended"); // nothing counts down once the game is over
    TB.fill(node, open.map(function (id) {
      var ev = board.events[id];
      var total = Object.keys(ev.given).reduce(function (s, team) { return s + ev.given[team]; }, 0);
      var left = !over && ev.deadline !== null && ev.deadline !== undefined ? ev.deadline - TB.clock.elapsed() : null;
      var accepts = ev.accepts.length ? ev.accepts.map(W.resLabel).join(", ") : t("any_resource");
      var bar = ev.target ? el("div", { class: "progress" },
        el("span", { style: { width: Math.min(100, (100 * total) / ev.target) + "%" } })) : null;
      // Who is winning it, first: by what they gave, equals sharing the better rank as the bank ranks them
      // at the close (1, 1, 3); the leaders stay in view when the list is shown in turns (display_fit.js).
      var ranked = W.teams().filter(function (team) { return ev.given[team]; }).sort(function (a, b) { return ev.given[b] - ev.given[a]; });
      var givers = ranked.map(function (team, i) {
        var rank = ranked.findIndex(function (other) { return ev.given[other] === ev.given[team]; }) + 1;
        return el("span", { class: "giver" + (rank === 1 ? " leader" : ""), dataset: { rank: rank } },
          el("span", { class: "giver-rank", text: W.ordinal(rank) }), " ", W.teamChip(team), " ", String(ev.given[team]));
      });
      return el("div", { class: "event", dataset: { event: id } },
        el("div", { class: "event-head" },
          el("b", { class: "event-title", text: ev.title }),
          el("span", { class: "event-given", text: ev.target ? t("given_of_target", { given: total, target: ev.target }) : t("given_n", { given: total }) })),
        bar,
        el("div", { class: "event-meta" },
          el("span", { text: t("accepts", { list: accepts }) }),
          left !== null ? el("span", { class: "event-left", text: t("time_left", { time: W.gameTime(left, board) }) }) : null,
          over ? el("span", { class: "event-left", text: t("event_game_over") }) : null,
          o.rewards ? el("span", { class: "event-rewards", text: t("rewards_list", { list: W.rewardsText(ev.rewards) }) }) : null),
        givers.length ? el("div", { class: "givers" }, givers) : null);
    }).concat(results));
    return open;
  };

  /* ---- standings and tracks ---- */

  /** Standings, best first: rank, colour, name, reputation, buildings and animals. */
  W.standings = function (node, standings, board, options) {
    var o = options || {};
    TB.fill(node, standings.map(function (row) {
      var colour = row.colour || W.teamColour(row.team);
      var animals = (board && board.animals[row.team]) || [];
      return el("li", { class: "standing" + (o.highlight === row.team ? " mine" : ""), dataset: { team: row.team } },
        el("span", { class: "rank", text: row.rank }),
        el("span", { class: "swatch", style: { background: colour } }),
        el("span", { class: "who" },
          el("span", { class: "name", text: TB.pick(row.label) || W.teamLabel(row.team) }),
          el("span", { class: "sub", text: o.compact
            // The big screen: "2 buildings · 1 animal" fits beside the name, one line a team.
            ? t(TB.one(row.buildings) ? "n_building" : "n_buildings", { n: row.buildings }) + " \u00b7 " + t(TB.one(row.animals) ? "n_animal" : "n_animals", { n: row.animals })
            : t("buildings_n", { n: row.buildings }) + " \u00b7 " + t("animals_n", { n: row.animals }) }),
          o.animals && animals.length ? el("span", { class: "animal-list", text: animals.map(W.animalLabel).join(", ") }) : null),
        el("span", { class: "rep", title: t("reputation") }, el("b", { text: row.reputation }), el("small", { text: W.ptsWord(row.reputation) })));
    }));
  };

  /** The three shared tracks as bars of cells, icons on their levels, a marker at the animal unlock level. */
  W.tracks = function (node, board) {
    var unlock = W.config.animal_unlock_level;
    TB.fill(node, Object.keys(board.tracks).map(function (id) {
      var track = board.tracks[id], info = W.config.tracks[id] || { icons: {} };
      var cells = [];
      for (var level = 1; level <= track.length; level++) {
        var bonus = info.icons[String(level)];
        cells.push(el("span", { class: "cell" + (level <= track.level ? " done" : "") + (level === unlock ? " unlock" : ""),
          style: level <= track.level ? { background: W.resColour(info.resource) } : null,
          title: level === unlock ? t("animals_unlock_at", { level: unlock }) : "" },
          el("span", { class: "lvl", text: level }), bonus ? W.icon(bonus) : null));
      }
      return el("div", { class: "track" },
        el("div", { class: "track-head" },
          el("span", { class: "track-name", text: W.trackLabel(id) }),
          el("span", { class: "track-level", text: track.level + " / " + track.length })),
        el("div", { class: "cells" }, cells));
    }));
    node.classList.toggle("unlocked", !!board.animals_unlocked);
  };

  /** The line under the tracks: where animals unlock (the framed level), or that they are on sale. */
  W.unlockNote = function (node, board) {
    TB.fill(node, board.animals_unlocked ? t("animals_open")
      : [el("span", { class: "unlock-sample" }), " " + t("animals_unlock_at", { level: W.config.animal_unlock_level })]);
  };

  /* ---- cooldowns ---- */

  /**
   * Running cooldowns from TB.clock, counted down locally. Returns the keys ("team/card") that
   * reached 0 since the last call, so the page beeps or vibrates once per cooldown; a finished
   * one stays on screen as "may go" for a few seconds.
   */
  W.cooldowns = function (node, onlyTeam, memory) {
    // The page's monotonic clock, as the countdowns': a device clock put right meanwhile (set back an hour)
    // kept a finished cooldown's "may go" on screen for that hour.
    var list = TB.clock.cooldowns(onlyTeam), now = performance.now(), ended = [], seen = {};
    list.forEach(function (c) {
      var key = c.team + "/" + c.card;
      seen[key] = c.left;
      if (c.left <= 0 && memory.prev[key] > 0) ended.push(key);
    });
    // Gone from a fresh message just before our own count reached 0: it ended too.
    Object.keys(memory.prev).forEach(function (key) {
      if (!(key in seen) && memory.prev[key] > 0 && memory.prev[key] <= 3) ended.push(key);
    });
    memory.prev = seen;
    ended.forEach(function (key) { memory.ended[key] = now; });
    var showing = list.filter(function (c) { return c.left > 0; });
    Object.keys(memory.ended).forEach(function (key) {
      if (now - memory.ended[key] > 8000 || seen[key] > 0) { delete memory.ended[key]; return; }
      showing.push({ team: key.split("/")[0], card: key.split("/")[1], left: 0 });
    });
    if (!showing.length) {
      TB.fill(node, el("p", { class: "muted", text: t("no_cooldowns") }));
      return ended;
    }
    TB.fill(node, showing.map(function (c) {
      var go = c.left <= 0;
      return el("div", { class: "cooldown" + (go ? " cooldown-go" : ""), dataset: { key: c.team + "/" + c.card } },
        onlyTeam ? null : W.teamChip(c.team),
        cardName(W.cardLabel(c.card)),
        el("span", { class: "cd-left", text: go ? t("may_go") : Math.ceil(c.left) + " s" }),
        !go && TB.clock.base.board.clock.status === "paused" ? el("span", { class: "cd-paused", text: t("clock_paused") }) : null);
    }));
    return ended;
  };
  W.cooldownMemory = function () { return { prev: {}, ended: {} }; };

  /** "Constructeur 1" as the role and its number apart: a narrow tile shortens the role ("Constr… 1"),
   * never the number that tells two cards of a team apart (terrabank.css, big screen). */
  function cardName(label) {
    var parts = /^(.*?)(\s*\d+)$/.exec(label);
    if (!parts) return el("span", { class: "cd-card", text: label });
    return el("span", { class: "cd-card" }, el("span", { class: "cd-role", text: parts[1] }),
      el("span", { class: "cd-num", text: parts[2] }));
  }
})();
