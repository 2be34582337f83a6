/* The Trias board as SVG: pointy-top hexes in axial coordinates (Red Blob Games' layout), the
 * South Pole at the centre. Every place carries its coordinates (how moves and the log name it;
 * the board page shows them on the mirror tablet or on demand, trias.css),
 * tiles their capacity (T2), places of water their distance from the pole (T4) and the ring
 * edges are drawn, herds are coloured cubes with their count, swimmers float on water. Every
 * place is tappable; the page decides what a tap means.
 */
(function () {
  "use strict";
  var TB = window.TB, TT = window.TT, S = 10, R3 = Math.sqrt(3);
  var FILL = { mountain: "#a08f7b", steppe: "#ecd9a0", woods: "#5f9a48", pole: "#f4f8fb" };
  var CAP = { mountain: 2, steppe: 3, woods: 4, pole: 3 };
  var DIRS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
  var PX_PER_UNIT = 3.6;  // a phone's wide board: a hex 62 px across, its coordinates 12 px high

  function dist(q, r) { return (Math.abs(q) + Math.abs(r) + Math.abs(q + r)) / 2; }
  function centre(q, r) { return [S * R3 * (q + r / 2), S * 1.5 * r]; }
  function corner(c, k, scale) {
    var a = Math.PI / 180 * (60 * k - 30), s = S * (scale || 1);
    return [c[0] + s * Math.cos(a), c[1] + s * Math.sin(a)];
  }
  function points(c, scale) {
    var out = [];
    for (var k = 0; k < 6; k++) out.push(corner(c, k, scale).map(function (x) { return x.toFixed(2); }).join(","));
    return out.join(" ");
  }
  // The edge shared with the neighbour in direction i (DIRS order) lies between these two corners.
  var EDGE = [[0, 1], [5, 0], [4, 5], [3, 4], [2, 3], [1, 2]];

  /**
   * new TT.HexBoard(svg, onTap(place)); .render(payload, marks{selected, targets, soft, pending, kind, room, last}):
   * kind ("herd" or "drift", taps.js) colours the targets and the pending place by the kind of move;
   * room: places the view keeps room for, so the board does not jump when a tap lights places farther out;
   * last: the board's last change to mark (default the payload's `last`; null: none).
   */
  TT.HexBoard = function (svg, onTap) {
    this.svg = svg;
    svg.addEventListener("click", function (event) {
      var g = event.target.closest ? event.target.closest("[data-place]") : null;
      if (g) onTap(g.dataset.place.split(",").map(Number));
    });
  };

  TT.HexBoard.prototype.render = function (p, marks) {
    marks = marks || {};
    var lit = marks.lit !== undefined ? marks.lit : TT.lit;  // the last interim scoring's land mass (common.js)
    var last = marks.last !== undefined ? marks.last : p.last;  // the board's last change (payloads.py last_action)
    var lastPlaces = lastMoveOf(last);
    var v = p.view, svg = this.svg, tiles = {}, herds = {}, radius = 3;
    v.tiles.forEach(function (t) { tiles[t[0] + "," + t[1]] = t[2]; radius = Math.max(radius, dist(t[0], t[1])); });
    v.herds.forEach(function (h) { herds[h[0] + "," + h[1]] = h[2]; radius = Math.max(radius, dist(h[0], h[1])); });
    (marks.targets || []).concat(marks.room || [], lastPlaces.all).forEach(function (k) { var qr = k.split(",").map(Number); radius = Math.max(radius, dist(qr[0], qr[1])); });
    radius += 1;  // a ring of water round the land: where tiles may drift (T4: the board is unbounded)
    // Only the water next to land (or lit up) is drawn, and the view is cropped to it, so the
    // hexes are as big as the screen allows (a 360 px phone).
    var shown = {};
    Object.keys(tiles).concat(Object.keys(herds)).forEach(function (k) {
      var qr = k.split(",").map(Number);
      shown[k] = true;
      DIRS.forEach(function (d) { shown[(qr[0] + d[0]) + "," + (qr[1] + d[1])] = true; });
    });
    (marks.targets || []).concat(marks.soft || [], marks.pending || [], marks.room || [], lastPlaces.all).forEach(function (k) { shown[k] = true; });
    var box = [Infinity, Infinity, -Infinity, -Infinity];
    Object.keys(shown).forEach(function (k) {
      var qr = k.split(",").map(Number), c = centre(qr[0], qr[1]);
      box = [Math.min(box[0], c[0] - S * R3 / 2), Math.min(box[1], c[1] - S), Math.max(box[2], c[0] + S * R3 / 2), Math.max(box[3], c[1] + S)];
    });
    // Wider than 8 hexes: on a phone the board pans inside its box (trias.css) rather than shrinking.
    var wasWide = svg.classList.contains("wide"), wide = box[2] - box[0] > 8 * S * R3;
    svg.classList.toggle("wide", wide);
    // On a phone a wide board keeps hexes about 60 px across, however far tiles have drifted, so
    // each place's coordinates stay readable (trias.css uses this width below 600 px only).
    svg.style.setProperty("--board-w", Math.round((box[2] - box[0]) * PX_PER_UNIT) + "px");
    // A seat's phone fits the board to its width and zooms on demand (seat_board.js owns the hint and the panning).
    var zoomable = svg.dataset.zoomable === "1";
    var panHint = document.getElementById("pan-hint");
    if (panHint && !zoomable) panHint.hidden = !wide;  // trias.css shows it on a phone only, where the board pans
    if (wide && !wasWide && svg.parentNode && !zoomable) {
      var wrap = svg.parentNode;
      setTimeout(function () { wrap.scrollLeft = (wrap.scrollWidth - wrap.clientWidth) / 2; }, 0);
    }
    svg.setAttribute("viewBox", [box[0] - 1, box[1] - 1, box[2] - box[0] + 2, box[3] - box[1] + 2].map(function (x) { return x.toFixed(1); }).join(" "));
    var layers = { water: [], rings: [], land: [], marks: [], herds: [] };
    // Tiles and water change only with a drift or a herd swimming somewhere new: that layer is
    // kept between pictures, and only the herds and the highlights are drawn again.
    var sig = radius + "|" + Object.keys(shown).sort().join(";") + "|" + JSON.stringify(v.tiles) + "|" + TB.lang;
    var rebuild = this.baseSig !== sig;
    var targets = {}, soft = {}, pending = {}, markKind = marks.kind ? " mark-" + marks.kind : "";
    (marks.pending || []).forEach(function (k) { pending[k] = true; });
    (marks.targets || []).forEach(function (k) { targets[k] = true; });
    (marks.soft || []).forEach(function (k) { soft[k] = true; });
    for (var q = -radius; q <= radius; q++) {
      for (var r = Math.max(-radius, -q - radius); r <= Math.min(radius, -q + radius); r++) {
        var key = q + "," + r, c = centre(q, r), kind = tiles[key], d = dist(q, r);
        if (!shown[key]) continue;
        if (rebuild) this.drawPlace(layers, key, q, r, c, kind, d, radius);
        // A place both chosen and a target (a birth on the selected tile, T12) gets both marks.
        if (targets[key] || soft[key]) {
          layers.marks.push(TB.svg("polygon", { points: points(c, 0.86), class: targets[key] ? "mark-target" + markKind : "mark-soft", "data-place": key }));
        }
        if (pending[key]) layers.marks.push(TB.svg("polygon", { points: points(c, 0.7), class: "mark-pending" + markKind, "data-place": key }));
        if (marks.selected === key) layers.marks.push(TB.svg("polygon", { points: points(c, 0.86), class: "mark-selected", "data-place": key }));
        if (herds[key]) layers.herds.push(cubes(herds[key], c, !kind, key));
      }
    }
    if (rebuild) {
      this.base = TB.svg("g", { class: "base" }, layers.water, layers.land, layers.rings);
      this.baseSig = sig;
    }
    // Under the herds, like the other marks: the outlines keep to a hex's rim; the arrows run from rim to rim,
    // and the numbers and signs of the tiles they cross are drawn again over them, never hidden.
    var fresh = last && this.lastSeq !== last.seq, lastShown = lastMark(last, lastPlaces, fresh, this.base);
    this.lastSeq = last ? last.seq : null;
    TB.fill(svg, [hatch(), this.base].concat(litMass(lit), lastShown.slice(0, 1), layers.marks, lastShown.slice(1), layers.herds,
      massLetters(p), litPoints(lit, p)));
    this.measure();
  };

  /**
   * The board's scale as a CSS variable: --px is how many of the board's units make one pixel of
   * the screen, so trias.css can size its texts in screen pixels however far tiles have drifted
   * (a TV read from 3 m). Measured after each picture and whenever the board's box changes size: the
   * page around it changes after the picture too (the turn line, the last move's words, the end panel,
   * the live badge turning "offline"), and a scale measured before left the board's numbers at 21 px
   * on a 720p TV.
   */
  TT.HexBoard.prototype.measure = function () {
    var svg = this.svg, box = svg.viewBox && svg.viewBox.baseVal, width = svg.getBoundingClientRect().width;
    if (!box || !box.width || !width) return;
    var scale = Math.min(width, svg.getBoundingClientRect().height * box.width / box.height) / box.width;
    svg.style.setProperty("--px", (1 / scale).toFixed(4));
    if (!this.watching) {
      this.watching = true;
      var self = this;
      if (window.ResizeObserver) new window.ResizeObserver(function () { self.measure(); }).observe(svg);
      else window.addEventListener("resize", function () { self.measure(); });
    }
  };

  /**
   * The places of the board's last change (payloads.py last_action's command): where each piece came
   * from and went to (a drift's tile, a herd's step, each swimmer rescued) and where herds were put or
   * born, as "q,r" keys.
   */
  function lastMoveOf(last) {
    var out = { pairs: [], to: [], from: [], all: [] };
    if (!last || !last.command) return out;
    var cmd = last.command, k = TT.key;
    if (cmd.at) out.to.push(k(cmd.at));
    if (cmd.tile) out.pairs.push([k(cmd.tile), k(cmd.to)]);
    if (cmd.from) out.pairs.push([k(cmd.from), k(cmd.to)]);
    (cmd.herds || []).forEach(function (h) { out.pairs.push([k(h[0]), k(h[1])]); });
    out.pairs.forEach(function (pair) {
      if (out.from.indexOf(pair[0]) < 0) out.from.push(pair[0]);
      if (out.to.indexOf(pair[1]) < 0) out.to.push(pair[1]);
    });
    out.from = out.from.filter(function (key) { return out.to.indexOf(key) < 0; });
    out.all = out.from.concat(out.to);
    return out;
  }

  /**
   * The board's last change marked by shape as well as colour (trias.css .last-move): where a piece went
   * (or herds were put or born) outlined in a thick line, where it came from in a dashed one, and an
   * arrow between them; each line dark purple on a white halo, so it stands out at more than 3:1 from
   * the light-blue sea and from every landscape (WCAG's non-text contrast). `fresh`: a change not drawn
   * before, which pulses once (not with reduced motion). Two groups: the outlines, then the arrows.
   */
  function lastMark(last, places, fresh, base) {
    if (!places.all.length) return [];
    var halo = [], line = [], arrows = [], crossed = {};
    var hex = function (key, cls) {
      var qr = key.split(",").map(Number), pts = points(centre(qr[0], qr[1]), 0.94);
      halo.push(TB.svg("polygon", { points: pts, class: "last-halo" }));
      line.push(TB.svg("polygon", { points: pts, class: cls, "data-place": key }));
    };
    places.from.forEach(function (key) { hex(key, "last-from"); });
    places.to.forEach(function (key) { hex(key, "last-to"); });
    places.pairs.forEach(function (pair) {
      var a = pair[0].split(",").map(Number), b = pair[1].split(",").map(Number);
      var ca = centre(a[0], a[1]), cb = centre(b[0], b[1]), dx = cb[0] - ca[0], dy = cb[1] - ca[1], d = Math.hypot(dx, dy);
      if (!d) return;
      // From the rim of the place left to the rim of the place reached (a step: across their shared edge),
      // clear of the herds in the middles. A tile's capacity and sign sit on its lower-left and lower-right
      // axes, reaching its edge: a slanting step crosses its edge off the middle, on the side away from them.
      var ux = dx / d, uy = dy / d, off = Math.min(6, d * 0.35), head = 3;
      var side = Math.abs(d - S * R3) < 0.1 && Math.abs(uy) > 0.1 ? (ux > 0 ? 3.2 : -3.2) : 0, sx = -uy * side, sy = ux * side;
      var x1 = ca[0] + ux * off + sx, y1 = ca[1] + uy * off + sy, x2 = cb[0] - ux * off + sx, y2 = cb[1] - uy * off + sy;
      var bx = x2 - ux * head, by = y2 - uy * head;
      var shaft = "M" + x1.toFixed(2) + " " + y1.toFixed(2) + "L" + bx.toFixed(2) + " " + by.toFixed(2);
      var tip = [[x2, y2], [bx - uy * head * 0.7, by + ux * head * 0.7], [bx + uy * head * 0.7, by - ux * head * 0.7]]
        .map(function (q) { return q[0].toFixed(2) + "," + q[1].toFixed(2); }).join(" ");
      arrows.push(TB.svg("path", { d: shaft, class: "last-halo" }), TB.svg("polygon", { points: tip, class: "last-halo" }),
        TB.svg("path", { d: shaft, class: "last-path" }), TB.svg("polygon", { points: tip, class: "last-head" }));
      for (var t = 0; t <= 1.0001; t += 0.5 / Math.max(1, d)) crossed[hexAt(x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)] = true;
    });
    // The tiles' capacities and signs under an arrow, drawn again over it (a copy of the kept layer's).
    var badges = [];
    Object.keys(crossed).forEach(function (key) {
      var g = base && base.querySelector('[data-place="' + key + '"]');
      if (g) g.querySelectorAll("circle, .cap, .glyph, .glyph-line, .pole-mark").forEach(function (n) { badges.push(n.cloneNode(true)); });
    });
    var group = function (cls, children) {
      return TB.svg("g", { class: cls + (fresh ? " last-new" : ""), "data-seq": last.seq, "data-seat": last.seat, "data-type": last.command.type,
        "aria-hidden": "true" }, children);
    };
    return [group("last-move", halo.concat(line)), group("last-move last-arrows", arrows),
      TB.svg("g", { class: "last-badges", "aria-hidden": "true" }, badges)];
  }

  /** The place whose hex holds the point (x, y) of the board, as its "q,r" key (axial rounding). */
  function hexAt(x, y) {
    var q = (x * R3 / 3 - y / 3) / S, r = (y * 2 / 3) / S, s = -q - r;
    var rq = Math.round(q), rr = Math.round(r), rs = Math.round(s);
    var dq = Math.abs(rq - q), dr = Math.abs(rr - r), ds = Math.abs(rs - s);
    if (dq > dr && dq > ds) rq = -rr - rs; else if (dr > ds) rr = -rq - rs;
    return rq + "," + rr;
  }

  /** A land mass's letter, as the final table names it (A, B, ... in the table's order). */
  TT.massName = function (i) { return String.fromCharCode(65 + i % 26) + (i >= 26 ? Math.floor(i / 26) : ""); };

  /** At the end, each scored land mass's letter on its tile nearest the mass's middle (T18). */
  function massLetters(p) {
    if (!p.end || !p.end.table) return [];
    return p.end.table.map(function (row, i) {
      var mid = middleTile(row.tiles), c = mid.c, name = TT.massName(i);
      return TB.svg("g", { class: "mass-letter", "data-mass": name, "data-place": mid.key },
        TB.svg("circle", { cx: c[0].toFixed(2), cy: (c[1] - 4.6).toFixed(2), r: 4.4 }),
        TB.svg("text", { x: c[0].toFixed(2), y: (c[1] - 2.6).toFixed(2) }, name));
    });
  }

  /** The tile of `tiles` ("q,r" labels) nearest their middle, as [q, r] and its centre. */
  function middleTile(tiles) {
    var cs = tiles.map(function (k) { var qr = String(k).split(",").map(Number); return centre(qr[0], qr[1]); });
    var mid = cs.reduce(function (a, c) { return [a[0] + c[0] / cs.length, a[1] + c[1] / cs.length]; }, [0, 0]);
    var best = 0;
    cs.forEach(function (c, j) { if (Math.hypot(c[0] - mid[0], c[1] - mid[1]) < Math.hypot(cs[best][0] - mid[0], cs[best][1] - mid[1])) best = j; });
    return { key: String(tiles[best]), c: cs[best] };
  }

  /**
   * An interim scoring (T16) lit on the board: every tile of the scored land mass outlined
   * (lit: {tiles: ["q,r", ...], points: [per seat]}), under the herds so they stay readable.
   */
  function litMass(lit) {
    if (!lit || !lit.tiles) return [];
    return lit.tiles.map(function (k) {
      var qr = String(k).split(",").map(Number);
      return TB.svg("polygon", { points: points(centre(qr[0], qr[1]), 0.93), class: "mass-lit", "data-lit": String(k) });
    });
  }

  /** ... and each scorer's "+2" / "+1" in the seat's colour on the mass's middle tile, above the herds. */
  function litPoints(lit, p) {
    if (!lit || !lit.tiles || !lit.tiles.length) return [];
    var got = [];
    (lit.points || []).forEach(function (pts, seat) { if (pts) got.push([seat, pts]); });
    var mid = middleTile(lit.tiles), w = 10, gap = 0.8, x0 = mid.c[0] - (got.length * w + (got.length - 1) * gap) / 2;
    return [TB.svg("g", { class: "mass-points", "data-place": mid.key }, got.map(function (item, i) {
      var colour = TT.colour(item[0]), x = x0 + i * (w + gap), y = mid.c[1] - 9.6;
      return TB.svg("g", { class: "mass-point", "data-seat": item[0], "data-points": item[1] },
        TB.svg("rect", { x: x.toFixed(2), y: y.toFixed(2), width: w, height: 7.2, rx: 1.6, fill: colour }),
        TB.svg("text", { x: (x + w / 2).toFixed(2), y: (y + 5.6).toFixed(2), fill: TB.ink(colour) }, "+" + item[1]),
        TB.svg("title", {}, TT.seatName(p, item[0]) + " +" + item[1]));
    }))];
  }

  /**
   * One place of the kept layer: the hex with its name on top (the coordinates the moves, the log and
   * the printed set-up map use), a tile's capacity (bottom left) and landscape sign (bottom right),
   * or water's distance from the pole.
   */
  TT.HexBoard.prototype.drawPlace = function (layers, key, q, r, c, kind, d, radius) {
    var g = TB.svg("g", { "data-place": key, class: "hex" + (kind ? " tile tile-" + kind : " water") });
    g.appendChild(TB.svg("polygon", { points: points(c, 0.97), fill: kind ? FILL[kind] : "#cfe6f5", stroke: kind ? "#5b5245" : "#a9cde6", "stroke-width": kind ? 0.6 : 0.3 }));
    g.appendChild(TB.svg("text", { x: c[0], y: (c[1] - 4.4).toFixed(2), class: "label" }, key));
    if (kind) {
      var x = c[0] - 3.2, y = c[1] + 5.4;
      g.appendChild(TB.svg("circle", { cx: x.toFixed(2), cy: y.toFixed(2), r: 2.3, fill: "#fff", stroke: "#5b5245", "stroke-width": 0.3 }));
      g.appendChild(TB.svg("text", { x: x.toFixed(2), y: (y + 1.1).toFixed(2), class: "cap" }, String(CAP[kind])));
      if (kind === "pole") g.appendChild(TB.svg("text", { x: c[0] + 3.2, y: (y + 1.4).toFixed(2), class: "pole-mark" }, "S"));
      else g.appendChild(glyph(kind, [c[0] + 3.2, c[1] - 0.8]));
    } else {
      g.appendChild(TB.svg("text", { x: c[0], y: (c[1] + 1.6).toFixed(2), class: "dist" }, String(d)));
    }
    g.appendChild(TB.svg("title", {}, TT.placeWords(key, kind)));  // a pointer's tooltip, in words as the TV names places
    (kind ? layers.land : layers.water).push(g);
    ringEdges(q, r, d, radius, layers.rings);
  };

  /**
   * The fill of a place a tile may drift to (trias.css .mark-drift): dark blue stripes, which stand
   * out from the light-blue sea by more than 3:1 (WCAG's non-text contrast; a tint of blue cannot
   * while staying light), thin enough that the place's distance from the pole shows between them.
   */
  function hatch() {
    return TB.svg("defs", {}, TB.svg("pattern", { id: "drift-hatch", width: 2.8, height: 2.8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      TB.svg("rect", { width: 2.8, height: 2.8, fill: "#ffffff", "fill-opacity": 0.3 }),
      TB.svg("rect", { width: 0.75, height: 2.8, fill: "#0b3d91" })));
  }

  /** Ring edges between distance d and d+1, so "farther from the pole" (T10) can be read off. */
  function ringEdges(q, r, d, radius, out) {
    if (d >= radius - 1) return;
    var c = centre(q, r);
    DIRS.forEach(function (dir, i) {
      if (dist(q + dir[0], r + dir[1]) !== d + 1) return;
      var a = corner(c, EDGE[i][0]), b = corner(c, EDGE[i][1]);
      out.push(TB.svg("line", { x1: a[0].toFixed(2), y1: a[1].toFixed(2), x2: b[0].toFixed(2), y2: b[1].toFixed(2), class: "ring" }));
    });
  }

  /** A small sign of the landscape, so it reads without colour too. */
  function glyph(kind, c) {
    var x = c[0], y = c[1] + 6.2;
    if (kind === "mountain") return TB.svg("polygon", { points: [x - 2, y + 1.2, x, y - 2, x + 2, y + 1.2].join(" "), class: "glyph" });
    if (kind === "woods") return TB.svg("circle", { cx: x, cy: y - 0.4, r: 1.5, class: "glyph" });
    return TB.svg("path", { d: "M" + (x - 2.2) + " " + (y - 1) + "h4.4M" + (x - 2.2) + " " + (y + 0.6) + "h4.4", class: "glyph-line" });
  }

  /**
   * Each seat's herds on one place as a cube with its count; swimmers get a wave under them. The
   * group's tap target is its whole hex (a transparent hexagon under the cubes), not the cubes
   * alone: a finger meant for a herd lands on it anywhere on its place. One or two seats'
   * cubes are drawn bigger, so the count reads on a phone.
   */
  function cubes(counts, c, swimming, key) {
    var g = TB.svg("g", { class: "herds" + (swimming ? " swimmers" : ""), "data-place": key });
    g.appendChild(TB.svg("polygon", { points: points(c, 0.97), class: "herd-hit", fill: "transparent" }));
    var present = [];
    counts.forEach(function (n, seat) { if (n) present.push([seat, n]); });
    var big = present.length <= 2, size = big ? 6.2 : 4.8, gap = 0.6, perRow = present.length > 3 ? 3 : present.length;
    present.forEach(function (item, i) {
      var row = Math.floor(i / 3), col = i % 3, inRow = row ? present.length - 3 : perRow;
      var x = c[0] - (inRow * size + (inRow - 1) * gap) / 2 + col * (size + gap), y = c[1] - (big ? 3.4 : 2.2) + row * (size + gap);
      var colour = TT.colour(item[0]), mark = TT.herdMark(item[0], x, y, size);
      g.appendChild(mark[0]);
      g.appendChild(TB.svg("text", { x: (x + size / 2).toFixed(2), y: mark[1].toFixed(2), class: "count" + (big ? " count-big" : ""), fill: TB.ink(colour) }, String(item[1])));
    });
    if (swimming) g.appendChild(TB.svg("path", { d: "M" + (c[0] - 6) + " " + (c[1] + 5.5) + " q1.5 -1.5 3 0 t3 0 t3 0 t3 0", class: "wave" }));
    return g;
  }
})();
