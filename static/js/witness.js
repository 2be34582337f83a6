/* Every page is a witness of the journal (certificate transparency's gossip is the model).
 * Each picture carries the chain's head at its entry (bank/web/field/payloads.py); the page keeps the
 * newest it saw, per game address, in localStorage. Each time it (re)connects it asks whether the bank's
 * chain still holds the head kept (GET /api/chain/<seq>). A deleted tail, a journal rolled
 * back or rebuilt does not: the page shows both heads at once and reports them (POST
 * /api/chain/witness), and the admin page shows every report (#chain-witness, socket `chain_witness`:
 * witness_reports.js, on that page only).
 * A head kept is never replaced by one the bank could not vouch for: the evidence stays until a
 * facilitator accepts the bank's chain on this page.
 * Another game behind the same link (the bank's answer names another game mark) is never adopted
 * silently: a new game made over the old one with the links kept (`init --force --keep-links`) declares
 * the game it replaced and where it ended (bound into its chain), and the page announces it; any other
 * game behind the link this page kept its head for is an alarm, with both heads, reported like a rollback;
 * so is any other game behind a facilitator's page (sameWitness).
 */
(function () {
  "use strict";

  var TB = window.TB;
  var auth = {}, checking = false, alarmed = false;
  var retries = 0; // asks again after no answer, a bounded number of times (then the next connect does)
  var vouched = false; // the bank's chain held the head kept, since this page last (re)connected
  var SLOT = "tb.witness:" + TB.url("/"); // one game per address (several games: /g/<name>/)

  function short(hash) { return String(hash || "?").slice(0, 12); }
  /** One head per address and link: a phone's team link, a big screen's key, a facilitator's page (none), or a
   * page anyone may open without either ("#open": a big screen without its key, logged out); pages of one browser
   * opened with different links keep theirs apart (a big screen without its key must not adopt, over the admin
   * page's head, a game swapped on the lead's laptop). */
  function slot() {
    var tag = linkTag();
    return tag ? SLOT + "#" + tag : document.body.dataset.facilitator === "1" ? SLOT : SLOT + "#open";
  }
  function read(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  /** The head this page's own link kept; else the newest another page kept at this address on this device (a
   * team link since replaced, the facilitator's page, a big screen): evidence too, lent (`lent`), so a page
   * opened with a new link checks what the device saw before. A lent head of another game is only left behind (it says nothing of this one). */
  function kept() {
    var own = read(slot());
    if (own) return own;
    var newest = null;
    try {
      for (var i = 0; i < window.localStorage.length; i++) {
        var key = window.localStorage.key(i);
        if (key === SLOT || key.indexOf(SLOT + "#") === 0) {
          var other = read(key);
          if (other && typeof other.seq === "number" && (!newest || other.seq > newest.seq)) newest = other;
        }
      }
    } catch (e) { return null; }
    if (newest) newest.lent = true;
    return newest;
  }
  function keep(seq, hash, game) {
    var entry = { seq: seq, hash: hash, game: game, link: linkTag() };
    try { window.localStorage.setItem(slot(), JSON.stringify(entry)); } catch (e) { /* private mode */ }
  }
  /** Which link this page was opened with (team link or big screen's key), as a short tag (FNV-1a): the
   * same link showing another game is what a swap looks like; the secret itself is not copied here. */
  function linkTag() {
    var secret = auth.team ? "team:" + auth.team : auth.key ? "key:" + auth.key : "";
    if (!secret) return "";
    var h = 0x811c9dc5;
    for (var i = 0; i < secret.length; i++) { h ^= secret.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(16);
  }

  /** A sentence naming both heads: what this page saw, where the bank is now. */
  function sentence(saw, head) {
    return TB.t("chain_rolled_back", { seq: saw.seq, hash: short(saw.hash), bank_seq: head.seq, bank_hash: short(head.hash) });
  }

  function banner(text, onAccept, id, kind, label) {
    id = id || "chain-alarm";
    var box = document.getElementById(id);
    if (!box) {
      box = document.createElement("div");
      box.id = id;
      box.className = "banner " + (kind || "banner-error");
      box.setAttribute("role", "alert");
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.textContent = text + " ";
    var accept = document.createElement("button");
    accept.type = "button";
    accept.className = "btn";
    accept.textContent = label || TB.t("chain_accept");
    accept.addEventListener("click", function () { onAccept(); box.remove(); });
    box.appendChild(accept);
  }

  function alarm(saw, head, game) {
    alarmed = true;
    var other = saw.game && game !== saw.game; // another game behind the same link, not declared
    document.body.dataset.chainAlarm = saw.seq + ":" + head.seq; // for tests and whoever debugs
    banner((other ? TB.t("chain_other_game") + " " : "") + sentence(saw, head),
      function () { alarmed = false; keep(head.seq, head.hash, game); });
    var body = { saw: { seq: saw.seq, hash: saw.hash } };
    if (other) body.saw.game = saw.game;
    if (auth.team) body.team = auth.team;
    if (auth.key) body.key = auth.key;
    // Sent again while the bank is restarting or the Wi-Fi drops (TB.api's retries: one report per link
    // is kept however often it comes), so the facilitators hear it; the admin page lists its own too.
    TB.api("POST", "/api/chain/witness", body).then(function () { if (TB.witness.heard) TB.witness.heard(); });
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
    if (!found) { // no word from the bank (busy, restarting): ask again soon; meanwhile nothing newer is kept
      if (answer.status !== 404 && retries < 20) { retries += 1; setTimeout(check, 3000); }
      return;
    }
    retries = 0;
    if (found.game !== saw.game) {
      if (saw.lent) keep(found.head.seq, found.head.hash, found.game); // another page's head, of another game
      else if (follows(saw, found.previous)) announce(saw, found.previous, found.head, found.game);
      else if (sameWitness(saw)) return alarm(saw, found.head, found.game);
      else keep(found.head.seq, found.head.hash, found.game); // another game, opened with another link
    } else if (found.hash !== saw.hash) return alarm(saw, found.head, found.game);
    vouched = true;
  }

  /** Whether the head kept was seen by this very witness, so another game behind it, undeclared, is a swap: the
   * same link, or a facilitator's page (logged in: body data-facilitator) where a page without a link kept it.
   * A page without a link nobody logged in on (a big screen without its key) still adopts it. */
  function sameWitness(saw) {
    var tag = linkTag();
    if (tag) return saw.link === tag;
    return saw.link === "" && document.body.dataset.facilitator === "1";
  }

  /** Whether the bank's game declares it replaced the game this page saw, at or after the entry it saw
   * (the head too when it ended at that very entry): a declared successor, not a swap. */
  function follows(saw, previous) {
    if (!previous || previous.game !== saw.game || typeof previous.seq !== "number") return false;
    return saw.seq < previous.seq || (saw.seq === previous.seq && saw.hash === previous.hash);
  }

  /** A new game behind this link, as declared: said on the page (where the old one ended, what the page
   * saw), and its head kept from now on. */
  function announce(saw, previous, head, game) {
    keep(head.seq, head.hash, game);
    document.body.dataset.chainNewGame = previous.seq + ":" + head.seq; // for tests and whoever debugs
    banner(TB.t("chain_new_game", { seq: saw.seq, hash: short(saw.hash), end_seq: previous.seq,
      end_hash: short(previous.hash) }), function () { /* read: nothing more to do */ },
      "chain-new-game", "banner-info", TB.t("chain_understood"));
  }

  TB.witness = {
    /** live.js, once it made the socket: each (re)connect checks the head kept. */
    attach: function (socket, own) {
      auth = own || {};
      // The admin page's list of reports (witness_reports.js, loaded there only) follows each (re)connect.
      socket.on("connect", function () { check(); if (TB.witness.heard) TB.witness.heard(); });
      socket.on("chain_witness", function (payload) { if (TB.witness.reports) TB.witness.reports(payload); });
      socket.on("chain_check", function () { setTimeout(check, Math.random() * 2000); }); // chain_alarm.py
    },
    /** live.js, for each public picture: {seq, chain: {hash, game}}; kept once the bank vouched for the older one. */
    saw: function (seq, chain) {
      if (!chain || !chain.hash || !vouched || alarmed || typeof seq !== "number") return;
      var saw = kept();
      // A lent head (another page's on this device) is this page's own evidence from now on, even when that
      // page already kept this very entry: before, a phone that kept entry N first left the admin page
      // showing N with no head of its own (it kept only newer ones), so a swap behind it went unreported.
      if (saw && saw.lent && saw.game === chain.game && seq < saw.seq) keep(saw.seq, saw.hash, saw.game);
      else if (!saw || saw.lent || saw.game !== chain.game || seq > saw.seq) keep(seq, chain.hash, chain.game);
    },
    /** A sentence naming both heads (the admin page's reports, witness_reports.js). */
    sentence: sentence,
  };
})();
