/* The last config reload on the lead's admin page (GET /api/reload, bank/web/field/reload_routes.py): checking,
 * waiting (why, and what to do), refused (with the check's sentence: the key or the line of config.toml; saying so when
 * a sound edit reloaded before it still waits for the game, bank/web/serving/reload.py), taken.
 * Before, only the bank's log said it: the lead who pressed reload saw nothing happen. The look checks the log-in
 * against the database; while it is away the socket brings the word (bank/web/push/reload_push.py).
 */
(function () {
  "use strict";
  var TB = window.TB, el = TB.el, t = TB.t, box = TB.$("#reload-status");
  var EVERY = 3000, TAKEN_SHOWN = 600; // ms between looks; seconds a reload taken stays said
  var shown = "";
  if (!box) return;

  function words(r) {
    if (r.state === "checking") return t("reload.checking");
    if (r.state === "waiting") return t("reload.waiting." + (r.why || "database"));
    if (r.state === "refused") return t(r.still_waiting ? "reload.refused_one_waits" : "reload.refused");
    var at = new Date(Date.now() - r.age * 1000).toLocaleTimeString(TB.lang, { hour: "2-digit", minute: "2-digit" });
    return t(r.waited ? "reload.reloaded_waited" : "reload.reloaded", { time: at });
  }

  function show(r) {
    var hidden = !r || (r.state === "reloaded" && r.age > TAKEN_SHOWN);
    box.classList.toggle("hidden", hidden);
    if (hidden) { shown = ""; return; }
    box.classList.toggle("banner-error", r.state === "refused");
    box.classList.toggle("banner-info", r.state !== "refused");
    var said = words(r), key = [r.state, said, r.problem || ""].join("|");
    if (key === shown) return; // said already: the live region is not read out again every look
    shown = key;
    box.dataset.state = r.state;
    var parts = [el("span", { text: said })];
    if (r.problem) parts.push(" ", el("b", { text: t("reload.check_says") }), " ", el("code", { text: r.problem }));
    TB.fill(box, parts);
  }

  async function look() {
    var reply = await TB.api("GET", "/api/reload", undefined, { retry: false });
    if (reply.status === 403 || reply.status === 401) return; // not the lead: nothing to say, no more looks
    if (reply.ok) show(reply.data.reload);
    setTimeout(look, EVERY);
  }

  // Sent by the socket as it changes (static/js/live.js): heard while the database is away, when the look is refused.
  document.addEventListener("tb:reload", function (event) { if (event.detail) show(event.detail); });
  look();
})();
