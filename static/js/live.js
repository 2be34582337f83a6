/* Terrabank shared client: strings, DOM helpers, the JSON API with retries, the live socket.
 *
 * Plain ES2017, no build step. Every page loads this file first; it defines window.TB.
 * Text that comes from data is always set with textContent (TB.el), never as HTML.
 */
(function () {
  "use strict";

  var TB = (window.TB = {});
  TB.lang = document.documentElement.lang || "fr";

  /* ---- strings: filled by the templates in <script type="application/json" data-strings> ---- */

  TB.strings = {};
  Array.prototype.forEach.call(document.querySelectorAll("script[data-strings]"), function (node) {
    try {
      Object.assign(TB.strings, JSON.parse(node.textContent));
    } catch (e) {
      /* a broken block must not stop the page; the keys then show as themselves */
    }
  });

  /** The translated string for `key`, with %(name)s replaced from params. */
  TB.t = function (key, params) {
    var text = Object.prototype.hasOwnProperty.call(TB.strings, key) ? TB.strings[key] : key;
    return text.replace(/%\((\w+)\)s/g, function (all, name) {
      return params && params[name] !== undefined ? String(params[name]) : all;
    });
  };

  /** A label from the API: a plain string, or {fr, en} picked in the page's language. */
  TB.pick = function (label) {
    if (label === null || label === undefined) return "";
    if (typeof label !== "object") return String(label);
    return label[TB.lang] || label.fr || label.en || "";
  };

  /* ---- DOM ---- */

  /** Build an element: TB.el("div", {class: "x", onclick: fn}, "text", child...). Strings become text nodes. */
  TB.el = function (tag, props) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (name) {
        var value = props[name];
        if (value === undefined || value === null || value === false) return;
        if (name === "class") node.className = value;
        else if (name === "text") node.textContent = value;
        else if (name === "style" && typeof value === "object") {
          Object.keys(value).forEach(function (k) {
            if (k.slice(0, 2) === "--") node.style.setProperty(k, value[k]); else node.style[k] = value[k];
          });
        }
        else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
        else if (name === "dataset") Object.assign(node.dataset, value);
        else if (name in node && name !== "list" && name !== "type") node[name] = value;
        else node.setAttribute(name, value === true ? "" : value);
      });
    }
    for (var i = 2; i < arguments.length; i++) TB.append(node, arguments[i]);
    return node;
  };

  TB.append = function (node, child) {
    if (child === null || child === undefined || child === false) return node;
    if (Array.isArray(child)) child.forEach(function (c) { TB.append(node, c); });
    else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  };

  /** Replace a node's children. */
  TB.fill = function (node, children) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return TB.append(node, children);
  };

  /** An SVG element with attributes (no text from data is ever parsed as markup). */
  var SVG_NS = (function () {
    // The namespace, read from the HTML parser rather than written as a URL in this file.
    var probe = document.createElement("div");
    probe.innerHTML = "<svg></svg>";
    return probe.firstChild.namespaceURI;
  })();
  TB.svg = function (tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    for (var i = 2; i < arguments.length; i++) TB.append(node, arguments[i]);
    return node;
  };

  TB.$ = function (selector, root) { return (root || document).querySelector(selector); };

  /** Black or white text, whichever reads better on a background colour. */
  TB.ink = function (hex) {
    var m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
    if (!m) return "#fff";
    var lum = [m[1], m[2], m[3]].map(function (h) {
      var c = parseInt(h, 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2] > 0.3 ? "#111" : "#fff";
  };

  /** "2:05" for 125 seconds; "1:02:05" past an hour. */
  TB.clockText = function (seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  };

  /** "14:03:27" for a journal time (epoch seconds). */
  TB.timeOfDay = function (epochSeconds) {
    var d = new Date(epochSeconds * 1000);
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map(function (n) { return String(n).padStart(2, "0"); }).join(":");
  };

  /* ---- the JSON API ---- */

  /** A random UUID v4. crypto.randomUUID needs HTTPS, which a field Wi-Fi does not have. */
  TB.uuid = function () {
    var b = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  };

  TB.csrf = function () {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  };

  // About 20 s of retries in all, then give up. A page setting, so a test can shorten it.
  TB.retryDelays = [500, 1000, 2000, 3000, 4000, 5000, 5000];
  var TIMEOUT_MS = 8000;

  function sleep(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

  async function fetchOnce(method, url, body, headers) {
    var abort = window.AbortController ? new AbortController() : null;
    var timer = abort ? setTimeout(function () { abort.abort(); }, TIMEOUT_MS) : null;
    try {
      return await fetch(url, {
        method: method, headers: headers, credentials: "same-origin", cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body), signal: abort ? abort.signal : undefined,
      });
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /**
   * Call the API. Resolves to {ok, status, data, error}; never rejects.
   * A network failure, a time-out or a 502/503/504 is retried with the SAME Idempotency-Key,
   * so a command that did reach the bank is not booked twice. onRetry(n, error) is told each
   * retry, with the bank's error when it answered (503 disk_full...), else null.
   */
  TB.api = async function (method, url, body, options) {
    options = options || {};
    var headers = { Accept: "application/json", "X-CSRF-Token": TB.csrf() };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (options.key) headers["Idempotency-Key"] = options.key;
    for (var attempt = 0; ; attempt++) {
      var response = null;
      try {
        response = await fetchOnce(method, url, body, headers);
      } catch (e) {
        response = null; // offline, refused or timed out
      }
      var retryable = !response || [502, 503, 504].indexOf(response.status) >= 0;
      if (!retryable || attempt >= TB.retryDelays.length || options.retry === false) {
        return read(response);
      }
      // A 503 from the bank itself (disk full, read-only) says why: show it while retrying.
      if (options.onRetry) options.onRetry(attempt + 1, response ? (await read(response)).error : null);
      await sleep(TB.retryDelays[attempt]);
    }
  };

  async function read(response) {
    if (!response) {
      return { ok: false, status: 0, data: null, error: { code: "network", message: TB.t("network_error"), params: {} } };
    }
    var data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (response.ok) return { ok: true, status: response.status, data: data, error: null };
    var error = data && data.error ? data.error : { code: "http_" + response.status, message: TB.t("server_error", { status: response.status }), params: {} };
    return { ok: false, status: response.status, data: data, error: error };
  }

  TB.get = function (url) { return TB.api("GET", url); };

  /** The refusal as a sentence: a translated one when the page knows the code, else the bank's own. */
  TB.errorText = function (error) {
    if (!error) return "";
    var key = "error." + error.code;
    // The bank's own sentences are English and say the most; other languages use the page's strings.
    if (TB.lang === "en" && error.message && error.code !== "network") return error.message;
    if (Object.prototype.hasOwnProperty.call(TB.strings, key)) return TB.t(key, error.params || {});
    return error.message || error.code;
  };

  /* ---- live updates ---- */

  var lastMessageAt = 0, connected = false, badgeTimer = null;

  function updateBadge() {
    var badge = document.getElementById("conn-badge");
    if (!badge) return;
    var age = lastMessageAt ? Math.round((Date.now() - lastMessageAt) / 1000) : null;
    var text;
    if (connected) text = TB.t("live");
    else if (age === null) text = TB.t("offline");
    else text = TB.t("offline_ago", { age: age < 120 ? age + " s" : Math.round(age / 60) + " min" });
    badge.textContent = text;
    badge.className = "badge " + (connected ? "badge-live" : "badge-offline");
  }

  /** The last journal entry this page has seen, on <body data-seq>: for whoever debugs, and for tests. */
  TB.seen = function (seq) {
    if (typeof seq === "number" && seq > (+document.body.dataset.seq || 0)) document.body.dataset.seq = seq;
  };

  /** Note that fresh data arrived (socket message or API read): the badge counts from now. */
  TB.touch = function () { lastMessageAt = Date.now(); updateBadge(); };

  /**
   * Connect the socket: opts.auth ({team} or {display: true}), opts.on {public, team, journal},
   * opts.after() the last journal seq seen (sent with `sync` on every reconnect),
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
    var socket = window.io({ auth: opts.auth || {}, reconnectionDelayMax: 5000 });
    var first = true;
    var pictures = TB.pictures = new Pictures(function () { socket.emit("sync", syncBody(opts)); });
    socket.on("connect", function () {
      connected = true;
      updateBadge();
      // The connect itself brings the whole pictures; `sync` catches up the journal missed while away.
      if (!first) socket.emit("sync", Object.assign(syncBody(opts), { pictures: false }));
      first = false;
    });
    socket.on("disconnect", function () { connected = false; updateBadge(); });
    socket.on("connect_error", function () {
      connected = false;
      updateBadge();
      if (!socket.active && opts.onRefused) opts.onRefused(); // refused by the server, not a network fault
    });
    socket.on("session_ended", function () {
      // Sent only to facilitator pages; this page's own log-out goes to the log-in form anyway.
      if (!TB.loggingOut) window.location.href = "/login?ended=1";
    });
    socket.on("link_replaced", function () {
      if (opts.onRefused) opts.onRefused("replaced");
    });
    Object.keys(opts.on || {}).forEach(function (name) {
      socket.on(name, function (payload) {
        TB.touch();
        // A picture (public, team) comes whole or as a patch of the version the page holds.
        if (payload && payload.v !== undefined) payload = pictures.receive(name, payload);
        if (!payload) return; // an older or repeated message, or a patch waiting for the whole picture
        TB.seen(payload.seq);
        opts.on[name](payload);
      });
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
   * The pictures this page holds, each with the server's version of it (bank/web/broadcaster.py).
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
    // One request at a time; asked again if no whole picture came within 5 s.
    if (!this.asked || Date.now() - this.asked > 5000) {
      this.asked = Date.now();
      this.askWhole();
    }
    return null;
  };
  /** Versions are "<boot>.<n>": is `a` older than `b` (or the same, when orSame) in one server start? */
  function before(a, b, orSame) {
    var x = String(a).split("."), y = String(b).split(".");
    return x[0] === y[0] && (+x[1] < +y[1] || (orSame && +x[1] === +y[1]));
  }

  function syncBody(opts) {
    var body = { after: opts.after ? opts.after() : 0 };
    if (opts.auth && opts.auth.team) body.team = opts.auth.team;
    return body;
  }

  /* ---- game clock and countdowns (the server sends seconds left at the time of its message) ---- */

  /**
   * Local countdowns between two messages: TB.clock.set(publicPayload) on every `public`
   * message, then TB.clock.elapsed() and TB.clock.cooldown(team, card) at any moment.
   * Nothing counts while the game clock is paused.
   */
  TB.clock = {
    base: null, at: 0,
    set: function (pub) {
      this.base = pub;
      this.at = performance.now();
    },
    running: function () { return !!(this.base && this.base.board.clock.status === "running"); },
    passed: function () { return this.running() ? (performance.now() - this.at) / 1000 : 0; },
    elapsed: function () {
      if (!this.base) return 0;
      var c = this.base.board.clock;
      return Math.min(c.duration, c.elapsed + this.passed());
    },
    /** [{team, card, left}] of every running cooldown, soonest first. */
    cooldowns: function (onlyTeam) {
      var list = [], passed = this.passed(), all = (this.base && this.base.cooldowns) || {};
      if (this.base && this.base.board.clock.status === "ended") return list; // nobody waits once the game is over
      Object.keys(all).forEach(function (team) {
        if (onlyTeam && team !== onlyTeam) return;
        Object.keys(all[team]).forEach(function (card) {
          list.push({ team: team, card: card, left: Math.max(0, all[team][card] - passed) });
        });
      });
      return list.sort(function (a, b) { return a.left - b.left; });
    },
  };

  /* ---- sound and vibration (both need one tap on the page first, by browser rule) ---- */

  var audio = null;
  TB.sound = {
    unlocked: false,
    /** Call from a user gesture: afterwards beeps and vibrations are allowed. */
    unlock: function () {
      var Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx && !audio) audio = new Ctx();
      if (audio && audio.state === "suspended") audio.resume();
      TB.sound.unlocked = true;
    },
    /** A short beep (or `count` of them) made by Web Audio: no sound file to download. */
    beep: function (count) {
      if (!audio) return;
      count = count || 1;
      for (var i = 0; i < count; i++) {
        var start = audio.currentTime + i * 0.3;
        var osc = audio.createOscillator(), gain = audio.createGain();
        osc.type = "square";
        osc.frequency.value = 880;
        gain.gain.setValueAtTime(0.0001, start);
        gain.gain.exponentialRampToValueAtTime(0.3, start + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.22);
        osc.connect(gain);
        gain.connect(audio.destination);
        osc.start(start);
        osc.stop(start + 0.25);
      }
    },
    vibrate: function (pattern) {
      if (navigator.vibrate) {
        try { navigator.vibrate(pattern); } catch (e) { /* not allowed without a tap: fine */ }
      }
    },
  };
  ["pointerdown", "keydown", "touchstart"].forEach(function (name) {
    document.addEventListener(name, TB.sound.unlock, { once: true, passive: true });
  });

  /* ---- the header: language switch and log-out ---- */

  document.addEventListener("click", async function (event) {
    var target = event.target.closest ? event.target.closest("[data-lang],[data-logout]") : null;
    if (!target) return;
    event.preventDefault();
    if (target.dataset.lang) await TB.api("POST", "/api/lang/" + target.dataset.lang, {}, { retry: false });
    if (target.hasAttribute("data-logout")) {
      TB.loggingOut = true;
      await TB.api("POST", "/api/logout", {}, { retry: false });
      window.location.href = "/login";
      return;
    }
    window.location.reload();
  });

  // A log-in starts afresh: keys of commands left unconfirmed by whoever used this tab before
  // belong to another facilitator (the bank fingerprints the sender too), so they are dropped.
  if (window.location.pathname === "/login") {
    try { window.sessionStorage.removeItem("tb.pending"); } catch (e) { /* no storage: nothing kept */ }
  }
})();
