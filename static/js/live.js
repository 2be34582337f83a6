/* The live socket of every page: connect, catch up with `sync` after a reconnect or when a phone
 * wakes, read one `round` message per round holding the parts the page shows, keep the
 * versioned pictures (a patch applies to the version held, with delta.js; a gap asks for the whole
 * pictures; Python twin: tests/delta_page.py) and the "live / offline" badge.
 */
(function () {
  "use strict";

  var TB = window.TB;
  var PARTS = ["public", "team", "journal"]; // what a `round` message may hold (bank/web/push/rounds.py)

  var lastMessageAt = 0, connected = false, badgeTimer = null;
  var refusal = ""; // the server's sentence when it turned this page's live connection away
  // The bank process said it cannot reach its database (bank/web/health.py), or when it reached it again.
  var databaseLost = false, databaseBackAt = 0;

  function updateBadge() {
    var badge = document.getElementById("conn-badge");
    if (!badge) return;
    // Monotonic: a device clock set back said "data from -3597 s ago".
    var age = lastMessageAt ? Math.round((performance.now() - lastMessageAt) / 1000) : null;
    var text;
    if (connected && databaseLost) text = TB.t("database_lost");
    else if (connected && databaseBackAt && performance.now() - databaseBackAt < 10000) text = TB.t("database_back");
    else if (connected) text = TB.t("live");
    else if (refusal) text = refusal;
    else if (age === null) text = TB.t("offline");
    else text = TB.t("offline_ago", { age: age < 120 ? age + " s" : Math.round(age / 60) + " min" });
    badge.textContent = text;
    badge.className = "badge " + (connected && !databaseLost ? "badge-live" : "badge-offline");
  }

  /** The last journal entry this page has seen, on <body data-seq>: for whoever debugs, and for tests. */
  TB.seen = function (seq) {
    if (typeof seq === "number" && seq > (+document.body.dataset.seq || 0)) document.body.dataset.seq = seq;
  };

  // The socket's last event on <body data-live>: what a badge stuck on "offline" hides (for debugging).
  function noteLive(what) { document.body.dataset.live = what + " @" + new Date().toISOString().slice(11, 19); }

  /** Note that fresh data arrived (socket message or API read): the badge counts from now. */
  TB.touch = function () { lastMessageAt = performance.now(); updateBadge(); };

  /**
   * The bank's config was reloaded since this page loaded its own (team names, costs: board_labels.js), and the
   * picture says so. A phone or a big screen loads itself again, at most once a minute; a facilitator's page,
   * which may hold something typed (a paper ledger, a trade's amounts), says so with a button that does it.
   * Before, every page drew the old names and costs until someone reloaded it by hand.
   */
  function configChanged(version, own) {
    var W = window.W, loaded = W && W.config && W.config.version;
    if (!version || !loaded || version === loaded) return false;
    document.body.dataset.configChanged = version; // for tests and whoever debugs
    if (!own.team && !own.display) {
      if (!document.getElementById("config-changed")) {
        var box = document.createElement("div"), again = document.createElement("button");
        box.id = "config-changed";
        box.className = "banner banner-info";
        box.setAttribute("role", "status");
        box.textContent = TB.t("config_changed") + " ";
        again.type = "button";
        again.className = "btn";
        again.textContent = TB.t("config_reload");
        again.addEventListener("click", function () { window.location.reload(); });
        box.appendChild(again);
        document.body.insertBefore(box, document.body.firstChild);
      }
      return false;
    }
    var key = "tb-config-reload", last = 0;
    try { last = Number(window.sessionStorage.getItem(key)) || 0; } catch (e) { /* storage refused */ }
    // Across reloads, so the device's clock: a time ahead of it (clock set back) is no reason to wait.
    var since = Date.now() - last;
    if (since >= 0 && since < 60000) return false;
    try { window.sessionStorage.setItem(key, String(Date.now())); } catch (e) { /* storage refused */ }
    noteLive("config " + loaded + " -> " + version);
    window.location.reload();
    return true;
  }

  /**
   * Connect the socket: opts.auth ({team} or {display: true}), opts.on {public, team, journal} (the parts
   * of each `round` message this page reads; the server sends the journal only to a page that has it),
   * opts.after() the last journal seq held in order (sent with every connect and `sync`),
   * opts.onRefused() when the server turns the connection down (an old team link) or
   * says the link was replaced while the page was open (`link_replaced`, then it closes the socket).
   * A `session_ended` message (log-out elsewhere, ended by the lead, account changed) sends a
   * facilitator's page back to the log-in form, which says why.
   */
  TB.live = function (opts) {
    if (!window.io) {
      updateBadge();
      return null;
    }
    // The link's secret also rides in the query: the server admits a live page by the team link
    // or big-screen key it holds before the socket opens (bank/web/serving/identity.py).
    var on = opts.on || {}, own = opts.auth || {};
    var query = own.team ? { team: own.team } : own.key ? { key: own.key } : {};
    // One `round` message per round holding every part this page reads (fewer frames and TCP
    // segments on the Wi-Fi): the journal only for a page that shows it (bank/web/push/rounds.py).
    var auth = Object.assign({ rounds: 1 }, on.journal ? { journal: true } : {}, own);
    // Each (re)connect names the last journal entry the page holds: the server sends the rows
    // after it before any newer one, so a page that moved to another server process loses none.
    var connectAuth = opts.after ? function (cb) { cb(Object.assign({ after: opts.after() }, auth)); } : auth;
    var socket = window.io({ path: TB.url("/socket.io"), auth: connectAuth, query: query, reconnectionDelayMax: 5000 });
    var pictures = TB.pictures = new Pictures(function () { socket.emit("sync", syncBody(opts)); });
    if (TB.witness) TB.witness.attach(socket, own); // the page checks the bank's chain on each return (witness.js)
    /** The journal rows after `seq` (console_journal.js asks when it sees a gap). */
    TB.askJournal = function (seq) {
      if (socket.connected) socket.emit("sync", { after: seq, pictures: false });
    };
    socket.on("connect", function () {
      // The connect itself brings the whole pictures, and the journal after opts.after().
      noteLive("connect");
      connected = true;
      refusal = "";
      updateBadge();
    });
    socket.on("disconnect", function (reason) { noteLive("disconnect " + reason); connected = false; updateBadge(); });
    socket.on("connect_error", function (err) {
      noteLive("error " + (err && err.message) + " " + (err && err.description));
      connected = false;
      refusal = refusalOf(err);
      updateBadge();
      if (!socket.active && opts.onRefused) opts.onRefused(); // refused by the server, not a network fault
    });
    // The master's word on a config reload, to the lead's pages only (bank/web/push/reload_push.py), heard while
    // the database is away too: static/js/reload_status.js shows it.
    socket.on("reload", function (message) {
      document.dispatchEvent(new CustomEvent("tb:reload", { detail: message }));
    });
    socket.on("database", function (message) {
      databaseLost = !(message && message.reachable);
      databaseBackAt = databaseLost ? 0 : performance.now();
      updateBadge();
    });
    socket.on("session_ended", function () {
      // Sent only to facilitator pages; this page's own log-out goes to the log-in form anyway.
      if (!TB.loggingOut) window.location.href = TB.url("/login?ended=1");
    });
    socket.on("link_replaced", function () {
      if (opts.onRefused) opts.onRefused("replaced");
    });
    function receive(name, payload) {
      // A picture (public, team) comes whole or as a patch of the version the page holds.
      if (payload && payload.v !== undefined) payload = pictures.receive(name, payload);
      if (!payload) return; // an older or repeated message, or a patch waiting for the whole picture
      TB.seen(payload.seq);
      if (name === "public" && TB.witness) TB.witness.saw(payload.seq, payload.chain);
      if (name === "public" && configChanged(payload.config, own)) return;
      on[name](payload);
    }
    socket.on("round", function (message) {
      TB.touch();
      // Its parts in the order they were made: the public picture, the team's, then the journal rows.
      PARTS.forEach(function (name) {
        if (message && message[name] !== undefined && on[name]) receive(name, message[name]);
      });
    });
    // A server process not yet upgraded (several behind one address) sends the parts separately.
    Object.keys(on).forEach(function (name) {
      socket.on(name, function (payload) { TB.touch(); receive(name, payload); });
    });
    // A phone that wakes up asks for the current picture at once.
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible" && socket.connected) socket.emit("sync", syncBody(opts));
    });
    if (!badgeTimer) badgeTimer = setInterval(updateBadge, 1000);
    updateBadge();
    return socket;
  };

  /**
   * The sentence of a server that answered the live connection with an error status (503: too many
   * live pages, bank/web/serving/server.py LIVE_REFUSAL; the bank too full, or a game held elsewhere):
   * the French line, or the English one on an English page. "" for a network fault. Read at once:
   * Socket.IO aborts the request, and with it its text, right after this event.
   */
  function refusalOf(err) {
    var xhr = err && err.context;
    if (!err || typeof err.description !== "number" || err.description < 400 || !xhr) return "";
    if (!/^text\/plain/.test(xhr.getResponseHeader("Content-Type") || "")) return ""; // the bank's sentences only
    var lines = String(xhr.responseText).split("\n").filter(function (line) { return line.trim(); });
    return (TB.lang === "en" && lines[1]) || lines[0] || "";
  }

  function syncBody(opts) {
    var body = { after: opts.after ? opts.after() : 0 };
    if (opts.auth && opts.auth.team) body.team = opts.auth.team;
    return body;
  }

  /* ---- versioned pictures ---- */

  /**
   * The pictures this page holds, each with the server's version of it (bank/web/push/broadcaster.py).
   * receive(event, message) returns the new picture, or null for a message to ignore: older than
   * the one held (today's guarantee), the same one again, or a patch of another version than the
   * one held (a message was lost or overtaken): then it asks once for the whole pictures (`sync`).
   */
  function Pictures(askWhole) {
    this.held = {};        // event -> {v, picture}
    this.askWhole = askWhole;
    this.asked = 0;        // when the whole pictures were last asked for (0: not waiting)
  }
  Pictures.prototype.receive = function (event, msg) {
    var mine = this.held[event], picture;
    if (msg.patch === undefined) {
      if (mine && (msg.seq < mine.picture.seq || before(msg.v, mine.v, false))) return null;
      picture = Object.assign({}, msg);
      delete picture.v;
      this.asked = 0;
    } else if (mine && mine.v === msg.base) {
      try {
        picture = window.TBDelta.apply(mine.picture, msg.patch);
        picture.seq = msg.seq; // the message names it; the patch leaves it out
      } catch (e) {
        return this.resync();
      }
    } else if (mine && (msg.seq < mine.picture.seq || before(msg.v, mine.v, true))) {
      return null; // an old or repeated patch: the picture held is already newer
    } else {
      return this.resync();
    }
    this.held[event] = { v: msg.v, picture: picture };
    document.body.dataset[event + "Version"] = msg.v; // for whoever debugs, and for tests
    return picture;
  };
  Pictures.prototype.resync = function () {
    // One request at a time; asked again if no whole picture came within 5 s (by the page's monotonic clock: by
    // the device's, set back an hour, no whole picture was asked for that hour).
    if (!this.asked || performance.now() - this.asked > 5000) {
      this.asked = performance.now();
      this.askWhole();
    }
    return null;
  };
  /** Versions are "<boot>.<n>": is `a` older than `b` (or the same, when orSame) in one server start? */
  function before(a, b, orSame) {
    var x = String(a).split("."), y = String(b).split(".");
    return x[0] === y[0] && (+x[1] < +y[1] || (orSame && +x[1] === +y[1]));
  }
})();
