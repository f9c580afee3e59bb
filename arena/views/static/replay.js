// The replay viewer: draws the frames that arena.views.frames made from the engine.
// It knows how cards look, never a rule of a game. A replay page starts it on the frames
// embedded in the page; a live table (arena serve) starts it on one seat's frames and
// appends the frames that come after (arenaViewer(data).append).
window.arenaViewer = function (data) {
  "use strict";
  var game = data.game, frames = data.frames, seats = data.names.length;
  // the seat each view is: 0..seats-1 and then everyone, or one seat's view alone
  var viewSeats = data.view_seats || data.views.map(function (_, v) { return v; });
  // Every view of every frame in full: a zone of 0 is the one before it in time, 1 the
  // one of the view before in the same frame; facts of 0 are the frame before's.
  var full = [], facts = [];
  function unpack(f, i) {
    facts.push(f.facts === 0 ? facts[i - 1] : f.facts);
    full.push(f.views.map(function (zones, v, views) {
      return zones.map(function (z, k) {
        if (z === 0) return full[i - 1][v][k];
        if (z === 1) return null;  // resolved below, once the view before is known
        return z;
      });
    }));
    full[i].forEach(function (zones, v) {
      zones.forEach(function (z, k) { if (z === null) zones[k] = full[i][v - 1][k]; });
    });
  }
  frames.forEach(unpack);

  function card(name) {
    return window.arenaCard(game, name);
  }

  var at = 0, view = Number(document.getElementById("view").value);

  function draw() {
    var f = frames[at];
    var seat = viewSeats[view];
    var everyone = seat === undefined || seat >= seats;
    var log = (everyone || seat === f.actor) && f.full ? f.full : f.log;
    // step N: the N-th action of the match (step 0, the deal), as arena review and the
    // JSON exports number it; the page's address says the step (#step=N) for a link
    document.getElementById("log").textContent = "step " + at + " · " + log;
    var dl = document.getElementById("facts");
    dl.replaceChildren();
    facts[at].forEach(function (kv) {
      dl.appendChild(el("dt", null, kv[0]));
      dl.appendChild(el("dd", null, kv[1]));
    });
    var table = document.getElementById("table");
    table.replaceChildren();
    full[at][view].forEach(function (zone, k) {
      var box = el("div", "zone");
      if (!everyone && k === seat) box.classList.add("mine");
      if (k >= seats) box.classList.add("wide");
      var h = el("h3", null, zone.title + (!everyone && k === seat ? " (this view)" : ""));
      zone.tags.forEach(function (t) { h.appendChild(el("span", "tag", t)); });
      box.appendChild(h);
      zone.rows.forEach(function (row) {
        var line = el("div", "row");
        line.appendChild(el("span", "label", row[0]));
        var cards = el("span", "cards");
        if (row[1]) row[1].split(" ").forEach(function (n) { cards.appendChild(card(n)); });
        for (var i = 0; i < row[2]; i++) cards.appendChild(el("span", "card back"));
        if (!row[1] && !row[2]) cards.appendChild(el("span", "none", "—"));
        else if (row[2]) cards.appendChild(el("span", "count", row[2] + " hidden"));
        line.appendChild(cards);
        box.appendChild(line);
      });
      table.appendChild(box);
    });
    ["jump", "scrub"].forEach(function (id) {
      var input = document.getElementById(id);
      input.max = frames.length - 1;
      input.value = at;
    });
    if (data.review) drawReview(everyone ? null : seat);
    document.dispatchEvent(new CustomEvent("arena:drawn", {detail: {at: at, last: frames.length - 1}}));
  }

  // A stored review (arena review): the line under the log says what the reviewer made of
  // the decision this frame shows (step N's frame shows the N-th action, decision step N),
  // and the chart draws every decision's expected loss over the match, a bar per decision,
  // coloured by its class; a bar is a link to its step. A seat's view shows that seat's
  // decisions only.
  var review = data.review, byStep = {};
  if (review) {
    review.decisions.forEach(function (d) { byStep[d.step] = d; });
    var box = el("div", "review");
    box.appendChild(el("p", "review-line")).id = "review-line";
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.id = "review-chart";
    svg.setAttribute("preserveAspectRatio", "none");
    box.appendChild(svg);
    box.appendChild(el("p", "review-key", "expected loss per decision, reviewed by " +
                       review.reviewer + " (click a bar for its step)"));
    document.getElementById("log").after(box);
  }

  function drawReview(seat) {
    var shown = review.decisions.filter(function (d) { return seat === null || d.seat === seat; });
    var d = byStep[at], line = document.getElementById("review-line");
    if (d && (seat === null || d.seat === seat)) {
      line.className = "review-line rv-" + d["class"];
      line.textContent = "review: seat " + d.seat + " took " + d.taken + " — " +
        (d["class"] === "best" ? "the reviewer's choice too" : "the reviewer's choice: " +
         d.best + ", " + d.loss.toFixed(3) + " ± " + d.se.toFixed(3) + " better") +
        " (" + d["class"] + ")";
    } else {
      line.className = "review-line";
      line.textContent = "review: no decision of this view at this step";
    }
    var svg = document.getElementById("review-chart"), n = frames.length;
    var top = Math.max(review.thresholds.blunder, Math.max.apply(null, shown.map(function (x) {
      return x.loss;
    }).concat([0])));
    svg.setAttribute("viewBox", "0 0 " + n + " 100");
    svg.replaceChildren();
    function add(tag, attrs, cls) {
      var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      if (cls) e.setAttribute("class", cls);
      svg.appendChild(e);
      return e;
    }
    add("rect", {x: at - 0.5, y: 0, width: 1, height: 100}, "rv-now");
    shown.forEach(function (x) {
      var h = Math.max(2, 100 * x.loss / top);
      var bar = add("rect", {x: x.step - 0.4, y: 100 - h, width: 0.8, height: h},
                    "rv-bar rv-" + x["class"]);
      bar.dataset.step = x.step;
      var t = document.createElementNS("http://www.w3.org/2000/svg", "title");
      t.textContent = "step " + x.step + ", seat " + x.seat + ": " + x.taken + " (" +
        x["class"] + ", loss " + x.loss.toFixed(3) + ")";
      bar.appendChild(t);
      bar.onclick = function () { go(x.step); };
    });
  }

  // a replay page (not a live table) keeps its address on the step shown: a link to
  // match-ID.html#step=N (or ?step=N) opens there
  var linked = data.start !== "last";

  function asked() {
    var found = /(?:^|[#?&])step=(\d+)/.exec(location.hash) ||
      /(?:^|[?&])step=(\d+)/.exec(location.search);
    return found ? Number(found[1]) : null;
  }

  function go(i, opening) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    draw();
    // the address is left as it was when the page opens on the step it asked for, or on
    // the deal when it asked for none
    if (linked && asked() !== at && !(opening && asked() === null && at === 0)) {
      try {
        history.replaceState(null, "", "#step=" + at);
      } catch (e) { /* an address this page may not set: the step is still shown */ }
    }
  }

  document.getElementById("first").onclick = function () { go(0); };
  document.getElementById("back").onclick = function () { go(at - 1); };
  document.getElementById("forward").onclick = function () { go(at + 1); };
  document.getElementById("last").onclick = function () { go(frames.length - 1); };
  document.getElementById("jump").onchange = function (e) { go(Number(e.target.value)); };
  document.getElementById("scrub").oninput = function (e) { go(Number(e.target.value)); };
  document.getElementById("view").onchange = function (e) {
    view = Number(e.target.value);
    draw();
  };
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    var keys = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: frames.length - 1};
    if (e.key in keys) {
      e.preventDefault();
      go(keys[e.key]);
    }
  });
  if (linked) {
    window.addEventListener("hashchange", function () {
      var step = asked();
      if (step !== null && step !== at) go(step);
    });
  }
  go(data.start === "last" ? frames.length - 1 : (linked && asked()) || 0, true);
  return {
    // frames that came after the last one; the view follows them if it was at the end
    append: function (more) {
      var following = at === frames.length - 1;
      more.forEach(function (f) { frames.push(f); unpack(f, frames.length - 1); });
      go(following ? frames.length - 1 : at);
    },
    length: function () { return frames.length; },
  };
};

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A card drawn by name: "7H", "BJ", "9M", "WF".
window.arenaCard = (function () {
  "use strict";
  var SUITS = {C: ["♣", "black"], D: ["♦", "red"], H: ["♥", "red"], S: ["♠", "black"]};
  var CHERKI_SUITS = {C: ["coins", "coins"], S: ["strings", "strings"], M: ["myriads", "myriads"]};
  var HONOURS = {WF: ["White Flower", "white-flower"], RF: ["Red Flower", "red-flower"],
                 OT: ["Old Thousand", "old-thousand"]};
  return function (game, name) {
    var c = el("span", "card");
    c.dataset.card = name;
    if (game === "cherki") {
      if (HONOURS[name]) {
        c.classList.add("honour", HONOURS[name][1]);
        c.appendChild(el("b", null, name));
        c.appendChild(el("small", null, HONOURS[name][0]));
      } else {
        var s = CHERKI_SUITS[name.slice(-1)];
        c.classList.add(s[1]);
        c.appendChild(el("b", null, name.slice(0, -1)));
        c.appendChild(el("small", null, s[0]));
      }
      c.title = name;
      return c;
    }
    if (name === "BJ" || name === "SJ") {
      c.classList.add("joker", name === "BJ" ? "red" : "black");
      c.appendChild(el("b", null, "🃏"));
      c.appendChild(el("small", null, name === "BJ" ? "big joker" : "small joker"));
      c.title = name;
      return c;
    }
    var suit = SUITS[name.slice(-1)];
    c.classList.add(suit[1]);
    c.appendChild(el("b", null, name.slice(0, -1)));
    c.appendChild(el("span", "suit", suit[0]));
    c.title = name;
    return c;
  };
})();

if (document.getElementById("frames")) {
  window.arenaViewer(JSON.parse(document.getElementById("frames").textContent));
}
