/* The big screen: standings, tracks, events, cooldowns, the clock, a reputation curve, the last
 * bookings (board_feed.js) and the winner. No login: it joins the "display" room and redraws on
 * every `public` message. No line is cut at any moment (tests/web/field/test_browser_tv.py,
 * tests/web/field/test_tv_any_moment.py): display_fit.js lays the screen out from what
 * there is to show, in turns (events, cooldowns), the newest first (bookings), never half.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  var pub = null, memory = W.cooldownMemory();
  var history = []; // [{x: game seconds, rep: {team: points}}]: the journal's history, then each message

  function render() {
    if (!pub) return;
    var board = pub.board;
    TB.$("#game-title").textContent = W.config.title;
    TB.$("#rate").textContent = W.rateText(board);
    W.rateFlash(TB.$("#rate"), board);
    W.standings(TB.$("#standings"), pub.standings, board, { animals: true, compact: true });
    W.tracks(TB.$("#tracks"), board);
    W.unlockNote(TB.$("#unlock-note"), board);
    TB.$("#unlock-note").classList.toggle("hidden", !board.animals_unlocked); // until then the legend frames the level
    legend(TB.$("#bonus-legend"), board);
    W.winner(TB.$("#winner"), board, { standings: pub.standings });
    W.feed(TB.$("#feed"), pub.feed);
    tick(true);
  }

  /** Every second: the clock, event deadlines and cooldowns count down locally between messages, and
   * the screen is laid out again from what it shows if that changed (display_fit.js); `fresh`: after a
   * new picture, always. */
  function tick(fresh) {
    if (!pub) return;
    var c = pub.board.clock;
    TB.$("#clock").textContent = W.gameTime(TB.clock.elapsed(), pub.board) + " / " + W.gameTime(c.duration, pub.board);
    var left = W.timeLeftText(pub.board);
    figures(TB.$("#time-left"), t("session_n", { n: Math.max(1, c.session), of: c.sessions }) + (left ? " \u00b7 " + left : ""));
    var paused = TB.$("#paused");
    paused.classList.toggle("hidden", c.status === "running");
    paused.textContent = c.status === "running" ? "" : W.statusText(pub.board); // a break between sessions is not a pause
    W.events(TB.$("#events"), pub.board, { rewards: true, results: true });
    // No event open and no recent result: the panel goes and the curve has its room back.
    TB.$("#events-panel").classList.toggle("hidden", !TB.$("#events .event"));
    document.body.classList.toggle("has-event", !!TB.$("#events .event"));
    W.cooldowns(TB.$("#cooldowns"), null, memory);
    W.fitScreen(fresh === true);
    if (chartKey !== chartSize()) drawChart(); // the events panel came or went, the type shrank
  }

  /** The time line with its figures ("1:29:54") in big type: after the scores, the largest on the
   * screen: read from across the room, it must not be smaller than the teams' names. */
  function figures(node, text) {
    if (node.dataset.text === text) return;
    node.dataset.text = text;
    TB.fill(node, text.split(/(\d+:\d\d(?::\d\d)?)/).map(function (part, i) {
      return i % 2 ? el("b", { class: "tl-fig", text: part }) : part;
    }));
  }

  function remember(p) {
    var rep = {};
    p.standings.forEach(function (row) { rep[row.team] = row.reputation; });
    var last = history[history.length - 1];
    if (last && JSON.stringify(last.rep) === JSON.stringify(rep)) return;
    // The curve steps: the old value holds until the moment of the change.
    if (last) history.push({ x: p.board.clock.elapsed, rep: last.rep });
    history.push({ x: p.board.clock.elapsed, rep: rep });
    if (history.length > 2000) history = history.slice(-2000);
  }

  /** What the icons on the tracks mean: each kind of bonus once, in the order the tracks show them. */
  function legend(node, board) {
    var kinds = [];
    Object.keys(W.config.tracks).forEach(function (id) {
      var icons = W.config.tracks[id].icons || {};
      Object.keys(icons).forEach(function (level) {
        Object.keys(icons[level]).forEach(function (kind) { if (kinds.indexOf(kind) < 0) kinds.push(kind); });
      });
    });
    var sample = {};
    TB.fill(node, [el("span", { text: t("legend_title") })].concat(kinds.map(function (kind) {
      sample = {};
      sample[kind] = 1;
      return el("span", { class: "legend-item", dataset: { kind: kind } }, W.icon(sample),
        kind === "dice" ? t("legend_dice") : W.resLabel(kind));
    }), board.animals_unlocked ? [] : [el("span", { class: "legend-item" }, el("span", { class: "unlock-sample" }),
      t("legend_unlock", { level: W.config.animal_unlock_level }))]));
  }

  /** A name short enough for the end of a chart line (W.teamShort: never an emoji cut in half). */
  function shortName(team) {
    return W.teamShort(team);
  }

  /**
   * Reputation over game time, one line per team in its colour, each labelled with the team's
   * name and points at its end. Lines on the same value are drawn side by side (a few pixels
   * apart), and their labels pushed apart, so teams tied at 0 stay visible.
   */
  var chartKey = "";

  /** The curve's box and the type's size: the curve is drawn again when either changes. */
  function chartSize() {
    var svg = TB.$("#chart");
    return svg.clientWidth + "x" + svg.clientHeight + "/" + getComputedStyle(document.documentElement).fontSize;
  }

  function drawChart() {
    var svg = TB.$("#chart");
    var w = svg.clientWidth || 800, h = svg.clientHeight || 220;
    chartKey = chartSize();
    var rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!history.length) return;
    // From the game's start, whenever the page was loaded: after a reload at the end the curve began
    // at the first score (0:02:54); everyone is at 0 until then.
    var teams = W.teams(), now = TB.clock.elapsed(), x0 = 0, x1 = Math.max(now, x0 + 60);
    if (!teams.length) return;
    var last = history[history.length - 1].rep;
    // The labels first, to know how much room their longest needs on the right.
    var labels = teams.map(function (team) {
      var node = TB.svg("text", { class: "line-label", fill: W.teamColour(team) },
        shortName(team) + " " + (last[team] || 0));
      node.setAttribute("data-team", team);
      svg.appendChild(node);
      return { team: team, node: node, width: node.getComputedTextLength ? node.getComputedTextLength() : 8 * rem };
    });
    var widest = Math.max.apply(null, labels.map(function (l) { return l.width; }));
    var max = 10;
    history.forEach(function (s) { teams.forEach(function (team) { max = Math.max(max, s.rep[team] || 0); }); });
    max = Math.ceil(max / 10) * 10;
    // The axis's figures first, to know the room the widest needs on the left ("130" passed the edge).
    var values = [0, max / 2, max].map(function (v) {
      var node = svg.appendChild(TB.svg("text", { "text-anchor": "end" }, String(v)));
      return { v: v, node: node, width: node.getComputedTextLength ? node.getComputedTextLength() : 3 * rem };
    });
    var left = Math.max(4.5 * rem, 1.2 * rem + Math.max.apply(null, values.map(function (a) { return a.width; })));
    var right = widest + 1.2 * rem, top = 1.4 * rem, bottom = 3 * rem;
    if (w - left - right < 10 * rem) right = Math.max(2 * rem, w - left - 10 * rem); // a narrow chart: labels may overlap the end
    var sx = function (x) { return left + ((x - x0) / (x1 - x0)) * (w - left - right); };
    var sy = function (y) { return top + (1 - y / max) * (h - top - bottom); };
    values.forEach(function (a) {
      svg.insertBefore(TB.svg("line", { class: "axis", x1: left, x2: w - right, y1: sy(a.v), y2: sy(a.v) }), svg.firstChild);
      a.node.setAttribute("x", left - 0.6 * rem);
      a.node.setAttribute("y", sy(a.v) + 0.8 * rem);
    });
    svg.appendChild(TB.svg("text", { x: left, y: h - 0.55 * rem }, W.gameTime(x0, pub.board)));
    svg.appendChild(TB.svg("text", { x: w - right, y: h - 0.55 * rem, "text-anchor": "end" }, W.gameTime(x1, pub.board)));
    var stroke = Math.max(3, 0.45 * rem);
    teams.forEach(function (team, i) {
      var shift = (i - (teams.length - 1) / 2) * stroke; // equal values: side by side, not on top of each other
      // Steps, not slopes: a score holds until the next one changes it, at the moment it changes (a slope
      // from 0:00 to a first score at 0:57 read as points earned all along the way).
      var points = [], held = null, at = function (x, v) { points.push(sx(x).toFixed(1) + "," + (sy(v) + shift).toFixed(1)); };
      if (history[0].x > x0) { at(x0, 0); held = 0; } // at 0 until the first score
      history.forEach(function (s) {
        var v = s.rep[team] || 0;
        if (held !== null && v !== held) at(s.x, held);
        at(s.x, v);
        held = v;
      });
      at(now, last[team] || 0);
      svg.insertBefore(TB.svg("polyline", { points: points.join(" "), fill: "none", stroke: W.teamColour(team), "stroke-width": stroke,
        "stroke-linejoin": "round", "stroke-linecap": "round", "data-team": team }), labels[0].node);
    });
    // Labels at the lines' ends, highest first, pushed apart so none covers another.
    var gap = 2.35 * rem, order = labels.slice().sort(function (a, b) { return (last[b.team] || 0) - (last[a.team] || 0); });
    var y = -Infinity;
    order.forEach(function (l) {
      y = Math.max(sy(last[l.team] || 0) + 0.8 * rem, y + gap);
      l.y = y;
    });
    // The lowest label's baseline stays just above the zero line: the labels above it move up as far as
    // they must, no further. Lower, early in a game (short lines, labels at the left), teams tied at 0
    // covered the time under the axis. The highest stays inside the curve's box (a short curve, upright
    // screen: "Coopérative… 121" passed its top when the whole column moved up).
    var limit = sy(0) - 0.3 * rem;
    if (order.length > 1) gap = Math.max(1.95 * rem, Math.min(gap, (limit - 2 * rem) / (order.length - 1))); // closer on a short curve
    order.slice().reverse().forEach(function (l) { l.y = Math.min(l.y, limit); limit = l.y - gap; });
    y = -Infinity;
    order.forEach(function (l) { y = Math.max(l.y, y + gap, 2 * rem); l.y = y; });
    order.forEach(function (l) {
      l.node.setAttribute("x", sx(now) + 0.6 * rem);
      l.node.setAttribute("y", l.y);
    });
    if (now - x0 < 60) hint(svg, t("chart_empty"), { left: left, right: w - right, top: top, bottom: h - bottom, labels: order, rem: rem });
  }

  /** "The curve grows as the game goes on", where it covers nothing: above the names at the lines'
   * ends if there is room, else beside them in as many lines as it takes, else not at all:
   * never over the team labels, as at the start of a game. */
  function hint(svg, text, room) {
    var rem = room.rem, node = TB.svg("text", { class: "chart-hint", "text-anchor": "start" }, text);
    svg.appendChild(node);
    var line = 2.6 * rem, width = node.getComputedTextLength();
    var labelsTop = Math.min.apply(null, room.labels.map(function (l) { return l.node.getBBox().y; }));
    var labelsRight = Math.max.apply(null, room.labels.map(function (l) { var b = l.node.getBBox(); return b.x + b.width; }));
    if (labelsTop - room.top >= line + 0.4 * rem && room.left + width <= room.right) {
      node.setAttribute("x", room.left);
      node.setAttribute("y", room.top + 0.4 * rem + line * 0.8);
      return;
    }
    var x = labelsRight + 1.5 * rem, words = text.split(" "), lines = [""];
    words.forEach(function (word) {
      var next = lines[lines.length - 1] ? lines[lines.length - 1] + " " + word : word;
      node.textContent = next;
      if (lines[lines.length - 1] && x + node.getComputedTextLength() > room.right) lines.push(word);
      else lines[lines.length - 1] = next;
    });
    node.textContent = "";
    var widest = 0;
    lines.forEach(function (l, i) {
      var span = TB.svg("tspan", { x: x, dy: i ? line : 0 }, l);
      node.appendChild(span);
      widest = Math.max(widest, span.getComputedTextLength());
    });
    if (x + widest > room.right || room.top + lines.length * line > room.bottom) { svg.removeChild(node); return; }
    node.setAttribute("y", room.top + line * 0.8);
  }

  async function start() {
    await W.loadConfig();
    var past = await TB.get("/api/history"); // the curve since the start, even after a reload
    if (past.ok) history = past.data.points.slice(-2000);
    var first = await TB.get("/api/public");
    if (first.ok) onPublic(first.data);
    // The big screen's own link carries its key (admin page): its own live slots, not the anonymous ones.
    var key = new URLSearchParams(window.location.search).get("key");
    var socket = TB.live({ auth: key ? { display: true, key: key } : { display: true }, after: function () { return pub ? pub.seq : 0; }, on: { public: onPublic } });
    if (window.Replay) window.Replay.listen(socket); // the lead's "replay the game" (static/js/replay.js)
    setInterval(tick, 1000);
    setInterval(drawChart, 5000);
    window.addEventListener("resize", function () { tick(); drawChart(); });
  }

  /** The socket's `public` message, and a generated moment of tests/web/field/test_tv_any_moment.py. */
  W.showPicture = function (p) { onPublic(p); };

  function onPublic(p) {
    if (pub && p.seq < pub.seq) return; // an old message overtaken by a newer one
    pub = p;
    TB.seen(p.seq);
    TB.clock.set(p);
    remember(p);
    render();
    drawChart();
  }

  start();
})();
