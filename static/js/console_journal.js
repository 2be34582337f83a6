/* The bank counter's journal: the last 200 entries, newest first, each with what it booked and an
 * Undo button while it may still be reversed. Rows come from /api/journal at the start, then from
 * the `journal` socket messages; a row already seen (same or older seq) is skipped.
 * Needs board_*.js and forms.js (W.describe, W.undoButton).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el;
  var Counter = (window.Counter = window.Counter || {});

  /** The journal list in `node`. options: canUndo (this facilitator may reverse), banner, done() after an undo. */
  Counter.journal = function (node, options) {
    var journalSeq = 0, reversedSeqs = {}, journalRows = [];

    function addRows(rows, fresh) {
      var added = false;
      rows.forEach(function (row) {
        if (row.seq <= journalSeq) return;
        journalSeq = row.seq;
        journalRows.push(row);
        if (row.type === "reverse" && row.command && row.command.seq) reversedSeqs[row.command.seq] = true;
        added = true;
      });
      if (journalRows.length > 200) journalRows = journalRows.slice(-200);
      if (added) renderJournal(fresh);
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
        if (r.ok) addRows(r.data.rows, false);
      },
      /** Rows from a `journal` message: the newest is marked fresh. */
      add: function (rows) { addRows(rows, true); },
      /** The last journal seq shown: the socket's `sync` asks for what came after it. */
      seq: function () { return journalSeq; },
    };
  };
})();
