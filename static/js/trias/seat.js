/* A player's phone: their own hand card (nobody else gets it), stock and score, and on their turn
 * every legal move as a button, plus taps on the board (a tile, then where it goes).
 */
(function () {
  "use strict";
  var TB = window.TB, TT = window.TT, el = TB.el, t = TB.t;
  var root = TB.$("#trias-root"), token = root.dataset.token, mySeat = +root.dataset.seat;
  var api = "/trias/api/s/" + token;
  var sel = null;
  var board = new TT.HexBoard(TB.$("#board"), tap);

  function p() { return TT.current; }
  function mine() { return p().legal; }
  function fromOf(c) { return c.tile || c.from || c.at || null; }

  function targetsOf(key) {
    return mine().filter(function (c) { return fromOf(c) && TT.key(fromOf(c)) === key && c.to; });
  }

  function tap(place) {
    if (!p()) return;
    var key = TT.key(place);
    if (sel) {
      var go = targetsOf(sel).filter(function (c) { return TT.key(c.to) === key; });
      if (go.length) return send(go[0]);
    }
    var places = mine().filter(function (c) { return c.type === "place" && TT.key(c.at) === key; });
    if (places.length) return send(places[0]);
    sel = sel === key ? null : key;
    draw();
  }

  /** A move button pointed at or focused: its places lit up on the board; left: the taps' marks again. */
  var shown = {};
  function preview(cmd) { if (p()) board.render(p(), cmd ? TT.marksOf(cmd) : shown); }

  async function send(command) {
    sel = null;
    await TT.send(api + "/commands", command);
    draw();
  }

  function draw() {
    var pay = p();
    if (!pay) return;
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
    TB.$("#moves-panel").hidden = !mine().length;
    TB.$("#undo").hidden = !pay.can_undo;  // only this seat's own last move (the server checks it again)
    TT.renderUndoWhy(TB.$("#undo-why"), pay);
    var targets = sel ? targetsOf(sel).map(function (c) { return TT.key(c.to); }) : [];
    var soft = sel ? [] : mine().map(fromOf).filter(Boolean).map(TT.key);
    shown = { selected: sel, targets: targets, soft: soft };
    board.render(pay, shown);
    TB.$("#hint").textContent = sel ? (targets.length ? t("choose_target") : t("no_drift", { tile: sel })) : "";
    document.body.dataset.phase = v.phase;
    document.body.dataset.myturn = v.current === mySeat && v.phase !== "over" ? "1" : "0";
  }

  TB.$("#undo").addEventListener("click", TT.confirmThen(async function () {
    sel = null;
    await TT.send(api + "/commands", { type: "undo" });
  }, t("undo_confirm")));

  TT.refresh = async function () {
    var reply = await TB.get(api + "?after=" + (TT.lastSeq() || 0));
    if (reply.ok) TT.accept(reply.data);
    else if (reply.status === 404) refused();
  };

  function refused() {
    root.classList.add("hidden");
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
