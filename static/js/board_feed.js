/* The activity feed: the last bookings in words, newest first. The bank builds the
 * entries from its journal (bank/game/feed.py): the big screen gets everyone's without any team's
 * tokens (`feed`), a team's phone its own with its own tokens and its points after each (`team_feed`).
 * Needs board_labels.js and the strings of templates/_feed_strings.html.
 */
(function () {
  "use strict";

  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  /** An event's title from the last picture (forms.js has the same for the booking pages). */
  W.eventTitle = W.eventTitle || function (id) {
    var board = TB.clock.base && TB.clock.base.board, ev = board && board.events[id];
    return ev ? ev.title : id;
  };

  function signed(n) { return (n > 0 ? "+" : "\u2212") + Math.abs(n); }

  /** "Building", "Penalty"...: the kind of booking. */
  function kindLabel(type, what) {
    if (type === "award") return t((what && what.points < 0) ? "feed.award_minus" : "feed.award_plus");
    var key = "feed." + type;
    return t(key) !== key ? t(key) : type;
  }

  /** What exactly: "Power plant I", "Phytosphere +1", "Red Pirate 1 → Blue Harvester 1 · Red won"... */
  function whatText(type, what) {
    var w = what || {};
    switch (type) {
      case "harvest": return W.resLabel(w.resource) + (w.card ? " (" + W.cardLabel(w.card) + ")" : "");
      case "build": return W.buildingLabel(w.building);
      case "buy_animal": return W.animalLabel(w.animal);
      case "raise_tracks": return Object.keys(w.steps || {}).map(function (k) { return W.trackLabel(k) + " +" + w.steps[k]; }).join(", ");
      case "trade": return W.teamLabel(w.merchant_team) + " \u2194 " + W.teamLabel(w.visited_team);
      case "fight": return W.teamLabel(w.attacker_team) + " " + W.cardLabel(w.attacker_card) + " \u2192 " +
        W.teamLabel(w.defender_team) + " " + W.cardLabel(w.defender_card) + " \u00b7 " + t("feed_won", { team: W.teamLabel(w.winner) });
      case "contribute": return W.eventTitle(w.event) + (w.amount ? " \u00b7 " + t("feed_tokens", { n: w.amount }) : "");
      case "open_event": return w.title || W.eventTitle(w.event);
      case "close_event": return W.eventTitle(w.event);
      case "set_rate": return t("rate_text", { tokens: w.tokens, points: w.points }) +
        (w.was ? " (" + t("feed_rate_was", { rate: t("rate_text", { tokens: w.was.tokens, points: w.was.points }) }) + ")" : "");
      case "set_option": return TB.colon(t("option." + w.option), w.value ? t("on") : t("off"));
      case "award": return "";
      default: return "";
    }
  }

  /** Points: "+2 pts" or, on a phone that knows its score after, "−2 pts (3 → 1)". */
  function repText(n, after) {
    var text = signed(n) + " " + W.ptsWord(n);
    return after === undefined ? text : text + " (" + (after - n) + " \u2192 " + after + ")";
  }

  /** One entry as a list item: time, teams, kind and what, points, own tokens, reason; struck through once undone. */
  W.feedItem = function (e, options) {
    var o = options || {}, undo = e.undo, teams = o.team ? [] : e.teams || [];
    var label = kindLabel(e.type, e.what), what = whatText(e.type, e.what);
    if (undo) {
      label = t("feed.undo");
      var undid = undo.type ? whatText(undo.type, undo.what) : "";
      what = undo.type ? kindLabel(undo.type, undo.what) + (undid ? " \u00b7 " + undid : "") : "#" + undo.seq;
    }
    var rep = o.team ? (typeof e.rep === "number" ? { mine: e.rep } : {}) : e.rep || {};
    // The team's name beside its points only where the chips alone do not say whose they are.
    var named = !o.team && !(teams.length === 1 && Object.keys(rep).length === 1 && rep[teams[0]] !== undefined);
    var reps = Object.keys(rep).map(function (team) {
      return el("span", { class: "feed-rep" + (rep[team] < 0 ? " minus" : "") },
        (named ? W.teamLabel(team) + " " : "") + repText(rep[team], o.team ? e.rep_after : undefined));
    });
    var toks = o.team && e.tok ? W.tokens(e.tok, { sign: true }) : null;
    return el("li", { class: "feed-item" + (e.undone !== undefined ? " undone" : "") + (undo ? " feed-undo" : ""), dataset: { seq: e.seq, type: e.type } },
      el("span", { class: "feed-time", text: TB.timeOfDay(e.at).slice(0, 5) }),
      teams.length ? el("span", { class: "feed-teams" }, teams.map(W.teamChip)) : null,
      el("span", { class: "feed-what" }, el("b", { text: label }), what ? " " + what : ""),
      reps, toks,
      e.reason ? el("span", { class: "feed-reason", text: TB.quote(e.reason) }) : null,
      e.undone !== undefined ? el("span", { class: "feed-undone", text: t("feed_undone") }) : null);
  };

  /** The entries of `feed` ({seq: entry}), newest first, in `list`; options.team: a phone's own feed. */
  W.feed = function (list, feed, options) {
    var entries = Object.keys(feed || {}).map(function (k) { return feed[k]; }).sort(function (a, b) { return b.seq - a.seq; });
    if (!entries.length) { TB.fill(list, el("li", { class: "feed-item muted", text: t("feed_empty") })); return; }
    TB.fill(list, entries.map(function (e) { return W.feedItem(e, options); }));
  };
})();
