/* The bank counter's tabs where amounts are entered before booking: track steps, jokers,
 * exchange, event gifts and trades. Drawn by console.js like the tap panels (console_tap_panels.js):
 * panels.<tab>(view, desk). The event and trade choices stay here between two drawings.
 * Needs board_*.js and forms.js.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;
  var panels = (window.Counter = window.Counter || {}).panels = window.Counter.panels || {};

  panels.tracks = function (v, desk) {
    var state = desk.state, team = desk.team, send = desk.send;
    var steppers = {}, summary = el("p", { class: "sum-line" });
    var button = el("button", { type: "button", class: "btn btn-primary btn-big act", text: t("raise_it"), disabled: true });
    function update() {
      var cost = {}, n = 0;
      Object.keys(steppers).forEach(function (id) {
        var k = steppers[id].value(), info = W.config.tracks[id];
        if (!k) return;
        n += k;
        cost[info.resource] = (cost[info.resource] || 0) + k * info.step_cost;
      });
      TB.fill(summary, n ? [t(TB.one(n) ? "steps_one" : "steps_n", { n: n }) + " ", W.tokens(cost)] : []);
      button.disabled = !n;
    }
    var rows = Object.keys(state.board.tracks).map(function (id) {
      var track = state.board.tracks[id], info = W.config.tracks[id], room = track.length - track.level;
      steppers[id] = W.stepper({ label: W.trackLabel(id), max: room, onchange: update });
      return el("div", { class: "steps-row", dataset: { track: id } },
        el("span", {}, el("b", { text: W.trackLabel(id) }), " " + track.level + "/" + track.length + " \u00b7 ",
          W.token(info.resource, info.step_cost), room ? "" : " \u00b7 " + t("track_full")),
        steppers[id].el);
    });
    button.addEventListener("click", function () {
      var steps = {};
      Object.keys(steppers).forEach(function (id) { if (steppers[id].value()) steps[id] = steppers[id].value(); });
      send({ type: "raise_tracks", team: team, steps: steps });
    });
    return [el("div", {}, rows), summary, button];
  };

  panels.jokers = function (v, desk) {
    var team = desk.team, send = desk.send;
    var joker = W.joker(), held = v.stock[joker] || 0;
    var stepper = W.stepper({ label: W.resLabel(joker), max: held, value: held ? 1 : 0 });
    return [el("p", { class: "sum-line", text: t("jokers_held", { n: held }) }),
      el("div", { class: "row" }, stepper.el,
        el("button", { type: "button", class: "btn btn-primary btn-big act", disabled: !held, text: t("redeem_it"),
          onclick: function () { if (stepper.value()) send({ type: "redeem_jokers", team: team, jokers: stepper.value() }); } }))];
  };

  panels.exchange = function (v, desk) {
    var state = desk.state, team = desk.team, send = desk.send;
    var rate = state.board.rate, summary = el("p", { class: "sum-line" });
    var button = el("button", { type: "button", class: "btn btn-primary btn-big act", text: t("exchange_it"), disabled: true });
    var form = W.amountsForm(W.plainResources(), { max: function (r) { return v.stock[r] || 0; }, onchange: update, owner: team });
    function update() {
      var n = form.total(), ok = n > 0 && n % rate.tokens === 0, points = (n / rate.tokens) * rate.points;
      summary.textContent = !n ? "" : ok ? t(TB.one(points) ? "exchange_sum_one" : "exchange_sum", { tokens: n, points: points })
        : t("exchange_not_multiple", { tokens: n, rate: rate.tokens });
      button.disabled = !ok;
    }
    button.addEventListener("click", function () { send({ type: "exchange", team: team, tokens: form.amounts() }); });
    return [el("p", { class: "sum-line", text: W.rateText(state.board) }), form.el, summary, button];
  };

  var chosenEvent = null;
  panels.contribute = function (v, desk) {
    var state = desk.state, team = desk.team, send = desk.send;
    var open = Object.keys(state.board.events).filter(function (id) { return state.board.events[id].status === "open"; });
    if (!open.length) return el("p", { class: "muted", text: t("no_events") });
    if (open.indexOf(chosenEvent) < 0) chosenEvent = open[0];
    var ev = state.board.events[chosenEvent];
    var accepted = (ev.accepts.length ? ev.accepts : W.plainResources()).concat([W.joker()]);
    var button = el("button", { type: "button", class: "btn btn-primary btn-big act", text: t("contribute_it"), disabled: true });
    var form = W.amountsForm(accepted, { max: function (r) { return v.stock[r] || 0; }, owner: team, onchange: function () { button.disabled = !form.total(); } });
    button.addEventListener("click", function () { send({ type: "contribute", event: chosenEvent, team: team, tokens: form.amounts() }); });
    var eventButtons = open.map(function (id) {
      return el("button", { type: "button", "aria-pressed": String(id === chosenEvent), text: state.board.events[id].title,
        onclick: function () { chosenEvent = id; desk.redraw(); } });
    });
    var info = el("div", {});
    W.events(info, { events: (function () { var o = {}; o[chosenEvent] = ev; return o; })() }, { rewards: true });
    return [el("h3", { text: t("choose_event") }), el("div", { class: "choice-grid" }, eventButtons), info, form.el, button];
  };

  var tradeKind = "free", visited = null;
  panels.trade = function (v, desk) {
    var state = desk.state, team = desk.team, send = desk.send;
    var others = W.teams().filter(function (x) { return x !== team; });
    if (others.indexOf(visited) < 0) visited = others[0];
    var visitedView = state.teams[visited];
    var button = el("button", { type: "button", class: "btn btn-primary btn-big act", text: t("trade_it") });
    var gives = W.amountsForm(W.resources(), { max: function (r) { return v.stock[r] || 0; }, owner: team });
    var takes = W.amountsForm(W.resources(function (info) { return tradeKind === "free" || !info.joker; }),
      { max: function (r) { return (visitedView.stock[r]) || 0; }, owner: visited });
    button.addEventListener("click", function () {
      var give = gives.amounts(), take = takes.amounts();
      var oneWay = Object.keys(give).length + Object.keys(take).length > 0 && !(Object.keys(give).length && Object.keys(take).length);
      // Tokens going one way only are more often a slip than a gift: a second tap, a moment later, books it.
      if (!W.confirmed(button, oneWay, t(Object.keys(give).length ? "one_way_gives" : "one_way_takes",
        { merchant: W.teamLabel(team), visited: W.teamLabel(visited) }))) return;
      send({ type: "trade", kind: tradeKind, merchant_team: team, visited_team: visited, give: give, take: take });
    });
    var kinds = ["free", "forced"].map(function (k) {
      return el("button", { type: "button", "aria-pressed": String(k === tradeKind), text: t("trade_" + k),
        onclick: function () { tradeKind = k; desk.redraw(); } });
    });
    var visitPicker = W.teamPicker(function (x) { visited = x; desk.redraw(); }, { small: true });
    visitPicker.select(visited);
    visitPicker.disable(team, true);
    return [el("div", { class: "choice-grid" }, kinds),
      tradeKind === "forced" ? el("p", { class: "muted", text: t("forced_hint") }) : null,
      el("p", { class: "sum-line", text: t("merchant_team", { team: W.teamLabel(team) }) }),
      el("h3", { text: t("visited_team") }), visitPicker.el,
      el("h3", { style: { marginTop: "12px" }, text: t("merchant_gives") }), gives.el,
      el("h3", { text: t("merchant_takes") + " (" + W.teamLabel(visited) + ")" }), takes.el, button];
  };
})();
