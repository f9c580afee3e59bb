// A table of arena serve: one seat's frames drawn by the replay viewer, the person's legal
// actions as buttons (and keys, as at the terminal), moves posted to the server. It is sent
// what the seat knows and nothing more; it knows no rule.
(function () {
  "use strict";
  var panel = document.getElementById("panel");
  var id = panel.dataset.table;
  var KEYS = "123456789abcdefghijklmnoprstuvwxyz";  // as the terminal: no q
  // the move a posted action answers, until its answer comes: a second click on the same
  // position is not posted again, but the next position (drawn from the event stream
  // before the answer came) can be played at once
  var viewer = null, state = null, selected = [], posting = null;

  function text(action) { return typeof action === "string" ? action : JSON.stringify(action); }

  function error(message) {
    var p = document.getElementById("error");
    p.textContent = message || "";
    p.hidden = !message;
  }

  function take(s) {
    if (s.error) { error(s.error); return; }
    if (state && s.moves < state.moves) return;  // an answer overtaken by a later one
    if (!viewer) {
      if (s.since !== 0) return;
      viewer = window.arenaViewer(Object.assign({}, s, {start: "last"}));
    } else {
      var fresh = s.frames.slice(viewer.length() - s.since);
      if (s.since > viewer.length()) return load();
      if (fresh.length) viewer.append(fresh);
      else if (state && s.moves === state.moves && s.status === state.status &&
               Boolean(s.legal) === Boolean(state.legal)) return;  // nothing new
    }
    state = s;
    selected = [];
    render();
  }

  function load() {
    return fetch("api/table/" + id + "?since=" + (viewer ? viewer.length() : 0) +
                 (panel.dataset.seat !== "" ? "&seat=" + panel.dataset.seat : ""),
                 {cache: "no-store"}).then(function (r) { return r.json(); }).then(take);
  }

  function status(s) {
    if (s.status === "abandoned") return "The match was abandoned: it holds no result.";
    if (s.status === "done") {
      var r = s.result, mine = s.seat;
      var faults = r.faults.map(function (f, i) { return f ? " · seat " + i + " forfeits: " + f : ""; }).join("");
      return "The match is over (" + r.reason + "): seat " + mine + " ranks " + r.ranks[mine] +
        " of " + r.ranks.length + ", score " + r.scores[mine] + faults + ".";
    }
    if (s.legal) return "Your move, seat " + s.seat + " (" + s.names[s.seat] + ").";
    if (s.to_move === null) return "…";
    return "Seat " + s.to_move + " (" + s.names[s.to_move] + ") to move.";
  }

  function uses(action) {
    var words = text(action).split(" ");
    return selected.every(function (c) {
      var i = words.indexOf(c);
      if (i < 0) return false;
      words.splice(i, 1);
      return true;
    });
  }

  function render() {
    var s = state;
    // what a script (or a test) can wait for: the move, the status, whose turn
    panel.dataset.moves = s.moves;
    panel.dataset.status = s.status;
    panel.dataset.turn = s.legal ? "yours" : "theirs";
    var line = document.getElementById("status");
    line.replaceChildren(document.createTextNode(status(s)));
    if (s.match !== null) {
      var a = document.createElement("a");
      a.href = "match-" + s.match + ".html";
      a.id = "replay";
      a.textContent = " Its replay, every view →";
      line.appendChild(a);
    }
    var box = document.getElementById("actions");
    box.replaceChildren();
    var abandon = document.getElementById("abandon");
    if (abandon) abandon.hidden = s.status !== "running";
    if (!s.legal) return;
    var fits = s.legal.filter(uses);
    s.legal.forEach(function (action, i) {
      var b = document.createElement("button");
      b.className = "action";
      b.dataset.action = text(action);
      if (i < KEYS.length) {
        var k = document.createElement("kbd");
        k.textContent = KEYS[i];
        b.appendChild(k);
      }
      b.appendChild(document.createTextNode(text(action)));
      if (selected.length && fits.indexOf(action) < 0) b.classList.add("dim");
      if (selected.length && fits.length === 1 && fits[0] === action) b.classList.add("only");
      b.onclick = function () { move(action); };
      box.appendChild(b);
    });
  }

  // the visitor's token, which a change must carry (arena.web.guard)
  var TOKEN = (document.querySelector('meta[name="arena-token"]') || {}).content || "";

  function move(action) {
    if (!state || !state.legal || posting === state.moves) return;
    posting = state.moves;
    error("");
    fetch("api/table/" + id + "/move", {
      method: "POST", headers: {"Content-Type": "application/json", "X-Arena-Token": TOKEN},
      body: JSON.stringify({action: action, at: state.moves, since: viewer.length()}),
    }).then(function (r) { return r.json(); }).then(function (s) {
      posting = null;
      if (s.error) { error(s.error); return load(); }
      take(s);
    }, function () { posting = null; error("the server did not answer: try again"); });
  }

  document.addEventListener("keydown", function (e) {
    if (!state || !state.legal || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    var i = KEYS.indexOf(e.key);
    if (i >= 0 && i < state.legal.length) { e.preventDefault(); move(state.legal[i]); }
  });

  // a card of the person's hand, clicked: keep the actions that use the cards chosen
  document.getElementById("table").addEventListener("click", function (e) {
    var card = e.target.closest(".zone.mine .card[data-card]");
    if (!card || !state || !state.legal) return;
    var name = card.dataset.card, i = selected.indexOf(name);
    if (i >= 0) selected.splice(i, 1); else selected.push(name);
    card.classList.toggle("selected");
    render();
  });

  var abandon = document.getElementById("abandon");
  if (abandon) abandon.onclick = function () {
    if (!window.confirm("Leave the match? It is stored as abandoned; in a challenge the deal counts as your worst result.")) return;
    fetch("api/table/" + id + "/abandon", {method: "POST", headers: {"X-Arena-Token": TOKEN}}).then(function (r) { return r.json(); })
      .then(function (s) { if (s.error) error(s.error); else { state = s; render(); } });
  };

  load().then(function () {
    var source = new EventSource("events/table/" + id);
    source.addEventListener("moved", function (e) {
      var d = JSON.parse(e.data);
      if (viewer && (d.frames > viewer.length() || d.status !== state.status)) load();
      if (d.status !== "running") source.close();
    });
  });
})();
