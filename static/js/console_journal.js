/* The bank counter's journal: the last 200 entries, newest first, each with what it booked and an
 * Undo button while it may still be reversed. Rows come from /api/journal at the start, then from
 * the `journal` socket messages, merged by seq: a row already held is skipped, an older
 * one that arrives late (a page that moved to another server process) takes its place, and a gap
 * (a row newer than the next one expected) asks the server for what follows the last row held in
 * order (TB.askJournal, live.js), so no row is ever dropped, doubled or shown out of order.
 * Needs board_*.js and forms.js (W.describe, W.undoButton).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el;
  var Counter = (window.Counter = window.Counter || {});
  var KEEP = 200, ASK_AGAIN_MS = 3000;

  /** The journal list in `node`. options: canUndo (this facilitator may reverse), banner, done() after an undo. */
  Counter.journal = function (node, options) {
    // journalSeq: the last row held with every row before it (back to the first shown); rows: held, by seq.
    var journalSeq = 0, started = false, reversedSeqs = {}, journalRows = [], held = {}, askedAt = 0;

    function addRows(rows, fresh) {
      var added = false;
      rows.forEach(function (row) {
        if (typeof row.seq !== "number" || held[row.seq] || row.seq <= journalSeq - KEEP) return;
        held[row.seq] = true;
        journalRows.push(row);
        if (row.type === "reverse" && row.command && row.command.seq) reversedSeqs[row.command.seq] = true;
        added = true;
      });
      if (!added) return;
      journalRows.sort(function (a, b) { return a.seq - b.seq; });
      if (!started) { journalSeq = journalRows[0].seq - 1; started = true; } // the first row shown starts the run
      while (held[journalSeq + 1]) journalSeq += 1;
      if (journalRows.length > KEEP) {
        journalRows.slice(0, journalRows.length - KEEP).forEach(function (row) { delete held[row.seq]; });
        journalRows = journalRows.slice(-KEEP);
      }
      if (journalRows[journalRows.length - 1].seq > journalSeq) askForGap();
      else askedAt = 0;
      renderJournal(fresh);
    }

    /** Rows after journalSeq are missing while newer ones came: ask for them (once per few seconds). */
    function askForGap() {
      // The page's monotonic clock: by the device's, set back an hour, the gap was not asked for that hour.
      if (!TB.askJournal || (askedAt && performance.now() - askedAt < ASK_AGAIN_MS)) return;
      askedAt = performance.now();
      TB.askJournal(journalSeq);
    }

    function renderJournal(fresh) {
      TB.fill(node, journalRows.slice().reverse().map(function (row, i) {
        var d = W.describe(row.command || { type: row.type }, row.events);
        var undoable = options.canUndo && !reversedSeqs[row.seq] && W.UNDOABLE.indexOf(row.type) >= 0;
        return el("li", { class: (reversedSeqs[row.seq] ? "reversed" : "") + (fresh && i === 0 ? " fresh" : ""), dataset: { seq: row.seq } },
          el("div", { class: "j-body" },
            el("div", { class: "j-head" },
              el("span", { class: "j-seq", text: "#" + row.seq }),
              el("span", { class: "j-what", text: d.label }),
              el("span", { class: "j-who", text: TB.timeOfDay(row.at) + (row.actor ? " \u00b7 " + row.actor : "") })),
            d.detail ? el("div", { class: "j-detail", text: d.detail }) : null,
            d.moves ? el("div", { class: "j-moves", text: d.moves }) : null),
          undoable ? W.undoButton(row.seq, { banner: options.banner, small: true, done: options.done }) : null);
      }));
    }

    return {
      /** The last entries before `seq` (the state's) and what follows, once at the start. */
      load: async function (seq) {
        var after = Math.max(0, seq - 40);
        var r = await TB.get("/api/journal?after=" + after + "&limit=60");
        if (!r.ok) return;
        if (!started) { journalSeq = after; started = true; } // rows after `after` follow on, whenever they come
        addRows(r.data.rows, false);
      },
      /** Rows from a `journal` message: the newest is marked fresh. */
      add: function (rows) { addRows(rows, true); },
      /** The last journal seq held with all before it: the socket's connect and `sync` ask for what follows. */
      seq: function () { return journalSeq; },
    };
  };
})();
