/* The bank counter's tabs that book with one tap: harvest (a card, then the resource), build and
 * buy an animal (a list of what the team can afford, and why not). Each panel is drawn by
 * console.js for the selected team: panels.<tab>(view, desk), desk = what the counter holds now
 * {state, team, card, may, send, setCard, redraw}. Needs board_*.js and forms.js.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;
  var panels = (window.Counter = window.Counter || {}).panels = window.Counter.panels || {};

  var HARVEST_AGAIN_S = 10;

  /* harvest: a card, then one tap on the resource books it */
  panels.harvest = function (v, desk) {
    var team = desk.team, send = desk.send, card = desk.card;
    var harvesters = v.cards.filter(function (c) { var role = W.roleOf(c); return role && W.config.roles[role].harvests; });
    if (!harvesters.length) return el("p", { class: "muted", text: t("no_harvester") });
    if (harvesters.indexOf(card) < 0) desk.setCard(card = harvesters[0]);
    var cardButtons = harvesters.map(function (c) {
      return el("button", { type: "button", "aria-pressed": String(c === card), text: W.cardLabel(c), onclick: function () { desk.setCard(c); desk.redraw(); } });
    });
    var resources = W.resources(function (r) { return r.harvestable; }).map(function (r) {
      return el("button", { type: "button", class: "res-btn act", style: { borderLeftColor: W.resColour(r) }, dataset: { resource: r },
        text: W.resLabel(r), onclick: function (ev) {
          // The same card harvesting again within a few seconds is more often a slip than a second
          // trip (R14: tokens go back to base first): a second tap books it.
          if (W.justBooked()) return; // the second tap of a double tap: neither a booking nor a question
          var ago = desk.harvestedAgo(card);
          if (!W.confirmed(ev.currentTarget, ago !== null && ago < HARVEST_AGAIN_S, t("harvest_again", { n: Math.max(1, Math.round(ago)) }))) return;
          send({ type: "harvest", team: team, card: card, resource: r });
        } });
    });
    return [el("h3", { text: t("card") }), el("div", { class: "choice-grid" }, cardButtons),
      el("h3", { text: t("tap_resource") }), el("div", { class: "choice-grid" }, resources)];
  };

  /** One row of a buy list: name, cost, why not (missing tokens or a rule), and the button. */
  function buyRow(send, item, label, action, command, quiet) {
    var can = !item.blocked && !Object.keys(item.missing).length;
    var why = null;
    if (item.blocked && quiet) why = null; // the panel already says why, once
    else if (item.blocked) why = el("span", { class: "why-blocked", text: W.errorText({ code: item.blocked_code, message: item.blocked, params: item.blocked_params }) });
    else if (!can) why = el("span", { class: "why-missing" }, t("missing", { list: "" }), W.tokens(item.missing, { missing: true }));
    else if (item.pays && JSON.stringify(item.pays) !== JSON.stringify(item.cost)) why = el("span", {}, t("pays_with", { list: "" }), W.tokens(item.pays));
    return el("div", { class: "buy" + (can ? " can" : "") + (item.blocked ? " blocked" : ""), dataset: { item: item.id } },
      el("span", {}, el("span", { class: "buy-name", text: label }), " ", W.tokens(item.cost)),
      el("button", { type: "button", class: "btn btn-primary act", disabled: !can, text: action,
        onclick: function () { send(command); } }),
      why ? el("span", { class: "buy-why" }, why) : null);
  }

  panels.build = function (v, desk) {
    var team = desk.team, send = desk.send;
    var items = v.affordable.filter(function (i) { return i.kind === "building"; });
    return el("div", { class: "buy-list" }, items.map(function (i) {
      var rep = W.config.buildings[i.id] ? " (+" + W.config.buildings[i.id].reputation + " " + W.ptsWord(W.config.buildings[i.id].reputation) + ")" : "";
      return buyRow(send, i, W.buildingLabel(i.id) + rep, t("build_it"), { type: "build", team: team, building: i.id });
    }));
  };

  panels.animals = function (v, desk) {
    var state = desk.state, team = desk.team, send = desk.send;
    var out = [];
    if (!state.board.animals_unlocked) out.push(el("p", { class: "banner banner-info", text: t("animals_locked", { level: W.config.animal_unlock_level }) }));
    var items = v.affordable.filter(function (i) { return i.kind === "animal"; });
    out.push(el("div", { class: "buy-list" }, items.map(function (i) {
      var info = W.config.animals[i.id] || {};
      return buyRow(send, i, W.animalLabel(i.id) + " (+" + info.reputation + " " + W.ptsWord(info.reputation) + ")", t("buy_it"),
        { type: "buy_animal", team: team, animal: i.id }, !state.board.animals_unlocked);
    })));
    if (desk.may.indexOf("buy_second_pirate") >= 0 && state.board.options.second_pirate) {
      out.push(el("h3", { style: { marginTop: "14px" }, text: t("second_pirate") }),
        el("button", { type: "button", class: "btn btn-big act", text: t("buy_it") + " \u00b7 " + t("second_pirate"),
          onclick: function () { send({ type: "buy_second_pirate", team: team }); } }));
    }
    return out;
  };
})();
