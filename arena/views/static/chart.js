// The rating chart of a season page: each bot's mu after every rated match, a band of
// +-sigma around it, drawn by uPlot (bundled beside this file).
// A live season page (arena serve) draws it again with new data: drawRatingChart(data).
window.drawRatingChart = function (data) {
  "use strict";
  var box = document.getElementById("rating-chart");
  box.replaceChildren();
  var names = Object.keys(data.bots);
  // the legend shows the values at the cursor, and the last ones (where the season is)
  // while the cursor is off the chart - never uPlot's "--"
  function value(digits) {
    return function (u, v, si) {
      if (v == null) { var column = u.data[si]; v = column[column.length - 1]; }
      return v == null ? null : v.toFixed(digits);
    };
  }
  var columns = [data.x], series = [{label: "match", value: value(0)}], bands = [];
  var colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  names.forEach(function (name, i) {
    var b = data.bots[name], colour = colours[i % colours.length];
    columns.push(b.mu);
    columns.push(b.mu.map(function (m, j) { return m + b.sigma[j]; }));
    columns.push(b.mu.map(function (m, j) { return m - b.sigma[j]; }));
    series.push({label: name, stroke: colour, width: 2, value: value(2)});
    series.push({label: name + " +σ", stroke: colour, width: 0, points: {show: false},
                 value: value(2)});
    series.push({label: name + " −σ", stroke: colour, width: 0, points: {show: false},
                 value: value(2)});
    var mu = 1 + 3 * i;
    bands.push({series: [mu + 1, mu + 2], fill: colour + "22"});
  });
  var width = Math.max(320, Math.min(960, box.clientWidth || 960));
  new uPlot({
    width: width, height: 320, series: series, bands: bands,
    scales: {x: {time: false}},
    axes: [{label: "rated matches"}, {label: "μ"}],
    legend: {show: true, live: true},
    cursor: {drag: {x: true, y: false}},
  }, columns, box);
};
window.drawRatingChart(JSON.parse(document.getElementById("chart-data").textContent));
