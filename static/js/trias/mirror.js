/* The mirror tablet's recording: the physical table's moves are recorded by tapping the
 * board as a phone plays, with the phone's confirm bar: tap the piece, tap where it went, read the
 * sentence, confirm. Nothing is recorded by a single tap. In phase 1 the tile's landscape names the
 * card played (T9), or the card is named first with its button; a card drawn, a card played with no
 * drift and the Meteorite Impact stay buttons (table.js). A tap on a place the rules refuse asks the
 * server why (it is no legal move, so nothing can be recorded) and the bar says the rule (T10...).
 * Needs common.js and taps.js. Defines TT.Mirror.
 */
(function () {
  "use strict";
  var TB = window.TB, TT = window.TT, t = TB.t, el = TB.el;

  /** new TT.Mirror(send(command)): send records (table.js), or hears the refusal of a move that is no legal one. */
  TT.Mirror = function (send) {
    this.taps = new TT.Taps();
    this.card = null;  // phase 1: the card named with its button (else the tapped tile's landscape)
    this.seq = null;
    this.nothing = false;
    this.send = send;
  };

  function tileAt(p, key) {
    var found = null;
    p.view.tiles.forEach(function (x) { if (x[0] + "," + x[1] === key) found = x[2]; });
    return found;
  }

  /** A new position: the taps of the last one mean nothing now. */
  TT.Mirror.prototype.sync = function (p) {
    if (p.seq === this.seq) return;
    this.seq = p.seq;
    this.taps.reset();
    this.nothing = false;
    if (p.view.phase !== "start") this.card = null;
  };

  TT.Mirror.prototype.reset = function () { this.taps.reset(); this.nothing = false; };

  /**
   * What the table may record by tapping now. Phase 1 (the server sends the shared screen no phase-1
   * moves: by_card instead): a play per drift of each card still possible, or of the card named.
   */
  TT.Mirror.prototype.legal = function (p) {
    if (p.view.phase !== "start") return p.legal;
    var card = this.card, possible = (p.table_cards || {}).play || [], out = [];
    Object.keys(p.by_card || {}).forEach(function (kind) {
      if (card ? kind !== card : possible.indexOf(kind) < 0) return;
      p.by_card[kind].forEach(function (d) { out.push({ type: "play", card: kind, tile: d.tile, to: d.to }); });
    });
    return out;
  };

  TT.Mirror.prototype.marks = function (p) {
    this.sync(p);
    return this.taps.marks(this.legal(p));
  };

  /** The move a tap from `from` to `to` meant, when the rules refuse it (so the server says which rule). */
  TT.Mirror.prototype.meant = function (p, from, to, kind) {
    var phase = p.view.phase, start = from.split(",").map(Number), end = to.split(",").map(Number);
    var fromTile = tileAt(p, from), toTile = tileAt(p, to);
    if (!fromTile) return null;  // a swimmer: its rescue is lit, or there is none
    if (phase === "start") return { type: "play", card: this.card || fromTile, tile: start, to: end };
    if (phase === "drift") return { type: "drift", tile: start, to: end };
    if (phase !== "actions") return null;
    if (kind === "drift" || !toTile) return { type: "drift", tile: start, to: end };
    return { type: "move", from: start, to: end };
  };

  TT.Mirror.prototype.tap = function (p, place) {
    this.sync(p);
    var legal = this.legal(p), key = TT.key(place), sel = this.taps.sel, kind = this.taps.litKind(legal);
    var did = this.taps.tap(legal, key);
    this.nothing = did === "cleared" && !sel;
    if (did === "cleared" && sel && sel !== key) {
      var why = this.meant(p, sel, key, kind);
      if (!why) return;
      this.taps.sel = sel;  // still chosen: the next tap may be its right place
      this.taps.kind = kind;
      this.send(why);
    }
  };

  /** The bar at the bottom, as on a phone: the move waiting for its confirm, or what to tap next. */
  TT.Mirror.prototype.renderBar = function (p, redraw) {
    var bar = TB.$("#actionbar");
    if (!bar) return;
    this.sync(p);
    var v = p.view, legal = this.legal(p), self = this;
    var water = function (key) { return !tileAt(p, key); };
    var said = this.taps.bar(legal, v.phase, this.send, redraw, water), buttons = said.buttons;
    var name = TT.seatName(p, v.current), text = said.text;
    if (text === null) {
      text = v.phase === "start" && this.card ? t("mirror_tile", { card: TT.kindName(this.card) }) : t("mirror." + v.phase, { name: name });
      if (this.nothing) text = t("bar.nothing") + " " + text;
      TT.barCommands(legal).forEach(function (cmd) {
        buttons.push(el("button", { type: "button", class: "btn" + (cmd.type === "end_turn" ? " btn-primary" : ""),
          dataset: { act: "command", type: cmd.type }, onclick: function () { self.send(cmd); } }, TT.describe(cmd)));
      });
    }
    bar.hidden = v.phase === "over";
    TB.$("#bar-text").textContent = v.phase === "over" ? "" : text;
    TB.fill(TB.$("#bar-buttons"), buttons);
    bar.classList.toggle("choosing", !!said.choosing);
    document.documentElement.style.setProperty("--bar-h", (bar.hidden ? 0 : bar.offsetHeight) + "px");
  };
})();
