/* The bank counter: pick a team (or scan a role card), see its stock, cards and holdings, and
 * open the tab of what to book; the tabs' forms are console_tap_panels.js and
 * console_amount_panels.js, the journal with Undo is console_journal.js. This file holds what the
 * counter has chosen (team, card, tab), keeps the state fresh and starts the page.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t, Counter = window.Counter;

  var state = null;          // GET /api/state: {seq, board, standings, cooldowns, teams}
  var may = [];              // command types this facilitator may send
  var team = sessionStorage.getItem("tb.team") || null;
  var card = null;           // the harvester card chosen for the next harvest
  var tab = sessionStorage.getItem("tb.tab") || "harvest";
  var journal = null;        // console_journal.js, made once `may` says whether Undo is allowed
  var banner = TB.$("#banner");
  var picker;

  /* ---- loading and refreshing ---- */

  // The console's sockets get `public` and `journal`; team stocks come from /api/state.
  var teamsAt = 0;           // game time at which the team views (their last harvests) were made
  var source = W.facilitatorState(function (data) { state = data; teamsAt = data.board.clock.elapsed; render(); });
  var loadState = source.load, refreshSoon = source.refreshSoon;

  /* ---- the selected team ---- */

  function view() { return state && team ? state.teams[team] : null; }

  /** A refusal was about the team and tab it was sent from: it goes when either changes (a done
   * command's banner stays, with its Undo button). */
  function dropRefusal() {
    if (banner.classList.contains("banner-error")) W.banner(banner, "");
  }

  function selectTeam(id, cardId) {
    if (!W.config.teams[id]) return;
    if (id !== team) { dropRefusal(); W.notARepeat(); }
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
    TB.$("#clock-line").textContent = TB.colon(t("clock_tick"), W.clockText(board)) + " \u00b7 " + W.rateText(board);
    W.rateFlash(TB.$("#clock-line"), board); // a new rate flashes on every screen
    var warn = TB.$("#clock-warning");
    warn.textContent = t("clock_warning");
    warn.classList.toggle("hidden", board.clock.status === "running" || board.clock.status === "ended"); // the end has its own banner
    W.showHeld(board);
    W.dropRefusalOnClockChange(banner, board);
  }

  function renderTeam(v) {
    // Its figures are the bank's last word: commands of this team still waiting on this device are not in them.
    var waits = TB.outbox ? TB.outbox.waitsFor(team) : 0, note = TB.$("#team-unconfirmed");
    TB.$("#team-panel").classList.toggle("unconfirmed", waits > 0);
    note.classList.toggle("hidden", !waits);
    note.textContent = waits ? t("outbox_team_waits", { n: waits }) : "";
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
    if (name !== tab) { dropRefusal(); W.notARepeat(); }
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
  function renderPanel(force, fresh) {
    if (!tab || !state) return;
    var panel = TB.$('[data-panel="' + tab + '"]'), body = panel.querySelector("[data-body]");
    var b = state.board;
    var print = JSON.stringify([tab, team, card, view(), b.tracks, b.events, b.rate, b.options, b.animals_unlocked,
      tab === "trade" ? state.teams : null]);
    if (!force && body.dataset.print === print) return;
    // The same tab of the same team drawn again: what the facilitator started in it stays (panel_keep.js),
    // unless it was just booked (fresh: a booked trade's amounts must not stay, ready to book it again).
    var kept = !fresh && body.dataset.drawn === tab + "/" + team ? W.keep(body) : null;
    body.dataset.print = print;
    body.dataset.drawn = tab + "/" + team;
    var v = view();
    TB.fill(body, v ? Counter.panels[tab](v, desk()) : el("p", { class: "muted", text: t("choose_team_first") }));
    if (kept && v) W.resume(body, kept);
  }

  /** What a panel needs from the counter, at the moment it is drawn (see console_tap_panels.js). */
  /** Seconds since this page booked a harvest with `c` of the selected team, or null. Only this page's
   * own bookings: a press after "not confirmed" resends the same command (booked once), not a new one. */
  function harvestedAgo(c) {
    var at = harvestedHere[team + "/" + c];
    return at ? (performance.now() - at) / 1000 : null;
  }

  function desk() {
    return { state: state, team: team, card: card, may: may, send: send, harvestedAgo: harvestedAgo,
      setCard: function (c) { card = c; }, redraw: function () { renderPanel(true); } };
  }

  var harvestedHere = {};    // "team/card": performance.now() of this page's last harvest booked with that card (the
                             // device's clock set back an hour asked "harvested again?" at every harvest of that hour)

  function send(command) {
    return W.send(command, { banner: banner, undo: may.indexOf("reverse") >= 0, done: function (result) {
      if (command.type === "harvest" && !result.data.duplicate) harvestedHere[command.team + "/" + command.card] = performance.now();
      // Booked: the panel starts again empty, whatever redraws came meanwhile (a panel with nothing started
      // is left as it is: its buttons stay under the finger for a double tap's second tap).
      if (tab && W.started(TB.$('[data-panel="' + tab + '"] [data-body]'))) renderPanel(true, true);
      refreshSoon();
    } });
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

  /* ---- the outbox: commands kept on this device while the bank was out of reach ---- */

  var TAB_OF = { harvest: "harvest", build: "build", buy_animal: "animals", buy_second_pirate: "animals",
    raise_tracks: "tracks", redeem_jokers: "jokers", exchange: "exchange", contribute: "contribute", trade: "trade" };

  function startOutbox(user) {
    if (!TB.outbox) return;
    TB.outbox.onBooked = function (item, result) {
      // The banner said "not confirmed" or "kept": it now says the command went. A press within
      // TB.outbox.settleMs is still "already done" (its pending key); after that the same command is a new one.
      W.bookedBanner(banner, item.command, result, t("outbox_sent", { seq: result.data.seq }));
      refreshSoon();
    };
    TB.outbox.onList = function () { if (state && view()) renderTeam(view()); };
    // "Change": the refused command's team and tab open, for the facilitator to make it anew.
    TB.outbox.onChange = function (item) {
      var c = item.command;
      selectTeam(c.team || c.merchant_team);
      if (TAB_OF[c.type]) showTab(TAB_OF[c.type]);
      W.banner(banner, "info", t("outbox_changing", { what: item.words }));
    };
    TB.outbox.start(user);
  }

  /* ---- start ---- */

  async function start() {
    await W.loadConfig();
    var me = await TB.get("/api/me");
    may = (me.ok && me.data.may) || [];
    startOutbox(me.ok ? me.data.user : null);
    picker = W.teamPicker(function (id) { selectTeam(id); });
    TB.fill(TB.$("#team-picker"), picker.el);
    if (team && W.config.teams[team]) picker.select(team); else team = null;
    setupTabs();
    journal = Counter.journal(TB.$("#journal"), { canUndo: may.indexOf("reverse") >= 0, banner: banner,
      done: function () { refreshSoon(); } });
    await loadState();
    await journal.load(state ? state.seq : 0);
    TB.$("#scan-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var input = TB.$("#scan");
      onScan(input.value);
      input.value = "";
    });
    W.listenForScans(onScan);
    TB.live({
      after: function () { return journal.seq(); },
      on: {
        public: function (pub) {
          if (!state || pub.seq > state.seq) refreshSoon();
          if (state) { state.board = pub.board; state.standings = pub.standings; state.cooldowns = pub.cooldowns; }
          TB.clock.set(pub);
        },
        journal: function (data) { journal.add(data.rows || []); },
      },
    });
    setInterval(function () { if (state) { renderClock(); if (view()) renderTeam(view()); } }, 1000);
  }

  start();
})();
