/* The games served beside this one (bank/web/serving/hosting.py): the host's lead lists them and
 * creates new ones; a new game's lead password is shown once, here. Only on the host's own admin page.
 */
(function () {
  "use strict";

  var TB = window.TB, W = window.W, el = TB.el, t = TB.t;
  var panel = TB.$("#host-games");
  if (!panel) return;

  function address(path) { return window.location.origin + TB.root + path; }

  async function load() {
    var r = await TB.get("/api/host/games");
    if (!r.ok) {  // the list's database does not answer (503), or this server hosts no games (404: no panel then)
      if (r.status !== 404) W.banner(TB.$("#banner"), "error", W.errorText(r.error));
      return;
    }
    TB.fill(TB.$("#host-list"), r.data.games.map(function (g) {
      // A game this process cannot serve (another server holds it, its journal is refused) says why.
      var line = g.error ? el("div", { class: "host-unavailable", style: { color: "var(--danger)" }, text: W.errorText(g.error) })
        : el("div", { class: "muted", text: [t("host_teams", { n: g.teams }), t("host_entries", { n: g.entries }),
                                                             t("host_status." + (g.ended ? "ended" : g.clock))].join(" \u00b7 ") });
      return el("li", { class: "host-game", dataset: { game: g.name } },
        el("a", { href: address(g.path), target: "_blank", rel: "noopener" }, el("b", { text: g.name }), " ", address(g.path)),
        line);
    }));
  }

  TB.$("#host-form").addEventListener("submit", async function (event) {
    event.preventDefault();
    var form = event.target, shown = TB.$("#host-made");
    shown.classList.add("hidden");
    var res = await TB.api("POST", "/api/host/games", { name: form.name.value.trim().toLowerCase() }, { retry: false });
    if (!res.ok) { W.banner(TB.$("#banner"), "error", W.errorText(res.error)); return; }
    TB.fill(shown, [t("host_made", { name: res.data.name, address: address(res.data.path), user: res.data.lead_user }),
                    " ", el("code", { class: "big-password", text: res.data.lead_password })]);
    shown.classList.remove("hidden");
    form.reset();
    load();
  });

  load();
})();
