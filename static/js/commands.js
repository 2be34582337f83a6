/* Terrabank: sending commands so that none is ever booked twice.
 *
 * A command keeps its Idempotency-Key until the bank confirms it booked it: pressing
 * again after "not confirmed", even after a reload, resends the same key, and the bank
 * answers with the first booking instead of booking again. Loaded after live.js by the
 * pages that send commands (console, fight area, admin).
 */
(function () {
  "use strict";
  var TB = window.TB;

  /**
   * Send one command. Its Idempotency-Key is kept until the bank confirms it booked the
   * command, so pressing again after "not confirmed" (even after a reload) cannot book it twice.
   */
  TB.command = async function (command, options) {
    options = Object.assign({}, options || {});
    var print = TB.commandPrint(command);
    if (!options.key) options.key = TB.pending.keyFor(print, Date.now());
    var result = await TB.api("POST", "/api/commands", command, options);
    // Booked (now or before): the next identical command is a new one. id_conflict: this key
    // is spent on another command, so the next press needs a new key.
    if (result.ok || (result.error && result.error.code === "id_conflict")) TB.pending.forget(print, options.key);
    result.key = options.key; // a command given up on waits in the outbox under this same key (outbox.js)
    return result;
  };

  /* ---- the keys of commands not yet confirmed booked ---- */

  /** The command's canonical JSON without its id (keys sorted): the same content gives the same text. */
  TB.commandPrint = function (command) {
    var body = Object.assign({}, command);
    delete body.id;
    return canonical(body);
  };

  function canonical(value) {
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (value === null || typeof value !== "object") return JSON.stringify(value === undefined ? null : value);
    return "{" + Object.keys(value).sort().filter(function (k) { return value[k] !== undefined; })
      .map(function (k) { return JSON.stringify(k) + ":" + canonical(value[k]); }).join(",") + "}";
  }

  var PENDING_STORE = "tb.pending";
  var PENDING_MS = 10 * 60 * 1000; // after that an identical command is taken as a genuine new one
  var PENDING_MAX = 50;
  var pendingInMemory = {}; // when sessionStorage is refused (private mode), at least this page remembers

  /**
   * The pending keys: {print: {key, at}}, kept in sessionStorage so a reload keeps them.
   * A refusal keeps the key too: the bank books a key only once, and a reply lost earlier may
   * still have been booked; only a confirmed booking (or id_conflict) forgets it.
   */
  TB.pending = {
    /** The key of an unconfirmed command with this content, or a new key; noted as sent at `now`. */
    keyFor: function (print, now) {
      var all = readPending(now);
      var key = all[print] ? all[print].key : TB.uuid();
      all[print] = { key: key, at: now };
      writePending(all);
      return key;
    },
    /** The pending key of this content, or null; nothing noted. */
    peek: function (print) {
      var all = readPending(Date.now());
      return all[print] ? all[print].key : null;
    },
    /** Keep the pending key of this content, if it is still `key`, for `ms` more only: the outbox booked it.
     * A press right after (the facilitator told "not confirmed, press again safely") is still "already done";
     * past that, the same content is a new command: kept for the full 10 min, a harvester's next identical
     * harvest was answered "already done" and not booked. */
    settle: function (print, key, ms) {
      var now = Date.now(), all = readPending(now);
      if (all[print] && all[print].key === key) all[print].at = Math.min(all[print].at, now - PENDING_MS + ms);
      writePending(all);
    },
    /** Forget the pending key of this content, if it is still `key`. */
    forget: function (print, key) {
      var all = readPending(Date.now());
      if (all[print] && all[print].key === key) delete all[print];
      writePending(all);
    },
  };

  function readPending(now) {
    var all = pendingInMemory;
    try {
      var stored = JSON.parse(window.sessionStorage.getItem(PENDING_STORE) || "{}");
      if (stored && typeof stored === "object") all = stored;
    } catch (e) { /* no storage or a damaged entry: the memory copy */ }
    var fresh = {};
    Object.keys(all).forEach(function (print) {
      var p = all[print];
      if (p && typeof p.key === "string" && now - p.at < PENDING_MS) fresh[print] = p;
    });
    return fresh;
  }

  function writePending(all) {
    var prints = Object.keys(all).sort(function (a, b) { return all[b].at - all[a].at; }).slice(0, PENDING_MAX);
    var kept = {};
    prints.forEach(function (print) { kept[print] = all[print]; });
    pendingInMemory = kept;
    try { window.sessionStorage.setItem(PENDING_STORE, JSON.stringify(kept)); } catch (e) { /* memory only */ }
  }
})();
