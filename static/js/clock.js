/* Time between two messages: TB.clock counts the game clock and cooldowns on locally from the
 * last `public` message, and TB.sound beeps or vibrates when a countdown ends.
 */
(function () {
  "use strict";

  var TB = window.TB;

  /**
   * Local countdowns between two messages: TB.clock.set(publicPayload) on every `public`
   * message, then TB.clock.elapsed() and TB.clock.cooldown(team, card) at any moment.
   * Nothing counts while the game clock is paused.
   */
  TB.clock = {
    base: null, at: 0,
    set: function (pub) {
      this.base = pub;
      this.at = performance.now();
    },
    running: function () { return !!(this.base && this.base.board.clock.status === "running"); },
    passed: function () { return this.running() ? (performance.now() - this.at) / 1000 : 0; },
    elapsed: function () {
      if (!this.base) return 0;
      var c = this.base.board.clock;
      return Math.min(c.duration, c.elapsed + this.passed());
    },
    /** [{team, card, left}] of every running cooldown, soonest first. */
    cooldowns: function (onlyTeam) {
      var list = [], passed = this.passed(), all = (this.base && this.base.cooldowns) || {};
      if (this.base && this.base.board.clock.status === "ended") return list; // nobody waits once the game is over
      Object.keys(all).forEach(function (team) {
        if (onlyTeam && team !== onlyTeam) return;
        Object.keys(all[team]).forEach(function (card) {
          list.push({ team: team, card: card, left: Math.max(0, all[team][card] - passed) });
        });
      });
      return list.sort(function (a, b) { return a.left - b.left; });
    },
  };

  /* ---- sound and vibration (both need one tap on the page first, by browser rule) ---- */

  var audio = null;
  TB.sound = {
    unlocked: false,
    /** Call from a user gesture: afterwards beeps and vibrations are allowed. */
    unlock: function () {
      var Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx && !audio) audio = new Ctx();
      if (audio && audio.state === "suspended") audio.resume();
      TB.sound.unlocked = true;
    },
    /** A short beep (or `count` of them) made by Web Audio: no sound file to download. */
    beep: function (count) {
      if (!audio) return;
      count = count || 1;
      for (var i = 0; i < count; i++) {
        var start = audio.currentTime + i * 0.3;
        var osc = audio.createOscillator(), gain = audio.createGain();
        osc.type = "square";
        osc.frequency.value = 880;
        gain.gain.setValueAtTime(0.0001, start);
        gain.gain.exponentialRampToValueAtTime(0.3, start + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.22);
        osc.connect(gain);
        gain.connect(audio.destination);
        osc.start(start);
        osc.stop(start + 0.25);
      }
    },
    vibrate: function (pattern) {
      if (navigator.vibrate) {
        try { navigator.vibrate(pattern); } catch (e) { /* not allowed without a tap: fine */ }
      }
    },
  };
  ["pointerdown", "keydown", "touchstart"].forEach(function (name) {
    document.addEventListener(name, TB.sound.unlock, { once: true, passive: true });
  });
})();
