/* The game's story replayed on the big screen: a race of points per team over the
 * game's time, the moments that decided it as captions, then the podium. About 75 seconds whatever the
 * game's length (its time is scaled), skippable (the Skip button, Escape, Space, Enter or the right arrow),
 * played again when the lead presses "Replay the game on the big screen" on the admin page (socket event
 * `replay`, bank/web/field/replay_routes.py) or opened with `&replay=1` on the big screen's link.
 * Its own overlay over the big screen, which goes on underneath; `&replay_seconds=` shortens it (tests).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  var SECONDS = 75;      // the whole replay: the race, then the podium
  var PODIUM_SHARE = 0.2; // of it, the podium's part
  var CAPTIONS = 3;      // captions on screen at once, newest on top

  var params = new URLSearchParams(window.location.search);
  var total = Math.max(2, +params.get("replay_seconds") || SECONDS);
  var root = null, frame = null, closeTimer = null, story = null, bars = {}, shown = 0, started = 0;

  function build() {
    root = el("div", { id: "replay", class: "replay", role: "dialog", "aria-label": t("replay_title") },
      el("div", { class: "replay-top" },
        el("h2", { class: "replay-title", text: t("replay_title") }),
        el("span", { class: "replay-clock", id: "replay-clock" }),
        el("button", { type: "button", class: "btn replay-skip", id: "replay-skip", text: t("replay_skip"), onclick: skip })),
      el("div", { class: "replay-race", id: "replay-race" }),
      el("div", { class: "replay-time" }, el("div", { class: "replay-time-bar", id: "replay-time-bar" })),
      el("ol", { class: "replay-captions", id: "replay-captions", "aria-live": "polite" }),
      el("div", { class: "replay-podium hidden", id: "replay-podium" }));
    document.body.appendChild(root);
  }

  async function play() {
    var key = params.get("key") || "";
    var res = await TB.get("/api/replay" + (key ? "?key=" + encodeURIComponent(key) : ""));
    if (!res.ok) { show(); caption(t("replay_failed", { why: (W.errorText || TB.errorText)(res.error) })); return; }
    story = res.data;
    show();
    TB.$("#replay-skip").textContent = t("replay_skip");
    TB.$("#replay-podium").classList.add("hidden");
    TB.$("#replay-race").classList.remove("hidden");
    TB.$("#replay-captions").textContent = "";
    TB.$("#replay-captions").classList.remove("hidden");
    drawBars();
    shown = 0;
    started = performance.now();
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(step);
  }

  function show() {
    if (!root) build();
    clearTimeout(closeTimer);
    root.classList.remove("hidden");
    document.body.classList.add("replaying");
  }

  function close() {
    cancelAnimationFrame(frame);
    clearTimeout(closeTimer);
    if (root) root.classList.add("hidden");
    document.body.classList.remove("replaying");
  }

  /** One bar per team, placed by rank; its width is its points against the best final score. */
  function drawBars() {
    var race = TB.$("#replay-race");
    race.textContent = "";
    bars = {};
    Object.keys(story.teams).forEach(function (team) {
      var fill = el("span", { class: "replay-fill", style: { background: W.teamColour(team) } });
      var points = el("span", { class: "replay-points", text: "0" });
      // Four teams fill the race's height; more share it (a bar never less than a tenth of it high).
      var row = el("div", { class: "replay-row", dataset: { team: team },
        style: { height: (100 / Math.min(10, Math.max(4, Object.keys(story.teams).length))) + "%" } },
        el("span", { class: "replay-name", title: W.teamLabel(team), text: W.teamShort(team) }),
        el("span", { class: "replay-track" }, fill), points);
      race.appendChild(row);
      bars[team] = { row: row, fill: fill, points: points, value: -1 };
    });
  }

  function pointsAt(curve, second) {
    var value = 0;
    for (var i = 0; i < curve.length && curve[i][0] <= second; i++) value = curve[i][1];
    return value;
  }

  function step(now) {
    var race = total * (1 - PODIUM_SHARE) * 1000;
    var progress = Math.min(1, (now - started) / race);
    var second = progress * story.seconds;
    var teams = Object.keys(story.teams);
    var best = Math.max.apply(null, [1].concat(teams.map(function (tm) { var c = story.teams[tm]; return c[c.length - 1][1]; })));
    var values = teams.map(function (tm) { return { team: tm, value: pointsAt(story.teams[tm], second) }; });
    values.sort(function (a, b) { return b.value - a.value; });
    values.forEach(function (v, rank) {
      var bar = bars[v.team];
      bar.row.style.transform = "translateY(" + rank * 100 + "%)";
      if (bar.value !== v.value) {
        bar.value = v.value;
        bar.fill.style.width = (100 * Math.max(0, v.value) / best) + "%";
        bar.points.textContent = v.value + " " + W.ptsWord(v.value);
      }
    });
    TB.$("#replay-clock").textContent = t("replay_minute", { n: Math.round(second / 60) });
    TB.$("#replay-time-bar").style.width = (progress * 100) + "%";
    while (shown < story.moments.length && story.moments[shown].at <= second) caption(say(story.moments[shown++]));
    if (progress < 1) frame = requestAnimationFrame(step);
    else podium();
  }

  function say(m) {
    var team = W.teamLabel(m.team);
    if (m.kind === "first_building") return t("replay_first_building", { team: team, building: W.buildingLabel(m.building) });
    if (m.kind === "lead") return m.was ? t("replay_lead_from", { team: team, was: W.teamLabel(m.was) })
      : t("replay_lead", { team: team });
    if (m.kind === "event_won") return t("replay_event_won", { team: team, title: TB.quote(m.title) });
    if (m.kind === "fight") return t("replay_fight", { team: team, other: W.teamLabel(m.other) });
    return m.kind;
  }

  function caption(text) {
    var list = TB.$("#replay-captions");
    list.insertBefore(el("li", { class: "replay-caption", text: text }), list.firstChild);
    while (list.children.length > CAPTIONS) list.removeChild(list.lastChild);
  }

  /** First, second and third place (teams sharing a rank stand on the same step), then the overlay goes. */
  function podium() {
    cancelAnimationFrame(frame);
    if (!story) return close();
    TB.$("#replay-race").classList.add("hidden");
    TB.$("#replay-captions").classList.add("hidden"); // the podium alone: the story has been told
    TB.$("#replay-time-bar").style.width = "100%";
    // The game's end, also after a skip (which stopped the race at its minute of then).
    TB.$("#replay-clock").textContent = t("replay_minute", { n: Math.round(story.seconds / 60) });
    var box = TB.$("#replay-podium");
    box.textContent = "";
    var steps = [2, 1, 3].map(function (rank) {
      var here = story.podium.filter(function (p) { return p.rank === rank; });
      return el("div", { class: "replay-step replay-step-" + rank, dataset: { rank: rank } },
        here.map(function (p) {
          return el("div", { class: "replay-winner" },
            el("span", { class: "replay-dot", style: { background: W.teamColour(p.team) } }),
            el("b", { text: W.teamLabel(p.team) }), el("span", { text: p.points + " " + W.ptsWord(p.points) }));
        }),
        el("div", { class: "replay-block", text: String(rank) }));
    });
    box.appendChild(el("h3", { class: "replay-podium-title", text: t("replay_podium") }));
    box.appendChild(el("div", { class: "replay-steps" }, steps));
    box.classList.remove("hidden");
    TB.$("#replay-skip").textContent = t("replay_close");
    closeTimer = setTimeout(close, total * PODIUM_SHARE * 1000);
  }

  function skip() {
    if (!root || root.classList.contains("hidden")) return;
    if (TB.$("#replay-podium").classList.contains("hidden")) podium();
    else close();
  }

  document.addEventListener("keydown", function (ev) {
    if (root && !root.classList.contains("hidden") && ["Escape", " ", "Enter", "ArrowRight"].indexOf(ev.key) >= 0) {
      ev.preventDefault();
      skip();
    }
  });

  window.Replay = {
    /** Listen on the big screen's socket for the lead's "replay" (display.js passes it). */
    listen: function (socket) { if (socket) socket.on("replay", function () { play(); }); },
    play: play,
  };
  if (params.get("replay") === "1") W.loadConfig().then(function () { window.Replay.play(); });
})();
