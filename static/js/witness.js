/* Every page is a witness of the journal (issue 34; certificate transparency's gossip is the model).
 * Each picture carries the chain's head at its entry (bank/web/field/payloads.py); the page keeps the
 * newest it saw, per game address, in localStorage. Each time it (re)connects it asks whether the bank's
 * chain still holds the head kept (GET /api/chain/<seq>). A deleted tail, a journal rolled
 * back or rebuilt does not: the page shows both heads at once and reports them (POST
 * /api/chain/witness), and the admin page shows every report (#chain-witness, socket `chain_witness`).
 * A head kept is never replaced by one the bank could not vouch for: the evidence stays until a
 * facilitator accepts the bank's chain on this page.
 */
(function () {
  "use strict";

  var TB = window.TB;
  var auth = {}, checking = false, alarmed = false, shown = {};
  var vouched = false; // the bank's chain held the head kept, since this page last (re)connected
  var SLOT = "tb.witness:" + TB.url("/"); // one game per address (several games: /g/<name>/)

  function short(hash) { return String(hash || "?").slice(0, 12); }
  function kept() {
    try { return JSON.parse(window.localStorage.getItem(SLOT) || "null"); } catch (e) { return null; }
  }
  function keep(seq, hash, game) {
    try { window.localStorage.setItem(SLOT, JSON.stringify({ seq: seq, hash: hash, game: game })); } catch (e) { /* private mode */ }
  }

  /** A sentence naming both heads: what this page saw, where the bank is now. */
  function sentence(saw, head) {
    return TB.t("chain_rolled_back", { seq: saw.seq, hash: short(saw.hash), bank_seq: head.seq, bank_hash: short(head.hash) });
  }

  function banner(text, onAccept) {
    var box = document.getElementById("chain-alarm");
    if (!box) {
      box = document.createElement("div");
      box.id = "chain-alarm";
      box.className = "banner banner-error";
      box.setAttribute("role", "alert");
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.textContent = text + " ";
    var accept = document.createElement("button");
    accept.type = "button";
    accept.className = "btn";
    accept.textContent = TB.t("chain_accept");
    accept.addEventListener("click", function () { onAccept(); box.remove(); });
    box.appendChild(accept);
  }

  function alarm(saw, head, game) {
    alarmed = true;
    document.body.dataset.chainAlarm = saw.seq + ":" + head.seq; // for tests and whoever debugs
    banner(sentence(saw, head), function () { alarmed = false; keep(head.seq, head.hash, game); });
    var body = { saw: { seq: saw.seq, hash: saw.hash } };
    if (auth.team) body.team = auth.team;
    if (auth.key) body.key = auth.key;
    TB.api("POST", "/api/chain/witness", body, { retry: false }).then(heard); // the admin page lists its own too
  }

  /** On each (re)connect: does the bank's chain still hold the head this page kept? */
  async function check() {
    var saw = kept();
    vouched = !saw; // nothing kept yet: the first picture's head is the first evidence
    if (!saw || alarmed || checking) return;
    checking = true;
    var answer = await TB.api("GET", "/api/chain/" + saw.seq, undefined, { retry: false });
    checking = false;
    var found = answer.ok && answer.data;
    if (!found) return; // no word from the bank: the next connect asks again; meanwhile nothing newer is kept
    if (found.game !== saw.game) keep(found.head.seq, found.head.hash, found.game); // another game on this address
    else if (found.hash !== saw.hash) return alarm(saw, found.head, found.game);
    vouched = true;
  }

  TB.witness = {
    /** live.js, once it made the socket: each (re)connect checks the head kept. */
    attach: function (socket, own) {
      auth = own || {};
      socket.on("connect", function () { check(); heard(); });
      socket.on("chain_witness", TB.witness.report);
    },
    /** live.js, for each public picture: {seq, chain: {hash, game}}; kept once the bank vouched for the older one. */
    saw: function (seq, chain) {
      if (!chain || !chain.hash || !vouched || alarmed || typeof seq !== "number") return;
      var saw = kept();
      if (!saw || saw.game !== chain.game || seq > saw.seq) keep(seq, chain.hash, chain.game);
    },
    /** The admin page: one line per report, newest first. */
    report: function (found) {
      var list = document.getElementById("chain-witness");
      var seen = found && found.saw && [found.saw.seq, found.saw.hash, found.by].join(":");
      if (!list || !seen || shown[seen]) return;
      shown[seen] = true;
      list.classList.remove("hidden");
      var line = document.createElement("li");
      var by = String(found.by || "");
      var who = by.indexOf("team:") === 0 ? TB.t("chain_by_team", { team: by.slice(5) }) :
        by === "screen" ? TB.t("chain_by_screen") : TB.t("chain_by_facilitator");
      line.textContent = TB.t("chain_witness_report", { who: who }) + " " + sentence(found.saw, found.head);
      list.insertBefore(line, list.firstChild);
    },
  };

  // The admin page shows the reports this bank already heard: on load, and on each (re)connect (a report
  // sent while this page was away, by a phone back before it).
  async function heard() {
    if (!document.getElementById("chain-witness")) return;
    var answer = await TB.api("GET", "/api/chain/witness", undefined, { retry: false });
    ((answer.data && answer.data.reports) || []).forEach(TB.witness.report);
  }
})();
