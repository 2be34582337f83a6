/* The admin page's "Replay the game on the big screen": enabled once the game has
 * ended; tells every big screen opened with its own link to play the game back (static/js/replay.js).
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, t = TB.t;
  var button = TB.$("#replay-start");
  if (!button) return;

  /** admin.js calls it with each new picture of the game. */
  W.replayButton = function (board) { button.disabled = board.clock.status !== "ended"; };

  button.addEventListener("click", async function () {
    var banner = TB.$("#banner");
    var res = await TB.api("POST", "/api/replay/start", {});
    if (!res.ok) { W.banner(banner, "error", W.errorText(res.error)); return; }
    var n = res.data.screens;
    W.banner(banner, n ? "ok" : "error", n === 0 ? t("replay_no_screen") : n === 1 ? t("replay_sent_1") : t("replay_sent_n", { n: n }));
  });
})();
