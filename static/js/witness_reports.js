/* The admin page's list of witness reports (#chain-witness): what the phones, the big screen and the
 * facilitators' pages saw of the journal that the bank no longer holds. Loaded on the admin page only,
 * after witness.js (which calls TB.witness.reports and TB.witness.heard when they are here): the phones
 * never show this list, and their first load stays under 60 KB (tests/web/serving/test_serving.py).
 */
(function () {
  "use strict";

  var TB = window.TB;

  /** A reporter in the admin page's words: a team's phone, the big screen, a facilitator's page. */
  function reporter(by) {
    by = String(by || "");
    return by.indexOf("team:") === 0 ? TB.t("chain_by_team", { team: by.slice(5) }) :
      by === "screen" ? TB.t("chain_by_screen") : TB.t("chain_by_facilitator");
  }

  /** The admin page: the reports the bank keeps ({reports: [...]}, oldest first), one line each, newest
   * first; each says whether a second page agreed (one link alone may lie). */
  var pushed = 0; // lists the bank pushed (socket `chain_witness`): newer than any GET sent before them

  TB.witness.reports = function (payload) {
    pushed += 1;
    show(payload);
  };

  function show(payload) {
    var list = document.getElementById("chain-witness");
    if (!list || !payload || !payload.reports) return;
    list.textContent = "";
    list.classList.toggle("hidden", !payload.reports.length);
    payload.reports.forEach(function (found) {
      if (!found || !found.saw) return;
      var line = document.createElement("li");
      var who = (found.reporters || [found.by]).map(reporter).join(", ");
      var other = found.saw.game && found.game && found.saw.game !== found.game;
      line.dataset.confirmed = found.confirmed ? "yes" : "no";
      line.textContent = TB.t("chain_witness_report", { who: who }) + " " +
        (other ? TB.t("chain_other_game") + " " : "") + TB.witness.sentence(found.saw, found.head) + " " +
        (found.confirmed ? TB.t("chain_confirmed", { n: (found.reporters || []).length }) : TB.t("chain_unconfirmed"));
      list.insertBefore(line, list.firstChild);
    });
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
