/* The fight area: choose both fighters, see the rounds each must win (R18), record the winner
 * and the tokens taken (R20); every running cooldown counts down here, with a beep at 0 (R19).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  var state = null, may = [], winner = null, tokensForm = null;
  var sides = { attacker: { team: null, card: null }, defender: { team: null, card: null } };
  var pickers = {};
  var banner = TB.$("#banner"), memory = W.cooldownMemory();

  var source = W.facilitatorState(function (data) { state = data; render(); });
  var loadState = source.load, refreshSoon = source.refreshSoon;

  function roleInfo(card) { var r = card && W.roleOf(card); return r ? Object.assign({ id: r }, W.config.roles[r]) : null; }

  /** Rounds each side must win, as the bank decides it (R18): [attacker, defender], or null. */
  function rounds(a, b, everyone) {
    var pairs = W.config.fights;
    for (var i = 0; i < pairs.length; i++) {
      var p = pairs[i];
      if (p.everyone_fights_only && !everyone) continue;
      if (p.roles[0] === a && p.roles[1] === b) return [p.rounds[0], p.rounds[1]];
      if (p.roles[0] === b && p.roles[1] === a) return [p.rounds[1], p.rounds[0]];
    }
    return null;
  }

  function cooldownLeft(team, card) {
    var hit = TB.clock.cooldowns(team).filter(function (c) { return c.card === card; })[0];
    return hit ? hit.left : 0;
  }

  function renderSide(name) {
    var side = sides[name], box = TB.$("#" + name);
    pickers[name].select(side.team);
    var cards = side.team && state ? state.teams[side.team].cards : [];
    if (!side.team) { TB.fill(box.querySelector("[data-cards]"), el("p", { class: "muted", text: t("pick_team") })); return; }
    TB.fill(box.querySelector("[data-cards]"), cards.map(function (c) {
      var left = cooldownLeft(side.team, c);
      return el("button", { type: "button", "aria-pressed": String(side.card === c), disabled: left > 0, dataset: { card: c },
        onclick: function () { side.card = c; renderAll(); } },
        W.cardLabel(c), left > 0 ? el("small", { text: " \u00b7 " + t("cooling", { n: Math.ceil(left) }) }) : null);
    }));
  }

  function renderRounds() {
    var a = roleInfo(sides.attacker.card), d = roleInfo(sides.defender.card), note = TB.$("#rounds-note");
    var everyone = !!(state && state.board.options.everyone_fights);
    var box = TB.$("#rounds");
    TB.fill(box, []);
    note.textContent = "";
    if (!a || !d) { note.textContent = t("choose_both"); return; }
    if (sides.attacker.team === sides.defender.team) { note.textContent = t("same_team"); return; }
    if (!a.pirate && !everyone) { note.textContent = t("only_pirates"); return; }
    var r = rounds(a.id, d.id, everyone);
    if (!r) { note.textContent = t("no_fight", { a: a.label, b: d.label }); return; }
    ["attacker", "defender"].forEach(function (name, i) {
      var s = sides[name];
      TB.append(box, el("div", { dataset: { side: name } },
        W.teamChip(s.team), " ", el("b", { text: W.cardLabel(s.card) }), " ", t("must_win"),
        el("span", { class: "n", text: r[i] }), t(TB.one(r[i]) ? "rounds_one" : "rounds_n", { n: r[i] })));
    });
  }

  /** The tokens form: what the loser carries, up to its team's stock; none when a pirate lost. */
  function renderTokens() {
    var box = TB.$("#tokens-box");
    if (!winner || !state) { TB.fill(box, []); tokensForm = null; return; }
    var loserSide = winner === "attacker" ? "defender" : "attacker", loser = sides[loserSide];
    var role = roleInfo(loser.card);
    if (role && role.pirate && !W.config.losing_pirate_gives_tokens) {
      tokensForm = null;
      TB.fill(box, el("p", { class: "sum-line", text: t("pirate_lost_hint") }));
      return;
    }
    if (!loser.team) { TB.fill(box, []); return; }
    var stock = state.teams[loser.team].stock;
    if (tokensForm && tokensForm.loser === loser.team) return; // keep what the referee typed
    tokensForm = W.amountsForm(W.resources(), { max: function (r) { return stock[r] || 0; }, owner: loser.team });
    tokensForm.loser = loser.team;
    TB.fill(box, [el("h3", { style: { marginTop: "12px" }, text: t("tokens_hint") }), tokensForm.el]);
  }

  function renderAll() {
    if (!state) return;
    renderSide("attacker");
    renderSide("defender");
    renderRounds();
    ["attacker", "defender"].forEach(function (w) { TB.$("#win-" + w).setAttribute("aria-pressed", String(winner === w)); });
    renderTokens();
  }
  function render() { renderAll(); }

  async function record() {
    if (W.justBooked()) return; // the second tap of a double tap: the fight's result stays on screen
    var a = sides.attacker, d = sides.defender;
    if (!a.card || !d.card) { W.banner(banner, "error", t("choose_both")); return; }
    if (!winner) { W.banner(banner, "error", t("choose_winner")); return; }
    var command = { type: "fight", attacker_team: a.team, attacker_card: a.card, defender_team: d.team, defender_card: d.card,
      winner: winner, tokens: tokensForm ? tokensForm.amounts() : {} };
    var waiting = {}; // who this page showed still waiting when the fight was recorded
    [a, d].forEach(function (s) { var left = cooldownLeft(s.team, s.card); if (left > 0) waiting[s.team + "/" + s.card] = left; });
    var result = await W.send(command, { banner: banner, undo: may.indexOf("reverse") >= 0, done: function () { refreshSoon(); } });
    if (result && result.ok) { sayWaitsAgain(result.data.events, waiting); clear(false); }
  }

  /** A fighter still waiting here whose wait the fight starts again says so in the result:
   * "Red Pirate 1: his wait starts again: 1:00" rather than a timer jumping back silently. */
  function sayWaitsAgain(events, waiting) {
    var text = banner.querySelector(".banner-text");
    (events || []).forEach(function (e) {
      if (e.type !== "cooldown" || !waiting[e.team + "/" + e.card] || !text) return;
      TB.append(text, el("span", { class: "waits-again", dataset: { key: e.team + "/" + e.card },
        text: t("wait_again", { card: W.teamLabel(e.team) + " " + W.cardLabel(e.card), time: TB.clockText(e.seconds) }) }));
    });
  }

  function clear(hideBanner) {
    sides.attacker = { team: null, card: null };
    sides.defender = { team: null, card: null };
    winner = null;
    tokensForm = null;
    if (hideBanner) W.banner(banner, "");
    renderAll();
  }

  /** The first scanned card is the attacker, the next one the defender. */
  function onScan(text) {
    var parsed = W.parseCard(text);
    if (!parsed) { W.banner(banner, "error", t("scan_unknown", { text: String(text).slice(0, 80) })); return; }
    var name = sides.attacker.card && !sides.defender.card ? "defender" : "attacker";
    if (name === "attacker") { sides.defender = { team: null, card: null }; winner = null; }
    sides[name] = parsed;
    W.banner(banner, "info", t("scan_" + name, { who: W.teamLabel(parsed.team) + " " + W.cardLabel(parsed.card) }));
    renderAll();
  }

  function tick() {
    if (!state) return;
    TB.$("#clock-line").textContent = TB.colon(t("clock_tick"), W.clockText(state.board));
    W.showHeld(state.board);
    W.dropRefusalOnClockChange(banner, state.board);
    var ended = W.cooldowns(TB.$("#cooldowns"), null, memory);
    if (ended.length) TB.sound.beep(2);
    // Cards whose wait is over become choosable again.
    ["attacker", "defender"].forEach(renderSideIfWaiting);
  }
  function renderSideIfWaiting(name) {
    if (sides[name].team && TB.$("#" + name + " [data-cards] button:disabled")) renderSide(name);
  }

  async function start() {
    await W.loadConfig();
    var me = await TB.get("/api/me");
    may = (me.ok && me.data.may) || [];
    // Fights are booked live (their cooldowns run from the fight); the outbox here sends the counter's.
    if (TB.outbox) { TB.outbox.onBooked = function () { refreshSoon(); }; TB.outbox.start(me.ok ? me.data.user : null); }
    ["attacker", "defender"].forEach(function (name) {
      pickers[name] = W.teamPicker(function (team) {
        sides[name] = { team: team, card: null };
        renderAll();
      }, { small: true });
      TB.fill(TB.$("#" + name + " [data-teams]"), pickers[name].el);
    });
    ["attacker", "defender"].forEach(function (w) {
      TB.$("#win-" + w).addEventListener("click", function () { winner = w; renderAll(); });
    });
    TB.$("#record").addEventListener("click", record);
    TB.$("#record").disabled = may.indexOf("fight") < 0;
    TB.$("#clear").addEventListener("click", function () { clear(true); });
    TB.$("#scan-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      onScan(TB.$("#scan").value);
      TB.$("#scan").value = "";
    });
    W.listenForScans(onScan);
    TB.$("#sound").addEventListener("click", function () {
      TB.sound.unlock();
      TB.sound.beep(1);
      TB.$("#sound").textContent = t("sound_on");
    });
    await loadState();
    TB.live({
      on: {
        public: function (pub) {
          if (!state || pub.seq > state.seq) refreshSoon();
          TB.clock.set(pub);
          W.showHeld(pub.board);
          if (state) { state.board = pub.board; state.cooldowns = pub.cooldowns; }
          tick();
        },
      },
    });
    tick();
    setInterval(tick, 500);
  }

  start();
})();
