/* The first of the board scripts: defines window.W, loads the game's labels from /api/config and
 * builds the small pieces every game page shows (token chips, team chips, track icons, message
 * banners, ranks as "1st"). Needs the shared scripts (text.js ... header.js). The other board_*.js
 * files draw the picture with these; the pages that book commands also load forms.js.
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

  /** A team's name on its colour; on the big screen its short name (board_short.js; the whole one in `title`). */
  W.teamChip = function (team) {
    var colour = W.teamColour(team), tight = !!W.teamShort && document.body.classList.contains("display");
    return el("span", { class: "team-chip", style: TB.paint(colour),
      title: tight ? W.teamLabel(team) : null, text: tight ? W.teamShort(team) : W.teamLabel(team) });
  };

  /** A track icon: a token of a colour or a die, with its count. */
  W.icon = function (bonus) {
    return el("span", { class: "icons" }, Object.keys(bonus).map(function (kind) {
      var n = bonus[kind];
      if (kind === "dice") return el("span", { class: "ico ico-die", title: t(TB.one(n) ? "bonus_die" : "bonus_dice", { n: n }), text: n });
      var colour = W.resColour(kind);
      return el("span", { class: "ico", title: n + " " + W.resLabel(kind), style: TB.paint(colour), text: n });
    }));
  };

  /** "pt" or "pts" after the number n, as the page's language says it (TB.one). */
  W.ptsWord = function (n) { return t(TB.one(n) ? "pt" : "pts"); };

  /** Show a message in a banner element: kind is "ok", "error", "info" or "" to hide it. */
  W.banner = function (node, kind, content) {
    node.className = "banner" + (kind ? " banner-" + kind : " hidden");
    TB.fill(node, content || []);
    node.setAttribute("role", kind === "error" ? "alert" : "status");
  };

  /** "1st", "2e": a rank as the page's language writes it. */
  W.ordinal = function (n) {
    var key = "ordinal_" + n;
    return n <= 3 && t(key) !== key ? t(key) : t("ordinal_n", { n: n });
  };
})();
