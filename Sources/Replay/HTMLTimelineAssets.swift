/// The inline style and scripts of the timeline page; the chart and the error
/// catcher serve the live page too.
public enum HTMLTimelineAssets {
    /// First in <head>, so an error anywhere later is counted on the page itself,
    /// where a test (or a person) can read it.
    public static let errorCatcher = #"""
        window.timelineErrors = [];
        window.addEventListener("error", function (event) {
          window.timelineErrors.push(String(event.message));
          var status = document.getElementById("status");
          if (status) {
            status.setAttribute("data-errors", String(window.timelineErrors.length));
            status.setAttribute("data-state", "failed");
            status.textContent = window.timelineErrors.join("\n");
          }
        });
        """#

    static let style = #"""
        body { font: 14px/1.4 -apple-system, "Segoe UI", sans-serif; margin: 1.5em; color: #222; }
        h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
        #chart { width: 100%; max-width: 1100px; height: auto; border: 1px solid #ddd; background: #fff; }
        #legend span { display: inline-block; margin-right: 1.2em; }
        #legend i { display: inline-block; width: 1.6em; height: 0.3em; vertical-align: middle; margin-right: 0.3em; }
        table { border-collapse: collapse; } td, th { padding: 0.2em 0.6em; border-bottom: 1px solid #eee; text-align: left; }
        .p10 { color: #c62828; } .p5 { color: #ef6c00; } .p1 { color: #757575; }
        #status { color: #c62828; white-space: pre-wrap; }
        """#

    /// The chart, as a function a page calls with its data (again, as it grows):
    /// `RangersTimeline.draw(data, svg, legend)` returns how many hero lines it
    /// drew with every sample. With the text helpers the pages share.
    public static let chart = #"""
        window.RangersTimeline = (function () {
          "use strict";
          var svgNS = "http://www.w3.org/2000/svg";
          var colors = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
          var priorityColors = { 10: "#c62828", 5: "#ef6c00", 1: "#757575" };

          function clock(seconds) {
            var h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
            return h + ":" + (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
          }
          function fill(template, args) {
            var next = 0;
            return template.replace(/%(?:(\d+)\$)?([@dislf%])/g, function (match, position, conversion) {
              if (conversion === "%") return "%";
              var index = position ? Number(position) - 1 : next;
              next = index + 1;
              return index < args.length ? args[index] : "";
            });
          }
          /// An alert text ({key, args} or {plain}) in `language`, from `strings` (language → key → template).
          function localized(text, language, strings) {
            if (!text) return "";
            if (text.plain !== undefined && text.plain !== null) return text.plain;
            var template = (strings[language] || {})[text.key];
            return template === undefined ? text.key : fill(template, text.args || []);
          }

          function draw(data, chart, legend) {
            var width = 1100, height = 420, left = 72, right = 16, top = 40, plotHeight = 260;
            var lanes = {};
            data.pushes.forEach(function (push) { if (!(push.recipient in lanes)) lanes[push.recipient] = Object.keys(lanes).length; });
            var laneCount = Math.max(1, Object.keys(lanes).length);
            var laneTop = top + plotHeight + 24, laneHeight = Math.min(18, (height - laneTop - 8) / laneCount);
            chart.textContent = "";
            legend.textContent = "";
            chart.setAttribute("viewBox", "0 0 " + width + " " + height);

            function x(tick) { return left + (width - left - right) * (data.lastTick > 0 ? tick / data.lastTick : 0); }
            function y(percent) { return top + plotHeight * (1 - percent / 100); }
            function element(name, attributes, parent) {
              var node = document.createElementNS(svgNS, name);
              Object.keys(attributes).forEach(function (key) { node.setAttribute(key, attributes[key]); });
              (parent || chart).appendChild(node);
              return node;
            }
            function line(values, attributes) {
              var points = data.ticks.map(function (tick, index) { return x(tick).toFixed(1) + "," + y(values[index]).toFixed(1); });
              attributes.points = points.join(" ");
              attributes.fill = "none";
              return element("polyline", attributes);
            }

            [0, 50, 100].forEach(function (percent) {
              element("line", { x1: left, x2: width - right, y1: y(percent), y2: y(percent), stroke: "#eee" });
              element("text", { x: 4, y: y(percent) + 4, "font-size": 11, fill: "#888" }).textContent = percent + "%";
            });
            data.bosses.forEach(function (boss) {
              element("line", { x1: x(boss.fromTick), x2: x(boss.fromTick), y1: top - 14, y2: top + plotHeight, stroke: "#ccc",
                                "stroke-dasharray": "3,3" });
              element("text", { x: x(boss.fromTick) + 3, y: top - 18, "font-size": 12 }).textContent = boss.avatar + " " + boss.name;
            });
            function legendEntry(color, label, dashed) {
              var entry = document.createElement("span");
              var swatch = document.createElement("i");
              swatch.style.background = dashed ? "repeating-linear-gradient(90deg," + color + " 0 5px,transparent 5px 8px)" : color;
              entry.appendChild(swatch);
              entry.appendChild(document.createTextNode(label));
              legend.appendChild(entry);
            }
            data.heroes.forEach(function (hero, index) {
              var color = colors[index % colors.length];
              line(data.heroHealth[index], { "class": "hero-line", "data-hero": hero.id, stroke: color, "stroke-width": 2 });
              legendEntry(color, hero.avatar + " " + hero.name);
            });
            line(data.bossHealth, { "class": "boss-line", stroke: "#333", "stroke-width": 2, "stroke-dasharray": "6,4" });
            legendEntry("#333", "boss", true);
            [10, 5, 1].forEach(function (priority) { legendEntry(priorityColors[priority], "push, priority " + priority); });

            var laneLabels = {};
            data.pushes.forEach(function (push) { laneLabels[push.recipient] = push.hero || push.recipient; });
            Object.keys(lanes).forEach(function (recipient) {
              element("text", { x: 4, y: laneTop + lanes[recipient] * laneHeight + laneHeight / 2 + 4, "font-size": 10,
                                fill: "#888" }).textContent = laneLabels[recipient].slice(0, 12);
            });
            data.pushes.forEach(function (push) {
              var cy = laneTop + lanes[push.recipient] * laneHeight + laneHeight / 2;
              var marker = element("circle", { "class": "push-marker", "data-priority": push.priority, cx: x(push.tick), cy: cy,
                                               r: push.sound ? 5 : 3, fill: priorityColors[push.priority] || "#000" });
              element("title", {}, marker).textContent = "tick " + push.tick + " · " + push.recipient + " · " + push.event
                + " · priority " + push.priority + " — " + push.reason;
              if (push.sound) {
                var bell = element("text", { "class": "alert-marker", x: x(push.tick) - 6, y: top - 2, "font-size": 12 });
                bell.textContent = "🔔";
                element("title", {}, bell).textContent = "tick " + push.tick + ": " + push.sound;
              }
            });
            return Array.prototype.filter.call(chart.querySelectorAll("polyline.hero-line"), function (node) {
              return node.getAttribute("points").split(" ").length === data.ticks.length && data.ticks.length > 0;
            }).length;
          }

          return { draw: draw, fill: fill, localized: localized, clock: clock };
        })();
        """#

    /// The replay page: the chart of the whole session, its alerts in a table.
    static let script = #"""
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("data").textContent);
          var timeline = window.RangersTimeline;
          var drawn = timeline.draw(data, document.getElementById("chart"), document.getElementById("legend"));

          var select = document.getElementById("language");
          data.languages.forEach(function (language) {
            var option = document.createElement("option");
            option.value = language;
            option.textContent = language;
            select.appendChild(option);
          });
          var rows = document.querySelector("#alerts tbody");
          function renderAlerts() {
            var language = select.value;
            rows.textContent = "";
            data.pushes.filter(function (push) { return push.sound; }).forEach(function (push) {
              var row = document.createElement("tr");
              row.className = "alert-row";
              [String(push.tick), timeline.clock(push.tick * data.tickInterval), push.recipient + (push.hero ? " (" + push.hero + ")" : ""),
               String(push.priority), timeline.localized(push.title, language, data.strings) + " — "
                 + timeline.localized(push.body, language, data.strings), push.sound]
                .forEach(function (value, index) {
                  var cell = document.createElement("td");
                  cell.textContent = value;
                  if (index === 3) cell.className = "p" + push.priority;
                  row.appendChild(cell);
                });
              rows.appendChild(row);
            });
          }
          select.addEventListener("change", renderAlerts);
          renderAlerts();

          document.getElementById("summary").textContent = data.lastTick + " ticks of " + data.tickInterval + " s ("
            + timeline.clock(data.lastTick * data.tickInterval) + "), " + data.heroes.length + " heroes, " + data.pushes.length + " pushes";
          var status = document.getElementById("status");
          status.setAttribute("data-hero-lines", String(drawn));
          if (window.timelineErrors.length === 0) status.setAttribute("data-state", "drawn");
        })();
        """#
}
