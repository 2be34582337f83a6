/* Game control (lead facilitator): the clock, the exchange rate, optional rules, events,
 * awards and penalties, refills, inventory corrections, team links, who is logged in, and exports.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  var state = null, may = [], role = null;
  var banner = TB.$("#banner");
  var DEFAULT_REWARDS = [{ points: 5 }, { points: 3 }, { points: 1 }];
  var rewards = defaultRewards();

  /** A fresh copy: the form edits its rows in place, and each new event starts from 5, 3, 1 points. */
  function defaultRewards() { return DEFAULT_REWARDS.map(function (r) { return { points: r.points }; }); }
  var inventory = null;

  var source = W.facilitatorState(function (data) { state = data; render(); });
  var loadState = source.load, refreshSoon = source.refreshSoon;

  function send(command) {
    return W.send(command, { banner: banner, undo: may.indexOf("reverse") >= 0 && W.UNDOABLE.indexOf(command.type) >= 0,
      done: function () { refreshSoon(); } });
  }

  /* ---- rendering ---- */

  function render() {
    if (!state) return;
    var board = state.board;
    renderClock();
    TB.$("#rate-now").textContent = W.rateText(board);
    var rateForm = TB.$("#rate-form");
    if (!rateForm.contains(document.activeElement)) {
      rateForm.tokens.value = board.rate.tokens;
      rateForm.points.value = board.rate.points;
    }
    Array.prototype.forEach.call(document.querySelectorAll("[data-option]"), function (box) {
      box.checked = !!board.options[box.dataset.option];
    });
    renderEvents();
    renderReserve();
    renderInventory(false);
    if (W.replayButton) W.replayButton(board); // static/js/replay_admin.js: only a game that has ended
  }

  function renderClock() {
    if (!state) return;
    var status = state.board.clock.status;
    TB.$("#clock-text").textContent = W.clockText(state.board);
    renderReopened(state.reopened);
    W.showHeld(state.board);
    W.dropRefusalOnClockChange(banner, state.board);
    var clock = state.board.clock, under_way = status === "running" || status === "paused";
    // R34: a session ends only while one is under way (not in the break after it) and not the last one.
    var allowed = { start_clock: status === "setup", pause: status === "running", resume: status === "paused",
      end_session: under_way && !clock.session_over && clock.session < clock.sessions, end_game: under_way };
    Array.prototype.forEach.call(document.querySelectorAll("[data-clock]"), function (b) {
      b.disabled = !allowed[b.dataset.clock] || may.indexOf(b.dataset.clock) < 0;
    });
  }

  /** When this bank process opened a game under way, and how long it can have been down,
   * so that a restart is never silent. "At most": the journal's last trace before the stop. */
  function renderReopened(reopened) {
    var node = TB.$("#bank-reopened");
    node.hidden = !reopened;
    if (!reopened) return;
    var at = new Date(reopened.at * 1000), s = Math.round(reopened.down_at_most);
    var hh = String(at.getHours()), mm = ("0" + at.getMinutes()).slice(-2);
    if (s < 60) { node.textContent = t("reopened_short", { at: hh + ":" + mm }); return; }
    // As measured: minutes and seconds under an hour ("2 min 54 s", not "2 min"); past an hour the minute
    // is rounded up, so "at most" stays true.
    var minutes = Math.ceil(s / 60);
    var down = s < 3600 ? (s % 60 ? t("min_s", { m: Math.floor(s / 60), s: ("0" + s % 60).slice(-2) }) : t("n_min", { n: s / 60 }))
      : t("h_min", { h: Math.floor(minutes / 60), m: ("0" + minutes % 60).slice(-2) });
    node.textContent = t("reopened", { at: hh + ":" + mm, down: down });
  }

  function renderEvents() {
    var box = TB.$("#events-open");
    var open = W.events(box, state.board, { rewards: true });
    open.forEach(function (id) {
      var node = box.querySelector('[data-event="' + id + '"]');
      TB.append(node, el("button", { type: "button", class: "btn btn-small act", text: t("close_it"),
        onclick: confirmThen(function () { send({ type: "close_event", event: id }); }) }));
    });
    var closed = Object.keys(state.board.events).filter(function (id) { return state.board.events[id].status !== "open"; }).slice(-3);
    closed.forEach(function (id) {
      var ev = state.board.events[id];
      var ranking = (ev.ranking || []).map(function (r) { return r.rank + ". " + W.teamLabel(r.team) + " (" + r.given + ")"; }).join(", ");
      TB.append(box, el("p", { class: "muted" }, el("b", { text: ev.title }), " \u00b7 ", t("ranking", { list: ranking || "\u2014" })));
    });
  }

  function renderReserve() {
    var low = W.config.low_stock_warning;
    TB.fill(TB.$("#reserve"), W.resources().map(function (r) {
      var n = state.board.reserve[r] || 0, isLow = typeof low === "number" && n < low;
      return el("div", { class: "stock-item", style: { "--c": W.resColour(r) } },
        el("span", { class: "n" + (isLow ? " reserve-low" : ""), text: n }),
        el("span", { class: "what", text: W.resLabel(r) + (isLow ? " \u00b7 " + t("reserve_low") : "") }));
    }));
  }

  /** The inventory form starts from the ledger's stock; only lines the lead changes are sent. */
  function renderInventory(force) {
    var form = TB.$("#inventory-form"), team = form.team.value;
    if (!team || !state) return;
    if (!force && inventory && inventory.team === team) return;
    var stock = state.teams[team].stock;
    inventory = W.amountsForm(W.resources());
    inventory.team = team;
    inventory.start = {};
    W.resources().forEach(function (r) { inventory.start[r] = stock[r] || 0; inventory.steppers[r].set(stock[r] || 0); });
    TB.fill(TB.$("#inventory-amounts"), inventory.el);
  }

  /* ---- buttons that need a second tap ---- */

  // The second tap must come a moment after the first: a double click (or a double tap on a
  // wet screen) arms the button and is over before anyone has read "tap again".
  var CONFIRM_AFTER_MS = 700;

  function confirmThen(action, question) {
    return function (ev) {
      var button = ev.currentTarget;
      if (button.dataset.armed) {
        if (Date.now() - Number(button.dataset.armed) < CONFIRM_AFTER_MS) return;
        delete button.dataset.armed;
        button.textContent = button.dataset.label;
        action();
        return;
      }
      button.dataset.armed = String(Date.now());
      button.dataset.label = button.textContent;
      button.textContent = question || t("confirm_again");
      setTimeout(function () {
        if (button.dataset.armed) { delete button.dataset.armed; button.textContent = button.dataset.label; }
      }, 4000);
    };
  }

  /* ---- forms ---- */

  function setupForms() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-clock]"), function (b) {
      var go = function () { send({ type: b.dataset.clock }); };
      b.addEventListener("click", b.hasAttribute("data-confirm") ? confirmThen(go) : go);
    });

    TB.$("#rate-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var f = ev.currentTarget;
      send({ type: "set_rate", tokens: parseInt(f.tokens.value, 10), points: parseInt(f.points.value, 10) });
    });

    Array.prototype.forEach.call(document.querySelectorAll("[data-option]"), function (box) {
      box.addEventListener("change", async function () {
        var result = await send({ type: "set_option", option: box.dataset.option, value: box.checked });
        if (!result || !result.ok) box.checked = !box.checked;
      });
    });

    var price = W.amountsForm(W.plainResources());
    TB.fill(TB.$("#pirate-price"), price.el);
    TB.$("#pirate-price-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var box = TB.$('[data-option="second_pirate"]');
      send({ type: "set_option", option: "second_pirate", value: box.checked, cost: price.amounts() });
    });

    TB.fill(TB.$("#event-accepts"), W.plainResources().map(function (r) {
      return el("label", { class: "check" }, el("input", { type: "checkbox", value: r }), el("i", { class: "dot", style: { background: W.resColour(r) } }), W.resLabel(r));
    }));
    renderRewards();
    TB.$("#reward-add").addEventListener("click", function () { if (rewards.length < 6) { rewards.push({ points: 1 }); renderRewards(); } });
    TB.$("#reward-remove").addEventListener("click", function () { if (rewards.length > 1) { rewards.pop(); renderRewards(); } });
    var titleCount = counter(TB.$("#event-form").title, TB.$("#title-count"));
    TB.$("#event-form").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      var f = ev.currentTarget;
      var command = { type: "open_event", title: f.title.value.trim(),
        accepts: Array.prototype.map.call(f.querySelectorAll("#event-accepts input:checked"), function (i) { return i.value; }),
        rewards: rewards.map(function (r) { var o = {}; o[Object.keys(r)[0]] = r[Object.keys(r)[0]]; return o; }) };
      if (f.target.value) command.target = parseInt(f.target.value, 10);
      if (f.deadline.value) command.deadline_minutes = parseInt(f.deadline.value, 10);
      var result = await send(command);
      // reset() puts the rank rows' inputs back to their first values, not what `rewards` holds: redraw both.
      if (result && result.ok) { f.reset(); rewards = defaultRewards(); renderRewards(); titleCount(); }
    });

    fillSelect("[data-teams]", W.teams(), W.teamLabel);
    fillSelect("[data-resources]", W.resources(), W.resLabel);

    TB.$("#award-form").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      var f = ev.currentTarget;
      var result = await send({ type: "award", team: f.team.value, points: parseInt(f.points.value, 10), reason: f.reason.value.trim() });
      if (result && result.ok) { f.points.value = ""; f.reason.value = ""; }
    });

    TB.$("#refill-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var f = ev.currentTarget;
      send({ type: "refill", resource: f.resource.value, amount: parseInt(f.amount.value, 10) });
    });

    var inv = TB.$("#inventory-form");
    inv.team.addEventListener("change", function () { renderInventory(true); });
    inv.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      var counted = {};
      W.resources().forEach(function (r) {
        var v = inventory.steppers[r].value();
        if (v !== inventory.start[r]) counted[r] = v;
      });
      var command = { type: "inventory", team: inventory.team, counted: counted };
      if (inv.reason.value.trim()) command.reason = inv.reason.value.trim();
      var result = await send(command);
      if (result && result.ok) { inv.reason.value = ""; inventory = null; }
    });
  }

  /** "12 / 80" under a text field with a maxlength, so a long title is not cut by surprise. */
  function counter(input, out) {
    var max = input.maxLength;
    var update = function () {
      out.textContent = input.value.length + " / " + max;
      out.classList.toggle("count-full", input.value.length >= max);
    };
    input.addEventListener("input", update);
    update();
    return update;
  }

  function fillSelect(selector, ids, label) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), function (select) {
      TB.fill(select, ids.map(function (id) { return el("option", { value: id, text: label(id) }); }));
    });
  }

  function renderRewards() {
    TB.fill(TB.$("#event-rewards"), rewards.map(function (reward, i) {
      var kind = Object.keys(reward)[0];
      var select = el("select", { "aria-label": t("rank_n", { n: i + 1 }), onchange: function () {
        var n = reward[kind]; delete reward[kind]; kind = select.value; reward[kind] = n;
      } }, el("option", { value: "points", text: t("points"), selected: kind === "points" }),
        el("option", { value: "jokers", text: t("jokers"), selected: kind === "jokers" }));
      var number = el("input", { type: "number", min: 1, max: 100, value: reward[kind], inputmode: "numeric", style: { width: "90px" },
        "aria-label": t("rank_n", { n: i + 1 }),
        oninput: function () { reward[kind] = parseInt(number.value, 10) || 1; } });
      return el("div", { class: "reward-row" }, el("b", { text: t("rank_n", { n: i + 1 }) }), number, select);
    }));
  }

  /* ---- who is logged in (lead only) ---- */

  async function loadSessions() {
    var r = await TB.get("/api/sessions");
    if (!r.ok) return;
    var roles = { lead: t("role.lead"), banker: t("role.banker"), referee: t("role.referee") };
    TB.fill(TB.$("#sessions"), r.data.sessions.map(function (s) {
      var line = t("session_line", { address: s.address, device: s.device, since: TB.timeOfDay(s.since), seen: TB.timeOfDay(s.last_seen) });
      return el("div", { class: "link-row", dataset: { session: s.id } },
        el("span", {}, el("b", { text: s.user }), " (" + (roles[s.role] || s.role) + ")", s.current ? " · " + t("this_device") : ""),
        s.current ? el("span") : el("button", { type: "button", class: "btn btn-small", text: t("log_out"), onclick: confirmThen(function () {
          endSessions("/api/sessions/" + encodeURIComponent(s.id) + "/end");
        }) }),
        el("small", { class: "muted", style: { gridColumn: "1 / -1" }, text: line }));
    }));
  }

  async function endSessions(url) {
    var res = await TB.api("POST", url, {});
    if (res.ok) W.banner(banner, "ok", t("ended_n", { n: res.data.ended }));
    else W.banner(banner, "error", W.errorText(res.error));
    loadSessions();
  }

  /* ---- facilitator accounts (lead only) ---- */

  async function loadAccounts() {
    var r = await TB.get("/api/accounts");
    if (!r.ok) return;
    var roles = { lead: t("role.lead"), banker: t("role.banker"), referee: t("role.referee") };
    TB.fill(TB.$("#accounts"), r.data.accounts.map(function (a) {
      return el("div", { class: "link-row account-row", dataset: { account: a.username } },
        el("span", { class: "name-cut" }, el("b", { text: a.username }), " (" + (roles[a.role] || a.role) + ")", a.current ? " \u00b7 " + t("you") : ""),
        a.current ? el("span") : el("button", { type: "button", class: "btn btn-small btn-danger", text: t("delete"),
          onclick: confirmThen(function () { deleteAccount(a.username); }, t("delete_confirm")) }));
    }));
  }

  async function deleteAccount(username) {
    var res = await TB.api("POST", "/api/accounts/delete", { username: username });
    if (res.ok) W.banner(banner, "ok", t("account_deleted", { username: username }));
    else W.banner(banner, "error", W.errorText(res.error));
    loadAccounts();
    loadSessions();
  }

  /** Create or replace an account; a generated password is shown once, here, never again. */
  async function saveAccount(generate) {
    var f = TB.$("#account-form"), shown = TB.$("#account-password");
    shown.classList.add("hidden");
    if (!f.username.reportValidity()) return;
    var body = { username: f.username.value.trim(), role: f.role.value, password: "", again: "" };
    if (!generate) {
      if (f.password.value.length < 8) { f.password.reportValidity(); W.banner(banner, "error", t("error.weak_password")); return; }
      if (f.password.value !== f.again.value) { W.banner(banner, "error", t("passwords_differ")); return; }
      body.password = f.password.value;
      body.again = f.again.value;
    }
    var res = await TB.api("POST", "/api/accounts", body);
    if (!res.ok) { W.banner(banner, "error", W.errorText(res.error)); return; }
    if (res.data.self) { window.location.href = TB.url("/login?ended=account"); return; } // its own session ended with the change
    W.banner(banner, "ok", t("account_saved", { username: res.data.username, role: t("role." + res.data.role) }));
    if (res.data.password) {
      TB.fill(shown, [t("account_password", { username: res.data.username }), " ", el("code", { class: "big-password", text: res.data.password })]);
      shown.classList.remove("hidden");
    }
    f.reset();
    loadAccounts();
    loadSessions();
  }

  /* ---- start ---- */

  async function start() {
    await W.loadConfig();
    var me = await TB.get("/api/me");
    may = (me.ok && me.data.may) || [];
    role = me.ok ? me.data.role : null;
    Array.prototype.forEach.call(document.querySelectorAll("[data-may]"), function (s) {
      s.classList.toggle("hidden", may.indexOf(s.dataset.may) < 0);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-lead]"), function (s) { s.classList.toggle("hidden", role !== "lead"); });
    TB.$("#not-lead").classList.toggle("hidden", role === "lead");
    setupForms();
    await loadState();
    if (role === "lead") {
      W.teamLinks(banner, confirmThen); // static/js/links.js
      loadSessions();
      loadAccounts();
      TB.$("#account-form").addEventListener("submit", function (ev) { ev.preventDefault(); saveAccount(false); });
      TB.$("#account-generate").addEventListener("click", function () { saveAccount(true); });
      TB.$("#end-all").addEventListener("click", confirmThen(function () { endSessions("/api/sessions/end-all"); }, t("end_all_confirm")));
      setInterval(loadSessions, 30000); // devices come and go; the list stays roughly current
    }
    TB.live({
      on: {
        public: function (pub) {
          if (!state || pub.seq > state.seq) refreshSoon();
          TB.clock.set(pub);
        },
      },
    });
    setInterval(renderClock, 1000);
  }

  start();
})();
