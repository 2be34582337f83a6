/* Trias score calculator (/trias/score): the form, checks with a sentence next to each field,
 * and the server's final scoring (T18, T19) shown as a table with its arithmetic.
 *
 * Plain ES2017 on top of page.js and api.js (TB.el, TB.t, TB.api). Entries are kept in localStorage so a
 * reload or a phone that sleeps loses nothing. Text from the form is set with textContent only.
 */
(function () {
  "use strict";

  var KEY = "trias.score.v1";
  var MAX_PLAYERS = 5, MIN_PLAYERS = 2, MAX_NAME = 20;
  var NAMES = TB.strings.default_names || ["Black", "White", "Cross", "Grey", "Striped"];
  var form = TB.$("#score-form");
  var state = load() || fresh(4);
  speakNames(state);

  function fresh(players) {
    var names = NAMES.slice(0, players);
    var none = names.map(function () { return ""; });
    return { players: names, masses: [blankMass("A", players)], stock: none, interim: none.slice() };
  }

  function blankMass(name, players) {
    var herds = [];
    for (var i = 0; i < players; i++) herds.push("");
    return { name: name, tiles: "", main: false, herds: herds };
  }

  function load() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(KEY) || "null");
      if (saved && Array.isArray(saved.players) && Array.isArray(saved.masses) && Array.isArray(saved.stock) &&
          Array.isArray(saved.interim)) return saved;
    } catch (e) { /* no storage, or an old shape: start afresh */ }
    return null;
  }

  /**
   * A player still named by a default colour of any language ("Noir" kept from a French visit) takes
   * that colour's name in the page's language; a name someone typed is left as it is.
   */
  function speakNames(st) {
    var every = TB.strings.default_names_every || {};
    st.players = st.players.map(function (name) {
      for (var lang in every) {
        var at = (every[lang] || []).indexOf(name);
        if (at >= 0 && NAMES[at]) return NAMES[at];
      }
      return name;
    });
  }

  function save() {
    try { window.localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) { /* private mode: fine */ }
  }

  /* ---- drawing the form ---- */

  /** An input with its label and the place for its sentence. */
  function field(labelText, input, extraClass) {
    return TB.el("label", { class: "tscore-field" + (extraClass ? " " + extraClass : "") },
      TB.el("span", { class: "tscore-label", text: labelText }), input, TB.el("span", { class: "tscore-msg", role: "alert" }));
  }

  function numberInput(value, data, label) {
    return TB.el("input", { type: "text", inputmode: "numeric", pattern: "[0-9]*", maxlength: 3, value: value,
      dataset: data, "aria-label": label });
  }

  function nextName() {
    var used = state.masses.map(function (m) { return m.name; });
    for (var i = 0; i < 26; i++) {
      var letter = String.fromCharCode(65 + i);
      if (used.indexOf(letter) < 0) return letter;
    }
    return String(state.masses.length + 1);
  }

  function drawPlayers() {
    var list = TB.$("#players");
    TB.fill(list, state.players.map(function (name, i) {
      var input = TB.el("input", { type: "text", maxlength: MAX_NAME, value: name, dataset: { playerName: i },
        "aria-label": TB.t("player_n", { n: i + 1 }) });
      var remove = state.players.length > MIN_PLAYERS ? TB.el("button", { type: "button", class: "btn btn-small btn-quiet",
        dataset: { removePlayer: i }, "aria-label": TB.t("remove_player", { name: name || i + 1 }), text: "×" }) : null;
      return TB.el("li", { class: "tscore-player" }, field(TB.t("player_n", { n: i + 1 }), input), remove);
    }));
    TB.$("#add-player").disabled = state.players.length >= MAX_PLAYERS;
  }

  function herdInputs(values, data, labelFor) {
    return state.players.map(function (name, p) {
      var d = Object.assign({ player: p }, data);
      return field(name || TB.t("player_n", { n: p + 1 }), numberInput(values[p], d, labelFor(name || p + 1)), "tscore-herd");
    });
  }

  function drawMasses() {
    TB.fill(TB.$("#masses"), state.masses.map(function (mass, m) {
      var head = TB.el("div", { class: "tscore-mass-head" },
        field(TB.t("name"), TB.el("input", { type: "text", maxlength: MAX_NAME, value: mass.name, dataset: { mass: m, field: "name" } }), "tscore-name"),
        field(TB.t("tiles"), numberInput(mass.tiles, { mass: m, field: "tiles" }), "tscore-tiles"),
        state.masses.length > 1 ? TB.el("button", { type: "button", class: "btn btn-small btn-quiet", dataset: { removeMass: m },
          "aria-label": TB.t("remove_mass", { name: mass.name }), text: "×" }) : null);
      var main = TB.el("label", { class: "tscore-main" },
        TB.el("input", { type: "checkbox", checked: !!mass.main, dataset: { mass: m, field: "main" } }), " ", TB.t("main"));
      var herds = TB.el("div", { class: "tscore-grid" }, herdInputs(mass.herds, { mass: m, field: "herds" }, function (who) {
        return TB.t("herds_of", { name: who, mass: mass.name });
      }));
      return TB.el("li", { class: "tscore-mass" + (mass.main ? " is-main" : "") }, head, main, herds,
        TB.el("p", { class: "tscore-msg tscore-mass-msg", role: "alert", dataset: { massMsg: m } }));
    }));
  }

  function drawStock() {
    TB.fill(TB.$("#stock"), herdInputs(state.stock, { field: "stock" }, function (who) { return TB.t("stock_of", { name: who }); }));
    TB.fill(TB.$("#interim"), herdInputs(state.interim, { field: "interim" }, function (who) { return TB.t("interim_of", { name: who }); }));
  }

  function drawAll() {
    drawPlayers();
    drawMasses();
    drawStock();
    save();
  }

  /* ---- keeping the state in step with the fields ---- */

  form.addEventListener("input", function (event) {
    var t = event.target, d = t.dataset;
    if (d.playerName !== undefined) {
      state.players[+d.playerName] = t.value;
      relabel();
    } else if (d.field === "name") {
      state.masses[+d.mass].name = t.value;
    } else if (d.field === "tiles") {
      state.masses[+d.mass].tiles = t.value;
    } else if (d.field === "herds") {
      state.masses[+d.mass].herds[+d.player] = t.value;
    } else if (d.field === "stock" || d.field === "interim") {
      state[d.field][+d.player] = t.value;
    }
    clearMessage(t);
    save();
  });

  form.addEventListener("change", function (event) {
    var d = event.target.dataset;
    if (d.field === "main") {
      state.masses[+d.mass].main = event.target.checked;
      event.target.closest(".tscore-mass").classList.toggle("is-main", event.target.checked);
      save();
    }
  });

  /** The herd fields' labels follow the players' names as they are typed. */
  function relabel() {
    Array.prototype.forEach.call(form.querySelectorAll(".tscore-herd"), function (label) {
      var p = +label.querySelector("input").dataset.player;
      label.querySelector(".tscore-label").textContent = state.players[p] || TB.t("player_n", { n: p + 1 });
    });
  }

  form.addEventListener("click", function (event) {
    var d = event.target.dataset || {};
    if (d.removeMass !== undefined) {
      state.masses.splice(+d.removeMass, 1);
      drawAll();
    } else if (d.removePlayer !== undefined) {
      var p = +d.removePlayer;
      state.players.splice(p, 1);
      state.stock.splice(p, 1);
      state.interim.splice(p, 1);
      state.masses.forEach(function (m) { m.herds.splice(p, 1); });
      drawAll();
    }
  });

  TB.$("#add-mass").addEventListener("click", function () {
    state.masses.push(blankMass(nextName(), state.players.length));
    drawAll();
    var inputs = TB.$("#masses").lastChild.querySelectorAll("input");
    if (inputs[1]) inputs[1].focus(); // the name is already given: the tiles come next
  });

  TB.$("#add-player").addEventListener("click", function () {
    if (state.players.length >= MAX_PLAYERS) return;
    var name = NAMES.filter(function (n) { return state.players.indexOf(n) < 0; })[0] || TB.t("player_n", { n: state.players.length + 1 });
    state.players.push(name);
    state.stock.push("");
    state.interim.push("");
    state.masses.forEach(function (m) { m.herds.push(""); });
    drawAll();
  });

  TB.$("#clear").addEventListener("click", function () {
    state = fresh(state.players.length);
    TB.$("#result").classList.add("hidden");
    drawAll();
    setFormMessage("");
  });

  /* ---- checks: a sentence next to the field, nothing sent until all are right ---- */

  function setMessage(input, text) {
    var box = input.closest(".tscore-field").querySelector(".tscore-msg");
    box.textContent = text;
    input.setAttribute("aria-invalid", text ? "true" : "false");
  }

  function clearMessage(input) {
    if (input.closest(".tscore-field")) setMessage(input, "");
  }

  function setFormMessage(text) { TB.$("#form-error").textContent = text; }

  /** A whole number from `lo` to `hi`, "" counting as `empty`; NaN when it is not one. */
  function whole(value, lo, hi, empty) {
    var text = String(value).trim();
    if (text === "") return empty;
    if (!/^\d{1,3}$/.test(text)) return NaN;
    var n = parseInt(text, 10);
    return n >= lo && n <= hi ? n : NaN;
  }

  function check() {
    var problems = [], players = state.players.length;
    // T7, T21: herds a player owns; T3: tiles on a board (the rules' Example 3 adds up to 36 over
    // its masses, so the sum is not checked, only each mass).
    var herdMax = players === 2 ? 10 : 15, tileMax = players === 2 ? 19 : 36;
    function bad(input, text) { problems.push({ input: input, text: text }); }
    function input(selector) { return form.querySelector(selector); }
    var seen = {};
    state.players.forEach(function (name, p) {
      var el = input('[data-player-name="' + p + '"]'), clean = name.trim();
      if (!clean) bad(el, TB.t("err.player_empty"));
      else if (seen[clean.toLowerCase()]) bad(el, TB.t("err.player_twice", { name: clean }));
      seen[clean.toLowerCase()] = true;
    });
    var massNames = {}, mains = 0, owned = state.players.map(function () { return 0; });
    state.masses.forEach(function (mass, m) {
      var nameEl = input('[data-mass="' + m + '"][data-field="name"]'), clean = mass.name.trim();
      if (!clean) bad(nameEl, TB.t("err.name_empty"));
      else if (massNames[clean.toLowerCase()]) bad(nameEl, TB.t("err.name_twice", { name: clean }));
      massNames[clean.toLowerCase()] = true;
      var tilesEl = input('[data-mass="' + m + '"][data-field="tiles"]');
      var tiles = whole(mass.tiles, 1, tileMax, NaN);
      if (isNaN(tiles)) bad(tilesEl, TB.t("err.tiles", { max: tileMax }));
      var onIt = 0;
      mass.herds.forEach(function (value, p) {
        var n = whole(value, 0, herdMax, 0);
        if (isNaN(n)) bad(input('[data-mass="' + m + '"][data-field="herds"][data-player="' + p + '"]'), TB.t("err.herds", { max: herdMax }));
        else { onIt += n; owned[p] += n; }
      });
      if (!isNaN(tiles) && onIt > 4 * tiles) bad(tilesEl, TB.t("err.crowded", { herds: onIt, tiles: tiles }));
      if (mass.main && ++mains > 1) bad(input('[data-mass="' + m + '"][data-field="main"]'), TB.t("err.two_main"));
    });
    state.stock.forEach(function (value, p) {
      var el = input('[data-field="stock"][data-player="' + p + '"]'), n = whole(value, 0, herdMax, 0);
      if (isNaN(n)) bad(el, TB.t("err.herds", { max: herdMax }));
      else if (owned[p] + n > herdMax) {
        bad(el, TB.t("err.too_many_herds", { name: state.players[p] || p + 1, n: owned[p] + n, max: herdMax }));
      }
    });
    state.interim.forEach(function (value, p) {
      if (isNaN(whole(value, 0, 999, 0))) bad(input('[data-field="interim"][data-player="' + p + '"]'), TB.t("err.interim"));
    });
    return { problems: problems };
  }

  /** The checkbox has no field box: its sentence goes under its land mass. */
  function show(problem) {
    if (problem.input.type === "checkbox") {
      var m = problem.input.dataset.mass;
      form.querySelector('[data-mass-msg="' + m + '"]').textContent = problem.text;
      problem.input.setAttribute("aria-invalid", "true");
    } else {
      setMessage(problem.input, problem.text);
    }
  }

  function clearAll() {
    Array.prototype.forEach.call(form.querySelectorAll(".tscore-msg"), function (el) { el.textContent = ""; });
    Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid]"), function (el) { el.setAttribute("aria-invalid", "false"); });
  }

  function body() {
    var names = state.players.map(function (n) { return n.trim(); });
    function counts(values) {
      var out = {};
      values.forEach(function (v, p) { out[names[p]] = whole(v, 0, 99, 0); });
      return out;
    }
    return {
      land_masses: state.masses.map(function (m) {
        return { name: m.name.trim(), tiles: whole(m.tiles, 1, 99, 0), main: !!m.main, herds: counts(m.herds) };
      }),
      stock: counts(state.stock),
      interim: counts(state.interim),
    };
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    clearAll();
    setFormMessage("");
    if (!state.masses.length) return setFormMessage(TB.t("err.no_mass"));
    var found = check();
    found.problems.forEach(show);
    if (found.problems.length) {
      setFormMessage(TB.t("err.fix_above"));
      found.problems[0].input.focus();
      return;
    }
    var button = TB.$("#compute");
    button.disabled = true;
    setFormMessage(TB.t("computing"));
    var reply = await TB.api("POST", "/trias/api/score", body());
    button.disabled = false;
    if (!reply.ok) {
      setFormMessage(TB.errorText(reply.error));
      placeServerMessage(reply.error);
      TB.$("#result").classList.add("hidden");
      return;
    }
    setFormMessage("");
    showResult(reply.data);
  });

  /** The calculator names the land mass it refuses (land_masses[2].tiles ...): say it there too. */
  function placeServerMessage(error) {
    var found = /land_masses\[(\d+)\]/.exec((error && error.message) || "");
    var box = found && form.querySelector('[data-mass-msg="' + found[1] + '"]');
    if (box) box.textContent = TB.errorText(error);
  }

  /* ---- the result ---- */

  function showResult(data) {
    var names = state.players.map(function (n) { return n.trim(); });
    var table = TB.$("#points-table");
    var head = TB.el("tr", null, TB.el("th", { scope: "col", text: TB.t("mass_col") }),
      names.map(function (n) { return TB.el("th", { scope: "col", text: n }); }));
    var rows = state.masses.map(function (mass) {
      var name = mass.name.trim(), points = (data.points || {})[name] || {};
      if (mass.main) {
        return TB.el("tr", { class: "is-main" }, TB.el("th", { scope: "row", text: name }),
          TB.el("td", { colspan: names.length, text: TB.t("not_scored") }));
      }
      return TB.el("tr", null, TB.el("th", { scope: "row", text: name }),
        names.map(function (n) { return TB.el("td", { text: String(points[n] || 0) }); }));
    });
    var total = TB.el("tr", { class: "tscore-total" }, TB.el("th", { scope: "row", text: TB.t("total") }),
      names.map(function (n) { return TB.el("td", { dataset: { total: n }, text: String((data.totals || {})[n] || 0) }); }));
    TB.fill(table, [TB.el("thead", null, head), TB.el("tbody", null, rows), TB.el("tfoot", null, total)]);
    var winners = data.winners || [];
    TB.$("#winners").textContent = TB.t(winners.length > 1 ? "winners" : "winner", { names: winners.join(", ") });
    TB.fill(TB.$("#lines"), (data.lines || []).map(function (line) {
      return TB.el("li", { text: typeof line === "string" ? line : (line.text || JSON.stringify(line)) });
    }));
    var result = TB.$("#result");
    result.classList.remove("hidden");
    result.scrollIntoView({ behavior: "smooth", block: "start" });
  }

  drawAll();
})();
