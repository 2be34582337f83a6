/* The bank's refusals as sentences in the page's language. The bank's own
 * messages are English; a page shows the sentence of the refusal's code from its strings
 * (templates/_error_strings.html, _strings.html) with the parameters made readable: ids
 * become the game's labels. Every page that shows a refusal loads it after board_labels.js.
 */
(function () {
  "use strict";
  var TB = window.TB, W = window.W;

  /** Error text with the bank's params made readable (tokens missing, card, building and team names...). */
  W.errorText = function (error) {
    if (!error) return "";
    var params = Object.assign({}, error.params || {});
    if (params.missing && typeof params.missing === "object") {
      params.missing = W.resources().filter(function (r) { return params.missing[r]; })
        .map(function (r) { return params.missing[r] + " " + W.resLabel(r); }).join(", ");
    }
    if (params.card) params.card = W.cardLabel(params.card);
    if (params.team) params.team = W.teamLabel(params.team);
    // The rules' other parameters, as the page's words: ids become labels.
    if (params.building) params.building = W.buildingLabel(params.building);
    if (Array.isArray(params.requires)) params.requires = params.requires.map(W.buildingLabel).join(", ");
    if (params.animal) params.animal = W.animalLabel(params.animal);
    if (params.owner) params.owner = W.teamLabel(params.owner);
    if (params.track) params.track = W.trackLabel(params.track);
    if (params.resource) params.resource = W.resLabel(params.resource);
    if (Array.isArray(params.accepts)) params.accepts = params.accepts.map(W.resLabel).join(", ");
    // A jump of the machine's clock (R34), in the page's words ("3 min"), where the page can say it.
    if (error.code === "clock_held" && typeof params.seconds === "number") params.seconds = W.jumpText ? W.jumpText(params.seconds) : params.seconds + " s";
    var code = error.code || "", locked = /^animals_locked_until_all_tracks_reach_(\d+)$/.exec(code);
    if (locked) { code = "animals_locked"; params.level = locked[1]; } // the unlock level is part of the code
    if (code === "track_full" && TB.one(Number(params.room))) code = "track_full_one"; // "1 cran", never "cran(s)"
    // Fewer tokens than one rate's worth: one amount to give, never "give 8 or 8".
    if (code === "exchange_not_a_multiple" && Number(params.lower) === Number(params.upper)) code = "exchange_not_a_multiple_one";
    return TB.errorText(Object.assign({}, error, { code: code, params: params }));
  };
})();
