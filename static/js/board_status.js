/* Where the game stands, as text and banners: the clock line, time left, last harvests, clock
 * jumps, and the banners once the game is over, held or won. Needs board_labels.js.
 */
(function () {
  "use strict";

  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;

  W.rateText = function (board) {
    return t("rate_text", { tokens: board.rate.tokens, points: board.rate.points });
  };

  /** A rate change flashes wherever the rate shows: `node` gets .rate-flash for a
   * while when the rate differs from the last picture's (not on the page's first picture). */
  var FLASH_MS = 12000;
  W.rateFlash = function (node, board) {
    if (!node || !board || !board.rate) return false;
    var now = board.rate.tokens + "/" + board.rate.points, was = node.dataset.rate;
    node.dataset.rate = now;
    if (!was || was === now) return false;
    node.classList.remove("rate-flash");
    void node.offsetWidth; // restart the animation on a second change
    node.classList.add("rate-flash");
    clearTimeout(node._rateTimer);
    node._rateTimer = setTimeout(function () { node.classList.remove("rate-flash"); }, FLASH_MS);
    return true;
  };

  /** True between two sessions: the session ended (by its time or by the lead) and waits for the lead's resume. */
  W.betweenSessions = function (board) {
    var c = board.clock;
    return c.status === "paused" && (!!c.session_over || (c.sessions > 1 && W.timeLeft(board).session <= 0));
  };

  /** "Break between sessions · session 2 starts when the lead starts it", or "paused", "game over"...
   * (an ended session read "paused · 1:18:48 left in this session"). */
  W.statusText = function (board) {
    var c = board.clock;
    if (W.betweenSessions(board)) return t("session_break", { n: Math.max(1, c.session) + 1 });
    var names = { setup: t("clock_setup"), paused: t("clock_paused"), ended: t("clock_ended"), running: "" };
    return names.hasOwnProperty(c.status) ? names[c.status] : c.status;
  };

  W.clockText = function (board) {
    var c = board.clock;
    var status = W.statusText(board);
    var left = W.timeLeftText(board);
    return W.gameTime(TB.clock.elapsed(), board) + " / " + W.gameTime(c.duration, board) + " \u00b7 " +
      t("session_n", { n: Math.max(1, c.session), of: c.sessions }) + (status ? " \u00b7 " + status : "") +
      (left ? " \u00b7 " + left : "");
  };

  /** One format for every game time on a page: h:mm:ss when the game lasts an hour or more. */
  W.gameTime = function (seconds, board) {
    var text = TB.clockText(seconds), long = board && board.clock && board.clock.duration >= 3600;
    return long && text.split(":").length < 3 ? "0:" + (text.length < 5 ? "0" : "") + text : text;
  };

  /** {session, game}: game seconds left in this session and in the game (R34); null before the start. */
  W.timeLeft = function (board) {
    var c = board.clock, now = TB.clock.elapsed();
    if (c.status === "setup" || c.status === "ended") return null;
    var sessionEnd = Math.min(c.duration, (c.duration * Math.max(1, c.session)) / c.sessions);
    return { session: Math.max(0, sessionEnd - now), game: Math.max(0, c.duration - now) };
  };

  /** "0:28:00 left in this session · 1:58:00 left in the game" (one part with a single session). */
  W.timeLeftText = function (board) {
    var left = W.timeLeft(board), c = board.clock;
    if (!left) return "";
    var game = t("left_game", { time: W.gameTime(left.game, board) });
    if (c.sessions <= 1 || W.betweenSessions(board)) return game; // between sessions the status says it all
    // A session that reached its end waits for the lead's resume: say so rather than "0:00:00 left".
    var session = left.session > 0 ? t("left_session", { time: W.gameTime(left.session, board) })
      : t("session_over", { n: Math.max(1, c.session) });
    return session + " \u00b7 " + game;
  };

  /** "harvested 3 min ago" for a card harvested `ago` game seconds ago (R14), or "not harvested yet". */
  W.harvestedText = function (ago) {
    if (ago === undefined || ago === null) return t("not_harvested");
    return ago < 60 ? t("harvested_now") : t("harvested_ago", { n: Math.floor(ago / 60) });
  };

  /** "+51 h", "-1 h 0 min", "+4 min": how far the machine's clock jumped (units read in French and English). */
  W.jumpText = function (seconds) {
    var sign = seconds < 0 ? "-" : "+", s = Math.abs(Math.round(seconds));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    if (h >= 24) return sign + h + " h";
    if (h) return sign + h + " h " + m + " min";
    return sign + Math.max(m, 1) + " min";
  };

  /* ---- banners ---- */

  /** The final ranking as a list: rank, team chip, points; the winners marked. */
  W.finalRanking = function (standings, ended, highlight) {
    var winners = (ended && ended.winners) || [];
    return el("ol", { class: "final-ranking" }, (standings || []).map(function (row) {
      return el("li", { class: (winners.indexOf(row.team) >= 0 ? "won" : "") + (row.team === highlight ? " mine" : ""),
        dataset: { team: row.team } },
        el("span", { class: "fr-rank", text: W.ordinal(row.rank) }), " ", W.teamChip(row.team), " ",
        el("span", { class: "fr-points" }, el("b", { text: row.reputation }), " " + W.ptsWord(row.reputation)));
    }));
  };

  /** Facilitator pages: a banner at the top once the game is over, with the winners and the ranking.
   * The standings come from the last public picture (TB.clock.base), which every page keeps. */
  W.showEnded = function (board) {
    var node = document.getElementById("ended-banner");
    if (!node) {
      node = el("div", { id: "ended-banner", class: "banner ended-banner hidden", role: "status" });
      document.body.insertBefore(node, document.body.firstChild);
    }
    node.classList.toggle("hidden", !board.ended);
    if (!board.ended || node.dataset.shown === JSON.stringify(board.ended)) return;
    node.dataset.shown = JSON.stringify(board.ended);
    var winners = board.ended.winners || [], base = TB.clock.base || {};
    TB.fill(node, [
      el("b", { class: "eb-title", text: t("game_over_title") + " \u00b7 " + t("winner_is", { teams: winners.map(W.teamLabel).join(", "), n: winners.length }) }),
      el("span", { class: "eb-why", text: " " + t("ended." + board.ended.reason) }),
      base.standings ? W.finalRanking(base.standings, board.ended) : null]);
  };

  /** The bank paused the game after a jump of the machine's clock (R34): say what it saw, on
   * every facilitator page, until the lead resumes. Phones and the big screen just read "paused". */
  W.showHeld = function (board) {
    var held = board.clock.held, node = document.getElementById("held-banner");
    if (!node) {
      node = el("div", { id: "held-banner", class: "banner banner-error hidden", role: "alert" });
      document.body.insertBefore(node, document.body.firstChild);
    }
    node.classList.toggle("hidden", !held || board.clock.status !== "paused");
    W.showEnded(board); // every facilitator page calls this on each picture: the end shows there too
    if (!held) return;
    var key = held.kind === "clock_jump_at_start" ? "clock_held_start" : "clock_held";
    node.textContent = t(key, { jump: W.jumpText(held.seconds) });
  };

  /** Show or hide the winner banner from board.ended ({reason, winners, elapsed}). */
  W.winner = function (node, board, options) {
    var o = options || {}, ended = board.ended;
    // A tap puts the banner away, so a phone can still read the final scores.
    if (!node.dataset.tap) {
      node.dataset.tap = "1";
      node.addEventListener("click", function () { node.dataset.dismissed = "1"; node.classList.add("hidden"); });
    }
    node.classList.toggle("hidden", !ended || node.dataset.dismissed === "1");
    if (!ended) return;
    var winners = ended.winners || [];
    // A team's phone: "Winner!" only for the winners; the others read their rank ("2nd of 4").
    var lost = o.team && winners.indexOf(o.team) < 0;
    var mine = o.team && (o.standings || []).filter(function (r) { return r.team === o.team; })[0];
    var title = lost ? t("game_over_title") : t(winners.length > 1 ? "winners_title" : "winner_title");
    TB.fill(node, [
      el("div", { class: "w-title", text: title }),
      mine ? el("div", { class: "w-rank", text: t("your_rank", { rank: W.ordinal(mine.rank), n: o.standings.length }) }) : null,
      // Under "Game over" a losing phone's big chip needs its word: it is the winner, not this team.
      lost ? el("div", { class: "w-label", text: t(winners.length > 1 ? "winners_label" : "winner_label") }) : null,
      el("div", { class: "w-teams" }, winners.map(function (team) {
        var colour = W.teamColour(team);
        return el("div", { class: "w-team", style: TB.paint(colour), text: W.teamLabel(team) });
      })),
      el("div", { class: "w-why", text: t("ended." + ended.reason) }),
      o.standings ? W.finalRanking(o.standings, ended, o.team) : null,
      o.team ? el("div", { class: "w-hint", text: t("tap_to_close") }) : null]);
  };
})();
