/* The bank counter: pick a team (or scan a role card), book harvests, buildings, animals,
 * track steps, jokers, exchanges, event gifts and trades; see each result with Undo; follow the journal.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  var state = null;          // GET /api/state: {seq, board, standings, cooldowns, teams}
  var may = [];              // command types this facilitator may send
  var team = sessionStorage.getItem("tb.team") || null;
  var card = null;           // the harvester card chosen for the next harvest
  var tab = sessionStorage.getItem("tb.tab") || "harvest";
  var journalSeq = 0, reversedSeqs = {}, journalRows = [];
  var banner = TB.$("#banner");
  var picker;

  /* ---- loading and refreshing ---- */

  // The console's sockets get `public` and `journal`; team stocks come from /api/state.
  var teamsAt = 0;           // game time at which the team views (their last harvests) were made
  var source = W.facilitatorState(function (data) { state = data; teamsAt = data.board.clock.elapsed; render(); });
  var loadState = source.load, refreshSoon = source.refreshSoon;

  async function loadJournal() {
    var after = Math.max(0, (state ? state.seq : 0) - 40);
    var r = await TB.get("/api/journal?after=" + after + "&limit=60");
    if (r.ok) addRows(r.data.rows, false);
  }

  /* ---- the selected team ---- */

  function view() { return state && team ? state.teams[team] : null; }

  function selectTeam(id, cardId) {
    if (!W.config.teams[id]) return;
    team = id;
    sessionStorage.setItem("tb.team", id);
    picker.select(id);
    card = cardId || null;
    render();
  }

  function render() {
    if (!state) return;
    renderClock();
    var v = view();
    TB.$("#no-team").classList.toggle("hidden", !!v);
    TB.$("#team-body").classList.toggle("hidden", !v);
    if (v) renderTeam(v);
    renderPanel();
  }

  function renderClock() {
    var board = state.board;
    TB.$("#clock-line").textContent = t("clock_tick") + ": " + W.clockText(board) + " \u00b7 " + W.rateText(board);
    var warn = TB.$("#clock-warning");
    warn.textContent = t("clock_warning");
    warn.classList.toggle("hidden", board.clock.status === "running" || board.clock.status === "ended"); // the end has its own banner
    W.showHeld(board);
  }

  function renderTeam(v) {
    var colour = W.teamColour(team);
    var title = TB.$("#team-title");
    title.textContent = W.teamLabel(team);
    title.style.borderLeft = "10px solid " + colour;
    title.style.paddingLeft = "8px";
    TB.$("#team-rep").textContent = v.reputation;
    TB.fill(TB.$("#stock"), W.resources().map(function (r) {
      var n = v.stock[r] || 0;
      return el("div", { class: "stock-item" + (n ? "" : " zero"), style: { "--c": W.resColour(r) }, dataset: { resource: r } },
        el("span", { class: "n", text: n }), el("span", { class: "what", text: W.resLabel(r) }));
    }));
    var cds = TB.clock.cooldowns(team), left = {};
    cds.forEach(function (c) { left[c.card] = c.left; });
    var since = Math.max(0, TB.clock.elapsed() - teamsAt);
    TB.fill(TB.$("#team-cards"), v.cards.map(function (c) {
      var wait = left[c] > 0, role = W.roleOf(c), harvests = role && W.config.roles[role].harvests;
      var ago = v.last_harvest[c];
      return el("span", { class: "card-chip" + (wait ? " cooling" : ""), dataset: { card: c } },
        W.cardLabel(c), wait ? " \u00b7 " + t("waiting_s", { n: Math.ceil(left[c]) }) : "",
        harvests ? el("small", { class: "harvested", text: " \u00b7 " + W.harvestedText(ago === undefined ? ago : ago + since) }) : null);
    }));
    TB.fill(TB.$("#team-buildings"), v.buildings.length ? v.buildings.map(W.buildingLabel).join(", ") : el("span", { class: "muted", text: t("owned_none") }));
    TB.fill(TB.$("#team-animals"), v.animals.length ? v.animals.map(W.animalLabel).join(", ") : el("span", { class: "muted", text: t("owned_none") }));
  }

  /* ---- tabs and panels ---- */

  var PANELS = { harvest: harvestPanel, build: buildPanel, animals: animalsPanel, tracks: tracksPanel,
    jokers: jokersPanel, exchange: exchangePanel, contribute: contributePanel, trade: tradePanel };

  function setupTabs() {
    var tabs = Array.prototype.slice.call(document.querySelectorAll("#tabs [data-tab]"));
    var visible = tabs.filter(function (b) { return may.indexOf(b.dataset.may) >= 0; });
    tabs.forEach(function (b) {
      b.classList.toggle("hidden", visible.indexOf(b) < 0);
      b.addEventListener("click", function () { showTab(b.dataset.tab); });
    });
    TB.$("#no-actions").classList.toggle("hidden", visible.length > 0);
    if (!visible.some(function (b) { return b.dataset.tab === tab; })) tab = visible.length ? visible[0].dataset.tab : null;
    showTab(tab);
  }

  function showTab(name) {
    tab = name;
    if (name) sessionStorage.setItem("tb.tab", name);
    Array.prototype.forEach.call(document.querySelectorAll("#tabs [data-tab]"), function (b) {
      b.setAttribute("aria-selected", String(b.dataset.tab === name));
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-panel]"), function (p) {
      p.classList.toggle("hidden", p.dataset.panel !== name);
    });
    renderPanel();
  }

  /**
   * Redraw the open panel when what it shows changed. An update about another team must not
   * erase the amounts a facilitator is entering, so the panel is compared by content, not by seq.
   */
  function renderPanel(force) {
    if (!tab || !state) return;
    var panel = TB.$('[data-panel="' + tab + '"]'), body = panel.querySelector("[data-body]");
    var b = state.board;
    var print = JSON.stringify([tab, team, card, view(), b.tracks, b.events, b.rate, b.options, b.animals_unlocked,
      tab === "trade" ? state.teams : null]);
    if (!force && body.dataset.print === print) return;
    body.dataset.print = print;
    var v = view();
    TB.fill(body, v ? PANELS[tab](v) : el("p", { class: "muted", text: t("choose_team_first") }));
  }

  function send(command) {
    return W.send(command, { banner: banner, undo: may.indexOf("reverse") >= 0, done: function () { refreshSoon(); } });
  }

  /* harvest: a card, then one tap on the resource books it */
  function harvestPanel(v) {
    var harvesters = v.cards.filter(function (c) { var role = W.roleOf(c); return role && W.config.roles[role].harvests; });
    if (!harvesters.length) return el("p", { class: "muted", text: t("no_harvester") });
    if (harvesters.indexOf(card) < 0) card = harvesters[0];
    var cardButtons = harvesters.map(function (c) {
      return el("button", { type: "button", "aria-pressed": String(c === card), text: W.cardLabel(c), onclick: function () { card = c; renderPanel(true); } });
    });
    var resources = W.resources(function (r) { return r.harvestable; }).map(function (r) {
      return el("button", { type: "button", class: "res-btn act", style: { borderLeftColor: W.resColour(r) }, dataset: { resource: r },
        text: W.resLabel(r), onclick: function () { send({ type: "harvest", team: team, card: card, resource: r }); } });
    });
    return [el("h3", { text: t("card") }), el("div", { class: "choice-grid" }, cardButtons),
      el("h3", { text: t("tap_resource") }), el("div", { class: "choice-grid" }, resources)];
  }

  /** One row of a buy list: name, cost, why not (missing tokens or a rule), and the button. */
  function buyRow(item, label, action, command, quiet) {
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

  function buildPanel(v) {
    var items = v.affordable.filter(function (i) { return i.kind === "building"; });
    return el("div", { class: "buy-list" }, items.map(function (i) {
      var rep = W.config.buildings[i.id] ? " (+" + W.config.buildings[i.id].reputation + " " + t("pts") + ")" : "";
      return buyRow(i, W.buildingLabel(i.id) + rep, t("build_it"), { type: "build", team: team, building: i.id });
    }));
  }

  function animalsPanel(v) {
    var out = [];
    if (!state.board.animals_unlocked) out.push(el("p", { class: "banner banner-info", text: t("animals_locked", { level: W.config.animal_unlock_level }) }));
    var items = v.affordable.filter(function (i) { return i.kind === "animal"; });
    out.push(el("div", { class: "buy-list" }, items.map(function (i) {
      var info = W.config.animals[i.id] || {};
      return buyRow(i, W.animalLabel(i.id) + " (+" + info.reputation + " " + t("pts") + ")", t("buy_it"),
        { type: "buy_animal", team: team, animal: i.id }, !state.board.animals_unlocked);
    })));
    if (may.indexOf("buy_second_pirate") >= 0 && state.board.options.second_pirate) {
      out.push(el("h3", { style: { marginTop: "14px" }, text: t("second_pirate") }),
        el("button", { type: "button", class: "btn btn-big act", text: t("buy_it") + " \u00b7 " + t("second_pirate"),
          onclick: function () { send({ type: "buy_second_pirate", team: team }); } }));
    }
    return out;
  }

  function tracksPanel(v) {
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
      TB.fill(summary, n ? [t("steps_n", { n: n }) + " ", W.tokens(cost)] : []);
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
  }

  function jokersPanel(v) {
    var joker = W.joker(), held = v.stock[joker] || 0;
    var stepper = W.stepper({ label: W.resLabel(joker), max: held, value: held ? 1 : 0 });
    return [el("p", { class: "sum-line", text: t("jokers_held", { n: held }) }),
      el("div", { class: "row" }, stepper.el,
        el("button", { type: "button", class: "btn btn-primary btn-big act", disabled: !held, text: t("redeem_it"),
          onclick: function () { if (stepper.value()) send({ type: "redeem_jokers", team: team, jokers: stepper.value() }); } }))];
  }

  function exchangePanel(v) {
    var rate = state.board.rate, summary = el("p", { class: "sum-line" });
    var button = el("button", { type: "button", class: "btn btn-primary btn-big act", text: t("exchange_it"), disabled: true });
    var form = W.amountsForm(W.plainResources(), { max: function (r) { return v.stock[r] || 0; }, onchange: update, owner: team });
    function update() {
      var n = form.total(), ok = n > 0 && n % rate.tokens === 0;
      summary.textContent = !n ? "" : ok ? t("exchange_sum", { tokens: n, points: (n / rate.tokens) * rate.points })
        : t("exchange_not_multiple", { tokens: n, rate: rate.tokens });
      button.disabled = !ok;
    }
    button.addEventListener("click", function () { send({ type: "exchange", team: team, tokens: form.amounts() }); });
    return [el("p", { class: "sum-line", text: W.rateText(state.board) }), form.el, summary, button];
  }

  var chosenEvent = null;
  function contributePanel(v) {
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
        onclick: function () { chosenEvent = id; renderPanel(true); } });
    });
    var info = el("div", {});
    W.events(info, { events: (function () { var o = {}; o[chosenEvent] = ev; return o; })() }, { rewards: true });
    return [el("h3", { text: t("choose_event") }), el("div", { class: "choice-grid" }, eventButtons), info, form.el, button];
  }

  var tradeKind = "free", visited = null;
  function tradePanel(v) {
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
      // Tokens going one way only are more often a slip than a gift: a second tap, a moment later, books it (issue 12, item 11).
      if (oneWay && !W.secondTap(button, t(Object.keys(give).length ? "one_way_gives" : "one_way_takes",
        { merchant: W.teamLabel(team), visited: W.teamLabel(visited) }))) return;
      send({ type: "trade", kind: tradeKind, merchant_team: team, visited_team: visited, give: give, take: take });
    });
    var kinds = ["free", "forced"].map(function (k) {
      return el("button", { type: "button", "aria-pressed": String(k === tradeKind), text: t("trade_" + k),
        onclick: function () { tradeKind = k; renderPanel(true); } });
    });
    var visitPicker = W.teamPicker(function (x) { visited = x; renderPanel(true); }, { small: true });
    visitPicker.select(visited);
    visitPicker.disable(team, true);
    return [el("div", { class: "choice-grid" }, kinds),
      tradeKind === "forced" ? el("p", { class: "muted", text: t("forced_hint") }) : null,
      el("p", { class: "sum-line", text: t("merchant_team", { team: W.teamLabel(team) }) }),
      el("h3", { text: t("visited_team") }), visitPicker.el,
      el("h3", { style: { marginTop: "12px" }, text: t("merchant_gives") }), gives.el,
      el("h3", { text: t("merchant_takes") + " (" + W.teamLabel(visited) + ")" }), takes.el, button];
  }

  /* ---- journal ---- */

  function addRows(rows, fresh) {
    var added = false;
    rows.forEach(function (row) {
      if (row.seq <= journalSeq) return;
      journalSeq = row.seq;
      journalRows.push(row);
      if (row.type === "reverse" && row.command && row.command.seq) reversedSeqs[row.command.seq] = true;
      added = true;
    });
    if (journalRows.length > 200) journalRows = journalRows.slice(-200);
    if (added) renderJournal(fresh);
  }

  function renderJournal(fresh) {
    var canUndo = may.indexOf("reverse") >= 0;
    TB.fill(TB.$("#journal"), journalRows.slice().reverse().map(function (row, i) {
      var d = W.describe(row.command || { type: row.type }, row.events);
      var undoable = canUndo && !reversedSeqs[row.seq] && W.UNDOABLE.indexOf(row.type) >= 0;
      return el("li", { class: (reversedSeqs[row.seq] ? "reversed" : "") + (fresh && i === 0 ? " fresh" : ""), dataset: { seq: row.seq } },
        el("div", { class: "j-body" },
          el("div", { class: "j-head" },
            el("span", { class: "j-seq", text: "#" + row.seq }),
            el("span", { class: "j-what", text: d.label }),
            el("span", { class: "j-who", text: TB.timeOfDay(row.at) + (row.actor ? " \u00b7 " + row.actor : "") })),
          d.detail ? el("div", { class: "j-detail", text: d.detail }) : null,
          d.moves ? el("div", { class: "j-moves", text: d.moves }) : null),
        undoable ? W.undoButton(row.seq, { banner: banner, small: true, done: function () { refreshSoon(); } }) : null);
    }));
  }

  /* ---- scanning role cards ---- */

  function onScan(text) {
    var parsed = W.parseCard(text);
    if (!parsed) {
      W.banner(banner, "error", t("scan_unknown", { text: String(text).slice(0, 80) }));
      return;
    }
    var role = W.roleOf(parsed.card);
    selectTeam(parsed.team, parsed.card);
    W.banner(banner, "info", t("scanned", { team: W.teamLabel(parsed.team), card: W.cardLabel(parsed.card) }) +
      (role && W.config.roles[role].pirate ? " \u00b7 " + t("pirate_to_fight") : ""));
    var next = role === "builder" ? "build" : role === "merchant" ? "trade" : role && W.config.roles[role].harvests ? "harvest" : null;
    if (next && may.indexOf(TB.$('[data-tab="' + next + '"]').dataset.may) >= 0) showTab(next);
    renderPanel(true);
  }

  /* ---- start ---- */

  async function start() {
    await W.loadConfig();
    var me = await TB.get("/api/me");
    may = (me.ok && me.data.may) || [];
    picker = W.teamPicker(function (id) { selectTeam(id); });
    TB.fill(TB.$("#team-picker"), picker.el);
    if (team && W.config.teams[team]) picker.select(team); else team = null;
    setupTabs();
    await loadState();
    await loadJournal();
    TB.$("#scan-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var input = TB.$("#scan");
      onScan(input.value);
      input.value = "";
    });
    W.listenForScans(onScan);
    TB.live({
      after: function () { return journalSeq; },
      on: {
        public: function (pub) {
          if (!state || pub.seq > state.seq) refreshSoon();
          if (state) { state.board = pub.board; state.standings = pub.standings; state.cooldowns = pub.cooldowns; }
          TB.clock.set(pub);
        },
        journal: function (data) { addRows(data.rows || [], true); },
      },
    });
    setInterval(function () { if (state) { renderClock(); if (view()) renderTeam(view()); } }, 1000);
  }

  start();
})();
