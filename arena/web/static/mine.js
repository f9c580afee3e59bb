// An author's page (mine.html): the upload form sends the file as the request's body (as
// `arena submit --to` does), then the page follows the check and the placements live: their
// states, progress and ratings written in place, the page made again only when an upload, a
// version or a placement is new. Text from the server is only ever
// set as text, never as markup.
(function () {
  "use strict";
  var TOKEN = (document.querySelector('meta[name="arena-token"]') || {}).content || "";
  var form = document.getElementById("upload");
  var said = document.getElementById("upload-said");

  function say(text) { said.textContent = text; }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var file = document.getElementById("file").files[0];
    if (!file) { say("choose a file first"); return; }
    say("sending " + file.name + "…");
    fetch("api/submit", {method: "POST", body: file,
                         headers: {"X-Arena-Token": TOKEN, "X-Arena-Filename": file.name,
                                   "Content-Type": "application/octet-stream"}})
      .then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (answer) {
        if (answer[0] !== 202) { say("refused: " + (answer[1].error || answer[0])); return; }
        say("upload " + answer[1].id + " sent: waiting for its check");
        location.reload();
      })
      .catch(function () { say("the upload did not reach the server: try again"); });
  });

  // What the page is made of (uploads, versions, placements): when it changes, the page is
  // made again; progress, states and ratings are written into their cells in place.
  function shape(data) {
    var marks = [];
    data.uploads.forEach(function (u) { marks.push("u" + u.id); });
    data.bots.forEach(function (b) {
      b.versions.forEach(function (v) {
        marks.push("v" + v.bot + ":" + v.placements.length);
        // a placement's end brings its rating: the page is made again then
        v.placements.forEach(function (p) { marks.push("p" + p.season + (p.status === "done" ? "!" : "")); });
      });
    });
    return marks.join(",");
  }

  function cell(row, cls, text) {
    var c = row && row.querySelector("." + cls);
    if (c && c.textContent !== text) c.textContent = text;
  }

  function fill(data) {
    data.uploads.forEach(function (u) {
      var row = document.querySelector('#uploads tr[data-upload="' + u.id + '"]');
      if (!row) return;
      row.dataset.status = u.status;
      cell(row, "state", u.status);
      cell(row, "said", u.message || "");
    });
    data.bots.forEach(function (b) {
      b.versions.forEach(function (v) {
        v.placements.forEach(function (p) {
          var row = document.querySelector('#bots tr[data-season="' + p.season + '"]');
          if (!row) return;
          row.dataset.status = p.status;
          cell(row, "progress", p.stored + "/" + p.fixtures + " matches (" + p.status + ")");
          if (p.rating) {  // (the live answer leaves ratings out: they come with the page)
            cell(row, "rating", p.rating.mu + " ± " + p.rating.sigma + " (" + p.rating.place +
                 " of " + p.rating.of + ")");
          }
        });
      });
    });
  }

  var shown = null;
  function look() {
    fetch("api/mine?live=1", {cache: "no-store"}).then(function (r) { return r.json(); })
      .then(function (data) {
        if (data.error) { return; }
        var now = shape(data);
        if (shown === null) { shown = now; } else if (now !== shown) { location.reload(); return; }
        fill(data);
        setTimeout(look, 1500);
      })
      .catch(function () { setTimeout(look, 5000); });
  }
  look();
}());
