/* Short team names, for the big screen only (display.html loads it after the board scripts): its chips
 * (W.teamChip on body.display), its curve and its replay. Not on the phones: a team phone shows whole names
 * and its first load stays under 60 KB (tests/web/serving/test_serving.py).
 */
(function () {
  "use strict";

  var W = window.W;
  function team(id) { return (W.config && W.config.teams && W.config.teams[id]) || null; }

  /* A team's name where room is tight (the big screen's chips, curve and replay): the config's `short`,
   * else the name cut after a whole word, or after 11 letters, and "…". Cut by graphemes (what a reader
   * calls a letter: "é", "🌱", "👩‍👩‍👧", "☀️"), never inside one: a cut by UTF-16 units halved an emoji
   * into "�". Two teams never share a short name: a clash cuts those two longer. */
  var SHORT = 12, segmenter = window.Intl && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
  W.graphemes = function (text) {
    // Without Intl.Segmenter (browsers before 2022-2023): code points, so an emoji stays whole at least.
    return segmenter ? Array.from(segmenter.segment(text), function (s) { return s.segment; }) : Array.from(text);
  };
  W.cutName = function (name, max) {
    var g = W.graphemes(String(name).trim()), room = (max || SHORT) - 1, words = 0;
    if (g.length <= room + 1) return g.join("");
    for (var i = 1; i <= room; i++) if (/^\s$/.test(g[i])) words = i;
    // After a whole word if that keeps at least half the room ("Les…" says nothing), else after `room` letters.
    var head = g.slice(0, words >= room / 2 ? words : room);
    while (head.length > 1 && /^[\s,;:.·&+\/\u2013\u2014-]$/.test(head[head.length - 1])) head.pop();
    return head.join("") + "\u2026";
  };
  var shorts = null, shortsOf = null;
  W.teamShort = function (id) {
    if (!W.config || !team(id)) return W.teamLabel(id);
    // Keyed on the teams, not W.config: new teams in an old config kept old short names, or none.
    if (shortsOf !== W.config.teams || !(id in shorts)) { shorts = shortNames(); shortsOf = W.config.teams; }
    return shorts[id];
  };
  function shortNames() {
    var out = {}, teams = W.teams(), given = function (id) { return team(id).short; };
    teams.forEach(function (id) { out[id] = given(id) || W.cutName(W.teamLabel(id)); });
    for (var max = SHORT + 4; max <= 64; max += 4) {
      var by = {}, clash = false;
      teams.forEach(function (id) { (by[out[id]] = by[out[id]] || []).push(id); });
      Object.keys(by).forEach(function (name) {
        if (by[name].length < 2) return;
        clash = true;
        by[name].forEach(function (id) { if (!given(id)) out[id] = W.cutName(W.teamLabel(id), max); });
      });
      if (!clash) break;
    }
    return out;
  }
})();
