/* Terrabank's shared picture: labels from /api/config, tokens, standings, tracks, events,
 * running cooldowns and the winner. Needs live.js; defines window.W. Every page that shows
 * the game loads it; the pages that book commands also load forms.js.
 */
(function () {
  "use strict";

  var TB = window.TB, el = TB.el, t = TB.t;
  var W = (window.W = { config: null });

  /* ---- labels ---- */

  W.loadConfig = async function () {
    for (;;) {
      var r = await TB.get("/api/config");
      if (r.ok) { W.config = r.data; return r.data; }
      await new Promise(function (done) { setTimeout(done, 3000); }); // the bank is unreachable: keep trying
    }
  };

  function entry(group, id) { return (W.config && W.config[group] && W.config[group][id]) || null; }
  W.teamLabel = function (id) { var e = entry("teams", id); return e ? e.label : id; };
  W.teamColour = function (id) { var e = entry("teams", id); return e ? e.colour : "#777"; };
  W.resLabel = function (id) { var e = entry("resources", id); return e ? e.label : id; };
  W.resColour = function (id) { var e = entry("resources", id); return e ? e.colour : "#777"; };
  W.buildingLabel = function (id) { var e = entry("buildings", id); return e ? e.label : id; };
  W.animalLabel = function (id) { var e = entry("animals", id); return e ? e.label : id; };
  W.trackLabel = function (id) { var e = entry("tracks", id); return e ? e.label : id; };
  W.teams = function () { return W.config ? Object.keys(W.config.teams) : []; };
  W.resources = function (filter) {
    return W.config ? Object.keys(W.config.resources).filter(function (r) { return !filter || filter(W.config.resources[r], r); }) : [];
  };
  W.plainResources = function () { return W.resources(function (r) { return !r.joker; }); };
  W.joker = function () { return W.resources(function (r) { return r.joker; })[0] || "joker"; };
  W.roleOf = function (card) { var i = card.lastIndexOf("-"); return entry("roles", card.slice(0, i)) ? card.slice(0, i) : null; };
  /** "Pirate 1" for "pirate-1". */
  W.cardLabel = function (card) {
    var role = W.roleOf(card), n = card.slice(card.lastIndexOf("-") + 1);
    return role ? W.config.roles[role].label + " " + n : card;
  };

  /* ---- small pieces ---- */

  /** A token chip: a dot of the resource's colour, the count and the name. */
  W.token = function (resource, n, options) {
    var o = options || {};
    return el("span", { class: "tok" + (o.missing ? " tok-missing" : ""), title: W.resLabel(resource) },
      el("i", { class: "dot", style: { background: W.resColour(resource) } }),
      el("b", { text: (o.sign && n > 0 ? "+" : "") + (n < 0 ? "\u2212" + -n : n) }),
      o.short ? null : " " + W.resLabel(resource));
  };

  /** Chips for {resource: n}, in config order. */
  W.tokens = function (amounts, options) {
    var list = W.resources().filter(function (r) { return amounts && amounts[r]; });
    if (!list.length) return el("span", { class: "muted", text: t("nothing") });
    return el("span", { class: "toks" }, list.map(function (r) { return W.token(r, amounts[r], options); }));
  };

  W.teamChip = function (team) {
    var colour = W.teamColour(team);
    return el("span", { class: "team-chip", style: { background: colour, color: TB.ink(colour) }, text: W.teamLabel(team) });
  };

  /** A track icon: a token of a colour or a die, with its count. */
  W.icon = function (bonus) {
    return el("span", { class: "icons" }, Object.keys(bonus).map(function (kind) {
      var n = bonus[kind];
      if (kind === "dice") return el("span", { class: "ico ico-die", title: t("bonus_dice", { n: n }), text: n });
      var colour = W.resColour(kind);
      return el("span", { class: "ico", title: n + " " + W.resLabel(kind), style: { background: colour, color: TB.ink(colour) }, text: n });
    }));
  };

  /** Show a message in a banner element: kind is "ok", "error", "info" or "" to hide it. */
  W.banner = function (node, kind, content) {
    node.className = "banner" + (kind ? " banner-" + kind : " hidden");
    TB.fill(node, content || []);
    node.setAttribute("role", kind === "error" ? "alert" : "status");
  };

  /* ---- the shared picture ---- */

  W.rateText = function (board) {
    return t("rate_text", { tokens: board.rate.tokens, points: board.rate.points });
  };

  W.clockText = function (board) {
    var c = board.clock;
    var names = { setup: t("clock_setup"), paused: t("clock_paused"), ended: t("clock_ended"), running: "" };
    var status = names.hasOwnProperty(c.status) ? names[c.status] : c.status;
    var left = W.timeLeftText(board);
    return W.gameTime(TB.clock.elapsed(), board) + " / " + W.gameTime(c.duration, board) + " \u00b7 " +
      t("session_n", { n: Math.max(1, c.session), of: c.sessions }) + (status ? " \u00b7 " + status : "") +
      (left ? " \u00b7 " + left : "");
  };

  /* ---- issue 12 (items 4, 5, 6, 8): time left, the end, event results, last harvests ---- */

  /** One format for every game time on a page: h:mm:ss when the game lasts an hour or more. */
  W.gameTime = function (seconds, board) {
    var text = TB.clockText(seconds), long = board && board.clock && board.clock.duration >= 3600;
    return long && text.split(":").length < 3 ? "0:" + (text.length < 5 ? "0" : "") + text : text;
  };

  /** {session, game}: game seconds left in this session and in the game (R34); null before the start. */
  W.timeLeft = function (board) {
    var c = board.clock, now = TB.clock.elapsed();
    if (c.status === "setup" || c.status === "ended") return null;
    var sessionEnd = Math.min(c.duration, (c.duration * Math.max(1, c.session)) / c.sessions);
    return { session: Math.max(0, sessionEnd - now), game: Math.max(0, c.duration - now) };
  };

  /** "0:28:00 left in this session · 1:58:00 left in the game" (one part with a single session). */
  W.timeLeftText = function (board) {
    var left = W.timeLeft(board), c = board.clock;
    if (!left) return "";
    var game = t("left_game", { time: W.gameTime(left.game, board) });
    if (c.sessions <= 1) return game;
    // A session that reached its end waits for the lead's resume: say so rather than "0:00:00 left".
    var session = left.session > 0 ? t("left_session", { time: W.gameTime(left.session, board) })
      : t("session_over", { n: Math.max(1, c.session) });
    return session + " \u00b7 " + game;
  };

  /** "1st", "2e": a rank as the page's language writes it. */
  W.ordinal = function (n) {
    var key = "ordinal_" + n;
    return n <= 3 && t(key) !== key ? t(key) : t("ordinal_n", { n: n });
  };

  /** The final ranking as a list: rank, team chip, points; the winners marked. */
  W.finalRanking = function (standings, ended, highlight) {
    var winners = (ended && ended.winners) || [];
    return el("ol", { class: "final-ranking" }, (standings || []).map(function (row) {
      return el("li", { class: (winners.indexOf(row.team) >= 0 ? "won" : "") + (row.team === highlight ? " mine" : ""),
        dataset: { team: row.team } },
        el("span", { class: "fr-rank", text: W.ordinal(row.rank) }), " ", W.teamChip(row.team), " ",
        el("b", { text: row.reputation }), " " + t("pts"));
    }));
  };

  /** Facilitator pages: a banner at the top once the game is over, with the winners and the ranking.
   * The standings come from the last public picture (TB.clock.base), which every page keeps. */
  W.showEnded = function (board) {
    var node = document.getElementById("ended-banner");
    if (!node) {
      node = el("div", { id: "ended-banner", class: "banner ended-banner hidden", role: "status" });
      document.body.insertBefore(node, document.body.firstChild);
    }
    node.classList.toggle("hidden", !board.ended);
    if (!board.ended || node.dataset.shown === JSON.stringify(board.ended)) return;
    node.dataset.shown = JSON.stringify(board.ended);
    var winners = board.ended.winners || [], base = TB.clock.base || {};
    TB.fill(node, [
      el("b", { class: "eb-title", text: t("game_over_title") + " \u00b7 " + t("winner_is", { teams: winners.map(W.teamLabel).join(", ") }) }),
      el("span", { class: "eb-why", text: " " + t("ended." + board.ended.reason) }),
      base.standings ? W.finalRanking(base.standings, board.ended) : null]);
  };

  /** "1st: 5 pts · 2nd: 2 jokers": what an open event gives by rank. */
  W.rewardsText = function (rewards) {
    return rewards.map(function (r, i) { return t("reward_rank", { rank: W.ordinal(i + 1), reward: W.rewardText(r) }); }).join(" \u00b7 ");
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

  /** "harvested 3 min ago" for a card harvested `ago` game seconds ago (R14), or "not harvested yet". */
  W.harvestedText = function (ago) {
    if (ago === undefined || ago === null) return t("not_harvested");
    return ago < 60 ? t("harvested_now") : t("harvested_ago", { n: Math.floor(ago / 60) });
  };

  /** "+51 h", "-1 h 0 min", "+4 min": how far the machine's clock jumped (units read in French and English). */
  W.jumpText = function (seconds) {
    var sign = seconds < 0 ? "-" : "+", s = Math.abs(Math.round(seconds));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    if (h >= 24) return sign + h + " h";
    if (h) return sign + h + " h " + m + " min";
    return sign + Math.max(m, 1) + " min";
  };

  /** The bank paused the game after a jump of the machine's clock (R34): say what it saw, on
   * every facilitator page, until the lead resumes. Phones and the big screen just read "paused". */
  W.showHeld = function (board) {
    var held = board.clock.held, node = document.getElementById("held-banner");
    if (!node) {
      node = el("div", { id: "held-banner", class: "banner banner-error hidden", role: "alert" });
      document.body.insertBefore(node, document.body.firstChild);
    }
    node.classList.toggle("hidden", !held || board.clock.status !== "paused");
    W.showEnded(board); // every facilitator page calls this on each picture: the end shows there too
    if (!held) return;
    var key = held.kind === "clock_jump_at_start" ? "clock_held_start" : "clock_held";
    node.textContent = t(key, { jump: W.jumpText(held.seconds) });
  };

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
          el("span", { class: "sub", text: t("buildings_n", { n: row.buildings }) + " \u00b7 " + t("animals_n", { n: row.animals }) }),
          o.animals && animals.length ? el("span", { class: "animal-list", text: animals.map(W.animalLabel).join(", ") }) : null),
        el("span", { class: "rep", title: t("reputation") }, el("b", { text: row.reputation }), el("small", { text: t("pts") })));
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
      var givers = W.teams().filter(function (team) { return ev.given[team]; }).map(function (team) {
        return el("span", { class: "giver" }, W.teamChip(team), " ", String(ev.given[team]));
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

  W.rewardText = function (reward) {
    return reward.points ? t("n_points", { n: reward.points }) : t("n_jokers", { n: reward.jokers });
  };

  /**
   * Running cooldowns from TB.clock, counted down locally. Returns the keys ("team/card") that
   * reached 0 since the last call, so the page beeps or vibrates once per cooldown; a finished
   * one stays on screen as "may go" for a few seconds.
   */
  W.cooldowns = function (node, onlyTeam, memory) {
    var list = TB.clock.cooldowns(onlyTeam), now = Date.now(), ended = [], seen = {};
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
        el("span", { class: "cd-card", text: W.cardLabel(c.card) }),
        el("span", { class: "cd-left", text: go ? t("may_go") : Math.ceil(c.left) + " s" }),
        !go && TB.clock.base.board.clock.status === "paused" ? el("span", { class: "cd-paused", text: t("clock_paused") }) : null);
    }));
    return ended;
  };
  W.cooldownMemory = function () { return { prev: {}, ended: {} }; };

  /** Show or hide the winner banner from board.ended ({reason, winners, elapsed}). */
  W.winner = function (node, board, options) {
    var o = options || {}, ended = board.ended;
    // A tap puts the banner away, so a phone can still read the final scores.
    if (!node.dataset.tap) {
      node.dataset.tap = "1";
      node.addEventListener("click", function () { node.dataset.dismissed = "1"; node.classList.add("hidden"); });
    }
    node.classList.toggle("hidden", !ended || node.dataset.dismissed === "1");
    if (!ended) return;
    var winners = ended.winners || [];
    // A team's phone: "Winner!" only for the winners; the others read their rank ("2nd of 4").
    var lost = o.team && winners.indexOf(o.team) < 0;
    var mine = o.team && (o.standings || []).filter(function (r) { return r.team === o.team; })[0];
    var title = lost ? t("game_over_title") : t(winners.length > 1 ? "winners_title" : "winner_title");
    TB.fill(node, [
      el("div", { class: "w-title", text: title }),
      mine ? el("div", { class: "w-rank", text: t("your_rank", { rank: W.ordinal(mine.rank), n: o.standings.length }) }) : null,
      el("div", { class: "w-teams" }, winners.map(function (team) {
        var colour = W.teamColour(team);
        return el("div", { class: "w-team", style: { background: colour, color: TB.ink(colour) }, text: W.teamLabel(team) });
      })),
      el("div", { class: "w-why", text: t("ended." + ended.reason) }),
      o.standings ? W.finalRanking(o.standings, ended, o.team) : null,
      o.team ? el("div", { class: "w-hint", text: t("tap_to_close") }) : null]);
  };
})();
