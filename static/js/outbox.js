/* The outbox (docs/OUTBOX.md): a command made while the bank cannot be reached waits on this device,
 * in localStorage (one entry per command, so two tabs adding at once never overwrite each other),
 * with its Idempotency-Key, its words, the account that made it and when, by the device's clock. It
 * survives a reload and a browser restart; it is sent in order as soon as the bank answers, under
 * the account that made it only, and is then booked once or refused with the bank's reason. A
 * refused one stays listed with that reason until the facilitator drops it, changes it or books it
 * again. One tab of the device sends at a time: navigator.locks where the browser has it (HTTPS and
 * localhost only), else a lease in localStorage (the game's Wi-Fi is plain HTTP); the key makes a
 * second send harmless anyway.
 * The device's clock may be wrong by hours and be put right while commands wait: they keep the order they
 * were made in (a number counted on the device, not the clock), this page's own waits run on its monotonic
 * clock, and a time another tab wrote that lies further ahead than it could (the clock was set back) is past.
 * Needs page.js, api.js, commands.js, board_labels.js and forms.js (W.describe, W.banner).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;
  var PREFIX = "tb.outbox.item.", LEASE = "tb.outbox.lease", DEVICE = "tb.device", SEQ = "tb.outbox.seq", CLOCK = "tb.outbox.clock";
  var HOLD_MS = 90000; // a command held by a page sending it live: after this the page is taken as gone
  // What still means the same minutes later: the bank's own list (bank/web/field/outbox.py), written in the page.
  var QUEUEABLE = (function () {
    var node = document.querySelector("script[data-outbox-queueable]");
    try { return node ? JSON.parse(node.textContent) : []; } catch (e) { return []; }
  })();
  var MAX_SAID_S = 999999; // the most the header may say (bank/web/field/outbox.py reads six digits)
  var tab = TB.uuid(), life = pageLife(), account = null, box = null, flushing = false, loginNeeded = false, lastReport = "";
  var nextTry = 0; // a command just given up on after its retries waits a moment before the next try (performance.now)
  var wallBase = Date.now() - performance.now(); // the wall clock at this page's monotonic 0: moves when the clock is set
  // Which game this page books in: the address (a host serves several games, /g/<name>/, on one origin, whose
  // pages share localStorage) and the game's mark (GET /api/state: made again, it is another game). Each entry
  // names both: another address's entries are not this page's; another game's are refused by the bank (X-Game).
  var place = TB.url("/"), game = null;
  var memory = {}; // when localStorage is refused (a private window may), this page at least keeps them
  var outbox = (TB.outbox = { tryEveryMs: 3000, leaseMs: 15000, settleMs: 15000, onBooked: null, onChange: null, onList: null });

  function store() { try { return window.localStorage; } catch (e) { return null; } }

  /** This browser tab's name, kept across its reloads (sessionStorage): a command it held while sending it live
   * and never saw answered, before it was reloaded, is waiting at once (it hid for the hold's 90 s). */
  function pageLife() {
    var name = null;
    try { name = window.sessionStorage.getItem("tb.outbox.page"); } catch (e) { name = null; }
    if (!name) {
      name = TB.uuid().slice(0, 8);
      try { window.sessionStorage.setItem("tb.outbox.page", name); } catch (e) { /* this page only */ }
    }
    return name;
  }

  /** This device's own random name, kept across reloads: the admin page and the report say it. */
  function device() {
    var s = store(), id = null;
    try { id = s && s.getItem(DEVICE); } catch (e) { id = null; }
    if (!id || !/^[A-Za-z0-9_-]{4,40}$/.test(id)) {
      id = "d-" + TB.uuid().slice(0, 8);
      try { if (s) s.setItem(DEVICE, id); } catch (e) { /* this page keeps it */ }
    }
    return id;
  }
  outbox.device = device;

  /* ---- the entries ---- */

  function all() {
    var s = store(), out = [];
    if (!s) return Object.keys(memory).map(function (k) { return memory[k]; });
    for (var i = 0; i < s.length; i++) {
      var name = s.key(i);
      if (!name || name.indexOf(PREFIX) !== 0) continue;
      try {
        var item = JSON.parse(s.getItem(name));
        if (item && typeof item.key === "string" && item.command && typeof item.made === "number" &&
            (!item.at || item.at === place)) out.push(item);
      } catch (e) { /* a damaged entry is not a command */ }
    }
    // In the order made on this device: its count first (entries of older pages have none: they are older).
    return out.sort(function (a, b) { return (a.seq || 0) - (b.seq || 0) || a.made - b.made || (a.key < b.key ? -1 : 1); });
  }

  function put(item) {
    var s = store();
    if (!s) { memory[item.key] = item; return true; }
    try { s.setItem(PREFIX + item.key, JSON.stringify(item)); return true; } catch (e) { return false; } // full
  }

  /** The next number of the device's count of kept commands (shared by its tabs through localStorage). */
  function nextSeq() {
    var s = store(), n = 0;
    try { n = Number(s && s.getItem(SEQ)) || 0; } catch (e) { n = 0; }
    all().forEach(function (i) { if (i.seq > n) n = i.seq; });
    try { if (s) s.setItem(SEQ, String(n + 1)); } catch (e) { /* the entries' own numbers */ }
    return n + 1;
  }

  /** The device's clock set back (put right, or by hand) while commands wait: their "made" moves back with it,
   * once for all the tabs (the note in CLOCK names the change; each entry names the last it moved with), so
   * "made 3 min ago" and the wait told to the bank stay true. A clock moved forward is left alone: a phone
   * asleep looks the same (its monotonic clock stops), and its wait only counts longer. */
  function clockCheck() {
    var base = Date.now() - performance.now(), d = base - wallBase;
    if (Math.abs(d) < 2000) return;
    wallBase = base;
    if (d > 0) return;
    var note = clockNote();
    if (!note || Math.abs(note.d - d) > 5000 || Math.abs(note.at - Date.now()) > 600000) {
      note = { id: TB.uuid().slice(0, 8), d: d, at: Date.now() }; // another tab had not seen this change yet
      try { if (store()) store().setItem(CLOCK, JSON.stringify(note)); } catch (e) { /* this page's entries only */ }
    }
    all().forEach(function (i) { if (i.clock !== note.id) { i.made += note.d; i.clock = note.id; put(i); } });
  }
  function clockNote() {
    try { var note = JSON.parse(store().getItem(CLOCK)); return note && typeof note.d === "number" ? note : null; } catch (e) { return null; }
  }
  /** The last clock change this device's entries moved with: an entry made from now on needs no move for it. */
  function clockId() { var note = clockNote(); return note ? note.id : null; }
  /** `until`, a time a tab of this device wrote ahead of now, is still to come: not if it lies further ahead than
   * `most` (the clock was set back since; else a lease or a hold would stop the sending for as long). */
  function ahead(until, most) { var now = Date.now(); return until > now && until - now <= most; }

  function find(key) { return all().filter(function (i) { return i.key === key; })[0] || null; }

  function remove(key) {
    var s = store();
    delete memory[key];
    try { if (s) s.removeItem(PREFIX + key); } catch (e) { /* nothing kept */ }
  }

  /** This account's entries, oldest first. */
  function mine() { return all().filter(function (i) { return i.account === account; }); }
  outbox.mine = mine;
  /** Waiting: kept to be sent, or held by a page that was sending it live and never said how it went. */
  function waits(i) { return i.state === "waiting" || (i.state === "sending" && !ahead(i.until, HOLD_MS)); }
  /** Shown: all but a command a page of this device is sending live right now (its banner says how it goes). */
  function shown(i) { return i.state !== "sending" || !ahead(i.until, HOLD_MS); }
  outbox.waiting = function () { return mine().filter(waits); };
  outbox.queueable = function (command) { return QUEUEABLE.indexOf(command.type) >= 0; };
  outbox.find = find;

  /** The teams a command is about: their figures are not confirmed while it waits. */
  function teamsOf(command) {
    return ["team", "merchant_team", "visited_team", "attacker_team", "defender_team"]
      .map(function (f) { return command[f]; }).filter(Boolean);
  }
  outbox.waitsFor = function (team) {
    return outbox.waiting().filter(function (i) { return teamsOf(i.command).indexOf(team) >= 0; }).length;
  };

  /** Keep `command` under `key` (made at `made`, ms by this device's clock); false when the device has no room. */
  outbox.add = function (command, key, made) {
    if (!account) return false;
    clockCheck();
    var d = W.describe(command), held = find(key);
    // Held while it was sent live (or kept before): its place in the order, and its time as moved with the clock.
    var item = { key: key, command: command, account: account, made: held ? held.made : made || Date.now(), state: "waiting",
      words: d.label + (d.detail ? " \u00b7 " + d.detail : ""), at: place, game: game,
      seq: held && held.seq ? held.seq : nextSeq(), clock: held ? held.clock : clockId() };
    var ok = put(item);
    nextTry = performance.now() + outbox.tryEveryMs;
    changed();
    return ok;
  };

  /** Note `command` as being sent live under `key`: kept if the page dies before the bank answers. */
  outbox.hold = function (command, key, made) {
    if (!account) return false;
    clockCheck();
    var d = W.describe(command), was = find(key);
    return put({ key: key, command: command, account: account, made: made, state: "sending", until: Date.now() + HOLD_MS, page: life,
      words: d.label + (d.detail ? " \u00b7 " + d.detail : ""), at: place, game: game,
      seq: was && was.seq ? was.seq : nextSeq(), clock: was ? was.clock : clockId() });
  };

  /** Take an entry out (it is being sent from the page itself, or the facilitator dropped it). */
  outbox.remove = function (key) { remove(key); changed(); };

  /** The headers that say a command waited on this device since `made`, made in game `mark` (this page's). */
  outbox.headers = function (made, mark) {
    var out = { "X-Queued-Seconds": String(waited({ made: made })), "X-Device": device() };
    if (mark || game) out["X-Game"] = mark || game;
    return out;
  };
  /** The game this page books in (its mark, from GET /api/state): entries kept from now on name it. */
  outbox.setGame = function (mark) { if (typeof mark === "string" && mark) game = mark; };

  /** Seconds this entry waited, by this device's clock (never below 0 if the clock was set back); past a day
   * the bank refuses it with its reason (queued_too_long), and the facilitator decides. */
  function waited(item) { return Math.max(0, Math.min(MAX_SAID_S, Math.round((Date.now() - item.made) / 1000))); }

  /* ---- one tab sends: a lease in localStorage ---- */

  function readLease() {
    try { return JSON.parse(store().getItem(LEASE)) || null; } catch (e) { return null; }
  }
  function writeLease(until) {
    try { store().setItem(LEASE, JSON.stringify({ tab: tab, until: until })); } catch (e) { /* memory only */ }
  }
  /** Take the lease, or keep it: two tabs writing at once both read back after a moment; one is left. */
  async function takeLease() {
    if (!store()) return true;
    var lease = readLease(), now = Date.now();
    if (lease && lease.tab !== tab && ahead(lease.until, outbox.leaseMs)) return false;
    writeLease(now + outbox.leaseMs);
    await new Promise(function (done) { setTimeout(done, 60); });
    lease = readLease();
    return !!lease && lease.tab === tab;
  }
  function holdLease() {
    if (!store()) return true;
    var lease = readLease();
    if (!lease || lease.tab !== tab) return false;
    writeLease(Date.now() + outbox.leaseMs);
    return true;
  }
  function releaseLease() {
    var lease = store() && readLease();
    if (lease && lease.tab === tab) { try { store().removeItem(LEASE); } catch (e) { /* it expires */ } }
  }

  /* ---- sending ---- */

  /** The bank was not reached, or answered that it cannot book now: the command waits on. */
  function unreachable(result) { return result.status === 0 || result.status === 429 || result.status >= 500; }

  /**
   * Send this account's waiting commands in order, one try each. Resolves to true when none waits
   * (all booked or refused), false when the bank could not be reached or another tab sends them.
   */
  outbox.flush = async function () {
    if (flushing || !account) return !outbox.waiting().length;
    if (!outbox.waiting().length) return true;
    if (navigator.onLine === false) return false; // no network at all: the "online" event starts the next try
    // Where the browser has Web Locks (HTTPS, localhost) one tab holds the lock; else the lease.
    if (navigator.locks && navigator.locks.request) {
      return navigator.locks.request("tb.outbox", { ifAvailable: true }, function (lock) { return lock ? sendAll(true) : false; });
    }
    return sendAll(false);
  };

  async function sendAll(locked) {
    if (flushing) return false;
    flushing = true;
    var reached = true;
    try {
      if (!locked && !(await takeLease())) return false;
      for (;;) {
        var next = outbox.waiting()[0];
        if (!next || (!locked && !holdLease())) break;
        var result = await TB.api("POST", "/api/commands", next.command, { key: next.key, retry: false,
          headers: outbox.headers(next.made, next.game) });
        if (!find(next.key)) continue; // dropped in another tab while it was on its way
        if (unreachable(result)) { reached = false; break; }
        var code = result.error && result.error.code;
        if (result.status === 401 || code === "csrf_failed") { loginNeeded = true; reached = false; break; }
        loginNeeded = false;
        if (result.ok) {
          // Its pending key (commands.js) stays a few seconds: pressed again after "not confirmed", it is "already
          // done"; after that the same harvest is a new one (the page says it was sent: outbox.onBooked).
          if (TB.pending) TB.pending.settle(TB.commandPrint(next.command), next.key, outbox.settleMs);
          remove(next.key);
          if (outbox.onBooked) outbox.onBooked(next, result);
        } else {
          next.state = "refused";
          next.error = result.error;
          put(next);
        }
      }
    } finally {
      if (!locked) releaseLease();
      flushing = false;
      changed();
    }
    return reached && !outbox.waiting().length;
  }

  /* ---- what the facilitator sees ---- */

  function ago(item) {
    var s = waited(item);
    return s < 60 ? t("outbox_made_s", { n: s }) : t("outbox_made_min", { n: Math.floor(s / 60) });
  }

  function choices(item) {
    var out = [el("button", { type: "button", class: "btn btn-small btn-danger", dataset: { act: "drop" }, text: t("outbox_drop"),
      onclick: function () { remove(item.key); changed(); } })];
    if (outbox.onChange) {
      out.push(el("button", { type: "button", class: "btn btn-small", dataset: { act: "change" }, text: t("outbox_change"),
        onclick: function () { remove(item.key); changed(); outbox.onChange(item); } }));
    }
    out.push(el("button", { type: "button", class: "btn btn-small btn-primary", dataset: { act: "again" }, text: t("outbox_again"),
      onclick: function () {
        // A refused command was not booked: the facilitator makes it again now, under a new key.
        remove(item.key);
        put(Object.assign({}, item, { key: TB.uuid(), state: "waiting", error: null, made: Date.now(), at: place, game: game,
          seq: nextSeq(), clock: clockId() }));
        changed();
        outbox.flush();
      } }));
    return out;
  }

  /** Another account's commands kept on this device (logged out with "keep", or its session ended): never
   * sent under this account, and said, so the tablet's new holder can tell their colleague (a line each). */
  function othersNotes() {
    var count = {};
    all().forEach(function (i) { if (i.account !== account && (waits(i) || i.state === "refused")) count[i.account] = (count[i.account] || 0) + 1; });
    return Object.keys(count).sort().map(function (who) {
      return el("p", { class: "outbox-note", dataset: { account: who }, text: t("outbox_others", { n: count[who], account: who }) });
    });
  }

  function render() {
    if (!box) return;
    var items = mine().filter(shown), waiting = items.filter(waits), others = othersNotes();
    box.classList.toggle("hidden", !items.length && !others.length);
    if (!items.length) { TB.fill(box, others); return; }
    var refused = items.length - waiting.length;
    TB.fill(box, others.concat([
      el("h2", { class: "outbox-title", text: [waiting.length ? t("outbox_waiting", { n: waiting.length }) : null,
        refused ? t("outbox_refused_n", { n: refused }) : null].filter(Boolean).join(" \u00b7 ") }),
      waiting.length ? el("p", { class: "outbox-note", text: t(loginNeeded ? "outbox_login" : "outbox_keep_open") }) : null,
      el("ol", { class: "outbox-list" }, items.map(function (item) {
        var was = item.state === "refused";  // else waiting (or held by a page that closed while sending it)
        return el("li", { class: was ? "refused" : "waiting", dataset: { key: item.key } },
          el("span", { class: "outbox-words", text: item.words }),
          el("small", { class: "outbox-ago", text: " \u00b7 " + ago(item) }),
          was ? el("div", { class: "outbox-why" }, el("b", { text: t("refused") + " " }), W.errorText(item.error)) : null,
          was ? el("div", { class: "outbox-choices" }, choices(item)) : null);
      })),
    ]));
  }

  /** What this device holds, every account's, told to the bank when it changes (and now and then): the
   * lead sees a tablet still holds a colleague's commands while someone else is logged in on it. */
  async function report(force) {
    if (!account) return;
    var waiting = all().filter(waits);
    var oldest = waiting.length ? waited(waiting[0]) : 0, said = waiting.length + "/" + account;
    if (!force && said === lastReport) return;
    var r = await TB.api("POST", "/api/outbox", { device: device(), waiting: waiting.length, oldest_seconds: oldest }, { retry: false });
    if (r.ok) lastReport = said;
  }

  function changed() {
    render();
    if (outbox.onList) outbox.onList();
    report(false);
  }

  /* ---- log-out: what to do with this account's waiting commands ---- */

  function askAtLogout(event) {
    var button = event.target.closest ? event.target.closest("[data-logout]") : null;
    if (!button || button.dataset.decided || !account || !mine().length) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    var n = mine().length;
    function go(drop) {
      if (drop) mine().forEach(function (i) { remove(i.key); });
      button.dataset.decided = "1";
      button.click();
    }
    var dialog = el("div", { class: "outbox-logout", role: "alertdialog", "aria-label": t("outbox_logout_q", { n: n }) },
      el("p", { text: t("outbox_logout_q", { n: n }) }),
      el("div", { class: "outbox-choices" },
        el("button", { type: "button", class: "btn btn-primary", dataset: { act: "stay" }, text: t("outbox_logout_stay"),
          onclick: function () { dialog.remove(); } }),
        el("button", { type: "button", class: "btn", dataset: { act: "keep" }, text: t("outbox_logout_keep"), onclick: function () { go(false); } }),
        el("button", { type: "button", class: "btn btn-danger", dataset: { act: "drop" }, text: t("outbox_logout_drop"), onclick: function () { go(true); } })));
    var open = document.querySelector(".outbox-logout");
    if (open) open.remove();
    box.parentNode.insertBefore(dialog, box); // beside the list, so a redraw of the list keeps it
    dialog.querySelector("button").focus();
  }

  /* ---- the page opens again while the bank is out of reach: the service worker (sw.js) ---- */

  /** Where the browser allows a service worker (HTTPS, or the machine itself: never the game's plain-HTTP
   * Wi-Fi), start it and have it keep what this page loaded before it took over. Resolves to true once this
   * page would open offline, false where it cannot. */
  function offlinePages() {
    var sw = navigator.serviceWorker;
    if (!window.isSecureContext || !sw || !window.MessageChannel) return Promise.resolve(false);
    var taken = !!sw.controller; // loaded through the worker: it kept what it answered
    return sw.register(TB.url("/sw.js")).then(function () { return sw.ready; }).then(function (registration) {
      if (taken) return true;
      var urls = [location.href.split("#")[0], TB.url("/api/config"), TB.url("/api/me"), TB.url("/api/state")];
      Array.prototype.forEach.call(document.querySelectorAll("script[src], link[rel=stylesheet][href]"), function (node) {
        urls.push(node.src || node.href);
      });
      return new Promise(function (done) {
        var channel = new MessageChannel();
        channel.port1.onmessage = function (ev) { done(ev.data === true); };
        registration.active.postMessage({ keep: urls }, [channel.port2]);
      });
    }).catch(function () { return false; });
  }

  /** Start for the logged-in `user`: show this account's entries and send them whenever the bank answers. */
  outbox.start = function (user) {
    account = outbox.account = user || null;
    all().forEach(function (i) { if (i.state === "sending" && i.page === life) { i.state = "waiting"; put(i); } });
    box = TB.$("#outbox");
    document.addEventListener("click", askAtLogout, true);
    window.addEventListener("storage", function (ev) { if (!ev.key || ev.key.indexOf(PREFIX) === 0) changed(); });
    window.addEventListener("online", function () { outbox.flush(); });
    setInterval(function () {
      clockCheck();
      if (outbox.waiting().length && performance.now() >= nextTry) outbox.flush();
      if (!box || !box.contains(document.activeElement)) render(); // the "made 4 min ago" texts; never under a finger
    }, outbox.tryEveryMs);
    setInterval(function () { if (lastReport.split("/")[0] !== "0") report(true); }, 20000);
    changed();
    report(true);
    outbox.flush();
    outbox.offlinePages = user ? offlinePages() : Promise.resolve(false);
  };
})();
