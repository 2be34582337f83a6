/* The admin page's list of Trias games (the lead only): each game with its table link, which runs
 * the table (undo, rematch, the seats' QR codes); a game stored before table links gets one on request.
 * There is no other list of every game: the Trias start page lists only this device's games.
 */
(function () {
  "use strict";
  var TB = window.TB, el = TB.el, t = TB.t, box = TB.$("#trias-admin-list");
  if (!box) return;

  function line(g) {
    var who = g.seats.map(function (s) { return s.name; }).join(", ");
    var state = g.over ? t("trias.over") : g.turn ? "#" + g.turn : "";
    var action = g.table_link
      ? el("a", { class: "btn btn-small", href: g.table_link, target: "_blank", rel: "noopener" }, t("trias.open"))
      : el("button", { type: "button", class: "btn btn-small", onclick: function () { make(g.id); } }, t("trias.make"));
    return el("li", { dataset: { game: g.id } }, el("code", { text: g.id }), " ", el("span", { text: who + (state ? " · " + state : "") }),
      " ", g.table_link ? el("small", { class: "trias-link", text: g.table_link }) : el("small", { class: "muted", text: t("trias.old") }), " ", action);
  }

  async function make(id) {
    await TB.api("POST", "/trias/api/admin/games/" + id + "/table", {}, { key: TB.uuid() });
    load();
  }

  async function load() {
    var reply = await TB.get("/trias/api/admin/games");
    if (!reply.ok) return;  // not the lead: the section stays hidden
    TB.fill(box, reply.data.games.length ? reply.data.games.map(line) : el("li", { class: "muted", text: t("trias.none") }));
  }

  load();
})();
