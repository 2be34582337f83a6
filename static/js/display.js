/* The big screen: standings, tracks, events, cooldowns, the clock, a reputation curve and the
 * winner. No login: it joins the "display" room and redraws on every `public` message.
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
    W.standings(TB.$("#standings"), pub.standings, board, { animals: true });
    W.tracks(TB.$("#tracks"), board);
    W.unlockNote(TB.$("#unlock-note"), board);
    W.winner(TB.$("#winner"), board, { standings: pub.standings });
    tick();
  }

  /** Every second: the clock, event deadlines and cooldowns count down locally between messages. */
  function tick() {
    if (!pub) return;
    var c = pub.board.clock;
    TB.$("#clock").textContent = W.gameTime(TB.clock.elapsed(), pub.board) + " / " + W.gameTime(c.duration, pub.board);
    var left = W.timeLeftText(pub.board);
    TB.$("#time-left").textContent = t("session_n", { n: Math.max(1, c.session), of: c.sessions }) + (left ? " \u00b7 " + left : "");
    var paused = TB.$("#paused");
    paused.classList.toggle("hidden", c.status === "running");
    paused.textContent = { setup: t("clock_setup"), paused: t("clock_paused"), ended: t("clock_ended") }[c.status] || "";
    W.events(TB.$("#events"), pub.board, { rewards: true, results: true });
    W.cooldowns(TB.$("#cooldowns"), null, memory);
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

  /** Reputation over game time, one line per team in its colour, drawn in the inline SVG. */
  function drawChart() {
    var svg = TB.$("#chart");
    var w = svg.clientWidth || 800, h = svg.clientHeight || 220;
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!history.length) return;
    var now = TB.clock.elapsed(), x0 = history[0].x, x1 = Math.max(now, x0 + 60);
    if (now - x0 < 60) {
      svg.appendChild(TB.svg("text", { x: w / 2, y: h / 2, "text-anchor": "middle", class: "chart-hint" }, t("chart_empty")));
    }
    var max = 10;
    history.forEach(function (s) { W.teams().forEach(function (team) { max = Math.max(max, s.rep[team] || 0); }); });
    max = Math.ceil(max / 10) * 10;
    var left = 56, right = 80, top = 14, bottom = 34;
    var sx = function (x) { return left + ((x - x0) / (x1 - x0)) * (w - left - right); };
    var sy = function (y) { return top + (1 - y / max) * (h - top - bottom); };
    [0, max / 2, max].forEach(function (v) {
      svg.appendChild(TB.svg("line", { class: "axis", x1: left, x2: w - right, y1: sy(v), y2: sy(v) }));
      svg.appendChild(TB.svg("text", { x: left - 10, y: sy(v) + 7, "text-anchor": "end" }, String(v)));
    });
    svg.appendChild(TB.svg("text", { x: left, y: h - 6 }, W.gameTime(x0, pub.board)));
    svg.appendChild(TB.svg("text", { x: w - right, y: h - 6, "text-anchor": "end" }, W.gameTime(x1, pub.board)));
    W.teams().forEach(function (team) {
      var points = history.map(function (s) { return sx(s.x).toFixed(1) + "," + sy(s.rep[team] || 0).toFixed(1); });
      var lastRep = history[history.length - 1].rep[team] || 0;
      points.push(sx(now).toFixed(1) + "," + sy(lastRep).toFixed(1));
      svg.appendChild(TB.svg("polyline", { points: points.join(" "), fill: "none", stroke: W.teamColour(team), "stroke-width": 5,
        "stroke-linejoin": "round", "stroke-linecap": "round" }));
      svg.appendChild(TB.svg("text", { x: sx(now) + 8, y: sy(lastRep) + 5, fill: W.teamColour(team), "font-weight": "800", style: "font-size: 1.6rem" },
        String(lastRep)));
    });
  }

  async function start() {
    await W.loadConfig();
    var past = await TB.get("/api/history"); // the curve since the start, even after a reload
    if (past.ok) history = past.data.points.slice(-2000);
    var first = await TB.get("/api/public");
    if (first.ok) onPublic(first.data);
    TB.live({ auth: { display: true }, after: function () { return pub ? pub.seq : 0; }, on: { public: onPublic } });
    setInterval(tick, 1000);
    setInterval(drawChart, 5000);
    window.addEventListener("resize", drawChart);
  }

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
