// A running season's page, served by arena serve: when the event stream says matches were
// stored, fetch the standings, the chart's data and the progress, and draw them in place.
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box) return;
  var id = box.dataset.season, asked = 0, drawn = 0;
  var source = new EventSource("events/season/" + id);
  source.addEventListener("progress", function () {
    var n = ++asked;
    fetch("api/season/" + id, {cache: "no-store"}).then(function (r) { return r.json(); })
      .then(function (d) {
        if (n < drawn || d.error) return;  // an older answer, come late
        drawn = n;
        document.getElementById("progress").textContent = d.progress;
        document.getElementById("standings").innerHTML = d.standings;
        window.drawRatingChart(d.chart);
        if (d.status !== "running") {
          source.close();
          box.textContent = "The season has ended: " + d.status + ".";
        }
      });
  });
})();
