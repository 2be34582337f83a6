/* Trias pages: the /trias socket, the picture with the highest journal number, rows shown once,
 * commands sent with a key kept across retries, and the panels every Trias page shares.
 * Needs page.js and api.js (window.TB) first. Defines window.TT.
 */
(function () {
  "use strict";
  var TB = window.TB, el = TB.el, t = TB.t;
  var TT = (window.TT = {});

  // Herd colours: far apart in hue and lightness, each with its own ink for the count.
  TT.COLOURS = ["#d62828", "#1f5fbf", "#f4c20d", "#7b2cbf", "#ff7f0e"];
  TT.colour = function (seat) { return TT.COLOURS[seat % TT.COLOURS.length]; };
  // And a shape per seat, so herds are told apart without telling colours apart (a colour-blind player).
  TT.SHAPES = ["square", "circle", "diamond", "triangle", "cross"];
  TT.shape = function (seat) { return TT.SHAPES[seat % TT.SHAPES.length]; };
  /** A seat's herd mark on the board: its shape in its colour, `size` wide at (x, y), the count's baseline. */
  TT.herdMark = function (seat, x, y, size) {
    var shape = TT.shape(seat), attrs = { fill: TT.colour(seat), class: "cube", "data-seat": seat, "data-shape": shape };
    var r = size / 2, cx = x + r, cy = y + r, pts;
    if (shape === "square") return [TB.svg("rect", Object.assign(attrs, { x: x.toFixed(2), y: y.toFixed(2), width: size, height: size, rx: 0.8 })), y + size * 0.78];
    // Every shape inside the square's box: a herd never reaches further over its tile's numbers and signs.
    if (shape === "circle") return [TB.svg("circle", Object.assign(attrs, { cx: cx.toFixed(2), cy: cy.toFixed(2), r: r.toFixed(2) })), y + size * 0.78];
    if (shape === "diamond") pts = [[cx, y], [x + size, cy], [cx, y + size], [x, cy]];
    else if (shape === "triangle") pts = [[cx, y], [x + size, y + size], [x, y + size]];
    else { var a = size * 0.22; pts = [[cx - a, y], [cx + a, y], [cx + a, cy - a], [x + size, cy - a], [x + size, cy + a], [cx + a, cy + a],
      [cx + a, y + size], [cx - a, y + size], [cx - a, cy + a], [x, cy + a], [x, cy - a], [cx - a, cy - a]]; }
    var poly = TB.svg("polygon", Object.assign(attrs, { points: pts.map(function (q) { return q[0].toFixed(2) + "," + q[1].toFixed(2); }).join(" ") }));
    return [poly, y + size * (shape === "triangle" ? 0.92 : 0.78)];
  };
  TT.seatName = function (p, seat) { return p && p.seats[seat] ? p.seats[seat].name : "#" + (seat + 1); };
  /** A seat's name, with "(computer)" for a computer seat whose name does not say it already ("Ordinateur · facile", names.py). */
  TT.seatLabel = function (p, seat) {
    var name = TT.seatName(p, seat), says = name.toLowerCase().indexOf(t("computer").toLowerCase()) >= 0;
    return p && p.seats[seat] && p.seats[seat].kind === "computer" && !says ? name + " (" + t("computer") + ")" : name;
  };
  TT.key = function (place) { return place[0] + "," + place[1]; };
  TT.kindName = function (kind) { return t("landscape." + kind); };

  /**
   * A command as a sentence for a button or a confirm; actionDrift: a drift bought with 3 points (T12);
   * card: the card a row played or drew (public once shown, T9). Places are named in words as the TV
   * names them (tv_words.js, loaded on every page that calls this), by the landscape they have now.
   */
  TT.describe = function (cmd, actionDrift, card) {
    var at = function (place) { return TT.placeWords(place, TT.landscapeAt(place)); };
    var water = function (place) { return TT.placeWords(place, null); };
    var step = function (from, to) { return TT.nextTo(from, to, TT.landscapeAt(to)); };
    card = card || cmd.card;
    var named = card ? { card: TT.kindName(card) } : {};
    switch (cmd.type) {
      case "place": return t("cmd.place", { at: at(cmd.at) });
      case "play":
        if (!cmd.tile) return t(card ? "cmd.play_card_none" : "cmd.play_none", named);
        return t(card ? "cmd.play_card" : "cmd.play", Object.assign({ tile: at(cmd.tile), to: water(cmd.to) }, named));
      case "draw": return t(card ? "cmd.draw_card" : "cmd.draw", named);
      case "drift": return t(actionDrift ? "cmd.action_drift" : "cmd.drift", { tile: at(cmd.tile), to: water(cmd.to) });
      case "move": return t(cmd.fresh ? "cmd.move_fresh" : "cmd.move", { from: at(cmd.from), to: step(cmd.from, cmd.to) });
      case "rescue": return t("cmd.rescue", { list: cmd.herds.map(function (h) { return water(h[0]) + " → " + step(h[0], h[1]); }).join(", ") });
      case "reproduce": return t("cmd.reproduce", { at: at(cmd.at) });
      case "end_turn": return t("cmd.end_turn");
      case "meteorite_drawn": return t("cmd.meteorite_drawn");
      default: return cmd.type;
    }
  };

  /** The landscape of the tile at `place` in the picture shown (null: water). */
  TT.landscapeAt = function (place) {
    var key = typeof place === "string" ? place : TT.key(place), found = null;
    ((TT.current && TT.current.view.tiles) || []).forEach(function (x) { if (x[0] + "," + x[1] === key) found = x[2]; });
    return found;
  };

  /** The card a journal row played or drew, from its events (the view gives others' hand cards as "hidden"). */
  TT.rowCard = function (row) {
    var found = (row.events || []).filter(function (e) { return (e.type === "card_drawn" || e.type === "card_played") && e.card !== "hidden"; })[0];
    return found ? found.card : null;
  };

  /** The places a command acts on, as the board's marks: where from (selected, then soft) and where to (targets). */
  TT.marksOf = function (cmd) {
    var k = TT.key, from = [], to = [];
    if (cmd.at) to.push(k(cmd.at));
    if (cmd.tile) from.push(k(cmd.tile));
    if (cmd.from) from.push(k(cmd.from));
    if (cmd.to) to.push(k(cmd.to));
    (cmd.herds || []).forEach(function (h) { from.push(k(h[0])); to.push(k(h[1])); });
    return { selected: from[0] || null, soft: from.slice(1), targets: to };
  };

  /* ---- the live picture ---- */

  TT.current = null;
  var seenRows = {}, handlers = {};

  /** Keep the picture with the highest number; show each row's news once, whatever order they come in. */
  TT.accept = function (payload) {
    if (!payload || typeof payload.seq !== "number") return;
    (payload.rows || []).forEach(function (row) {
      if (seenRows[row.seq]) return;
      seenRows[row.seq] = true;
      if (handlers.row) handlers.row(row, payload);
    });
    if (TT.current && payload.seq < TT.current.seq) return;
    // Its store rewritten under the server: no move is booked any more (bank/web/trias/rewrite_alarm.py).
    var rewritten = document.getElementById("rewritten");
    if (rewritten) rewritten.classList.toggle("hidden", !payload.rewritten);
    TT.current = payload;
    document.body.dataset.seq = payload.seq;
    if (handlers.state) handlers.state(payload);
  };

  TT.lastSeq = function () { return TT.current ? TT.current.seq : null; };

  function setBadge(live) {
    var badge = document.getElementById("conn-badge");
    if (!badge) return;
    badge.textContent = t(live ? "live" : "offline");
    badge.className = "badge " + (live ? "badge-live" : "badge-offline");
  }

  /**
   * Open the /trias socket. opts.auth: {game} (the shared screen) or {seat: token} (a phone);
   * opts.state(payload), opts.row(row), opts.rematch(newGameId), opts.refused().
   * Each (re)connection sends the last number seen, so the server sends what was missed.
   */
  TT.connect = function (opts) {
    handlers = opts;
    if (!window.io) { setBadge(false); return null; }
    var socket = window.io("/trias", {
      path: TB.url("/socket.io"),
      auth: function (cb) { cb(Object.assign({ after: TT.lastSeq() }, opts.auth)); },
      // A seat's link also rides in the query: the server admits the phone by it,
      // before the socket opens, into slots of its own (bank/web/trias/admission.py).
      query: opts.auth && opts.auth.seat ? { seat: opts.auth.seat } : {},
      reconnectionDelayMax: 3000,
    });
    socket.on("connect", function () { setBadge(true); });
    socket.on("disconnect", function () { setBadge(false); });
    socket.on("connect_error", function () {
      setBadge(false);
      if (!socket.active && opts.refused) opts.refused();
    });
    socket.on("state", TT.accept);
    socket.on("rematch", function (msg) { if (opts.rematch) opts.rematch(msg.game); });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible" && socket.connected) socket.emit("sync", Object.assign({ after: TT.lastSeq() }, opts.auth));
    });
    TT.socket = socket;
    return socket;
  };

  /* ---- commands ---- */

  /** POST a command; one key for all its retries. Shows the refusal's sentence (with its rule) in #error. */
  TT.send = async function (url, command) {
    var box = TB.$("#error");
    if (box) box.classList.add("hidden");
    document.body.classList.add("trias-sending");
    // The entry this page showed: the server refuses a tap decided on a position that has moved on.
    var body = Object.assign({}, command);
    if (TT.lastSeq() !== null) body.after_seq = TT.lastSeq();
    var reply = await TB.api("POST", url, body, { key: TB.uuid() });
    document.body.classList.remove("trias-sending");
    if (!reply.ok && box) {
      box.textContent = t("refused") + " " + TB.errorText(reply.error);
      box.classList.remove("hidden");
    }
    if (reply.ok && reply.data && TT.current && reply.data.seq > TT.current.seq && TT.refresh) TT.refresh();
    return reply;
  };

  /* ---- a button that asks before it acts: the bank's own second tap (static/js/admin.js), never a dialog ---- */

  // The second tap must come a moment after the first: a double tap (or a wet screen) arms the
  // button and is over before anyone has read the question.
  var CONFIRM_AFTER_MS = 700, CONFIRM_FOR_MS = 4000;

  function disarm(button) {
    if (!button.dataset.armed) return;
    delete button.dataset.armed;
    button.textContent = button.dataset.label;
    button.classList.remove("btn-confirm");
  }

  /** A click handler: the first tap turns the button into `question`; a second tap within 4 s runs `action`. */
  TT.confirmThen = function (action, question) {
    return function (ev) {
      var button = ev.currentTarget;
      if (button.dataset.armed) {
        if (Date.now() - Number(button.dataset.armed) < CONFIRM_AFTER_MS) return;
        disarm(button);
        action();
        return;
      }
      button.dataset.armed = String(Date.now());
      button.dataset.label = button.textContent;
      button.textContent = question;
      button.classList.add("btn-confirm");
      clearTimeout(button._disarm);
      button._disarm = setTimeout(function () { disarm(button); }, CONFIRM_FOR_MS);
    };
  };

  /** Why the undo is not offered, when a card drawn since forbids it (no undo past hidden cards). */
  TT.renderUndoWhy = function (node, p) {
    if (!node) return;
    var why = p.undo_refused;
    var shown = !p.can_undo && why && why.code === "undo_past_draw";
    node.hidden = !shown;
    node.textContent = shown ? TB.errorText(why) : "";
  };

  /* ---- shared panels ---- */

  /** Whose turn, which phase, action points, the last round. */
  TT.renderTurn = function (node, p, mySeat) {
    var v = p.view, who = v.current, bits = [];
    if (v.phase === "over") {
      TB.fill(node, el("b", { text: t("phase.over") }));
      node.style.setProperty("--c", "#444");
      return;
    }
    node.style.setProperty("--c", TT.colour(who));
    bits.push(el("b", { class: "trias-who", text: mySeat === who ? t("your_turn") : t("to_play", { name: TT.seatLabel(p, who) }) }));
    bits.push(el("span", { text: t("phase." + v.phase) }));
    // The card of this turn, once played or drawn (T9): everyone sees which landscape drifts.
    if (v.card && (v.phase === "drift" || v.phase === "actions")) {
      bits.push(el("span", { class: "trias-turn-card card-" + v.card, dataset: { card: v.card } },
        t(v.played_hand ? "card_played_is" : "card_drawn_is", { card: TT.kindName(v.card) })));
    }
    if (v.phase === "actions" || v.phase === "start" || v.phase === "drift") bits.push(el("span", { class: "trias-ap", text: t("ap_left", { n: v.ap }) }));
    if (v.last_round !== null && v.last_round !== undefined) bits.push(el("span", { class: "trias-last", text: t("last_round") }));
    bits.push(el("span", { class: "muted", text: t("turn_n", { n: v.turn }) }));
    TB.fill(node, bits);
  };

  /**
   * The board's last change in words (TT.lastWords), beside the mark hexboard.js draws for it: the
   * seat's chip, then the sentence. `last` null: nothing to say (the node stays, empty, so a screen
   * reader keeps following it: a live region that comes and goes is not always heard). The text is
   * set only when it changes, so redrawing the page says nothing twice; nothing takes the focus or
   * scrolls.
   */
  TT.renderLast = function (node, p, last) {
    if (!node) return;
    var text = last ? TT.lastWords(last, p) : "";
    if (node.dataset.said === text) return;
    node.dataset.said = text;
    node.dataset.seq = last ? last.seq : "";
    TB.fill(node, text ? [el("span", { class: "trias-cube-sm", "aria-hidden": "true", style: { "--c": TT.colour(last.seat) }, dataset: { shape: TT.shape(last.seat) } }),
      el("span", { class: "trias-last-words", text: text })] : null);
  };

  /** The score track: each seat's points as a bar, with its herds in stock. */
  TT.renderScores = function (node, p, mySeat) {
    var v = p.view, top = Math.max(10, Math.max.apply(null, v.score));
    TB.fill(node, v.score.map(function (pts, seat) {
      return el("li", { class: "trias-score" + (seat === mySeat ? " mine" : ""), style: { "--c": TT.colour(seat), "--w": (100 * pts / top) + "%" }, dataset: { seat: seat } },
        el("span", { class: "trias-cube-sm", dataset: { shape: TT.shape(seat) } }),
        el("span", { class: "trias-score-name", text: TT.seatName(p, seat) }),
        el("b", { class: "trias-score-pts", text: t("points", { n: pts }) }),
        el("small", { class: "muted", text: t("stock_n", { n: v.stock[seat] }) }),
        el("span", { class: "trias-bar" }));
    }));
    var deck = TB.$("#deck");
    if (deck) deck.textContent = t("deck_left", { n: v.deck_size });
  };

  /** A seat's name as a column's head: a narrow column wraps "Ordinateur · facile" before the dot, never after it. */
  TT.colName = function (name) { return name.replace(/ · /g, " ·\u00a0"); };

  /** Seats in T19's order (points, then herds in stock, then presence), each with its rank (ties share one). */
  TT.ranking = function (end) {
    var key = function (s) { return [end.scores[s], end.stock[s], (end.presence || [])[s] || 0]; };
    var better = function (a, b) { for (var i = 0; i < 3; i++) if (a[i] !== b[i]) return b[i] - a[i]; return 0; };
    var order = end.scores.map(function (_, s) { return s; }).sort(function (a, b) { return better(key(a), key(b)) || a - b; });
    var out = [];
    order.forEach(function (s, i) {
      var rank = i && better(key(order[i - 1]), key(s)) === 0 ? out[i - 1].rank : i + 1;
      out.push({ seat: s, rank: rank });
    });
    return out;
  };

  /** A number as the page's language writes it: "4,5" in French and Italian, "4.5" in English. */
  TT.num = function (x) { return TB.lang === "en" ? String(x) : String(x).replace(".", ","); };
  /** "1 tile", "3 tiles": singular for one in every language (French "1 tuile", Italian "1 tessera"). */
  TT.tiles = function (n) { return n === 1 ? t("tile_1") : t("tiles_count", { n: n }); };

  /** A share of a land mass's points as the rules count it (T18): the sum, then rounded up. */
  function share(sum, shown) {
    var exact = Math.round(sum * 100) / 100;
    return exact === Math.ceil(sum) ? shown + " = " + TT.num(exact) : shown + " = " + TT.num(exact) + " → " + Math.ceil(sum);
  }
  /** A land mass that gives nobody a point (the main one, or one with no herd): hidden behind "show all". */
  function unscored(row) { return row.points.every(function (pts) { return !pts; }); }

  /** One land mass's arithmetic (T18): who is first and second, and how each share is counted. */
  TT.massLine = function (p, row, name) {
    var n = row.size, herds = row.herds, present = [];
    herds.forEach(function (h, s) { if (h) present.push(s); });
    var most = Math.max.apply(null, herds.concat([0]));
    var firsts = present.filter(function (s) { return herds[s] === most; });
    var rest = present.filter(function (s) { return herds[s] < most; });
    var next = Math.max.apply(null, rest.map(function (s) { return herds[s]; }).concat([0]));
    var seconds = firsts.length === 1 ? rest.filter(function (s) { return herds[s] === next; }) : [];
    var who = function (s) { return TT.seatName(p, s) + " (" + t("herds_n", { n: herds[s] }) + ")"; };
    var parts = [];
    if (!present.length) parts.push(t("nobody_scored"));
    else if (present.length === 1) parts.push(t("mass_alone", { who: who(firsts[0]), pts: n }));
    else if (firsts.length > 1) {
      firsts.forEach(function (s) { parts.push(t("mass_tied_first", { who: who(s), sum: share((n + n / 2) / firsts.length, "(" + n + " + " + n + "/2) / " + firsts.length) })); });
    } else {
      parts.push(t("mass_first", { who: who(firsts[0]), pts: n }));
      seconds.forEach(function (s) { parts.push(t("mass_second", { who: who(s), sum: share(n / 2 / seconds.length, seconds.length > 1 ? n + "/2 / " + seconds.length : n + "/2") })); });
    }
    return el("li", { class: "trias-mass-line" + (unscored(row) ? " trias-unscored" : ""), dataset: { mass: name } },
      el("b", { text: t(n === 1 ? "mass_head_1" : "mass_head", { mass: name, n: n }) + " " }), parts.join(" · "));
  };

  /**
   * The land masses nobody scores in stay reachable behind one button (they would push the
   * arithmetic below a 720p TV's fold): it says how many are hidden; the choice outlives re-renders.
   */
  function showAll(end, hidden, all) {
    if (!hidden) return null;
    var open = end.classList.contains("show-all");
    return el("p", { class: "trias-show-all" }, el("button", { type: "button", class: "btn btn-small", id: "masses-all", "aria-expanded": open ? "true" : "false",
      text: t(open ? "masses_scored_only" : "masses_all", { n: all, k: hidden }),
      onclick: function () {
        end.classList.toggle("show-all");
        var now = end.classList.contains("show-all");
        this.setAttribute("aria-expanded", now ? "true" : "false");
        this.textContent = t(now ? "masses_scored_only" : "masses_all", { n: all, k: hidden });
      } }));
  }

  /**
   * The end, result first: the winners, every seat's rank with its points (final + interim) and
   * the tie-break (T19); then the table (T18) as narrow as a 360 px phone, and each land mass's
   * arithmetic, its letter the one the board shows on it.
   */
  TT.renderEnd = function (panel, p, mySeat) {
    var end = p.end;
    panel.hidden = !end;
    document.body.classList.toggle("trias-over", !!end);
    if (!end) return;
    var n = p.seats.length, head = el("tr", {}, el("th", { text: "" }));
    for (var s = 0; s < n; s++) head.appendChild(el("th", { scope: "col", style: { "--c": TT.colour(s) }, title: TT.seatName(p, s) }, el("span", { class: "trias-cube-sm", dataset: { shape: TT.shape(s) } }), " ", el("span", { class: "trias-col-name", text: TT.colName(TT.seatName(p, s)) })));
    var finals = end.scores.map(function (_, seat) { return end.table.reduce(function (sum, row) { return sum + row.points[seat]; }, 0); });
    var rows = end.table.map(function (row, i) {
      var tr = el("tr", { class: unscored(row) ? "trias-unscored" : null },
        el("th", { scope: "row", title: row.tiles.join(" ") }, TT.massName(i) + " ", el("small", { class: "muted trias-mass-size", text: TT.tiles(row.size) })));
      row.points.forEach(function (pts, seat) { tr.appendChild(el("td", { text: pts ? pts + " (" + row.herds[seat] + ")" : "–" })); });
      return tr;
    });
    // The totals include the interim scorings of the game (T16): shown on their own line so the sums add up.
    var earlier = el("tr", {}, el("th", { scope: "row", text: t("interim_total") }));
    end.scores.forEach(function (pts, seat) { earlier.appendChild(el("td", { text: pts - finals[seat] ? String(pts - finals[seat]) : "–" })); });
    var total = el("tr", { class: "trias-total" }, el("th", { scope: "row", text: t("total") }));
    end.scores.forEach(function (pts) { total.appendChild(el("td", {}, el("b", { text: pts }))); });
    var names = end.winners.map(function (s) { return TT.seatName(p, s); }).join(", ");
    var best = Math.max.apply(null, end.scores), tiedOnPoints = end.scores.filter(function (x) { return x === best; }).length;
    var why = null;
    if (tiedOnPoints > 1 && end.winners.length < tiedOnPoints) {
      var stocks = end.scores.map(function (x, s) { return x === best ? end.stock[s] : -1; });
      var bestStock = Math.max.apply(null, stocks);
      why = stocks.filter(function (x) { return x === bestStock; }).length > end.winners.length ? t("tie_presence") : t("tie_stock");
    }
    var ranks = TT.ranking(end).map(function (r) {
      var s = r.seat, interim = end.scores[s] - finals[s];
      return el("li", { class: "trias-rank" + (s === mySeat ? " mine" : ""), style: { "--c": TT.colour(s) }, dataset: { seat: s, rank: r.rank } },
        el("span", { class: "trias-rank-n", text: r.rank + "." }), el("span", { class: "trias-cube-sm" }),
        el("span", { class: "trias-rank-name", text: TT.seatName(p, s) + (s === mySeat ? " (" + t("you") + ")" : "") }),
        el("b", { class: "trias-rank-pts", text: t("points", { n: end.scores[s] }) }),
        el("small", { class: "trias-rank-detail", text: t("rank_detail", { final: finals[s], interim: interim, stock: end.stock[s] }) }));
    });
    TB.fill(TB.$("#end", panel), [
      el("div", { id: "end-summary", class: "trias-end-summary" },
        el("p", { class: "trias-winner", text: t(end.winners.length > 1 ? "winners_many" : "winners", { names: names }) }),
        why ? el("p", { class: "trias-tie", text: why }) : null,
        el("ol", { class: "trias-ranks" }, ranks)),
      el("div", { class: "trias-end-detail" },
        el("div", { class: "trias-table-wrap" }, el("table", { class: "trias-final", style: { "--n": n } }, el("thead", {}, head), el("tbody", {}, rows, earlier, total)))),
      // The arithmetic: under the table on a phone, under the ranks on a wide screen (trias.css).
      el("div", { class: "trias-end-lines" },
        el("ul", { class: "trias-mass-lines" }, end.table.map(function (row, i) { return TT.massLine(p, row, TT.massName(i)); })),
        showAll(TB.$("#end", panel), end.table.filter(unscored).length, end.table.length),
        el("p", { class: "muted", text: t("points_herds") })),
    ]);
    if (!panel.dataset.shown) {  // the end just came (or the page opened on it): the result first
      panel.dataset.shown = "1";
      window.scrollTo(0, 0);
    }
  };

  /**
   * A row's news as a sentence, or null: interim scorings (T16), the final scoring, an undo.
   * An interim scoring is not spelt out as coordinates: its land mass is lit on the board with
   * each scorer's +2 / +1 (TT.lit, drawn by hexboard.js), and the sentence says who got what.
   */
  TT.news = function (row, p) {
    var out = [];
    (row.events || []).forEach(function (e) {
      if (e.type === "scored" && e.reason === "interim") {
        var got = e.points.map(function (pts, seat) { return pts ? TT.seatName(p, seat) + " +" + pts : null; }).filter(Boolean);
        out.push(t("interim_news", { list: got.length ? got.join(", ") : t("nobody_scored") }));
        lightMass(e);
      } else if (e.type === "drifted" && TT.lit) {
        TT.lit.stale = true;  // the land has changed shape since: the mark goes once it has been seen
      } else if (e.type === "game_over") {
        out.push(t("final_done"));
      } else if (e.type === "undone") {
        TT.lit = null;  // the scoring may be what was taken back
        out.push(t("undone"));
      }
    });
    var bot = /^computer:(\d+)$/.exec(row.actor || "");
    // A computer seat whose bot failed played a legal move at random: the table is told, never left waiting.
    if (bot && row.command && row.command.fallback) out.push(t("computer_fallback", { name: TT.seatName(p, +bot[1]) }));
    if (TT.lit && TT.lit.stale && Date.now() - TT.lit.at >= LIT_MS) TT.lit = null;
    return out.length ? out.join(" · ") : null;
  };

  // The scored land mass stays lit at least this long, then until the next drift changes the land.
  var LIT_MS = 12000;
  TT.lit = null;
  function lightMass(e) {
    var lit = TT.lit = { tiles: e.tiles, points: e.points, at: Date.now(), stale: false };
    clearTimeout(TT._litTimer);
    TT._litTimer = setTimeout(function () {
      if (TT.lit !== lit || !lit.stale) return;
      TT.lit = null;
      if (handlers.state && TT.current) handlers.state(TT.current);
    }, LIT_MS);
  }

  /** Show a news line on the page for a while (every screen gets the same rows). */
  TT.announce = function (text) {
    var box = TB.$("#announce");
    if (!box || !text) return;
    box.textContent = text;
    box.classList.remove("hidden");
    clearTimeout(TT._announceTimer);
    TT._announceTimer = setTimeout(function () { box.classList.add("hidden"); }, 12000);
  };

  /**
   * The plain list of legal moves as buttons (playable without precise taps). preview(cmd or null):
   * a button pointed at or focused lights up its places on the board, and stops when left.
   */
  TT.renderMoves = function (node, legal, send, preview) {
    if (!node) return;
    var order = { end_turn: 1, draw: 2, play: 3, place: 4, reproduce: 5, move: 6, drift: 7, rescue: 8 };
    var list = legal.slice().sort(function (a, b) { return (order[a.type] || 9) - (order[b.type] || 9); });
    var show = function (cmd) { return function () { if (preview) preview(cmd); }; };
    TB.fill(node, list.map(function (cmd) {
      return el("button", { type: "button", class: "btn trias-move" + (cmd.type === "end_turn" ? " btn-primary" : ""), dataset: { type: cmd.type },
        onclick: function () { send(cmd); }, onmouseenter: show(cmd), onfocus: show(cmd), onmouseleave: show(null), onblur: show(null) },
        TT.describe(cmd, TT.current && TT.current.view.phase === "actions"));
    }));
  };
})();
