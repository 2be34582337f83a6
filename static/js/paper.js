/* Paper takes over, on the admin page: where the bank writes the game state by
 * itself, and the batch form that books the paper ledgers' moves (POST /api/paper/batch).
 * A line typed under its sheet's id with its printed number is known by the bank from any device
 * (bank/game/paper_sheet.py). The batch's key and text are kept in this browser (localStorage) until
 * "New batch" for lines typed without a sheet: sending the same text again from this browser, even
 * after a reload, books nothing twice (bank/web/field/paper_routes.py).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;
  var form = TB.$("#paper-form");
  if (!form) return;
  var STORE = "terrabank.paper-batch:" + (TB.root || "/");
  var batch = restore() || { key: TB.uuid(), text: "" };
  var sending = false, confirmNew = 0;

  function restore() {
    try {
      var kept = JSON.parse(window.localStorage.getItem(STORE) || "null");
      return kept && typeof kept.key === "string" && typeof kept.text === "string" ? kept : null;
    } catch (e) { return null; }
  }

  function keep() {
    try { window.localStorage.setItem(STORE, JSON.stringify(batch)); } catch (e) { /* private mode: kept for this page only */ }
  }

  function showBatch() {
    form.text.value = batch.text;
    TB.$("#paper-batch").textContent = t("paper.batch", { key: batch.key.slice(0, 8) });
  }

  form.text.addEventListener("input", function () { batch.text = form.text.value; keep(); });

  TB.$("#paper-new").addEventListener("click", function (event) {
    var button = event.currentTarget;
    if (batch.text.trim() && Date.now() - confirmNew > 4000) {  // a second tap within 4 s starts the new batch
      confirmNew = Date.now();
      button.textContent = t("paper.new_confirm");
      return;
    }
    confirmNew = 0;
    button.textContent = button.dataset.label || button.textContent;
    batch = { key: TB.uuid(), text: "" };
    keep();
    showBatch();
    TB.fill(TB.$("#paper-result"), []);
  });
  TB.$("#paper-new").dataset.label = TB.$("#paper-new").textContent;

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (sending) return;  // a double tap sends once; a retry of the same batch would book nothing anyway
    sending = true;
    var button = form.querySelector("button[type=submit]");
    button.disabled = true;
    batch.text = form.text.value;
    keep();
    try {
      var r = await TB.api("POST", "/api/paper/batch", { batch: batch.key, text: batch.text });
      showResult(r);
      if (r.ok) loadSaved();
    } finally {
      sending = false;
      button.disabled = false;
    }
  });

  /** A card the bank names by its id ("pirate-2", a card the team does not hold) as the page names cards. */
  function readable(error) {
    var params = (error && error.params) || {};
    if (error && /card/.test(error.code) && typeof params.value === "string" && W.cardLabel) {
      return Object.assign({}, error, { params: Object.assign({}, params, { value: W.cardLabel(params.value) }) });
    }
    return error;
  }

  function showResult(r) {
    var box = TB.$("#paper-result");
    if (!r.ok) {
      TB.fill(box, [el("p", { class: "banner banner-error", role: "alert", text: W.errorText(r.error) })]);
      return;
    }
    var d = r.data;
    var items = d.lines.map(function (line) {
      var what = line.status === "booked" ? t("paper.booked", { seq: line.seq })
        : line.status === "duplicate" ? (line.same_as ? t("paper.same_move", { sheet: line.same_as.sheet, n: line.same_as.line })
          : line.kept ? t("paper.kept_move", { seq: line.seq, actor: line.kept.actor })  // a tablet's outbox sent it (paper_kept.py)
          : line.seq ? t("paper.duplicate_seq", { seq: line.seq }) : t("paper.duplicate"))  // which entry: an old one, another sheet's?
          + (line.next_copy ? ". " + t("paper.other_copy", { sheet: line.next_copy }) : "")  // a copy's line under the first's id
        : (line.status === "not_sent" ? t("paper.not_sent") + " \u00b7 " : "") + W.errorText(readable(line.error));
      var where = t("paper.line", { n: line.line }) + (line.sheet ? " (" + t("paper.sheet_line", { sheet: line.sheet, n: line.number }) + ")" : "");
      return el("li", { class: "paper-line paper-" + line.status, "data-line": line.line },
        el("b", { text: where }), " \u00b7 ", el("code", { text: line.text }), " \u00b7 ",
        el("span", { class: "paper-why", text: what }));
    });
    var tone = d.refused || d.not_sent ? "banner-error" : "banner-ok";
    TB.fill(box, [el("p", { class: "banner " + tone, role: "status",
      text: t("paper.summary", { booked: d.booked, duplicate: d.duplicate, refused: d.refused + d.not_sent }) }),
      el("ul", { class: "paper-lines" }, items)]);
  }

  async function loadSaved() {
    var r = await TB.get("/api/paper/saved");
    if (!r.ok) return;
    var d = r.data, parts = [];
    // Where and how often it writes only when it writes: a bank not started by `serve` said both
    // "writes every 10 min" and "writes no file".
    if (d.writing) parts.push(t(d.every_minutes ? "paper.saved" : "paper.saved_sessions", { folder: d.folder, n: d.every_minutes, keep: d.keep }));
    if (!d.writing) parts.push(t("paper.not_writing"));
    else if (d.files.length) parts.push(t("paper.newest", { name: d.files[0].name, time: TB.timeOfDay(d.files[0].written) }));
    else parts.push(t("paper.none_yet"));
    if (d.error) parts.push(t("paper.write_failed", { error: d.error }));
    TB.$("#paper-saved").textContent = parts.join(" ");
  }

  async function loadSyntax() {
    var r = await TB.get("/api/paper/syntax");
    if (!r.ok) return;
    TB.$("#paper-notes").textContent = r.data.notes;
    form.text.placeholder = r.data.placeholder;  // the game's own names, never a team it does not have
    TB.fill(TB.$("#paper-syntax .paper-examples"), r.data.examples.map(function (line) { return el("li", {}, el("code", { text: line })); }));
  }

  showBatch();
  loadSaved();
  loadSyntax();
  setInterval(loadSaved, 60000);  // the newest file's time stays true while the page is open
})();
