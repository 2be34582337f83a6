/* The big screen laid out from what there is to show. After each picture
 * the page is measured and, while something does not fit, gives way in steps, the cheapest first:
 * the animals' names under the standings (their count stays), the legend of the tracks' icons, one
 * row of waiting players (the others in turns), the curve, then the type (the winner's too), in steps down to .67 of its size (2.26rem x .67: 24 px at
 * 1080p, tests/web/field/test_tv_any_moment.py). Lists longer than their panel show in turns
 * (events, waiting players) or the newest first (bookings: at least the 3 newest).
 * Without it a session break with an event open would push the event's givers past the bottom
 * edge, and the bookings show 1 of 12 although more fit.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W, el = TB.el;

  var TURN_MS = 5000, NEWEST = 3;
  // What gives way, in this order: a step that helps one column ("left": standings, events, curve;
  // "right": tracks, waiting, bookings) only when that column needs it, a smaller type for both. One row
  // of waiting players comes last: with two rows, eight of them show within two turns.
  var MOVES = [{ cls: "fit-no-animals", side: "left" }, { cls: "fit-no-legend", side: "right" },
    { cls: "fit-no-chart", side: "left" }, { scale: 0.92 }, { scale: 0.85 }, { scale: 0.78 }, { scale: 0.72 },
    { scale: 0.67 }, { cls: "fit-one-row-waiting", side: "right" }];
  var taken = [];
  // The last fit: its key (layoutKey) and, for each list in turns, how many items a page ("cooldowns": 4).
  // `spent`: it gave all there was, and something still did not fit.
  var fitted = { key: null, pages: {}, givers: [], spent: false };

  function apply() {
    var body = document.body, scale = 1;
    MOVES.forEach(function (m, i) {
      if (m.cls) body.classList.toggle(m.cls, taken.indexOf(i) >= 0);
      else if (taken.indexOf(i) >= 0) scale = m.scale;
    });
    document.documentElement.style.setProperty("--fit", String(scale));
    return scale;
  }

  /** Lay the lists out in the room they have now: in turns, or the newest first. */
  function lay() {
    inTurns(TB.$("#cooldowns"), true); // first: the bookings have what the cooldowns leave (terrabank.css)
    inTurns(TB.$("#events"), false);
    giversInTurns();
    fitNewest(TB.$("#feed"));
  }

  /** {left, right}: which column has something past its edge or the window's, or too few bookings. */
  function trouble() {
    var found = { left: false, right: false, why: [] }, bottom = window.innerHeight + 1;
    var over = function (e) { return e.scrollHeight > e.clientHeight + 1; };
    var mark = function (side, why) { found[side] = true; found.why.push(why); };
    // The winner over the screen is all it shows: the screen under it keeps its type (three long names
    // tied at 6rem passed the window's bottom: the winner's type gives way then).
    var winner = TB.$("#winner");
    if (winner && !winner.classList.contains("hidden")) {
      if (over(winner)) { mark("left", "winner"); mark("right", "winner"); }
      return found;
    }
    Array.prototype.forEach.call(document.querySelectorAll(".display-col"), function (col, i) {
      var side = i ? "right" : "left";
      if (over(col) || col.getBoundingClientRect().bottom > bottom) mark(side, side + " column");
      Array.prototype.forEach.call(col.querySelectorAll(".dpanel"), function (panel) {
        if (panel.offsetParent && over(panel)) mark(side, panel.className);
      });
    });
    var rows = Array.prototype.slice.call(TB.$("#feed").children);
    var whole = rows.filter(function (row) { return row.style.display !== "none"; }).length;
    if (whole < Math.min(NEWEST, rows.length)) mark("right", "bookings");
    if (document.documentElement.scrollHeight > bottom) { mark("left", "page"); mark("right", "page"); }
    return found;
  }

  /** Fit the screen from the full picture: what gave way comes back as soon as there is room (a page of
   * shorter items, a wait ended). Synchronous: nothing is painted between the steps. A fit kept from one
   * second to the next kept, after the first picture of a page load, a curve hidden for good (the first
   * layout is not the last): the fit starts over whenever what the layout depends on changed.
   * Each second (display.js's tick) with nothing changed, the lists only turn their pages, as the last fit
   * paged them: the full fit every second took a throttled TV's main thread whole (a crowded screen:
   * 1.0 s of work a second at 6x, tasks of 2.9 s; bench/web/field/tv_fit_cost.py, docs/PERFORMANCE.md).
   * `fresh`: a new picture (the same texts may lie differently: the curve's box, the teams' colours). */
  W.fitScreen = function (fresh) {
    if (fresh !== true && layoutKey() === fitted.key && turnPages()) return;
    refit();
    fitted.key = layoutKey();
  };

  function refit() {
    W.fits = (W.fits || 0) + 1; // how many full fits since the page loaded: bench/web/field/tv_fit_cost.py reports them
    taken = [];
    var scale = apply();
    lay();
    W.fitLog = []; // why each step was taken ("dpanel events-panel, bookings"): the test prints it
    fitted.spent = false;
    if (getComputedStyle(document.body).overflowY !== "hidden") return; // a phone's page, which scrolls: all of it shows
    for (var found = trouble(); found.left || found.right; found = trouble()) {
      W.fitLog.push(found.why.join(", "));
      var next = -1;
      MOVES.forEach(function (m, i) { if (next < 0 && taken.indexOf(i) < 0 && (m.scale || found[m.side])) next = i; });
      if (next < 0) break; // nothing left to give: the smallest type, what fits shown
      taken.push(next);
      scale = apply();
      lay();
    }
    fitted.spent = found.left || found.right; // the same picture would end the same: the next seconds keep it
    // What gave way, for whoever wonders why the type is smaller ("fit-no-chart 0.85").
    document.body.dataset.fit = MOVES.filter(function (m, i) { return m.cls && taken.indexOf(i) >= 0; })
      .map(function (m) { return m.cls; }).concat(scale).join(" ");
  }

  /** What the layout depends on, read without laying anything out: the window, the language, the fonts,
   * every text on the page with its figures as 0 (a countdown's "4:59" to "4:58" moves nothing: its figures
   * are tabular; "10 s" to "9 s" starts a fit over), what is hidden, the page's classes, the curve's box. */
  function layoutKey() {
    var hidden = Array.prototype.map.call(document.querySelectorAll(".hidden"), function (e) { return e.id || e.className; });
    var chart = TB.$("#chart");
    return [window.innerWidth, window.innerHeight, document.documentElement.lang, document.fonts ? document.fonts.status : "",
      document.body.className, hidden.join(","), chart ? chart.getAttribute("viewBox") : "",
      document.body.textContent.replace(/\d/g, "0")].join("|");
  }

  /** Nothing changed since the last fit: the lists redrawn this second (events, cooldowns) show their
   * page of now, as many a page as that fit found. False if the screen does not fit (a figure a little
   * wider) though that fit had something left to give: the caller fits it again. */
  function turnPages() {
    Object.keys(fitted.pages).forEach(function (id) {
      var list = TB.$("#" + id), per = fitted.pages[id];
      if (per) showPage(list, Array.prototype.slice.call(list.children), per);
    });
    givers().forEach(function (list, i) { if (fitted.givers[i]) showGivers(list, fitted.givers[i]); });
    var found = trouble();
    return fitted.spent || (!found.left && !found.right);
  }

  W.fitTrouble = trouble;

  /** How many of `items`, from the first, lie whole inside `panel` (one measure, not one per item). */
  function leading(panel, items) {
    var limit = panel.getBoundingClientRect().bottom - parseFloat(getComputedStyle(panel).paddingBottom) + 1, k = 0;
    while (k < items.length && items[k].getBoundingClientRect().bottom <= limit) k += 1;
    return k;
  }

  /** The newest bookings that fit their panel whole; the older ones are left out, never cut. */
  function fitNewest(list) {
    var items = Array.prototype.slice.call(list.children);
    items.forEach(function (item) { item.style.display = ""; });
    items.slice(leading(list.parentElement, items)).forEach(function (item) { item.style.display = "none"; });
  }

  /** A list longer than its panel is shown a page at a time, each page for 5 s, with "1/3" beside
   * the panel's title, rather than cut at the panel's edge (six players waiting after fights would
   * show as two, and a second event never appear). A panel sized by its
   * content (`sizedByContent`) keeps the height of a full page on a shorter last one. */
  function inTurns(list, sizedByContent) {
    var panel = list.parentElement, items = Array.prototype.slice.call(list.children);
    var title = panel.querySelector("h2"), marker = title.querySelector(".in-turns");
    if (marker) title.removeChild(marker);
    if (sizedByContent) panel.style.minHeight = "";
    var over = function () { return panel.scrollHeight > panel.clientHeight + 1; };
    var show = function (fit, page) { items.forEach(function (item, i) { item.style.display = Math.floor(i / fit) === page ? "" : "none"; }); };
    show(items.length, 0);
    fitted.pages[list.id] = 0; // all of it shows
    if (items.length < 2 || !over()) return;
    // As many a page as fit on every page: a page of taller items ("may go!" under a long name) is not cut.
    var fit = Math.max(1, leading(panel, items)), page;
    for (page = 1; fit > 1 && page < Math.ceil(items.length / fit); page++) {
      show(fit, page);
      if (over()) { fit -= 1; page = 0; show(fit, 0); }
    }
    show(fit, 0);
    if (sizedByContent) panel.style.minHeight = panel.offsetHeight + "px"; // a short last page keeps its height
    fitted.pages[list.id] = fit;
    showPage(list, items, fit);
  }

  /** The givers' lists of the events shown now (display.js draws them again each second). */
  function givers() {
    return Array.prototype.filter.call(document.querySelectorAll("#events .givers"), function (l) { return l.offsetParent; });
  }

  /** An event taller than its panel on its own (8 givers with long names at 1080p: the last row ran past
   * the panel's edge, bench/web/field/tv_fit_cost.py's busy moment): its givers in turns, "1/2" after them, as
   * many a page as fit on every page. Paging the events cannot help there: one event is the page. */
  function giversInTurns() {
    var panel = TB.$("#events").parentElement;
    var over = function () { return panel.scrollHeight > panel.clientHeight + 1; };
    fitted.givers = givers().map(function (list) {
      var items = list.querySelectorAll(".giver"), rest = items.length - leaders(list), per = rest, pages;
      Array.prototype.forEach.call(items, function (g) { g.style.display = ""; });
      delete list.dataset.turn;
      if (rest < 2 || !over()) return 0;
      for (per = rest - 1; per > 1; per--) { // every page whole, the leaders and its marker included
        for (pages = 0; pages < Math.ceil(rest / per) && !overOn(list, per, pages, over); pages++) { /* fits */ }
        if (pages === Math.ceil(rest / per)) break;
      }
      showGivers(list, per);
      return per;
    });
  }

  /** How many givers lead the event (ranked first, equals included): they are on every page. */
  function leaders(list) { return list.querySelectorAll(".giver.leader").length; }

  function overOn(list, per, page, over) {
    showGivers(list, per, page);
    return over();
  }

  /** The givers' page of now (or `page`), `per` a page, its "2/3" after them: drawn by the style sheet from
   * `data-turn`, so that it is not a text of the page (layoutKey: display.js draws the events again each
   * second, without it, and a text that came and went started a fit over every second). */
  function showGivers(list, per, page) {
    var items = list.querySelectorAll(".giver"), lead = leaders(list), pages = Math.max(1, Math.ceil((items.length - lead) / per));
    // By the event's own turns: with the events in turns too, the same clock would show it the same page each time.
    if (page === undefined) page = Math.floor(Math.floor(Date.now() / TURN_MS) / (fitted.pages.events || 1)) % pages;
    // The leaders first and always; the others below them, `per` a page.
    Array.prototype.forEach.call(items, function (g, i) { g.style.display = i < lead || Math.floor((i - lead) / per) === page ? "" : "none"; });
    list.dataset.turn = (page + 1) + "/" + pages;
  }

  /** The page of now of a list in turns, `per` items a page, its "2/3" beside the panel's title. */
  function showPage(list, items, per) {
    var title = list.parentElement.querySelector("h2"), marker = title.querySelector(".in-turns");
    var pages = Math.ceil(items.length / per), page = Math.floor(Date.now() / TURN_MS) % pages;
    items.forEach(function (item, i) { item.style.display = Math.floor(i / per) === page ? "" : "none"; });
    if (!marker) marker = title.appendChild(el("span", { class: "in-turns" }));
    marker.textContent = (page + 1) + "/" + pages;
  }
})();
