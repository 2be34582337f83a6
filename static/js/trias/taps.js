/* Board-first play on a seat's phone (issue 26): the legal moves grouped by the place they start
 * from (a tile that drifts, a herd's tile, a swimmer), so a tap on the board chooses a piece, lights
 * where it may go, and a second tap names the move for the one-line confirm. Pure: no page, no
 * network; seat.js draws and sends. Needs common.js (window.TT). Defines TT.Taps.
 */
(function () {
  "use strict";
  var TT = window.TT;

  function k(place) { return TT.key(place); }
  function pairsKey(pairs) { return pairs.map(function (h) { return k(h[0]) + ">" + k(h[1]); }).sort().join("|"); }

  /** Where a command starts on the board (null: it starts nowhere, it is one of the action bar's buttons). */
  TT.startOf = function (cmd) {
    if ((cmd.type === "play" || cmd.type === "drift") && cmd.tile) return k(cmd.tile);
    if (cmd.type === "move") return k(cmd.from);
    if (cmd.type === "reproduce") return k(cmd.at);  // a birth (T12): the tile itself is its target too
    return null;
  };

  /** Where it ends: a drift's new place, a herd's next tile, a birth's or a placement's tile. */
  TT.endOf = function (cmd) {
    if (cmd.to) return k(cmd.to);
    if (cmd.at) return k(cmd.at);
    return null;
  };

  /** The moves that need no place: drawing, a card played without a drift (T11), ending the turn. */
  TT.barCommands = function (legal) {
    var order = { draw: 1, play: 2, end_turn: 3 };
    return legal.filter(function (c) { return c.type === "draw" || c.type === "end_turn" || (c.type === "play" && !c.tile); })
      .sort(function (a, b) { return order[a.type] - order[b.type]; });
  };

  /** A seat's taps: sel (the place chosen), rescue (the swimmers' steps chosen so far, T12), pending (to confirm). */
  TT.Taps = function () { this.reset(); };

  TT.Taps.prototype.reset = function () {
    this.sel = null;
    this.rescue = [];
    this.pending = [];
  };

  /** Rescues (T12: up to 3 swimmers for one point) as the set of their steps, to extend a choice one swimmer at a time. */
  function rescues(legal) {
    var found = {};
    legal.forEach(function (c) { if (c.type === "rescue") found[pairsKey(c.herds)] = c; });
    return found;
  }

  /** The tiles the swimmer at `from` may reach, given the steps already chosen. */
  TT.Taps.prototype.rescueTargets = function (legal, from) {
    var all = rescues(legal), chosen = this.rescue, out = [];
    Object.keys(all).forEach(function (key) {
      all[key].herds.forEach(function (h) {
        var end = k(h[1]);
        if (k(h[0]) === from && out.indexOf(end) < 0 && all[pairsKey(chosen.concat([h]))]) out.push(end);
      });
    });
    return out;
  };

  /** Swimmers that may still be rescued (with the steps chosen so far). */
  TT.Taps.prototype.swimmers = function (legal) {
    var self = this, seen = {};
    legal.forEach(function (c) { if (c.type === "rescue") c.herds.forEach(function (h) { seen[k(h[0])] = true; }); });
    return Object.keys(seen).filter(function (from) { return self.rescueTargets(legal, from).length; });
  };

  /** Every place where a tap starts something now (soft marks), and the placements (T8) a tap makes at once. */
  TT.Taps.prototype.starts = function (legal) {
    var out = {};
    legal.forEach(function (c) { var s = TT.startOf(c); if (s) out[s] = true; });
    this.swimmers(legal).forEach(function (s) { out[s] = true; });
    return Object.keys(out);
  };

  /** The marks for the board: what is chosen, where it may go, what waits for the confirm. */
  TT.Taps.prototype.marks = function (legal) {
    var self = this;
    var extending = this.sel && this.pending.length && this.pending[0].type === "rescue";  // one more swimmer chosen
    if (this.pending.length && !extending) {
      var cmd = this.pending[0], ends = cmd.type === "rescue" ? cmd.herds.map(function (h) { return k(h[1]); }) : [TT.endOf(cmd)];
      var from = cmd.type === "rescue" ? cmd.herds.map(function (h) { return k(h[0]); }) : [TT.startOf(cmd)].filter(Boolean);
      // A rescue may take more swimmers for the same point: they stay lit as choices.
      var more = cmd.type === "rescue" ? this.swimmers(legal).filter(function (s) { return from.indexOf(s) < 0; }) : [];
      return { selected: from[0] || null, soft: from.slice(1).concat(more), targets: [], pending: ends };
    }
    if (this.sel) {
      var targets = legal.filter(function (c) { return TT.startOf(c) === self.sel; }).map(TT.endOf);
      targets = targets.concat(this.rescueTargets(legal, this.sel));
      return { selected: this.sel, targets: targets, soft: [], pending: [] };
    }
    var places = legal.filter(function (c) { return c.type === "place"; }).map(TT.endOf);
    return { selected: null, soft: this.starts(legal), targets: places, pending: [] };
  };

  /**
   * A tap on the place `key`: returns what it did ("pending": a move waits for the confirm; "selected";
   * "cleared"). A tap on something that is no choice clears the choice, as on a board game site.
   */
  TT.Taps.prototype.tap = function (legal, key) {
    var self = this;
    var placing = legal.filter(function (c) { return c.type === "place" && TT.endOf(c) === key; });
    if (placing.length) { this.reset(); this.pending = placing; return "pending"; }
    if (this.sel) {
      if (this.rescueTargets(legal, this.sel).indexOf(key) >= 0) {
        var step = [this.sel.split(",").map(Number), key.split(",").map(Number)];
        this.rescue = this.rescue.concat([step]);
        this.sel = null;
        this.pending = [rescues(legal)[pairsKey(this.rescue)]];
        return "pending";
      }
      var go = legal.filter(function (c) { return TT.startOf(c) === self.sel && TT.endOf(c) === key; });
      if (go.length) { this.pending = go; return "pending"; }  // a move and its "fresh" variant (T12): the confirm asks which
    }
    var wasRescue = this.pending.length && this.pending[0].type === "rescue";
    if (wasRescue && this.swimmers(legal).indexOf(key) >= 0) { this.sel = key; return "selected"; }  // one more swimmer, same point
    var again = this.sel === key;
    this.reset();
    if (!again && this.starts(legal).indexOf(key) >= 0) { this.sel = key; return "selected"; }
    return "cleared";
  };
})();
