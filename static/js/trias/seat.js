/* A player's phone, board first: their own hand card (nobody else gets it), the turn,
 * then the board, zoomed so a hex is a thumb's width with the player's pieces in the
 * middle. Tap a herd or a tile: where it may go lights up, one kind of move at a time; tap one:
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
  svg.dataset.zoomable = "1";  // zoomed by seat.js; the box pans (trias.css)
  var board = new TT.HexBoard(svg, tap);
  var shown = {};  // the marks of the last picture: where the player's pieces and choices are

  function p() { return TT.current; }
  function mine() { return p().legal; }
  function myTurn() { return p() && p().view.current === mySeat && p().view.phase !== "over" && mine().length > 0; }

  var bar = { text: "", nothing: false }, wasMyTurn = false, centred = false;
  function tap(place) {
    if (!myTurn()) return;
    var did = taps.tap(mine(), TT.key(place));
    bar.nothing = did === "cleared";
    draw();
    if (did === "selected" && !anyShown(shown.targets)) centreOn(shown.targets);  // where it may go, if none of it shows
  }

  /** A move button pointed at or focused: its places lit up on the board; left: the taps' marks again. */
  function preview(cmd) { if (p()) picture(cmd ? TT.marksOf(cmd) : taps.marks(myTurn() ? mine() : [])); }

  /** The board's last change when another seat made it (a player knows their own moves): marked and said. */
  function othersLast() { var last = p() && p().last; return last && last.seat !== mySeat ? last : null; }

  /** The board drawn with `marks`, keeping room for every place a move of this position may reach (no jump on a tap). */
  function picture(marks) {
    var room = [];
    if (myTurn()) mine().forEach(function (c) { var end = TT.endOf(c); if (end) room.push(end); });
    shown = Object.assign({ room: room, last: othersLast() }, marks);
    board.render(p(), shown);
    applyZoom();
  }

  async function send(command) {
    taps.reset();
    bar.nothing = false;
    var reply = await TT.send(api + "/commands", command);
    if (!reply.ok && reply.status) TT.refresh();  // refused: perhaps decided on a position that has moved on
    draw();
  }

  /* ---- zoom and pan: a hex is at least a thumb's width (48 px) unless the whole board
   * fits the phone that way; + and − step through 48, 64 and 88 px hexes and the whole board; the
   * box pans both ways and fits between the zoom's row and the bar at the bottom (trias.css) ---- */
  var HEXES = [48, 64, 88], HEX_UNITS = 10 * Math.sqrt(3) * 0.97;  // a hex's width in the board's units (hexboard.js)
  var wrap = svg.parentNode, hexPx = HEXES[0];  // null: the whole board in the phone's width
  /** A hex's width in px when the board fits the box's width. */
  function fitted() {
    var box = svg.viewBox && svg.viewBox.baseVal;
    return box && box.width && wrap.clientWidth ? wrap.clientWidth * HEX_UNITS / box.width : 0;
  }
  function scaleOf(px) { var fit = fitted(); return px && fit ? Math.max(1, px / fit) : 1; }
  /** The board's width as a multiple of the box's, for the hexes asked; the middle of what was shown stays in the middle. */
  function applyZoom() {
    var fit = fitted();
    if (!fit) return;
    var scale = scaleOf(hexPx), hex = fit * scale, before = parseFloat(svg.style.getPropertyValue("--zoom")) || 1;
    var cx = (wrap.scrollLeft + wrap.clientWidth / 2) / (wrap.scrollWidth || 1), cy = (wrap.scrollTop + wrap.clientHeight / 2) / (wrap.scrollHeight || 1);
    svg.style.setProperty("--zoom", scale.toFixed(4));
    svg.classList.toggle("zoomed", scale > 1.001);
    TB.$("#zoom-out").disabled = scale <= 1.001;
    TB.$("#zoom-in").disabled = !HEXES.some(function (h) { return h > hex + 1; });
    TB.$("#pan-hint").hidden = scale <= 1.001;
    if (Math.abs(scale - before) > 0.001) {
      wrap.scrollLeft = cx * wrap.scrollWidth - wrap.clientWidth / 2;
      wrap.scrollTop = cy * wrap.scrollHeight - wrap.clientHeight / 2;
    }
    board.measure();
  }
  function zoomBy(step) {
    var hex = fitted() * scaleOf(hexPx);
    if (step > 0) hexPx = HEXES.filter(function (h) { return h > hex + 1; })[0] || hexPx;
    else hexPx = HEXES.filter(function (h) { return h < hex - 1 && scaleOf(h) > 1.001; }).pop() || null;
    applyZoom();
  }
  // Two fingers zoom too: the nearest step to the pinch's scale (trias.css leaves pinching to this page).
  var pinch = null;
  function spread(touches) { return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY) || 1; }
  wrap.addEventListener("touchstart", function (e) { pinch = e.touches.length === 2 ? { d: spread(e.touches), z: scaleOf(hexPx) } : null; }, { passive: true });
  wrap.addEventListener("touchmove", function (e) {
    if (!pinch || e.touches.length !== 2) return;
    var want = pinch.z * spread(e.touches) / pinch.d, best = null;
    [null].concat(HEXES).forEach(function (h) { if (Math.abs(scaleOf(h) - want) < Math.abs(scaleOf(best) - want)) best = h; });
    if (scaleOf(best) !== scaleOf(hexPx)) { hexPx = best; applyZoom(); }
  }, { passive: true });
  wrap.addEventListener("touchend", function (e) { if (e.touches.length < 2) pinch = null; }, { passive: true });
  TB.$("#zoom-in").addEventListener("click", function () { zoomBy(1); });
  TB.$("#zoom-out").addEventListener("click", function () { zoomBy(-1); });
  TB.$("#zoom-home").addEventListener("click", function () { centreOn(mineToShow()); });

  /** The places the player cares about now: what is chosen and where it may go, what may start, else their herds. */
  function mineToShow() {
    var keys = (shown.selected ? [shown.selected] : []).concat(shown.targets || [], shown.soft || [], shown.pending || []);
    if (keys.length) return keys;
    var v = p() && p().view;
    return v ? v.herds.filter(function (h) { return h[2][mySeat]; }).map(function (h) { return h[0] + "," + h[1]; }) : [];
  }
  function hexRect(key) { var n = svg.querySelector('.base [data-place="' + key + '"]'); return n ? n.getBoundingClientRect() : null; }
  /** Whether any of these places shows inside the board's box. */
  function anyShown(keys) {
    var box = seen();
    return (keys || []).some(function (k) {
      var r = hexRect(k);
      return r && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom;
    });
  }
  /** Pan the box so the middle of these places is in its middle. */
  function centreOn(keys) {
    var area = null, box = seen();
    (keys || []).forEach(function (k) {
      var r = hexRect(k);
      if (r) area = area ? { l: Math.min(area.l, r.left), t: Math.min(area.t, r.top), r: Math.max(area.r, r.right), b: Math.max(area.b, r.bottom) }
        : { l: r.left, t: r.top, r: r.right, b: r.bottom };
    });
    if (!area) return;
    wrap.scrollLeft += (area.l + area.r) / 2 - (box.left + box.right) / 2;
    wrap.scrollTop += (area.t + area.b) / 2 - (box.top + box.bottom) / 2;
  }

  /* While the others play, the board's box follows their moves: a move marked where the box does not show
   * where it went is brought to the box's middle, once, unless the player touched the board in the last
   * few seconds (they are looking at something). Only the box pans; the page never scrolls. */
  var touchedAt = 0, followed = null, FOLLOW_AFTER_MS = 5000;
  ["touchstart", "pointerdown", "wheel", "keydown"].forEach(function (name) {
    wrap.addEventListener(name, function () { touchedAt = Date.now(); }, { passive: true });
  });
  function follow() {
    var last = othersLast();
    if (!last || last.seq === followed) return;
    followed = last.seq;
    var went = TT.marksOf(last.command).targets;
    if (Date.now() - touchedAt >= FOLLOW_AFTER_MS && !anyShown(went)) centreOn(went);
  }

  /* ---- the list of moves: the accessible fallback, its places named in words as on the TV ---- */
  var listKey = "trias.moves-list";
  function showList(on) {
    TB.$("#moves-panel").hidden = !on;
    var toggle = TB.$("#moves-toggle");
    toggle.setAttribute("aria-expanded", on ? "true" : "false");
    toggle.textContent = t(on ? "list_hide" : "list_show");
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
  // The board's box is as tall as the screen between the zoom's row (kept at the top, trias.css) and
  // the bar: scrolled to the board, the phone shows all of the box and its controls.
  function measureBar() {
    var act = TB.$("#actionbar"), barH = act.hidden ? 0 : act.offsetHeight;
    document.documentElement.style.setProperty("--bar-h", barH + "px");
    document.documentElement.style.setProperty("--pan-h", Math.max(240, window.innerHeight - TB.$("#zoombar").offsetHeight - barH - 4) + "px");
  }
  /** The part of the board's box a person sees: inside the window, above the bar at the bottom. */
  function seen() {
    var box = wrap.getBoundingClientRect(), act = TB.$("#actionbar");
    var bottom = Math.min(box.bottom, act.hidden ? window.innerHeight : act.getBoundingClientRect().top);
    return { left: box.left, right: box.right, top: Math.max(box.top, TB.$("#zoombar").getBoundingClientRect().bottom), bottom: Math.max(bottom, box.top + 40) };
  }
  if (window.ResizeObserver) new ResizeObserver(measureBar).observe(TB.$("#actionbar"));
  window.addEventListener("resize", measureBar);

  /** The bar at the bottom: the move waiting for its confirm, or the next required action. */
  function renderBar() {
    var pay = p(), v = pay.view, buttons = [], text;
    var act = TB.$("#actionbar"), confirming = false, said = null;
    act.hidden = v.phase === "over";
    if (myTurn()) said = taps.bar(mine(), v.phase, send, draw, function (key) { return !v.tiles.some(function (x) { return x[0] + "," + x[1] === key; }); });
    if (!myTurn()) {
      text = v.phase === "over" ? "" : t("wait_turn", { name: TT.seatName(pay, v.current) });
    } else if (said.confirming) {
      confirming = true;
      text = said.text;
      buttons = said.buttons;
    } else {
      var marks = taps.marks(mine());
      text = said.text || (bar.nothing ? t("bar.nothing") + " " : "") + t("bar." + v.phase);
      buttons = said.buttons;
      TT.barCommands(mine()).forEach(function (cmd) {
        buttons.push(el("button", { type: "button", class: "btn" + (cmd.type === "end_turn" || cmd.type === "draw" && !marks.soft.length ? " btn-primary" : ""),
          dataset: { act: "command", type: cmd.type }, onclick: function () { send(cmd); } }, TT.describe(cmd)));
      });
    }
    TT.renderLast(TB.$("#last-move"), pay, othersLast());
    TB.$("#bar-text").textContent = text;
    TB.fill(TB.$("#bar-buttons"), buttons);
    TB.$("#actionbar").classList.toggle("choosing", !!(said && said.choosing));  // a sentence per button: one a line
    // Undo: only this seat's own last move (the server checks it again); not beside a move's Cancel,
    // nor while a piece is chosen (the bar then offers its other kind of move).
    TB.$("#undo").hidden = !pay.can_undo || confirming || !!(myTurn() && taps.sel);
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
    TB.$("#my-score").textContent = t("points", { n: v.score[mySeat] });
    TB.$("#my-stock").textContent = v.stock[mySeat];
    var hand = TB.$("#hand");
    hand.className = "trias-card card-" + (card || "none");
    hand.textContent = card ? TT.kindName(card) : t("hand_played");
    TT.renderTurn(TB.$("#turn"), pay, mySeat);
    TT.renderScores(TB.$("#scores"), pay, mySeat);
    TT.renderEnd(TB.$("#end-panel"), pay, mySeat);
    TT.renderMoves(TB.$("#moves"), mine(), send, preview);
    picture(taps.marks(myTurn() ? mine() : []));
    renderBar();
    measureBar();
    var turnNow = myTurn();
    if (turnNow && !wasMyTurn || !centred) { centred = true; centreOn(mineToShow()); }  // the player's pieces in the middle, at the start and at each turn
    else if (!turnNow) follow();
    wasMyTurn = turnNow;
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
