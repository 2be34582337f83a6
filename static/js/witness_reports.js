/* The admin page's list of witness reports (#chain-witness): what the phones, the big screen and the
 * facilitators' pages saw of the journal that the bank no longer holds. Loaded on the admin page only,
 * after witness.js (which calls TB.witness.reports and TB.witness.heard when they are here): the phones
 * never show this list, and their first load stays under 60 KB (tests/web/serving/test_serving.py).
 */
(function () {
  "use strict";

  var TB = window.TB;

  /** A reporter in the admin page's words: a team's phone, the big screen, a facilitator's page, the bank itself
   * (it found its file rewritten under it: bank/web/push/chain_alarm.py). */
  function reporter(by) {
    by = String(by || "");
    return by.indexOf("team:") === 0 ? TB.t("chain_by_team", { team: by.slice(5) }) :
      by === "screen" ? TB.t("chain_by_screen") : by === "bank" || by === "bank_rows" ? TB.t("chain_by_bank") :
      TB.t("chain_by_facilitator");
  }

  /** The admin page: the reports the bank keeps ({reports: [...]}, oldest first), one line each, newest
   * first; each says whether a second page agreed (one link alone may lie). */
  var pushed = 0; // lists the bank pushed (socket `chain_witness`): newer than any GET sent before them

  TB.witness.reports = function (payload) {
    pushed += 1;
    show(payload);
  };

  /* The reports this page was shown are kept on this device too (localStorage, per game address): the bank
   * keeps them in the game's own database, which a forger holding the game file holds as well. A report the
   * bank no longer lists is still shown, saying so, until a facilitator forgets it on this page. Before, a
   * forger who also deleted the reports left the admin page an empty list after its next load. */
  var SLOT = "tb.witness-reports:" + TB.url("/");
  var KEPT = 30; // the newest reports kept on the device: the bank keeps a few per reporter

  function keyOf(found) { return [found.saw.seq, found.saw.hash, found.saw.game || ""].join("|"); }
  function remembered() {
    try { var kept = JSON.parse(window.localStorage.getItem(SLOT) || "[]"); return Array.isArray(kept) ? kept : []; }
    catch (e) { return []; }
  }
  function remember(reports) {
    try { window.localStorage.setItem(SLOT, JSON.stringify(reports.slice(-KEPT))); } catch (e) { /* private mode */ }
  }

  var last = null; // the bank's list last shown: drawn again when a facilitator forgets the gone ones

  function show(payload) {
    var list = document.getElementById("chain-witness");
    if (!list || !payload || !Array.isArray(payload.reports)) return;
    last = payload;
    var listed = {}, reports = payload.reports.filter(function (found) { return found && found.saw; });
    reports.forEach(function (found) { listed[keyOf(found)] = true; });
    var gone = remembered().filter(function (found) { return found && found.saw && !listed[keyOf(found)]; });
    remember(gone.concat(reports));
    list.textContent = "";
    list.classList.toggle("hidden", !reports.length && !gone.length);
    gone.concat(reports).forEach(function (found, i) {
      var line = document.createElement("li");
      var who = (found.reporters || [found.by]).map(reporter).join(", ");
      var other = found.saw.game && found.game && found.saw.game !== found.game;
      line.dataset.confirmed = found.confirmed ? "yes" : "no";
      line.textContent = TB.t("chain_witness_report", { who: who }) + " " +
        (other ? TB.t("chain_other_game") + " " : "") +
        // The bank's own report of a row edited with its chain left (chain_alarm.py): the row, no heads to compare.
        (found.by === "bank_rows" ? TB.t("chain_edited_row", { seq: found.saw.seq }) : TB.witness.sentence(found.saw, found.head)) + " " +
        (found.confirmed ? TB.t("chain_confirmed", { n: (found.reporters || []).length }) : TB.t("chain_unconfirmed"));
      if (i < gone.length) {
        line.dataset.gone = "yes";
        line.appendChild(document.createTextNode(" " + TB.t("chain_report_gone")));
      }
      list.insertBefore(line, list.firstChild);
    });
    if (gone.length) {
      var forget = document.createElement("button");
      forget.type = "button";
      forget.className = "btn";
      forget.textContent = TB.t("chain_forget_gone");
      forget.addEventListener("click", function () { remember(reports); show(last); });
      var item = document.createElement("li");
      item.appendChild(forget);
      list.appendChild(item);
    }
  }

  // The admin page shows the reports this bank already heard: on load, and on each (re)connect (a report
  // sent while this page was away, by a phone back before it). Asked again while the bank is restarting
  // (TB.api's retries). A list pushed while the answer was on its way is newer than the answer: the
  // answer is dropped (before, a phone's report pushed then was wiped by the older, empty answer).
  TB.witness.heard = async function () {
    if (!document.getElementById("chain-witness")) return;
    var before = pushed;
    var answer = await TB.api("GET", "/api/chain/witness");
    if (answer.ok && pushed === before) show(answer.data);
  };
})();
