/* A team's phone: its own stock, what it can get next, its members' cooldowns (with a beep and
 * a vibration when one ends), the scores, the tracks, the rate and the events. Narrow screens first.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  var root = TB.$("#team-root"), token = root.dataset.token;
  var view = null, viewSeq = 0, viewAt = 0, pub = null, memory = W.cooldownMemory(), teamFeed = {};

  function renderView() {
    if (!view) return;
    var colour = W.teamColour(view.team), head = TB.$("#team-head");
    var paint = TB.paint(colour);
    head.style.background = paint.background;
    head.style.color = paint.color;
    TB.$("#team-name").textContent = W.teamLabel(view.team);
    document.title = W.teamLabel(view.team) + " \u00b7 Terrabank";
    TB.$("#team-rep").textContent = view.reputation;
    TB.fill(TB.$("#stock"), W.resources().map(function (r) {
      var n = view.stock[r] || 0;
      return el("div", { class: "stock-item" + (n ? "" : " zero"), style: { "--c": W.resColour(r) }, dataset: { resource: r } },
        el("span", { class: "n", text: n }), el("span", { class: "what", text: W.resLabel(r) }));
    }));
    TB.fill(TB.$("#buildings"), view.buildings.length ? view.buildings.map(W.buildingLabel).join(", ") : t("owned_none"));
    TB.fill(TB.$("#animals"), view.animals.length ? view.animals.map(W.animalLabel).join(", ") : t("owned_none"));
    // What was just booked for us, an undo with its reason and our points before and after.
    W.feed(TB.$("#feed"), teamFeed, { team: view.team });
    renderNext();
  }

  /** Buildings and animals, the ones the team can pay first, then the closest; rules that block last. */
  function renderNext() {
    var unlocked = pub ? pub.board.animals_unlocked : false;
    var missingCount = function (i) { return Object.keys(i.missing).reduce(function (s, r) { return s + i.missing[r]; }, 0); };
    var items = view.affordable.slice().sort(function (a, b) {
      var ka = (a.blocked ? 1000 : 0) + missingCount(a), kb = (b.blocked ? 1000 : 0) + missingCount(b);
      return ka - kb;
    });
    var rows = items.map(function (i) {
      var can = !i.blocked && !missingCount(i);
      var label = i.kind === "building" ? W.buildingLabel(i.id) : W.animalLabel(i.id);
      var why;
      if (can) why = el("span", { class: "ok-text", text: "\u2714 " + t("can_buy") });
      else if (i.blocked) why = el("span", { class: "why-blocked", text: i.kind === "animal" && !unlocked ? t("animals_unlock_at", { level: W.config.animal_unlock_level }) : W.errorText({ code: i.blocked_code, message: i.blocked, params: i.blocked_params }) });
      else why = el("span", { class: "why-missing" }, t("missing", { list: "" }), W.tokens(i.missing, { missing: true }));
      return el("div", { class: "buy" + (can ? " can" : "") + (i.blocked ? " blocked" : ""), dataset: { item: i.id } },
        el("span", {}, el("span", { class: "buy-name", text: label }), " ", el("small", { class: "muted", text: t(i.kind) })),
        el("span", {}, W.tokens(i.cost, { short: true })),
        el("span", { class: "buy-why" }, why));
    });
    var box = TB.$("#next"), first = rows.slice(0, 4), rest = rows.slice(4);
    TB.fill(box, first);
    if (rest.length) {
      TB.append(box, el("details", {}, el("summary", { class: "btn", text: t("show_all", { n: rows.length }) }), el("div", { class: "buy-list" }, rest)));
    }
  }

  function renderPublic() {
    if (!pub) return;
    var board = pub.board;
    W.standings(TB.$("#standings"), pub.standings, board, { highlight: view && view.team });
    W.tracks(TB.$("#tracks"), board);
    W.unlockNote(TB.$("#unlock-note"), board);
    TB.$("#rate").textContent = W.rateText(board);
    rateNews(board);
    W.winner(TB.$("#winner"), board, { team: view && view.team, standings: pub.standings });
    tick();
  }

  /** A new rate is said at the top of the phone and flashes there (the rate itself sits in the Bank
   * panel at the bottom): it applies from the moment it is made (R32). */
  function rateNews(board) {
    var news = TB.$("#rate-news");
    W.rateFlash(TB.$("#rate"), board);
    if (W.rateFlash(news, board)) {
      news.textContent = t("rate_changed", { rate: W.rateText(board) });
      news.classList.remove("hidden");
      clearTimeout(news._hide);
      news._hide = setTimeout(function () { news.classList.add("hidden"); }, 60000);
    }
  }

  /** Our harvester cards and when each last harvested (R14), counted on from the view's moment. */
  function renderHarvests() {
    var cards = view.cards.filter(function (c) { var role = W.roleOf(c); return role && W.config.roles[role].harvests; });
    var since = TB.clock.running() ? (performance.now() - viewAt) / 1000 : 0;
    TB.$("#harvests-panel").classList.toggle("hidden", !cards.length);
    TB.fill(TB.$("#harvests"), cards.map(function (c) {
      var ago = view.last_harvest[c];
      return el("span", { class: "card-chip", dataset: { card: c } }, W.cardLabel(c) + " \u00b7 ",
        el("span", { class: "harvested", text: W.harvestedText(ago === undefined ? ago : ago + since) }));
    }));
  }

  /** Every half second: our cooldowns count down; at 0 the phone beeps and vibrates. */
  function tick() {
    if (!pub || !view) return;
    TB.$("#clock").textContent = W.clockText(pub.board);
    // Paused (by the lead, or held by the bank after a clock jump, R34): said first, at the top, so
    // nobody plays on; it showed only in the Bank panel at the bottom of the page.
    var paused = pub.board.clock.status === "paused", left = W.timeLeftText(pub.board);
    TB.$("#time-left").textContent = paused ? W.statusText(pub.board) + (left ? " \u00b7 " + left : "") : left;
    TB.$("#time-left").classList.toggle("is-paused", paused);
    W.events(TB.$("#events"), pub.board, { rewards: true, results: true, highlight: view.team });
    renderHarvests();
    var ended = W.cooldowns(TB.$("#cooldowns"), view.team, memory);
    // The panel shows only while someone waits (or just finished), so the stock stays near the top.
    TB.$("#cooldowns-panel").classList.toggle("hidden", !TB.$("#cooldowns .cooldown"));
    if (ended.length) {
      TB.sound.beep(3);
      TB.sound.vibrate([300, 120, 300, 120, 300]);
    }
  }

  /** The link no longer works: refused at load, or replaced while the page was open (why = "replaced"). */
  function refused(why) {
    root.classList.add("hidden");
    if (why === "replaced") TB.$("#unknown-why").textContent = t("link_replaced");
    TB.$("#unknown").classList.remove("hidden");
  }

  async function start() {
    await W.loadConfig();
    var first = await TB.get("/api/team/" + encodeURIComponent(token));
    if (first.status === 404) { refused(); return; }
    if (first.ok) {
      view = first.data.view;
      teamFeed = first.data.team_feed || {};
      viewSeq = first.data.seq;
      viewAt = performance.now();
      pub = { seq: first.data.seq, board: first.data.board, standings: first.data.standings, cooldowns: first.data.cooldowns };
      TB.clock.set(pub);
      TB.seen(pub.seq);
      TB.touch();
      renderView();
      renderPublic();
    }
    TB.live({
      auth: { team: token },
      after: function () { return pub ? pub.seq : 0; },
      onRefused: refused,
      on: {
        team: function (msg) {
          // The catch-up reply of a reconnect can cross a broadcast: never go back to an older stock.
          if (viewSeq && msg.seq < viewSeq) return;
          viewSeq = msg.seq;
          view = msg.view;
          teamFeed = msg.team_feed || {};
          viewAt = performance.now();
          renderView();
        },
        public: function (p) {
          if (pub && p.seq < pub.seq) return;
          pub = p;
          TB.clock.set(p);
          renderPublic();
          if (view) renderNext();
        },
      },
    });
    TB.$("#sound").addEventListener("click", function () {
      TB.sound.unlock();
      TB.sound.beep(1);
      TB.sound.vibrate(100);
      TB.$("#sound").classList.add("hidden");
    });
    setInterval(tick, 500);
  }

  start();
})();
