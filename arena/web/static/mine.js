// An author's page (mine.html): the upload form sends the file as the request's body (as
// `arena submit --to` does), then the page follows the check and the placements live,
// reloading itself when anything it shows has moved on. Text from the server is only ever
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

  // What is still moving: uploads waiting or being checked, placements not done.
  function moving(data) {
    var marks = [];
    data.uploads.forEach(function (u) { marks.push("u" + u.id + ":" + u.status); });
    data.bots.forEach(function (b) {
      b.versions.forEach(function (v) {
        marks.push("v" + v.bot + ":" + v.placements.length);
        v.placements.forEach(function (p) { marks.push("p" + p.season + ":" + p.stored + ":" + p.status); });
      });
    });
    return marks.join(",");
  }

  var shown = null;
  function look() {
    fetch("api/mine?live=1", {cache: "no-store"}).then(function (r) { return r.json(); })
      .then(function (data) {
        if (data.error) { return; }
        var now = moving(data);
        if (shown === null) { shown = now; } else if (now !== shown) { location.reload(); return; }
        setTimeout(look, 1500);
      })
      .catch(function () { setTimeout(look, 5000); });
  }
  look();
}());
