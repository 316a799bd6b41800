/// The live page's script: follows the stream (Server-Sent Events), keeps each
/// card's state and the timeline's samples, reconnects from the last event id it
/// saw, and redraws. No request but the stream's; nothing fetched from elsewhere.
enum LivePageScript {
    static var script: String { "(function () {\n  \"use strict\";\n" + stream + LivePageCards.script + "})();\n" }

    static let stream = #"""
          var timeline = window.RangersTimeline;
          var root = document.getElementById("live");
          var streamURL = root.getAttribute("data-stream");
          var cardsBox = document.getElementById("cards");
          var status = document.getElementById("status");
          var connection = document.getElementById("connection");
          var message = document.getElementById("message");
          var adventure = null;
          var cards = {};
          var clock = { server: Date.now() / 1000, local: performance.now() };
          var lastEventId = "";
          var samples = { ticks: [], heroHealth: [], bossHealth: [], bossIndex: [] };
          var chartPushes = [];
          var chartDue = false;
          var source = null;
          var finished = false;
          var failures = 0;

          /// The server's clock (unix seconds): stale and dismissal dates are the server's.
          function now() { return clock.server + (performance.now() - clock.local) / 1000; }

          function setConnection(state, text) {
            connection.setAttribute("data-state", state);
            connection.textContent = text;
            if (status.getAttribute("data-state") !== "failed") status.setAttribute("data-state", state);
          }

          var handlers = {
            adventure: function (data) {
              adventure = data;
              clock = { server: data.now, local: performance.now() };
              document.getElementById("title").textContent = "🗺 " + data.route + " · adventure " + data.id;
              document.title = "Live · " + data.route;
              data.cards.forEach(learnCard);
              status.setAttribute("data-cards", String(Object.keys(cards).length));
              if (data.timelineUnavailable) document.getElementById("timeline-note").textContent = "No timeline: " + data.timelineUnavailable;
              summarize();
            },
            card: function (data) { learnCard(data); },
            push: function (push) {
              var card = cards[push.card];
              if (!card) return;
              card.received += 1;
              card.lastPush = push;
              var body = null;
              try { body = JSON.parse(push.payload); } catch (error) { body = null; }
              var aps = body && body.aps ? body.aps : null;
              settle(card, push);
              if (push.answer === "delivered") {
                card.refused = null;
                if (aps && aps["content-state"]) card.last = { aps: aps, push: push };
                if (aps && aps.attributes) card.attributes = aps.attributes;
                if (aps && aps.alert) {
                  card.alerts.unshift({ alert: aps.alert, push: push });
                  if (card.alerts.length > 3) card.alerts.length = 3;
                  renderBanners(card);
                }
              } else if (push.answer !== "gone") {
                card.refused = push;
              }
              chartPushes.push({ tick: push.tick || 0, recipient: push.card,
                                 hero: isFollowers(card) ? followersFigure(card.descriptor).lane : card.hero, priority: push.priority,
                                 event: aps ? aps.event : push.pushType, reason: push.decision,
                                 sound: aps && aps.alert ? (aps.alert.sound || "default") : null });
              render(card);
              redrawSoon();
            },
            waiting: function (data) {
              Object.keys(cards).forEach(function (key) {
                cards[key].waiting = data.cards[key] || [];
                render(cards[key]);
              });
            },
            ticks: function (data) {
              data.samples.forEach(function (sample) {
                var count = samples.ticks.length;
                if (count > 0 && sample.tick <= samples.ticks[count - 1]) return;
                samples.ticks.push(sample.tick);
                samples.bossHealth.push(sample.bossHealth);
                samples.bossIndex.push(sample.bossIndex);
                sample.heroHealth.forEach(function (health, index) {
                  (samples.heroHealth[index] = samples.heroHealth[index] || []).push(health);
                });
              });
              if (samples.ticks.length > 4000) thin();
              summarize();
              redrawSoon();
            },
            clock: function (data) { clock = { server: data.now, local: performance.now() }; },
            expired: function (data) { finish("expired", data.message); },
            timelineUnavailable: function (data) {
              document.getElementById("timeline-note").textContent = "The timeline stopped: " + data.message;
            }
          };

          function learnCard(descriptor) {
            var card = cards[descriptor.key];
            if (!card) card = cards[descriptor.key] = makeCard(descriptor);
            card.descriptor = descriptor;
            card.hero = descriptor.hero;
            render(card);
            renderBanners(card);
          }

