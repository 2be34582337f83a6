/* Board-first play on a seat's phone: the legal moves grouped by the place they start
 * from (a tile that drifts, a herd's tile, a swimmer), so a tap on the board chooses a piece, lights
 * where it may go, and a second tap names the move for the one-line confirm. A tile holding the
 * player's herd starts two kinds of move: its herds' steps and births (1 action point)
 * and its drift (3, T12); a tap lights one kind, the herds' first, and the bar offers the other.
 * No network: seat.js and mirror.js (the mirror tablet) draw and send; TT.Taps.bar makes the
 * bar's sentence and buttons for both. Needs common.js (window.TT). Defines TT.Taps.
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

  /** A move's kind: "drift" (a tile to a new place, T10, T12) or "herd" (a herd placed, moved, born or rescued). */
  TT.kindOf = function (cmd) { return cmd.type === "play" || cmd.type === "drift" ? "drift" : "herd"; };

  /** The moves that need no place: drawing, a card played without a drift (T11), ending the turn. */
  TT.barCommands = function (legal) {
    var order = { draw: 1, play: 2, end_turn: 3 };
    return legal.filter(function (c) { return c.type === "draw" || c.type === "end_turn" || (c.type === "play" && !c.tile); })
      .sort(function (a, b) { return order[a.type] - order[b.type]; });
  };

  /**
   * A seat's taps: sel (the place chosen), kind (which of its kinds of move is lit, null: the first),
   * rescue (the swimmers' steps chosen so far, T12), pending (to confirm).
   */
  TT.Taps = function () { this.reset(); };

  TT.Taps.prototype.reset = function () {
    this.sel = null;
    this.kind = null;
    this.rescue = [];
    this.pending = [];
  };

  /** The kinds of move the chosen place starts, herds first; [] when nothing is chosen. */
  TT.Taps.prototype.kinds = function (legal) {
    var self = this, found = {};
    if (!this.sel) return [];
    legal.forEach(function (c) { if (TT.startOf(c) === self.sel) found[TT.kindOf(c)] = true; });
    if (this.rescueTargets(legal, this.sel).length) found.herd = true;
    return ["herd", "drift"].filter(function (kind) { return found[kind]; });
  };

  /** The kind lit now: the one asked for if the place starts it, else the place's first. */
  TT.Taps.prototype.litKind = function (legal) {
    var kinds = this.kinds(legal);
    return kinds.indexOf(this.kind) >= 0 ? this.kind : kinds[0] || null;
  };

  /** Light the other kind of move of the chosen place (the bar's button); a move waiting for its confirm is dropped. */
  TT.Taps.prototype.show = function (kind) {
    this.kind = kind;
    this.pending = [];
  };

  /** The chosen place's moves of the kind lit now. */
  TT.Taps.prototype.fromSel = function (legal) {
    var self = this, kind = this.litKind(legal);
    return legal.filter(function (c) { return TT.startOf(c) === self.sel && TT.kindOf(c) === kind; });
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
    var extending = this.sel && this.pending.length && this.pending[0].type === "rescue";  // one more swimmer chosen
    if (this.pending.length && !extending) {
      var cmd = this.pending[0], ends = cmd.type === "rescue" ? cmd.herds.map(function (h) { return k(h[1]); }) : [TT.endOf(cmd)];
      var from = cmd.type === "rescue" ? cmd.herds.map(function (h) { return k(h[0]); }) : [TT.startOf(cmd)].filter(Boolean);
      // A rescue may take more swimmers for the same point: they stay lit as choices.
      var more = cmd.type === "rescue" ? this.swimmers(legal).filter(function (s) { return from.indexOf(s) < 0; }) : [];
      return { selected: from[0] || null, soft: from.slice(1).concat(more), targets: [], pending: ends, kind: TT.kindOf(cmd) };
    }
    if (this.sel) {
      var kind = this.litKind(legal), targets = this.fromSel(legal).map(TT.endOf);
      if (kind === "herd") targets = targets.concat(this.rescueTargets(legal, this.sel));
      return { selected: this.sel, targets: targets, soft: [], pending: [], kind: kind };
    }
    var places = legal.filter(function (c) { return c.type === "place"; }).map(TT.endOf);
    return { selected: null, soft: this.starts(legal), targets: places, pending: [], kind: places.length ? "herd" : null };
  };

  /**
   * The sentence of a move waiting for its confirm: the place is marked on the board (the pending
   * mark), so it is not named by its coordinates; a move of phase 2 says its cost in action points.
   */
  TT.confirmText = function (cmd, phase) {
    var t = window.TB.t;
    switch (cmd.type) {
      case "place": return t("confirm.place");
      case "play": return !cmd.tile ? TT.describe(cmd) : cmd.card ? t("confirm.play_card", { card: TT.kindName(cmd.card) }) : t("confirm.play");
      case "drift": return t(phase === "actions" ? "confirm.action_drift" : "confirm.drift");
      case "move": return cmd.fresh ? TT.describe(cmd) : t("confirm.move");
      case "reproduce": return t("confirm.reproduce");
      default: return TT.describe(cmd, phase === "actions");
    }
  };

  /** What the bar says of the chosen place: the kind of move lit, what it costs, where to tap. */
  function choiceText(marks, phase, swimmer) {
    var t = window.TB.t;
    if (!marks.targets.length) return t("choose_target");
    if (marks.kind === "drift") return t(phase === "actions" ? "bar.drift_ap" : "bar.drift_card");
    if (swimmer) return t("bar.rescue");
    return t(marks.targets.indexOf(marks.selected) >= 0 ? "bar.herd_birth" : "bar.herd");
  }

  /**
   * The bar's part about the taps, on a phone and on the mirror tablet: {text (null: nothing chosen),
   * buttons, confirming, choosing}. A move waiting gets its sentence, Confirm and Cancel (several
   * moves on one place: a button each); a chosen place its kind's sentence and a button for its
   * other kind. send(cmd) and redraw() are the page's; swimmer(key): whether a place is water.
   */
  TT.Taps.prototype.bar = function (legal, phase, send, redraw, swimmer) {
    var self = this, el = window.TB.el, t = window.TB.t, buttons = [];
    if (this.pending.length && !(this.sel && this.pending[0].type === "rescue")) {
      var many = this.pending.length > 1, first = this.pending[0];
      var text = many ? t("which_move") : TT.confirmText(first, phase);
      if (first.type === "rescue" && this.swimmers(legal).length > first.herds.length) text += " · " + t("bar.rescue_more");
      this.pending.forEach(function (cmd) {
        buttons.push(el("button", { type: "button", class: "btn btn-primary", dataset: { act: "confirm", type: cmd.type },
          onclick: function () { send(cmd); } }, many ? TT.describe(cmd, phase === "actions") : t("confirm")));
      });
      buttons.push(el("button", { type: "button", class: "btn", dataset: { act: "cancel" }, onclick: function () { self.reset(); redraw(); } }, t("cancel")));
      return { text: text, buttons: buttons, confirming: true, choosing: many };
    }
    if (!this.sel) return { text: null, buttons: [], confirming: false, choosing: false };
    var marks = this.marks(legal);
    this.kinds(legal).filter(function (kind) { return kind !== marks.kind; }).forEach(function (other) {
      buttons.push(el("button", { type: "button", class: "btn", dataset: { act: "kind", kind: other },
        onclick: function () { self.show(other); redraw(); } }, t("kind." + other)));
    });
    return { text: choiceText(marks, phase, swimmer && swimmer(this.sel)), buttons: buttons, confirming: false, choosing: false };
  };

  /**
   * A tap on the place `key`: returns what it did ("pending": a move waits for the confirm; "selected";
   * "cleared"). A tap on something that is no choice clears the choice, as on a board game site.
   */
  TT.Taps.prototype.tap = function (legal, key) {
    var placing = legal.filter(function (c) { return c.type === "place" && TT.endOf(c) === key; });
    if (placing.length) { this.reset(); this.pending = placing; return "pending"; }
    if (this.sel) {
      if (this.litKind(legal) === "herd" && this.rescueTargets(legal, this.sel).indexOf(key) >= 0) {
        var step = [this.sel.split(",").map(Number), key.split(",").map(Number)];
        this.rescue = this.rescue.concat([step]);
        this.sel = null;
        this.pending = [rescues(legal)[pairsKey(this.rescue)]];
        return "pending";
      }
      var go = this.fromSel(legal).filter(function (c) { return TT.endOf(c) === key; });
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
