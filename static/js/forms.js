/* Terrabank's controls for facilitators: steppers, team pickers, role-card scans, sending a
 * command with its result and Undo, and journal entries told in a few words.
 * Needs page.js, api.js and board_labels.js (window.W).
 */
(function () {
  "use strict";

  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  /** The facilitators' full picture (/api/state): load() now; refreshSoon() folds a burst of updates into one load. */
  W.facilitatorState = function (onState) {
    var timer = null;
    async function load() {
      var r = await TB.get("/api/state");
      if (r.status === 401) { window.location.href = TB.url("/login"); return; }
      if (!r.ok) return;
      TB.clock.set(r.data);
      if (TB.outbox) TB.outbox.setGame(r.data.game); // which game a command kept from now on is made in
      onState(r.data);
    }
    return { load: load, refreshSoon: function () { clearTimeout(timer); timer = setTimeout(load, 150); } };
  };

  /** A number with big − and + buttons; returns {el, input, value(), set(n), setMax(n)}. */
  W.stepper = function (options) {
    var o = Object.assign({ min: 0, max: 999, value: 0, step: 1 }, options || {});
    var input = el("input", { type: "number", inputmode: "numeric", min: o.min, max: o.max, value: o.value, "aria-label": o.label || "" });
    var api = {
      input: input,
      value: function () { var v = parseInt(input.value, 10); return isNaN(v) ? 0 : Math.max(o.min, Math.min(o.max, v)); },
      set: function (v) {
        if (v > o.max && o.onlimit) o.onlimit(o.max); // say why the counter stops
        input.value = Math.max(o.min, Math.min(o.max, v));
        input.classList.remove("invalid");
        if (o.onchange) o.onchange(api.value());
      },
      setMax: function (m) { o.max = m; input.max = m; if (api.value() > m) api.set(m); },
      max: function () { return o.max; },
    };
    input.addEventListener("input", function () {
      var typed = parseInt(input.value, 10);
      input.classList.toggle("invalid", typed > o.max || typed < o.min);
      if (typed > o.max && o.onlimit) o.onlimit(o.max);
      if (o.onchange) o.onchange(api.value());
    });
    // Leaving the field shows the number that counts (never more than the maximum).
    input.addEventListener("change", function () { input.classList.remove("invalid"); input.value = api.value(); });
    api.el = el("span", { class: "stepper" },
      el("button", { type: "button", class: "step", "aria-label": "\u2212", onclick: function () { api.set(api.value() - o.step); } }, "\u2212"),
      input,
      el("button", { type: "button", class: "step", "aria-label": "+", onclick: function () { api.set(api.value() + o.step); } }, "+"));
    return api;
  };

  /**
   * One stepper per resource; returns {el, amounts(), reset()}. With `owner` (a team), a counter
   * stopped by `max` says under its row that the team holds no more, rather than stopping mutely.
   */
  W.amountsForm = function (resources, options) {
    var o = options || {}, steppers = {};
    var rows = resources.map(function (r) {
      var note = el("small", { class: "limit-note hidden", role: "status" });
      var onlimit = o.owner ? function (max) {
        note.textContent = t(max ? "limit_stock" : "limit_none", { team: W.teamLabel(o.owner), n: max, resource: W.resLabel(r) });
        note.classList.remove("hidden");
      } : null;
      steppers[r] = W.stepper({ label: W.resLabel(r), max: o.max ? o.max(r) : 999, onlimit: onlimit,
        onchange: function (v) { if (v < steppers[r].max()) note.classList.add("hidden"); if (o.onchange) o.onchange(v); } });
      return el("label", { class: "amount-row", dataset: { resource: r } },
        el("span", { class: "amount-name" }, el("i", { class: "dot", style: { background: W.resColour(r) } }), " ", W.resLabel(r)),
        steppers[r].el, note);
    });
    return {
      el: el("div", { class: "amounts" }, rows),
      steppers: steppers,
      amounts: function () {
        var out = {};
        Object.keys(steppers).forEach(function (r) { var v = steppers[r].value(); if (v > 0) out[r] = v; });
        return out;
      },
      total: function () { var a = this.amounts(); return Object.keys(a).reduce(function (s, r) { return s + a[r]; }, 0); },
      reset: function () { Object.keys(steppers).forEach(function (r) { steppers[r].set(0); }); },
    };
  };

  /* ---- journal sentences ---- */

  /** Per team: {resource: net tokens, _rep: points} moved by a list of events. */
  W.deltas = function (events) {
    var out = {};
    function add(team, key, n) { out[team] = out[team] || {}; out[team][key] = (out[team][key] || 0) + n; }
    (events || []).forEach(function (e) {
      if (e.type === "transfer") {
        if (e.to.indexOf("team:") === 0) add(e.to.slice(5), e.resource, e.amount);
        if (e.from.indexOf("team:") === 0) add(e.from.slice(5), e.resource, -e.amount);
      } else if (e.type === "reputation") add(e.team, "_rep", e.points);
    });
    return out;
  };

  /** An event's title from the last picture received, or its id if it is not known here. */
  W.eventTitle = function (id) {
    var board = TB.clock.base && TB.clock.base.board, ev = board && board.events[id];
    return ev ? ev.title : id;
  };

  function find(events, type) { return (events || []).filter(function (e) { return e.type === type; }); }

  /** What a command did, in a few words, from the command and its events. */
  W.describe = function (command, events) {
    var c = command || {}, bits = [];
    var label = t("cmd." + c.type) !== "cmd." + c.type ? t("cmd." + c.type) : c.type;
    if (c.type === "tick") label = t("clock_tick");
    if (c.team) bits.push(W.teamLabel(c.team));
    if (c.card) bits.push(W.cardLabel(c.card));
    if (c.building) bits.push(W.buildingLabel(c.building));
    if (c.animal) bits.push(W.animalLabel(c.animal));
    if (c.steps) bits.push(Object.keys(c.steps).map(function (k) { return W.trackLabel(k) + " +" + c.steps[k]; }).join(", "));
    if (c.type === "fight") {
      bits.push(W.teamLabel(c.attacker_team) + " " + W.cardLabel(c.attacker_card) + " \u2192 " + W.teamLabel(c.defender_team) + " " + W.cardLabel(c.defender_card));
      bits.push(t(c.winner === "attacker" ? "attacker_won" : "defender_won"));
      find(events, "cooldown").forEach(function (e) { bits.push(t("waits", { card: W.teamLabel(e.team) + " " + W.cardLabel(e.card), n: e.seconds })); });
    }
    if (c.type === "trade") bits.push(TB.colon(t("trade_" + c.kind), W.teamLabel(c.merchant_team) + " \u2194 " + W.teamLabel(c.visited_team)));
    if (c.type === "set_rate") bits.push(t("rate_text", { tokens: c.tokens, points: c.points }));
    if (c.type === "set_option") bits.push(TB.colon(t("option." + c.option), c.value ? t("on") : t("off")));
    if (c.type === "open_event") bits.push((find(events, "event_opened")[0] || c).title);
    if (c.type === "close_event" || c.type === "contribute") bits.push(W.eventTitle(c.event));
    if (c.type === "refill") bits.push(c.amount + " " + W.resLabel(c.resource));
    if (c.type === "reverse") bits.push(t("undo_of", { seq: c.seq }));
    if (c.reason) bits.push(TB.quote(c.reason));
    find(events, "game_ended").forEach(function (e) { bits.push(t("winner_is", { teams: e.winners.map(W.teamLabel).join(", "), n: e.winners.length })); });
    if (c.type !== "close_event") {
      find(events, "event_closed").forEach(function (e) { bits.push(t("event_closed_n", { event: W.eventTitle(e.event) })); });
    }
    var deltas = W.deltas(events);
    var moves = Object.keys(deltas).map(function (team) {
      var d = deltas[team], parts = [];
      W.resources().forEach(function (r) { if (d[r]) parts.push((d[r] > 0 ? "+" : "\u2212") + Math.abs(d[r]) + " " + W.resLabel(r)); });
      if (d._rep) parts.push((d._rep > 0 ? "+" : "\u2212") + Math.abs(d._rep) + " " + W.ptsWord(d._rep));
      return parts.length ? TB.colon(W.teamLabel(team), parts.join(", ")) : null;
    }).filter(Boolean);
    return { label: label, detail: bits.join(" \u00b7 "), moves: moves.join(TB.lang === "fr" ? "\u00a0; " : "; ") };
  };

  /** An old refusal ("the clock is paused") goes when the clock changes (started, paused, resumed, a
   * session or the game ended): it stayed on screen through resume and end. */
  W.dropRefusalOnClockChange = function (node, board) {
    var c = board.clock, now = [c.status, c.session, !!c.session_over].join("/");
    if (node.dataset.clock && node.dataset.clock !== now && node.classList.contains("banner-error")) W.banner(node, "");
    node.dataset.clock = now;
  };

  /** Commands whose journal entry the bank can undo (it refuses the others with a reason anyway). */
  W.UNDOABLE = ["harvest", "build", "buy_animal", "buy_second_pirate", "raise_tracks", "redeem_jokers", "exchange",
    "trade", "fight", "contribute", "award", "refill", "inventory"];

  /* ---- a second tap for what is more often a slip than meant ---- */

  // As the admin page's buttons: the second tap must come a moment after the first, so a double
  // click (or a double tap on a wet screen) only arms the button.
  var CONFIRM_AFTER_MS = 700;

  /** True on the second tap, a moment after the first; the first tap shows `question` on the button. */
  W.secondTap = function (button, question) {
    var armed = Number(button.dataset.armed || 0);
    if (armed && Date.now() - armed >= CONFIRM_AFTER_MS) {
      delete button.dataset.armed;
      button.textContent = button.dataset.label;
      button.classList.remove("btn-confirm");
      return true;
    }
    if (armed) return false;
    W.arm(button, question, Date.now());
    return false;
  };

  /** True when a tap on `button` may book: nothing to ask (`ask` false) and no question on it, or the second
   * tap answering the question. A question on screen is answered by the next tap even when it would no longer
   * be asked (its few seconds passed meanwhile): that tap books and takes the question away. Booked without
   * it, the question stayed on the button while the command was on its way (or kept on the device), and a
   * second tap on it, a facilitator's answer to what the screen still asked, booked a second harvest. */
  W.confirmed = function (button, ask, question) {
    if (!ask && !button.dataset.armed) return true;
    return W.secondTap(button, question);
  };

  // The question stays this long after the first tap, then the button is itself again (on W so that a
  // browser test on a loaded machine can hold it open while another station books).
  W.ASK_FOR_MS = 5000;

  /** `button` asks `question` since `at` (a first tap then, or a redrawn panel's button taking its place). */
  W.arm = function (button, question, at) {
    button.dataset.armed = String(at);
    button.dataset.label = button.textContent;
    button.textContent = question;
    button.classList.add("btn-confirm");
    setTimeout(function () {
      // Only this question: a later one on the same button keeps its own few seconds.
      if (button.dataset.armed === String(at)) { delete button.dataset.armed; button.textContent = button.dataset.label; button.classList.remove("btn-confirm"); }
    }, Math.max(0, at + W.ASK_FOR_MS - Date.now()));
  };

  /* ---- sending a command: one at a time, result or error in the banner, then Undo ---- */

  var busy = false;

  // A second booking within 700 ms of the last one is a double tap, never a second booking:
  // two quick taps would book Energy, then Flora, once the result had moved the buttons. Timed by the page's
  // monotonic clock: by the device's clock, set back an hour, every tap of that hour was a "second tap".
  var REPEAT_MS = 700, lastBooking = -Infinity;

  /** Something else was done since (a field typed in, another tab or team chosen): the next tap is a
   * new booking, not the second tap of a double tap. */
  W.notARepeat = function () { lastBooking = -Infinity; };
  var retyping = false;
  document.addEventListener("input", function () { if (!retyping) W.notARepeat(); }, true);

  /** A number put back in a redrawn panel (panel_keep.js): its form hears it as typed, but it is not the
   * facilitator doing something new, so a double tap's second tap is still one. */
  W.retyped = function (input) {
    retyping = true;
    try { input.dispatchEvent(new Event("input", { bubbles: true })); } finally { retyping = false; }
  };

  /** True within 700 ms of the last booking: a tap now is the second of a double tap. */
  W.justBooked = function () { return performance.now() - lastBooking < REPEAT_MS; };

  /** True for a tap that books (a harvest, a fight, a purchase...), not for the clock or the options. */
  function books(command) { return command.type !== "reverse" && W.UNDOABLE.indexOf(command.type) >= 0; }

  // W.errorText, the refusal as a sentence in the page's language: static/js/refusals.js.

  /**
   * Send `command`; show "sending", then the result or the refusal in `opts.banner`.
   * After a success, an Undo button (when opts.undo) asks for a reason and sends `reverse`.
   * Resolves to the API result, or null if another command was still on its way.
   */
  W.send = async function (command, opts) {
    if (busy) return null;
    if (books(command) && W.justBooked()) return null; // a double tap: the first tap's result stays on screen
    busy = true;
    document.body.classList.add("busy");
    W.banner(opts.banner, "info", t("sending"));
    try {
      // The outbox (outbox.js) keeps what cannot reach the bank; commands already waiting go first.
      var box = TB.outbox && TB.outbox.queueable(command) ? TB.outbox : null, tapped = Date.now();
      var print = TB.commandPrint(command);
      var again = box ? box.find(TB.pending.peek(print)) : null; // pressed again after "not confirmed"
      var made = again ? again.made : tapped;
      if (box && (box.waiting().length || navigator.onLine === false)) {
        if (navigator.onLine === false || !(await box.flush())) return kept(box, command, again ? again.key : TB.uuid(), made, opts, null);
      }
      var key = again ? again.key : TB.pending.keyFor(print, tapped);
      // Written down before it goes: a tab closed during its ~20 s of retries still keeps it on the device.
      if (box) box.hold(command, key, made);
      var result = await TB.command(command, {
        key: key, headers: again ? box.headers(made, again.game) : undefined,
        onRetry: function (n, error) {
          // The bank answered but cannot write (disk full, read-only): its sentence, not "no answer".
          if (error && error.code !== "network" && error.message) W.banner(opts.banner, "error", [W.errorText(error), " \u27f3 " + n]);
          else W.banner(opts.banner, "info", t("retrying", { n: n }));
        },
      });
      if (box && !(result.status === 0 || [502, 503, 504].indexOf(result.status) >= 0)) box.remove(key); // its answer is on screen
      if (result.ok) {
        // Counted from the booking, not the tap: a press after "not confirmed" or a refusal resends
        // safely (the same key, or a command refused again), and "already done" booked nothing now.
        if (books(command) && !result.data.duplicate) lastBooking = performance.now();
        W.bookedBanner(opts.banner, command, result, t(result.data.duplicate ? "already_booked" : "booked", { seq: result.data.seq }),
          opts.undo && command.type !== "reverse" ? W.undoButton(result.data.seq, opts) : null);
        if (opts.done) opts.done(result);
      } else if (box && (result.status === 0 || [502, 503, 504].indexOf(result.status) >= 0)) {
        return kept(box, command, key, made, opts, result);
      } else {
        W.banner(opts.banner, "error", failureText(result));
      }
      return result;
    } finally {
      busy = false;
      document.body.classList.remove("busy");
    }
  };

  /** A booked command on the banner: `heading` ("Done (entry 12):"), what it did, and `extra` (an undo button). */
  W.bookedBanner = function (where, command, result, heading, extra) {
    var d = W.describe(command, result.data.events);
    W.banner(where, "ok", [
      el("span", { class: "banner-text" }, el("b", { text: heading + " " + d.label }),
        d.detail ? " \u00b7 " + d.detail : "", d.moves ? el("span", { class: "moves", text: d.moves }) : null),
      extra || null]);
  };

  /** The command waits in the outbox under `key`: the banner says so (after why, when the page gave up). */
  function kept(box, command, key, made, opts, result) {
    var ok = box.add(command, key, made);
    // Kept at the tap is as good as booked: a double tap keeps it once. After a give-up the taps are seconds
    // apart, and pressing again resends the same key (it is never a second command).
    if (ok && books(command) && !result) lastBooking = performance.now();
    var why = result ? failureText(result) : [];
    W.banner(opts.banner, ok ? (result ? "error" : "info") : "error", [].concat(why, why.length ? " " : "",
      el("b", { class: "kept", text: t(ok ? "outbox_kept" : "outbox_full", { n: box.waiting().length }) })));
    return { ok: false, status: 0, queued: ok, key: key, error: result ? result.error : null };
  }

  /**
   * Why a command is not booked, as banner content. When the page gave up retrying, the
   * facilitator is told that pressing again is safe: TB.command resends the same key.
   */
  function failureText(result) {
    var error = result.error || {};
    if (error.code === "id_conflict") {
      // The bank's English sentence speaks of ids; the facilitator needs what to do.
      return [el("b", { text: t("not_booked") + " " }), t("error.id_conflict", error.params || {})];
    }
    var gaveUp = result.status === 0 || [502, 503, 504].indexOf(result.status) >= 0;
    if (!gaveUp) return [el("b", { text: t("refused") + " " }), W.errorText(error)];
    // A 503 is the bank saying it wrote nothing; without an answer, the command may have been booked.
    var label = result.status === 503 ? "not_booked" : "not_confirmed";
    return [el("b", { text: t(label) + " " }), W.errorText(error), " ",
      el("span", { class: "send-again", text: t("send_again_safe") })];
  }

  /** An Undo button that opens a reason field, then sends {"type": "reverse", seq, reason}. */
  W.undoButton = function (seq, opts) {
    var holder = el("span", { class: "undo" });
    var open = el("button", { type: "button", class: "btn btn-undo" + (opts.small ? " btn-small" : ""), text: t("undo"), onclick: function () {
      var reason = el("input", { type: "text", maxLength: 200, placeholder: t("undo_reason"), "aria-label": t("undo_reason") });
      var confirm = el("button", { type: "submit", class: "btn btn-danger", text: t("undo_confirm", { seq: seq }) });
      var form = el("form", { class: "undo-form", onsubmit: function (ev) {
        ev.preventDefault();
        if (!reason.value.trim()) { reason.focus(); reason.classList.add("invalid"); return; }
        W.send({ type: "reverse", seq: seq, reason: reason.value.trim() }, { banner: opts.banner, done: opts.done });
      } }, reason, confirm);
      TB.fill(holder, form);
      holder.classList.add("open");
      reason.focus();
    } });
    return TB.append(holder, open);
  };

  /** A button row of teams in their colours; returns {el, select(team), value()}. */
  W.teamPicker = function (onpick, options) {
    var o = options || {}, current = null, buttons = {};
    var node = el("div", { class: "team-picker" + (o.small ? " small" : ""), role: "group" }, W.teams().map(function (team) {
      var colour = W.teamColour(team);
      buttons[team] = el("button", { type: "button", class: "team-btn", "aria-pressed": "false", dataset: { team: team },
        style: TB.paint(colour), text: W.teamLabel(team),
        onclick: function () { api.select(team); if (onpick) onpick(team); } });
      return buttons[team];
    }));
    var api = {
      el: node,
      value: function () { return current; },
      select: function (team) {
        current = team;
        Object.keys(buttons).forEach(function (k) { buttons[k].setAttribute("aria-pressed", String(k === team)); });
      },
      disable: function (team, yes) { if (buttons[team]) buttons[team].disabled = yes; },
    };
    return api;
  };

  /** Parse a role card's QR text, "terrabank:card:blue:harvester-1", into {team, card}, or null. */
  W.parseCard = function (text) {
    var m = /^\s*terrabank:card:([a-z0-9_-]+):([a-z0-9_]+-\d+)\s*$/i.exec(text || "");
    if (!m || !W.config.teams[m[1].toLowerCase()]) return null;
    return { team: m[1].toLowerCase(), card: m[2].toLowerCase() };
  };

  /**
   * USB scanners type like a keyboard and end with Enter. Keys typed while no field has focus
   * are collected, so a scan works even when the facilitator did not click the scan field.
   */
  W.listenForScans = function (onscan) {
    var buffer = "", last = 0;
    document.addEventListener("keydown", function (ev) {
      var tag = (ev.target && ev.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var now = Date.now();
      if (now - last > 500) buffer = "";
      last = now;
      if (ev.key === "Enter") {
        if (buffer) onscan(buffer);
        buffer = "";
      } else if (ev.key.length === 1) {
        buffer += ev.key;
      }
    });
  };
})();
