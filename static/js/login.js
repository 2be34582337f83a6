/* Log-in page: POST /api/login, then the facilitator's page. A lockout counts down on screen. */
(function () {
  "use strict";
  var TB = window.TB;
  var form = TB.$("#login-form"), box = TB.$("#login-error"), submit = TB.$("#login-submit");
  var lockTimer = null;

  function show(text) {
    box.className = text ? "banner banner-error" : "banner hidden";
    box.textContent = text || "";
  }

  /** "4 min 32 s", or "45 s" under a minute (as the bank's own message). */
  function waitText(seconds) {
    var m = Math.floor(seconds / 60), s = seconds % 60;
    return m ? TB.t("min_s", { m: m, s: s }) : s + " s";
  }

  /** While locked out, the message counts the seconds down and the button waits. */
  function lockedFor(error) {
    var left = (error.params && error.params.seconds_left) || 0;
    // Device cookies (bank/web/access/device_cookie.py): say whose failures locked this log-in.
    var thisDevice = error.params && error.params.this_device;
    var lockedText = thisDevice === true ? "locked_out_this_device"
      : thisDevice === false ? "locked_out_other_devices" : "error.locked_out";
    clearInterval(lockTimer);
    submit.disabled = true;
    var tick = function () {
      if (left <= 0) { clearInterval(lockTimer); submit.disabled = false; show(""); return; }
      show(TB.t(lockedText, { wait: waitText(left) }));
      left -= 1;
    };
    tick();
    lockTimer = setInterval(tick, 1000);
  }

  form.addEventListener("submit", async function (ev) {
    ev.preventDefault();
    submit.disabled = true;
    show("");
    var result = await TB.api("POST", "/api/login", { username: form.username.value.trim(), password: form.password.value });
    if (result.ok) {
      // A referee works at the fight area; everyone else at the bank counter.
      window.location.href = TB.url(result.data.role === "referee" ? "/fight" : "/console");
      return;
    }
    submit.disabled = false;
    if (result.error.code === "locked_out") lockedFor(result.error);
    else show(TB.errorText(result.error));
    form.password.value = "";
    form.password.focus();
  });
  // Sent here by a page whose session ended (live.js, `session_ended`): say why before the form.
  if (/[?&]ended=/.test(window.location.search)) {
    box.className = "banner banner-info";
    box.textContent = TB.t("session_ended");
  }
  TB.$("#username").focus();
  // Back after logging in may show this page from the browser's memory, form and all: ask the bank
  // again, which says who is logged in.
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) window.location.reload(); });
})();
