// A card table of arena serve: one seat's frames (arena.views.frames.seat_frame) laid out as
// a table - the other seats around the pile or trick, the seat's own cards along the bottom,
// the moves beside it - and the person's legal actions played by choosing cards. It is sent
// what the seat knows and nothing more; it knows how cards look and which words of an
// action are cards, never a rule of a game: what may be played is the server's legal list.
(function () {
  "use strict";
  var panel = document.getElementById("panel");
  var id = panel.dataset.table, game = panel.dataset.game;
  var mine = panel.dataset.mine === "1";
  var KEYS = "123456789abcdefghijklmnoprstuvwxyz";  // as the terminal: no q
  var CARD = /^(10|[2-9JQKA])[CDHS]$|^(BJ|SJ)$|^[1-9][CSM]$|^(WF|RF|OT)$/;
  var SUITS = {C: "♣", D: "♦", H: "♥", S: "♠"};
  var TOKEN = (document.querySelector('meta[name="arena-token"]') || {}).content || "";

  var frames = [], state = null, shown = 0, timer = null, posting = null;
  var selected = [];  // the chosen cards: {token, key} (key: where it lies, one per card drawn)
  var speedBox = document.getElementById("speed");
  var speed = Number(localStorage.getItem("arena-speed") || "250");
  speedBox.value = String(speed);
  if (speedBox.value !== String(speed)) { speed = 250; speedBox.value = "250"; }
  speedBox.onchange = function () {
    speed = Number(speedBox.value);
    localStorage.setItem("arena-speed", String(speed));
  };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function cardText(name) {
    if (game === "cherki") return name;
    if (name === "BJ") return "big joker";
    if (name === "SJ") return "small joker";
    return name.slice(0, -1) + (SUITS[name.slice(-1)] || name.slice(-1));
  }

  function cardsText(names) { return names.map(cardText).join(" "); }

  function who(p) {
    if (p === state.person && mine) return "you";
    var n = state.names[p];
    return n.indexOf("human") === 0 ? (n.split(":")[1] || "a person") : n;
  }

  function error(message) {
    var p = document.getElementById("error");
    p.textContent = message || "";
    p.hidden = !message;
  }

  // -- what the server sends ---------------------------------------------------------------

  function take(s, reset) {
    if (s.error) { error(s.error); return; }
    if (reset) { frames = []; shown = 0; }
    if (state && !reset && s.moves < state.moves) return;  // an answer overtaken by a later one
    if (s.since > frames.length) return load();
    var fresh = s.frames.slice(frames.length - s.since);
    var before = frames.length;
    fresh.forEach(function (f) { frames.push(f); });
    var changed = !state || reset || fresh.length || s.status !== state.status ||
      Boolean(s.legal) !== Boolean(state.legal);
    state = s;
    state.person = s.person ? (panel.dataset.person === "" ? null : Number(panel.dataset.person)) : null;
    if (!changed) return;
    selected = [];
    writeLog();
    // the moves that came are shown one at a time, a short highlight each, at the chosen
    // speed; one's own move (the first of an answer to a post) at once
    if (!before || speed === 0) shown = frames.length - 1;
    step();
  }

  function step() {
    clearTimeout(timer);
    if (shown < frames.length - 1 && speed > 0) {
      shown += 1;
      draw();
      timer = setTimeout(step, speed);
      return;
    }
    shown = frames.length - 1;
    draw();
  }

  function load(reset) {
    return fetch("api/table/" + id + "?since=" + (reset ? 0 : frames.length) +
                 (panel.dataset.seat !== "" ? "&seat=" + panel.dataset.seat : ""),
                 {cache: "no-store"}).then(function (r) { return r.json(); })
      .then(function (s) { take(s, reset); });
  }

  // -- the table -----------------------------------------------------------------------------

  function rows(zone) {
    var out = {};
    zone.rows.forEach(function (r) {
      out[r[3]] = {label: r[0], cards: r[1] ? r[1].split(" ") : [], hidden: r[2]};
    });
    return out;
  }

  function cardsBox(role, cards, hidden, options) {
    options = options || {};
    var box = el("div", "cards " + (options.cls || ""));
    box.dataset.zone = role;
    if (options.label) box.setAttribute("aria-label", options.label);
    var shownCards = cards;
    if (options.last && cards.length > options.last) {
      box.appendChild(el("span", "more", "+" + (cards.length - options.last)));
      shownCards = cards.slice(-options.last);
    }
    shownCards.forEach(function (name, i) {
      var c = window.arenaCard(game, name);
      c.setAttribute("aria-label", cardText(name));
      c.setAttribute("role", "img");
      if (options.pick) pickable(c, name, role + ":" + (i + cards.length - shownCards.length));
      box.appendChild(c);
    });
    var backs = options.backs === undefined ? Math.min(hidden, 1) : Math.min(hidden, options.backs);
    for (var i = 0; i < backs; i++) {
      var b = el("span", "card back");
      b.setAttribute("aria-label", "a card face down");
      b.setAttribute("role", "img");
      if (options.pickDown) pickable(b, "down:" + options.pickDown[i], role + ":" + i);
      box.appendChild(b);
    }
    if (hidden && backs < hidden) box.appendChild(el("span", "count", "×" + hidden));
    if (!cards.length && !hidden) box.appendChild(el("span", "none", options.empty || "—"));
    return box;
  }

  function pickable(card, token, key) {
    card.dataset.token = token;
    card.dataset.key = key;
    card.tabIndex = 0;
    card.classList.add("pick");
    if (selected.some(function (s) { return s.key === key; })) card.classList.add("selected");
    card.setAttribute("aria-pressed", card.classList.contains("selected") ? "true" : "false");
  }

  function seatBox(p, zone, f) {
    var r = rows(zone);
    var box = el("div", "seat");
    box.dataset.zone = "seat";
    box.dataset.seat = p;
    if (state.status === "running" && f.facts && toMove(f) === p) box.classList.add("turn");
    if (f.actor === p && shown > 0) box.classList.add("acted");
    var h = el("h3", null, who(p));
    zone.tags.forEach(function (t) { h.appendChild(el("span", "tag", t)); });
    box.appendChild(h);
    var hand = r.hand;
    var line = el("div", "line");
    line.appendChild(el("span", "n", hand.cards.length + hand.hidden + " in hand"));
    if (hand.cards.length) line.appendChild(cardsBox("known", hand.cards, 0, {cls: "small", label: "cards known in its hand"}));
    box.appendChild(line);
    var more = el("div", "line");
    ["faceup", "facedown", "drawn", "winning"].forEach(function (role) {
      if (!r[role] || (!r[role].cards.length && !r[role].hidden)) return;
      more.appendChild(labelled(r[role].label, cardsBox(role, r[role].cards, r[role].hidden, {cls: "small", backs: r[role].hidden})));
    });
    if (more.childNodes.length) box.appendChild(more);
    return box;
  }

  function toMove(f) {
    var fact = (f.facts || []).filter(function (kv) { return kv[0] === "to move"; })[0];
    var m = fact && /seat (\d+)/.exec(fact[1]);
    return m ? Number(m[1]) : null;
  }

  function flips() {  // the face-down cards one may turn, by index, in order
    return (state.legal || []).map(function (a) { return /^flip (\d+)$/.exec(a); })
      .filter(Boolean).map(function (m) { return Number(m[1]); }).sort(function (a, b) { return a - b; });
  }

  function draw() {
    var f = frames[shown], seat = Number(panel.dataset.seat);
    var focused = document.activeElement && document.activeElement.dataset &&
      document.activeElement.dataset.key;  // a card chosen from the keyboard keeps the focus
    var zones = f.views[0], seats = state.names.length;
    var live = shown === frames.length - 1;
    var strip = document.getElementById("strip");
    strip.querySelectorAll(".fact").forEach(function (x) { x.remove(); });
    (f.facts || []).forEach(function (kv) {
      if (kv[0] === "to move") return;
      var s = el("span", "fact");
      s.appendChild(el("span", "k", kv[0] + " "));
      s.appendChild(el("b", null, kv[1]));
      strip.appendChild(s);
    });
    var others = document.getElementById("others");
    others.replaceChildren();
    for (var k = 1; k < seats; k++) {
      var p = (seat + k) % seats;
      others.appendChild(seatBox(p, zones[p], f));
    }
    // the middle: the trick (Tractor), the pile and the stock
    var middle = document.getElementById("middle");
    middle.replaceChildren();
    var table = rows(zones[seats]);
    var myTurn = live && mine && state.legal;
    if (game === "tractor") {
      var trick = el("div", "trick");
      trick.dataset.zone = "trick";
      for (var q = 0; q < seats; q++) {
        var t = rows(zones[q]).trick;
        var spot = el("div", "play");
        spot.appendChild(el("span", "who", who(q)));
        spot.appendChild(cardsBox("trick", t.cards, 0, {empty: "·"}));
        trick.appendChild(spot);
      }
      middle.appendChild(trick);
      if (table["last-trick"]) middle.appendChild(labelled(table["last-trick"].label, cardsBox("last-trick", table["last-trick"].cards, 0, {cls: "small"})));
      ["kitty", "buried"].forEach(function (role) {
        if (table[role]) middle.appendChild(labelled(role, cardsBox(role, table[role].cards, table[role].hidden, {cls: "small"})));
      });
    } else {
      var pile = cardsBox("pile", table.pile.cards, 0, {last: 6, empty: "empty", label: "the pile"});
      pile.classList.add("pile");
      if (myTurn && usable("pickup", "take")) { pile.classList.add("target"); pile.tabIndex = 0; pile.title = "take it"; }
      middle.appendChild(labelled(table.pile.label, pile));
      var stock = cardsBox("stock", [], table.stock.hidden, {empty: "empty"});
      if (myTurn && usable("draw")) { stock.classList.add("target"); stock.tabIndex = 0; stock.title = "draw"; }
      middle.appendChild(labelled("stock", stock));
      if (table.burned) middle.appendChild(labelled("burned", el("span", "n", String(table.burned.cards.length))));
    }
    // the seat's own cards
    var me = document.getElementById("me");
    me.replaceChildren();
    var r = rows(zones[seat]);
    var head = el("h3", null, mine ? "you" : who(seat));
    zones[seat].tags.forEach(function (t) { head.appendChild(el("span", "tag", t)); });
    me.appendChild(head);
    me.classList.toggle("turn", state.status === "running" && toMove(f) === seat);
    var pick = myTurn;
    if (r.faceup || r.facedown) {
      var row = el("div", "line");
      if (r.faceup) row.appendChild(labelled("face-up", cardsBox("faceup", r.faceup.cards, 0, {pick: pick})));
      if (r.facedown) row.appendChild(labelled("face-down", cardsBox("facedown", r.facedown.cards, r.facedown.hidden, {backs: r.facedown.hidden, pickDown: pick ? flips() : null})));
      me.appendChild(row);
    }
    if (r.picks) me.appendChild(labelled("picked so far", cardsBox("picks", r.picks.cards, 0, {cls: "small"})));
    var hand = cardsBox("hand", r.hand.cards, r.hand.hidden, {pick: pick, cls: "fan", label: "your hand"});
    if (r.drawn) hand.querySelectorAll('[data-card="' + r.drawn.cards[0] + '"]').forEach(function (c) { c.classList.add("fresh"); });
    me.appendChild(labelled("your hand", hand));
    if (r.winning) me.appendChild(labelled("winning hand", cardsBox("winning", r.winning.cards, 0, {cls: "small"})));
    markLog();
    render();
    if (focused) {
      var again = me.querySelector('[data-key="' + focused + '"]');
      if (again) again.focus();
    }
  }

  function labelled(text, box) {
    var d = el("div", "spot");
    d.appendChild(el("span", "label", text));
    d.appendChild(box);
    return d;
  }

  // -- the log -------------------------------------------------------------------------------

  var VERBS = {play: "played", pickup: "picked up the pile", draw: "drew", flip: "turned a face-down card",
               swap: "laid face-up", pass: "passed", declare: "declared", bury: "buried",
               pick: "picked", take: "took", discard: "discarded", call: "called Cherki"};

  function words(i) {
    var f = frames[i], p = f.actor;
    var action = f.log.slice(f.log.indexOf(": ") + 2), parts = action.split(" ");
    var verb = parts[0], cards = parts.filter(function (w) { return CARD.test(w); });
    var before = frames[i - 1] && rows(frames[i - 1].views[0][frames[i - 1].views[0].length - 1]);
    var said = VERBS[verb] || verb;
    if (verb === "pickup" && before && before.pile) said = "picked up " + cardsText(before.pile.cards);
    else if (verb === "take" && before && before.pile && before.pile.cards.length) said = "took " + cardText(before.pile.cards[before.pile.cards.length - 1]);
    else if (verb === "bury" && !cards.length) said = "buried a card";
    else if (verb === "draw" && game === "vandtia") said = "drew from the stock and tried it";
    else if (verb === "draw" && game === "cherki" && p === Number(panel.dataset.seat)) {
      var drawn = rows(f.views[0][p]).drawn;  // one's own draw: the card is one's own to see
      if (drawn) said = "drew " + cardText(drawn.cards[0]);
    }
    else if (verb === "discard" && parts.indexOf("call") > 0) said = "discarded " + cardText(cards[0]) + " and called Cherki";
    else if (verb === "call") said = "called Cherki";
    else if (cards.length) said += " " + cardsText(cards);
    return who(p) + " " + said;
  }

  function lastDecision() {  // the frame the person's last decision made (0: none yet)
    var d = state.decided || [];
    return d.length ? d[d.length - 1] + 1 : 0;
  }

  function writeLog() {
    var log = document.getElementById("log");
    var have = log.querySelectorAll("li").length;
    if (have > frames.length - 1) { log.replaceChildren(); have = 0; }
    for (var i = have + 1; i < frames.length; i++) {
      var li = el("li", null, words(i));
      li.dataset.step = i;
      li.dataset.actor = frames[i].actor;
      if (frames[i].forced) { li.classList.add("forced"); li.appendChild(el("span", "tag", "forced")); }
      log.appendChild(li);
    }
    if (state.status !== "running" && state.ending && !log.querySelector(".end")) {
      var end = el("li", "end", state.ending);
      log.appendChild(end);
    }
  }

  function markLog() {
    var since = mine ? lastDecision() : 0, log = document.getElementById("log");
    log.querySelectorAll("li[data-step]").forEach(function (li) {
      var n = Number(li.dataset.step);
      li.classList.toggle("new", mine && n > since && n <= shown);
      li.classList.toggle("now", n === shown);
      li.hidden = n > shown;
    });
    var now = log.querySelector("li.now") || log.lastElementChild;
    if (now) log.scrollTop = now.offsetTop - log.clientHeight + now.offsetHeight + 8;
  }

  // -- choosing ----------------------------------------------------------------------------

  function text(action) { return typeof action === "string" ? action : JSON.stringify(action); }

  function tokens(action) {
    var parts = text(action).split(" ");
    if (parts[0] === "flip") return ["down:" + parts[1]];
    return parts.filter(function (w) { return CARD.test(w); });
  }

  function holds(have, want) {  // whether the multiset have holds every token of want
    have = have.slice();
    return want.every(function (t) {
      var i = have.indexOf(t);
      if (i < 0) return false;
      have.splice(i, 1);
      return true;
    });
  }

  function usable() {
    var verbs = Array.prototype.slice.call(arguments);
    return (state.legal || []).filter(function (a) { return verbs.indexOf(text(a).split(" ")[0]) >= 0; })[0];
  }

  function describe(action) {  // a choice button's words
    var parts = text(action).split(" "), cards = tokens(action).filter(function (t) { return CARD.test(t); });
    var verb = parts[0];
    if (verb === "pickup") return "pick up the pile";
    if (verb === "draw") return game === "vandtia" ? "draw and try" : "draw";
    if (verb === "take") return "take the top card";
    if (verb === "pass") return "pass";
    if (verb === "call") return "call Cherki (waiting for a " + parts[1] + ")";
    if (verb === "flip") return "turn face-down card " + parts[1];
    if (verb === "discard" && parts.indexOf("call") > 0) return "discard " + cardText(cards[0]) + " and call Cherki (pair " + parts[parts.length - 1] + ")";
    if (verb === "swap") return "these face-up: " + cardsText(cards);
    return verb + " " + cardsText(cards);
  }

  function render() {
    var s = state;
    var live = shown === frames.length - 1;
    panel.dataset.moves = s.moves;
    panel.dataset.status = s.status;
    panel.dataset.turn = s.legal && live ? "yours" : "theirs";
    panel.dataset.shown = shown;
    var line = document.getElementById("status");
    line.replaceChildren(document.createTextNode(status(s)));
    if (s.match !== null) {
      var a = el("a", null, " Its replay, every view →");
      a.href = "match-" + s.match + ".html";
      a.id = "replay";
      line.appendChild(a);
    }
    var abandon = document.getElementById("abandon");
    if (abandon) abandon.hidden = s.status !== "running";
    var ended = document.getElementById("ended");
    if (ended) ended.hidden = s.status === "running";
    ["undo", "hint"].forEach(function (name) {
      var b = document.getElementById(name);
      if (b) b.hidden = !(s.legal && live) || (name === "undo" && (s.decided || []).length === 0);
    });
    choices();
    list();
  }

  function status(s) {
    if (s.status === "abandoned") return "The match was abandoned: it holds no result.";
    if (s.status === "done") return s.ending || "The match is over.";
    if (s.legal && shown === frames.length - 1) return "Your move.";
    var p = toMove(frames[frames.length - 1]);
    return p === null ? "…" : (p === s.person && mine ? "Your move." : who(p) + " to move…");
  }

  function choices() {
    var box = document.getElementById("choice");
    box.replaceChildren();
    document.querySelectorAll(".pick.illegal").forEach(function (c) { c.classList.remove("illegal"); });
    if (!mine || !state.legal || shown !== frames.length - 1) return;
    var chosen = selected.map(function (s) { return s.token; });
    var fits = state.legal.filter(function (a) { return holds(tokens(a), chosen); });
    var exact = fits.filter(function (a) { return tokens(a).length === chosen.length; });
    if (chosen.length && !fits.length) {
      document.querySelectorAll(".pick.selected").forEach(function (c) { c.classList.add("illegal"); });
      box.appendChild(el("span", "illegal-note", "no legal move uses " +
        (chosen.length > 1 ? "these cards together" : "this card") + " now"));
      box.dataset.state = "illegal";
    } else {
      box.dataset.state = chosen.length ? "choosing" : "idle";
    }
    var offered = chosen.length ? exact : state.legal.filter(function (a) { return !tokens(a).length; });
    offered.forEach(function (action) {
      var b = el("button", "choose", describe(action));
      b.type = "button";
      b.dataset.choice = text(action);
      b.onclick = function () { move(action); };
      box.appendChild(b);
    });
    if (chosen.length) {
      var clear = el("button", "quiet", "clear");
      clear.type = "button";
      clear.id = "clear";
      clear.onclick = function () { selected = []; draw(); };
      box.appendChild(clear);
    } else if (!offered.length) {
      box.appendChild(el("span", "hintline", "choose cards to play"));
    }
  }

  function list() {
    var box = document.getElementById("actions");
    if (!box) return;
    box.replaceChildren();
    if (!state.legal || shown !== frames.length - 1) return;
    state.legal.forEach(function (action, i) {
      var b = el("button", "action");
      b.type = "button";
      b.dataset.action = text(action);
      if (i < KEYS.length) b.appendChild(el("kbd", null, KEYS[i]));
      b.appendChild(document.createTextNode(text(action)));
      b.onclick = function () { move(action); };
      box.appendChild(b);
    });
  }

  function toggle(card) {
    var key = card.dataset.key, i = -1;
    selected.forEach(function (s, j) { if (s.key === key) i = j; });
    if (i >= 0) selected.splice(i, 1);
    else selected.push({token: card.dataset.token, key: key});
    var chosen = selected.map(function (s) { return s.token; });
    var fits = state.legal.filter(function (a) { return holds(tokens(a), chosen); });
    if (i < 0 && fits.length === 1 && tokens(fits[0]).length === chosen.length) {
      move(fits[0]);  // the one move this choice can be: played at once
      return;
    }
    draw();
  }

  function move(action) {
    if (!state || !state.legal || posting === state.moves) return;
    posting = state.moves;
    error("");
    document.getElementById("hinted") && (document.getElementById("hinted").textContent = "");
    post("move", {action: action, at: state.moves, since: frames.length}).then(function (s) {
      posting = null;
      if (s.error) { error(s.error); selected = []; return load(); }
      take(s);
    }, function () { posting = null; error("the server did not answer: try again"); });
  }

  function post(what, body) {
    return fetch("api/table/" + id + "/" + what, {
      method: "POST", headers: {"Content-Type": "application/json", "X-Arena-Token": TOKEN},
      body: JSON.stringify(body || {}),
    }).then(function (r) { return r.json(); });
  }

  // -- the person's hands on it: pointer and keyboard ---------------------------------------

  document.getElementById("me").addEventListener("click", function (e) {
    var card = e.target.closest(".pick");
    if (card && state && state.legal) toggle(card);
  });
  document.getElementById("middle").addEventListener("click", function (e) {
    if (!state || !state.legal || shown !== frames.length - 1) return;
    var zone = e.target.closest('[data-zone="pile"], [data-zone="stock"]');
    if (!zone) return;
    var action = zone.dataset.zone === "pile" ? usable("pickup", "take") : usable("draw");
    if (action) move(action);
  });
  document.addEventListener("keydown", function (e) {
    if (!state || !state.legal || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if ((e.key === "Enter" || e.key === " ") && e.target.classList) {
      if (e.target.classList.contains("pick")) { e.preventDefault(); toggle(e.target); return; }
      if (e.target.classList.contains("target")) { e.preventDefault(); e.target.click(); return; }
    }
    if (e.target.tagName === "BUTTON") return;
    var i = KEYS.indexOf(e.key);
    if (i >= 0 && i < state.legal.length) { e.preventDefault(); move(state.legal[i]); }
  });

  var abandon = document.getElementById("abandon");
  if (abandon) abandon.onclick = function () {
    if (!window.confirm("Leave the match? It is stored as abandoned; in a challenge the deal counts as your worst result.")) return;
    post("abandon").then(function (s) { if (s.error) error(s.error); else { state = Object.assign(state, s); render(); } });
  };
  var undo = document.getElementById("undo");
  if (undo) undo.onclick = function () {
    error("");
    post("undo").then(function (s) {
      if (s.error) { error(s.error); return; }
      selected = [];
      document.getElementById("log").replaceChildren();
      take(s, true);
    });
  };
  var hint = document.getElementById("hint");
  if (hint) hint.onclick = function () {
    var out = document.getElementById("hinted");
    out.textContent = "thinking…";
    post("hint").then(function (s) {
      if (s.error) { out.textContent = ""; error(s.error); return; }
      if (s.at !== state.moves) { out.textContent = ""; return; }
      out.textContent = (s.reviewer ? s.reviewer.split(":")[0] + " would play: " : "the only move: ") + describe(s.action);
      out.dataset.action = text(s.action);
      var want = tokens(s.action);
      document.querySelectorAll("#me .pick").forEach(function (c) {
        var i = want.indexOf(c.dataset.token);
        if (i >= 0) { want.splice(i, 1); c.classList.add("hinted"); }
      });
    });
  };
  var review = document.getElementById("review");
  if (review) review.onclick = function () {
    review.disabled = true;
    review.textContent = "reviewing… (a stronger bot values every decision)";
    post("review").then(function (s) {
      if (s.error) { error(s.error); review.disabled = false; review.textContent = "review my game"; return; }
      location.href = s.page;
    });
  };

  load(true).then(function () {
    var source = new EventSource("events/table/" + id);
    source.addEventListener("moved", function (e) {
      var d = JSON.parse(e.data);
      if (state && (d.frames > frames.length || d.status !== state.status)) load();
      if (d.status !== "running") source.close();
    });
  });
})();