          /// Every other sample but the first, the last and each boss's first: the
          /// chart keeps its shape however long the adventure runs.
          function thin() {
            var kept = { ticks: [], heroHealth: samples.heroHealth.map(function () { return []; }), bossHealth: [], bossIndex: [] };
            samples.ticks.forEach(function (tick, index) {
              var last = index === samples.ticks.length - 1;
              var newBoss = index > 0 && samples.bossIndex[index] !== samples.bossIndex[index - 1];
              if (index % 2 !== 0 && !last && !newBoss) return;
              kept.ticks.push(tick);
              kept.bossHealth.push(samples.bossHealth[index]);
              kept.bossIndex.push(samples.bossIndex[index]);
              samples.heroHealth.forEach(function (values, hero) { kept.heroHealth[hero].push(values[index]); });
            });
            samples = kept;
          }

          function summarize() {
            if (!adventure) return;
            var tick = samples.ticks.length ? samples.ticks[samples.ticks.length - 1] : adventure.lastTick;
            document.getElementById("summary").textContent = "Tick " + tick + " (" + timeline.clock(tick * adventure.tickInterval)
              + " of game time, a tick every " + adventure.tickInterval + " s) · " + adventure.heroes.length + " heroes · link valid until "
              + new Date(adventure.linkExpiresAt * 1000).toLocaleString();
          }

          function redrawSoon() {
            if (chartDue) return;
            chartDue = true;
            setTimeout(function () {
              chartDue = false;
              if (!adventure || samples.ticks.length === 0) return;
              var spans = [];
              samples.bossIndex.forEach(function (index, position) {
                if (position === 0 || index !== samples.bossIndex[position - 1]) {
                  var boss = adventure.bosses[index] || { name: "?", avatar: "❔" };
                  spans.push({ name: boss.name, avatar: boss.avatar, fromTick: samples.ticks[position] });
                }
              });
              var drawn = timeline.draw({ lastTick: samples.ticks[samples.ticks.length - 1], ticks: samples.ticks,
                                          heroHealth: adventure.heroes.map(function (hero, index) { return samples.heroHealth[index] || []; }),
                                          bossHealth: samples.bossHealth, heroes: adventure.heroes, bosses: spans, pushes: chartPushes },
                                        document.getElementById("chart"), document.getElementById("legend"));
              status.setAttribute("data-hero-lines", String(drawn));
            }, 200);
          }

          function finish(state, text) {
            finished = true;
            if (source) source.close();
            source = null;
            message.textContent = text;
            setConnection(state, state === "expired" ? "link expired" : "refused");
          }

          function streamAddress() {
            return streamURL + (lastEventId ? (streamURL.indexOf("?") < 0 ? "?" : "&") + "lastEventId=" + encodeURIComponent(lastEventId) : "");
          }

          function connect() {
            source = new EventSource(streamAddress());
            source.onopen = function () { failures = 0; setConnection("live", "live"); };
            source.onerror = function () {
              if (finished) return;
              setConnection("reconnecting", "reconnecting…");
              if (source && source.readyState === EventSource.CLOSED) {
                source = null;
                probeLater();
              }
            };
            Object.keys(handlers).forEach(function (name) {
              source.addEventListener(name, function (event) {
                if (event.lastEventId) lastEventId = event.lastEventId;
                status.setAttribute("data-last-event-id", lastEventId);
                handlers[name](JSON.parse(event.data));
              });
            });
          }

          /// The browser gave up on the stream (an error status, a proxy's 502):
          /// ask once more by hand; a refused link ends the page, anything else retries.
          function probeLater() {
            failures += 1;
            setTimeout(function () {
              var controller = new AbortController();
              fetch(streamAddress(), { cache: "no-store", signal: controller.signal }).then(function (response) {
                controller.abort();
                if (response.status === 401 || response.status === 403 || response.status === 404) {
                  finish("refused", "This link no longer opens the page (HTTP " + response.status + "); ask for a new one.");
                } else if (response.ok) {
                  connect();
                } else {
                  probeLater();
                }
              }, function () { probeLater(); });
            }, Math.min(10000, 1000 * failures));
          }

          setInterval(function () { Object.keys(cards).forEach(function (key) { render(cards[key]); }); }, 500);
          connect();

    """#
}
