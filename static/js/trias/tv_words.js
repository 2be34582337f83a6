/* The board page's last moves in words: a place is named as people see it on the
 * screen, by its landscape, its side of the South Pole and its ring ("woods north-east of the pole
 * (ring 2)"), never by the coordinates the board no longer shows. A herd's step or a rescue names
 * where it lands from where it was ("steppe to the east"). The landscape is the one the place had
 * just before the move (row.places, bank/services/trias_table.py landscapes_before).
 * Needs common.js (window.TT). Defines TT.narrate, and TT.placeWords and TT.nextTo, with which every
 * Trias page names a place (TT.describe: the phones' and the mirror tablet's buttons and confirms),
 * and TT.lastWords: the board's last change as a sentence naming who made it.
 */
(function () {
  "use strict";
  var TB = window.TB, TT = window.TT, t = TB.t;
  var SIDES = ["e", "ne", "n", "nw", "w", "sw", "s", "se"];

  function qr(place) { return typeof place === "string" ? place.split(",").map(Number) : place; }
  function ring(q, r) { return (Math.abs(q) + Math.abs(r) + Math.abs(q + r)) / 2; }

  /** The side of (dq, dr) as seen on the screen, north up (pointy-top hexes, hexboard.js's layout). */
  function side(dq, dr) {
    var x = Math.sqrt(3) * (dq + dr / 2), y = -1.5 * dr;
    var turn = Math.round(Math.atan2(y, x) / (Math.PI / 4));
    return SIDES[(turn + 8) % 8];
  }

  /** "woods north-east of the pole (ring 2)"; water: "north-east of the pole (ring 3)"; the pole by its name. */
  TT.placeWords = function (place, kind) {
    var p = qr(place), d = ring(p[0], p[1]);
    if (kind === "pole" || !d) return t("landscape.pole");
    var where = t("tv.dir." + side(p[0], p[1])), n = d;
    return kind ? t("tv.place", { kind: t("tv.kind." + kind), where: where, ring: n }) : t("tv.water", { where: where, ring: n });
  };

  /** Where a herd lands next to where it was: "steppe to the east". */
  var nextTo = TT.nextTo = function (from, to, kind) {
    var a = qr(from), b = qr(to);
    if (kind === "pole") return t("landscape.pole");
    return t("tv.next", { kind: t("tv.kind." + (kind || "water")), side: t("tv.side." + side(b[0] - a[0], b[1] - a[1])) });
  };

  /** A journal row as a sentence for the last moves, in words. */
  TT.narrate = function (row) {
    var cmd = row.command || {}, kinds = row.places || {}, events = row.events || [];
    var kindAt = function (place) { var k = TT.key(place); return k in kinds ? kinds[k] : undefined; };
    var drifted = events.filter(function (e) { return e.type === "drifted"; })[0];
    var card = TT.rowCard(row), cardName = card ? TT.kindName(card) : "";
    var drift = function () {
      return { tile: TT.placeWords(cmd.tile, drifted ? drifted.kind : kindAt(cmd.tile)), to: TT.placeWords(cmd.to, null) };
    };
    switch (cmd.type) {
      case "place": return t("tv.placed", { at: TT.placeWords(cmd.at, kindAt(cmd.at)) });
      case "play":
        if (!cmd.tile) return t("tv.play_none", { card: cardName });
        return t("tv.play", Object.assign({ card: cardName }, drift()));
      case "draw": return card ? t("tv.draw", { card: cardName }) : t("cmd.draw");
      case "drift": return t(drifted && drifted.cost ? "tv.action_drift" : "tv.drift", drift());
      case "move": return t("tv.move", { from: TT.placeWords(cmd.from, kindAt(cmd.from)), to: nextTo(cmd.from, cmd.to, kindAt(cmd.to)) });
      case "rescue":
        return t("tv.rescue", { list: (cmd.herds || []).map(function (h) {
          return TT.placeWords(h[0], null) + " → " + nextTo(h[0], h[1], kindAt(h[1]));
        }).join(", ") });
      case "reproduce": return t("tv.born", { at: TT.placeWords(cmd.at, kindAt(cmd.at)) });
      case "end_turn": return t("tv.end_turn");
      case "meteorite_drawn": return t("cmd.meteorite_drawn");
      default: return cmd.type || "";
    }
  };

  /**
   * The board's last change (the payload's `last`, bank/web/trias/payloads.py) as a sentence with the
   * seat's name: "Ordinateur · difficile déplace un troupeau : steppe au nord du pôle (couronne 2) → forêt
   * à l’est". Each place by the landscape it had just before the move (last.places), never by "q,r".
   */
  TT.lastWords = function (last, p) {
    var cmd = last.command || {}, kinds = last.places || {};
    var kindAt = function (place) { var k = TT.key(place); return k in kinds ? kinds[k] : TT.landscapeAt(place); };
    var at = function (place) { return TT.placeWords(place, kindAt(place)); };
    var said = { name: TT.seatLabel(p, last.seat) };
    switch (cmd.type) {
      case "place": return t("last.place", Object.assign(said, { at: at(cmd.at) }));
      case "play": return t("last.play", Object.assign(said, { card: TT.kindName(cmd.card), tile: at(cmd.tile), to: TT.placeWords(cmd.to, null) }));
      case "drift": return t(cmd.cost ? "last.action_drift" : "last.drift", Object.assign(said, { tile: at(cmd.tile), to: TT.placeWords(cmd.to, null) }));
      case "move": return t("last.move", Object.assign(said, { from: at(cmd.from), to: nextTo(cmd.from, cmd.to, kindAt(cmd.to)) }));
      case "rescue":
        return t("last.rescue", Object.assign(said, { list: (cmd.herds || []).map(function (h) {
          return TT.placeWords(h[0], null) + " → " + nextTo(h[0], h[1], kindAt(h[1]));
        }).join(", ") }));
      case "reproduce": return t("last.reproduce", Object.assign(said, { at: at(cmd.at) }));
      default: return "";
    }
  };
})();
