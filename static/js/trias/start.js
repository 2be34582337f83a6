/* The Trias start page: seats (2-5, each a person or a computer of a level), a seed, play or
 * mirror; then the board opens. Also the list of games to resume.
 */
(function () {
  "use strict";
  var TB = window.TB, el = TB.el, t = TB.t;
  var levels = document.currentScript.dataset.levels.split(",");
  var list = TB.$("#seats");

  /** A seat's name until someone types one: "Seat 3" for a person, "Computer · hard" for a computer. */
  function defaultName(li, n) {
    var kind = TB.$("[name=kind]", li).value;
    return kind === "computer" ? t("computer_name", { level: t("level." + TB.$("[name=level]", li).value) }) : t("seat_n", { n: n });
  }

  function seatRow(kind, level) {
    var kindSel = el("select", { name: "kind" },
      el("option", { value: "human", text: t("human") }), el("option", { value: "computer", text: t("computer") }));
    kindSel.value = kind;
    var levelSel = el("select", { name: "level" }, levels.map(function (l) { return el("option", { value: l, text: t("level." + l) }); }));
    levelSel.value = level || "easy";
    var row = el("li", { class: "trias-seat-row" },
      el("input", { type: "text", name: "name", maxLength: 40, required: true, dataset: { auto: "1" },
        oninput: function (ev) { delete ev.currentTarget.dataset.auto; } }),  // typed: the name is theirs
      kindSel, levelSel,
      el("button", { type: "button", class: "btn btn-small", name: "remove", onclick: function () { if (list.children.length > 2) { row.remove(); renumber(); } } }, t("remove")));
    var sync = function () { levelSel.hidden = kindSel.value !== "computer"; renumber(); };
    kindSel.addEventListener("change", sync);
    levelSel.addEventListener("change", sync);
    levelSel.hidden = kind !== "computer";
    return row;
  }

  /** Each control says which seat it is for (the numbers follow a removed seat). */
  var LABELS = { name: "seat_name", kind: "seat_kind", level: "seat_level", remove: "seat_remove" };
  function renumber() {
    var used = {};
    Array.prototype.forEach.call(list.children, function (li) { var input = TB.$("[name=name]", li); if (!input.dataset.auto) used[input.value.trim()] = true; });
    Array.prototype.forEach.call(list.children, function (li, i) {
      li.dataset.n = i + 1;
      Object.keys(LABELS).forEach(function (field) { TB.$("[name=" + field + "]", li).setAttribute("aria-label", t(LABELS[field], { n: i + 1 })); });
      var input = TB.$("[name=name]", li);
      if (!input.dataset.auto) return;
      var base = defaultName(li, i + 1), name = base;  // two computers of one level: "Computer · easy 2"
      for (var k = 2; used[name]; k++) name = base + " " + k;
      used[name] = true;
      input.value = name;
    });
    TB.$("#add-seat").disabled = list.children.length >= 5;
  }

  function add(kind, level) { list.appendChild(seatRow(kind, level)); renumber(); }

  add("human");
  add("computer", "easy");
  TB.$("#add-seat").addEventListener("click", function () { if (list.children.length < 5) add("human"); });

  TB.$("#new-game").addEventListener("submit", async function (event) {
    event.preventDefault();
    var form = event.target, box = TB.$("#new-error");
    var seats = Array.prototype.map.call(list.children, function (li) {
      var kind = TB.$("[name=kind]", li).value, seat = { name: TB.$("[name=name]", li).value.trim(), kind: kind };
      if (kind === "computer") seat.level = TB.$("[name=level]", li).value;
      return seat;
    });
    var body = { seats: seats, mode: form.querySelector("[name=mode]:checked").value, seed: TB.$("#seed").value.trim() };
    box.classList.add("hidden");
    var reply = await TB.api("POST", "/trias/api/games", body, { key: TB.uuid() });
    if (reply.ok) { window.location.href = reply.data.board; return; }  // this device now holds the table's secret
    box.textContent = TB.errorText(reply.error);
    box.classList.remove("hidden");
  });

  (async function games() {
    var reply = await TB.get("/trias/api/games"), box = TB.$("#games");
    if (!reply.ok) return;
    // Only the games this device holds a secret for (bank/web/trias/held.py): as the table, or as a seat.
    var items = reply.data.games.map(function (g) {
      var who = g.seats.map(function (s) { return s.name; }).join(", ");
      var as = g.as === "seat" ? t("as_seat", { name: (g.seats[g.seat] || {}).name || "" }) : t("as_table");
      return el("li", { dataset: { game: g.id, as: g.as } }, el("a", { class: "btn", href: TB.url(g.link) }, t("resume")),
        " ", el("span", { text: who }), " ", el("small", { class: "muted", text: as + " · " + t("game." + g.mode) + " · " + (g.over ? t("phase.over") : g.turn ? t("turn_n", { n: g.turn }) : t("phase.place")) }));
    });
    TB.fill(box, items.length ? items : el("li", { class: "muted", text: t("no_games") }));
  })();
})();
