/* A player's phone, board first (issue 26): their own hand card (nobody else gets it), the turn,
 * then the board at the phone's width. Tap a herd or a tile: where it may go lights up; tap one:
 * a one-line confirm in the bar fixed at the bottom, which also holds the next required action
 * (draw a card, end the turn) and Undo, so no phase change scrolls them out of view. The list of
 * every legal move stays behind a toggle for screen readers and keyboards.
 */
(function () {
  "use strict";
  var TB = window.TB, TT = window.TT, el = TB.el, t = TB.t;
  var root = TB.$("#trias-root"), token = root.dataset.token, mySeat = +root.dataset.seat;
  var api = "/trias/api/s/" + token;
  var taps = new TT.Taps(), lastSeq = null;
  var svg = TB.$("#board");
  svg.dataset.zoomable = "1";  // fitted to the phone's width; + and − zoom, the box pans (trias.css)
  var board = new TT.HexBoard(svg, tap);

  function p() { return TT.current; }
  function mine() { return p().legal; }
  function myTurn() { return p() && p().view.current === mySeat && p().view.phase !== "over" && mine().length > 0; }

  var bar = { text: "", nothing: false };
  function tap(place) {
    if (!myTurn()) return;
    bar.nothing = taps.tap(mine(), TT.key(place)) === "cleared";
    draw();
  }

  /** A move button pointed at or focused: its places lit up on the board; left: the taps' marks again. */
  function preview(cmd) { if (p()) board.render(p(), cmd ? TT.marksOf(cmd) : taps.marks(myTurn() ? mine() : [])); }

  async function send(command) {
    taps.reset();
    bar.nothing = false;
    var reply = await TT.send(api + "/commands", command);
    if (!reply.ok && reply.status) TT.refresh();  // refused: perhaps decided on a position that has moved on
    draw();
  }

  /* ---- zoom and pan: the board fits the width; up to 3 times bigger, panned inside its box ---- */
  var ZOOMS = [1, 1.5, 2, 3], zoom = 0;
  function setZoom(i) {
    zoom = Math.max(0, Math.min(ZOOMS.length - 1, i));
    var wrap = svg.parentNode, before = ZOOMS[+svg.dataset.zoom || 0] || 1;
    // Keep the middle of what was shown in the middle of the box.
    var cx = (wrap.scrollLeft + wrap.clientWidth / 2) / (wrap.scrollWidth || 1);
    svg.dataset.zoom = String(zoom);
    svg.style.setProperty("--zoom", String(ZOOMS[zoom]));
    svg.classList.toggle("zoomed", zoom > 0);
    TB.$("#zoom-out").disabled = zoom === 0;
    TB.$("#zoom-in").disabled = zoom === ZOOMS.length - 1;
    TB.$("#pan-hint").hidden = zoom === 0;
    if (ZOOMS[zoom] !== before) wrap.scrollLeft = cx * wrap.scrollWidth - wrap.clientWidth / 2;
    board.measure();
  }
  // Two fingers zoom too: the nearest step to the pinch's scale (trias.css leaves pinching to this page).
  var pinch = null, wrap = svg.parentNode;
  function spread(touches) { return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY) || 1; }
  wrap.addEventListener("touchstart", function (e) { pinch = e.touches.length === 2 ? { d: spread(e.touches), z: ZOOMS[zoom] } : null; }, { passive: true });
  wrap.addEventListener("touchmove", function (e) {
    if (!pinch || e.touches.length !== 2) return;
    var want = pinch.z * spread(e.touches) / pinch.d, best = 0;
    ZOOMS.forEach(function (z, i) { if (Math.abs(z - want) < Math.abs(ZOOMS[best] - want)) best = i; });
    if (best !== zoom) setZoom(best);
  }, { passive: true });
  wrap.addEventListener("touchend", function (e) { if (e.touches.length < 2) pinch = null; }, { passive: true });
  TB.$("#zoom-in").addEventListener("click", function () { setZoom(zoom + 1); });
  TB.$("#zoom-out").addEventListener("click", function () { setZoom(zoom - 1); });

  /* ---- the list of moves: the accessible fallback, its places named on the board while it is open ---- */
  var listKey = "trias.moves-list";
  function showList(on) {
    TB.$("#moves-panel").hidden = !on;
    var toggle = TB.$("#moves-toggle");
    toggle.setAttribute("aria-expanded", on ? "true" : "false");
    toggle.textContent = t(on ? "list_hide" : "list_show");
    svg.classList.toggle("coords", on);  // the list names places by their coordinates
  }
  var savedList = null;
  try { savedList = window.localStorage.getItem(listKey); } catch (e) { /* private mode: closed */ }
  showList(savedList === "1");
  TB.$("#moves-toggle").addEventListener("click", function () {
    var on = TB.$("#moves-panel").hidden;
    showList(on);
    try { window.localStorage.setItem(listKey, on ? "1" : "0"); } catch (e) { /* kept for this page only */ }
    if (on) { var first = TB.$("#moves button"); if (first) first.focus(); }
  });

  // The page ends as far above the bottom as the fixed bar is tall (its height changes with its
  // sentence and buttons, and with the language), so nothing under the board hides behind it.
  function measureBar() {
    var act = TB.$("#actionbar");
    document.documentElement.style.setProperty("--bar-h", (act.hidden ? 0 : act.offsetHeight) + "px");
  }
  if (window.ResizeObserver) new ResizeObserver(measureBar).observe(TB.$("#actionbar"));
  window.addEventListener("resize", measureBar);

  /** The bar at the bottom: the move waiting for its confirm, or the next required action. */
  function renderBar() {
    var pay = p(), v = pay.view, buttons = [], text;
    var act = TB.$("#actionbar"), confirming = false;
    act.hidden = v.phase === "over";
    if (!myTurn()) {
      text = v.phase === "over" ? "" : t("wait_turn", { name: TT.seatName(pay, v.current) });
    } else if (taps.pending.length && !(taps.sel && taps.pending[0].type === "rescue")) {
      var actionDrift = v.phase === "actions", many = taps.pending.length > 1;
      confirming = true;
      text = many ? t("which_move") : TT.describe(taps.pending[0], actionDrift);
      if (taps.pending[0].type === "rescue" && taps.swimmers(mine()).length > taps.pending[0].herds.length) text += " · " + t("bar.rescue_more");
      taps.pending.forEach(function (cmd) {
        buttons.push(el("button", { type: "button", class: "btn btn-primary", dataset: { act: "confirm", type: cmd.type },
          onclick: function () { send(cmd); } }, many ? TT.describe(cmd, actionDrift) : t("confirm")));
      });
      buttons.push(el("button", { type: "button", class: "btn", dataset: { act: "cancel" }, onclick: function () { taps.reset(); draw(); } }, t("cancel")));
    } else {
      var marks = taps.marks(mine());
      if (taps.sel) text = marks.targets.length ? t("choose_target") : t("no_drift", { tile: taps.sel });
      else text = (bar.nothing ? t("bar.nothing") + " " : "") + t("bar." + v.phase);
      TT.barCommands(mine()).forEach(function (cmd) {
        buttons.push(el("button", { type: "button", class: "btn" + (cmd.type === "end_turn" || cmd.type === "draw" && !marks.soft.length ? " btn-primary" : ""),
          dataset: { act: "command", type: cmd.type }, onclick: function () { send(cmd); } }, TT.describe(cmd)));
      });
    }
    TB.$("#bar-text").textContent = text;
    TB.fill(TB.$("#bar-buttons"), buttons);
    TB.$("#actionbar").classList.toggle("choosing", taps.pending.length > 1);  // a sentence per button: one a line
    // Undo: only this seat's own last move (the server checks it again); not beside a move's Cancel.
    TB.$("#undo").hidden = !pay.can_undo || confirming;
    TT.renderUndoWhy(TB.$("#undo-why"), pay);
    measureBar();
  }

  function draw() {
    var pay = p();
    if (!pay) return;
    if (pay.seq !== lastSeq) { lastSeq = pay.seq; taps.reset(); }  // a new position: an old choice means nothing now
    var v = pay.view, card = v.hands[mySeat];
    if (pay.seat !== mySeat) { mySeat = pay.seat; root.dataset.seat = mySeat; }  // a rematch may seat us elsewhere
    TB.$("#my-name").textContent = TT.seatName(pay, mySeat);
    TB.$("#me").style.setProperty("--c", TT.colour(mySeat));
    TB.$("#me").style.color = TB.ink(TT.colour(mySeat));
    TB.$("#my-score").textContent = v.score[mySeat];
    TB.$("#my-stock").textContent = v.stock[mySeat];
    var hand = TB.$("#hand");
    hand.className = "trias-card card-" + (card || "none");
    hand.textContent = card ? TT.kindName(card) : t("hand_played");
    TT.renderTurn(TB.$("#turn"), pay, mySeat);
    TT.renderScores(TB.$("#scores"), pay, mySeat);
    TT.renderEnd(TB.$("#end-panel"), pay, mySeat);
    TT.renderMoves(TB.$("#moves"), mine(), send, preview);
    board.render(pay, taps.marks(myTurn() ? mine() : []));
    renderBar();
    TB.$("#hint").textContent = "";
    document.body.dataset.phase = v.phase;
    document.body.dataset.myturn = v.current === mySeat && v.phase !== "over" ? "1" : "0";
  }

  TB.$("#undo").addEventListener("click", TT.confirmThen(async function () {
    taps.reset();
    await TT.send(api + "/commands", { type: "undo" });
  }, t("undo_confirm")));

  TT.refresh = async function () {
    var reply = await TB.get(api + "?after=" + (TT.lastSeq() || 0));
    if (reply.ok) TT.accept(reply.data);
    else if (reply.status === 404) refused();
  };

  function refused() {
    root.classList.add("hidden");
    TB.$("#actionbar").hidden = true;
    TB.$("#unknown").classList.remove("hidden");
  }

  TT.connect({
    auth: { seat: token },
    state: draw,
    row: function (row, payload) { var news = TT.news(row, payload); if (news) TT.announce(news); },
    rematch: function () { window.location.reload(); },  // the same link opens the new game
    refused: refused,
  });
  TT.refresh();
})();
