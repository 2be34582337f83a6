/* The board page: the shared screen of a game (tablet on the table, TV). Taps preview where a
 * tile may drift or a herd may move. In mirror mode it also records the physical table's moves as a
 * phone plays (mirror.js): tap the piece, tap its new place, confirm in the bar at the
 * bottom; an illegal move is refused with its rule.
 */
(function () {
  "use strict";
  var TB = window.TB, TT = window.TT, el = TB.el, t = TB.t;
  var root = TB.$("#trias-root"), gameId = root.dataset.game;
  // The public view (no table secret: bank/web/trias/held.py) has no buttons and records nothing.
  var isTable = root.dataset.table === "1", mirror = isTable && root.dataset.mode === "mirror";
  var api = "/trias/api/g/" + gameId;
  var sel = { tile: null, card: null };
  var board = new TT.HexBoard(TB.$("#board"), tap);
  var recorder = mirror ? new TT.Mirror(send) : null;  // the mirror tablet's taps and confirm bar (mirror.js)

  function p() { return TT.current; }
  function tileAt(key) {
    var found = null;
    p().view.tiles.forEach(function (x) { if (x[0] + "," + x[1] === key) found = x[2]; });
    return found;
  }
  function legalOf(type) { return p().legal.filter(function (c) { return c.type === type; }); }

  /** The places lit up for the current selection, and the hint under the board. */
  function marks() {
    // A TV is never told to tap: only the mirror tablet, where a person records, has the idle hint.
    var v = p().view, out = { selected: sel.tile, targets: [], soft: [] }, hint = mirror ? t("tap_tile") : "";
    var named = sel.tile ? TT.placeWords(sel.tile, tileAt(sel.tile)) : "";  // the tapped tile in words, not "q,r"
    if (sel.tile && v.phase === "start") {
      var kind = tileAt(sel.tile), mine = (p().by_card[kind] || []).filter(function (d) { return TT.key(d.tile) === sel.tile; });
      out.soft = mine.map(function (d) { return TT.key(d.to); });
      hint = mine.length ? t("drift_if", { card: TT.kindName(kind), tile: named }) : t("no_drift", { tile: named });
    } else if (sel.tile) {
      var drifts = p().legal.filter(function (c) { return (c.type === "drift") && TT.key(c.tile) === sel.tile; });
      var moves = legalOf("move").filter(function (c) { return TT.key(c.from) === sel.tile; });
      out.targets = drifts.map(function (c) { return TT.key(c.to); }).concat(moves.map(function (c) { return TT.key(c.to); }));
      if (moves.length) hint = t("move_places");
      else if (drifts.length) hint = t("drift_places", { tile: named });
      else hint = t("no_drift", { tile: named });
      if (mirror && out.targets.length) hint += " " + t("choose_target");
    }
    TB.$("#hint").textContent = hint;
    return out;
  }

  function tap(place) {
    if (!p()) return;
    if (recorder) { recorder.tap(p(), place); return draw(); }  // recorded only once confirmed
    var key = TT.key(place), isTile = tileAt(key) !== null;
    sel.tile = isTile && sel.tile !== key ? key : null;
    draw();
  }

  async function send(command) {
    if (recorder) recorder.taps.pending = [];  // refused: the piece stays chosen, for its right place
    var reply = await TT.send(api + "/commands", command);
    if (reply.ok) { sel.tile = null; sel.card = null; if (recorder) { recorder.card = null; recorder.reset(); } }
    draw();
  }

  /** Mirror, phase 1: which card the player showed (played from the hand, or drawn), from those still possible. */
  function renderMirror() {
    var box = TB.$("#mirror");
    if (!box) return;
    var v = p().view, cards = p().table_cards;
    if (v.phase !== "start" || !cards) { TB.fill(box, null); return; }
    var pick = function (kind) {
      return cards[kind].map(function (card) {
        return el("button", { type: "button", class: "btn trias-card-btn card-" + card, dataset: { card: card, kind: kind }, "aria-pressed": recorder.card === card && kind === "play" ? "true" : "false",
          onclick: function () {
            if (kind === "draw") return send({ type: "draw", card: card });
            recorder.card = card; recorder.reset(); draw();
          } }, TT.kindName(card));
      });
    };
    var extra = [];
    var named = recorder.card;
    if (named && !(p().by_card[named] || []).length) extra.push(el("button", { type: "button", class: "btn btn-primary", onclick: function () { send({ type: "play", card: named }); } }, t("play_no_drift")));
    if (cards.meteorite_drawn) extra.push(el("button", { type: "button", class: "btn", onclick: function () { send({ type: "meteorite_drawn" }); } }, t("cmd.meteorite_drawn")));
    if (named) extra.push(el("button", { type: "button", class: "btn btn-small", onclick: function () { recorder.card = null; recorder.reset(); draw(); } }, t("cancel")));
    TB.fill(box, [el("p", { class: "muted", text: t("mirror_pick") }),
      el("p", {}, el("b", { text: t("card_played") + " " }), pick("play")),
      el("p", {}, el("b", { text: t("card_drawn") + " " }), pick("draw")), extra]);
  }

  /** A move button pointed at or focused: its places lit up on the board; left: the selection's marks again. */
  function preview(cmd) { if (p()) board.render(p(), cmd ? TT.marksOf(cmd) : recorder ? recorder.marks(p()) : marks()); }

  function draw() {
    if (!p()) return;
    board.render(p(), recorder ? recorder.marks(p()) : marks());
    if (recorder) TB.$("#hint").textContent = "";  // the bar at the bottom says what to tap
    TT.renderTurn(TB.$("#turn"), p(), null);
    TT.renderLast(TB.$("#last-move"), p(), p().last);
    markLogged();
    TT.renderScores(TB.$("#scores"), p(), null);
    TT.renderEnd(TB.$("#end-panel"), p());
    renderMirror();
    if (recorder) recorder.renderBar(p(), draw);
    if (mirror) TT.renderMoves(TB.$("#moves"), p().view.phase === "start" ? [] : p().legal, send, preview);
    if (isTable) { TB.$("#undo").disabled = !p().can_undo; TT.renderUndoWhy(TB.$("#undo-why"), p()); }
    document.body.dataset.phase = p().view.phase;
    fitLog();  // the scores or an announcement above may have changed the room left
  }

  function logRow(row, payload) {
    var log = TB.$("#log");
    if (row.type === "setup" || !log) return;
    var seatNo = /^(seat|computer):(\d+)$/.exec(row.actor || "");
    var first = (row.events || [])[0] || {};  // a mirror tablet's row ("table") names the seat in its events
    var who = seatNo ? TT.seatName(payload, +seatNo[2]) : typeof first.player === "number" ? TT.seatName(payload, first.player) : "";
    var text = row.type === "undo" ? t("undone") : row.type === "rematch" ? t("rematch_going") : TT.narrate(row);
    var item = el("li", { dataset: { seq: row.seq } }, el("small", { class: "muted", text: "#" + row.seq + " " }), who ? el("b", { text: who + " · " }) : null, text);
    var after = Array.prototype.filter.call(log.children, function (li) { return +li.dataset.seq < row.seq; })[0];
    log.insertBefore(item, after || null);  // newest first, whatever order the rows arrive in
    while (log.children.length > 12) log.removeChild(log.lastChild);
    markLogged();
    fitLog();
    var news = TT.news(row, payload);
    if (news) TT.announce(news);
  }

  /** The last moves' line of the board's last change, framed as its mark on the board (trias.css). */
  function markLogged() {
    var log = TB.$("#log"), seq = p() && p().last ? String(p().last.seq) : null;
    if (!log) return;
    Array.prototype.forEach.call(log.children, function (li) { li.classList.toggle("trias-log-last", li.dataset.seq === seq); });
  }

  /* On a TV the last moves end at the screen's edge (trias.css): the newest moves whole, as many as fit,
   * never a line cut in half. Elsewhere the list has its own scroll box or shows six (CSS). */
  function fitLog() {
    var log = TB.$("#log");
    if (!log) return;
    var items = Array.prototype.slice.call(log.children);
    items.forEach(function (li) { li.hidden = false; });
    if (window.getComputedStyle(log).overflowY !== "hidden") return;
    // Its title and the two newest moves always whole (the panels below give way), or the newest alone
    // beside Undo's reason, which says why that move (a card drawn) stays.
    var panel = log.parentNode, why = TB.$("#undo-why");
    var rest = panel.getBoundingClientRect().height - log.getBoundingClientRect().height;  // title, Undo, padding
    var kept = items.slice(0, why && !why.hidden ? 1 : 2).reduce(function (sum, li) { return sum + li.offsetHeight; }, 0);
    var gaps = items.length > 1 && !(why && !why.hidden) ? items[1].getBoundingClientRect().top - items[0].getBoundingClientRect().bottom : 0;
    panel.style.minHeight = items.length ? Math.ceil(rest + kept + gaps + 1) + "px" : "";
    // Nor past the side column's edge (its height is the screen's): five seats of long names, their scores
    // on two lines each, left no room for the second newest at 1366x768 (cut in half at the bottom). The
    // newest stays.
    var side = log.closest(".trias-side"), bottom = log.getBoundingClientRect().bottom;
    if (side) bottom = Math.min(bottom, side.getBoundingClientRect().bottom);
    bottom += 0.5;
    for (var i = items.length - 1; i > 0; i--) {
      if (items[i].getBoundingClientRect().bottom > bottom) items[i].hidden = true;
    }
  }
  // The room changes with the screen and with the announcement above coming and going (12 s).
  if (window.ResizeObserver && TB.$("#log")) new window.ResizeObserver(fitLog).observe(TB.$("#log"));
  else window.addEventListener("resize", fitLog);

  /* Each place's "q,r", on demand on the mirror tablet only (board.html): the printed set-up map's places. */
  var coordsButton = TB.$("#coords-toggle"), coordsKey = "trias.coords.mirror";
  function showCoords(on) {
    TB.$("#board").classList.toggle("coords", on);
    coordsButton.setAttribute("aria-pressed", on ? "true" : "false");
    coordsButton.textContent = t(on ? "coords_hide" : "coords_show");
  }
  if (coordsButton) {
    var savedCoords = null;
    try { savedCoords = window.localStorage.getItem(coordsKey); } catch (e) { /* private mode: the default */ }
    showCoords(savedCoords === "1");  // the mirror tablet records by tapping the board, not by coordinates
    coordsButton.addEventListener("click", function () {
      var on = !TB.$("#board").classList.contains("coords");
      showCoords(on);
      try { window.localStorage.setItem(coordsKey, on ? "1" : "0"); } catch (e) { /* kept for this page only */ }
    });
  }

  TT.refresh = async function () {
    var reply = await TB.get(api + "?after=" + (TT.lastSeq() || 0));
    if (reply.ok) TT.accept(reply.data);
  };

  if (isTable) {
    TB.$("#undo").addEventListener("click", TT.confirmThen(async function () {
      var reply = await TT.send(api + "/undo", {});
      if (reply.ok) { sel.tile = null; sel.card = null; }
    }, t("undo_confirm")));
    TB.$("#rematch").addEventListener("click", async function () {
      var reply = await TT.send(api + "/rematch", {});
      if (reply.ok) window.location.href = reply.data.board;
    });
  }

  TT.connect({
    auth: { game: gameId },
    state: function () { if (sel.tile && p().view.phase !== "start") sel.card = null; draw(); },
    row: logRow,
    rematch: function (id) { window.location.href = TB.url("/trias/g/" + id); },
  });
  TT.refresh();
})();
