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
    return TB.clockText(TB.clock.elapsed()) + " / " + TB.clockText(c.duration) + " \u00b7 " +
      t("session_n", { n: Math.max(1, c.session), of: c.sessions }) + (status ? " \u00b7 " + status : "");
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
    if (!open.length) { TB.fill(node, el("p", { class: "muted", text: t("no_events") })); return open; }
    TB.fill(node, open.map(function (id) {
      var ev = board.events[id];
      var total = Object.keys(ev.given).reduce(function (s, team) { return s + ev.given[team]; }, 0);
      var left = ev.deadline !== null && ev.deadline !== undefined ? ev.deadline - TB.clock.elapsed() : null;
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
          left !== null ? el("span", { class: "event-left", text: t("time_left", { time: TB.clockText(left) }) }) : null,
          o.rewards ? el("span", { text: t("rewards_list", { list: ev.rewards.map(W.rewardText).join(" / ") }) }) : null),
        givers.length ? el("div", { class: "givers" }, givers) : null);
    }));
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
  W.winner = function (node, board) {
    var ended = board.ended;
    // A tap puts the banner away, so a phone can still read the final scores.
    if (!node.dataset.tap) {
      node.dataset.tap = "1";
      node.addEventListener("click", function () { node.dataset.dismissed = "1"; node.classList.add("hidden"); });
    }
    node.classList.toggle("hidden", !ended || node.dataset.dismissed === "1");
    if (!ended) return;
    var winners = ended.winners || [];
    TB.fill(node, [
      el("div", { class: "w-title", text: t(winners.length > 1 ? "winners_title" : "winner_title") }),
      el("div", { class: "w-teams" }, winners.map(function (team) {
        var colour = W.teamColour(team);
        return el("div", { class: "w-team", style: { background: colour, color: TB.ink(colour) }, text: W.teamLabel(team) });
      })),
      el("div", { class: "w-why", text: t("ended." + ended.reason) })]);
  };
})();
