/// The part of the live page's script that draws one phone: its Lock Screen
/// activity from the last payload it received, its Dynamic Island (compact), its
/// alert banners, and what became of its pushes.
enum LivePageCards {
    static let script = #"""
          var languageNames = { en: "English", vi: "Tiếng Việt", ko: "한국어", "zh-Hans": "简体中文" };

          function node(tag, className, parent, text) {
            var element = document.createElement(tag);
            if (className) element.className = className;
            if (text !== undefined) element.textContent = text;
            if (parent) parent.appendChild(element);
            return element;
          }
          function bar(parent) {
            var outer = node("div", "bar", parent);
            return node("i", "", outer);
          }
          function percent(level) { return Math.max(0, Math.min(100, Math.round((level || 0) * 100))); }
          function figure(list, id) {
            for (var index = 0; index < list.length; index += 1) { if (list[index].id === id) return list[index]; }
            return { id: id, name: id, avatar: "❔" };
          }
          function timeOfDay(seconds) { return new Date(seconds * 1000).toLocaleTimeString(); }
          function countdown(seconds) {
            var left = Math.max(0, Math.ceil(seconds)), m = Math.floor(left / 60), s = left % 60;
            return m + ":" + (s < 10 ? "0" : "") + s;
          }
          /// A catalog text in the phone's language (English when it lacks one), its `%@` filled.
          function catalogText(language, key, args) {
            var strings = adventure.strings, template = (strings[language] || {})[key];
            if (template === undefined) template = (strings.en || {})[key];
            return template === undefined ? key : timeline.fill(template, args || []);
          }
          /// An alert's title or body as the phone shows it: text as is, or `loc-key` with `loc-args`.
          function alertText(value, language) {
            if (typeof value === "string") return value;
            if (!value) return "";
            return catalogText(language, value["loc-key"], value["loc-args"]);
          }

          function makeCard(descriptor) {
            var root = node("article", "phone", cardsBox);
            root.setAttribute("data-card", descriptor.key);
            root.setAttribute("data-kind", descriptor.kind);
            var head = node("header", "phone-head", root);
            var parts = { root: root };
            parts.avatar = node("span", "avatar", head);
            parts.who = node("span", "who", head);
            parts.lang = node("span", "lang", head);
            parts.label = node("p", "followers-label", root);
            parts.island = node("div", "island", root);
            parts.island.title = "Dynamic Island (compact)";
            parts.leading = node("span", "leading", parts.island);
            parts.trailing = node("span", "trailing", parts.island);
            parts.banners = node("div", "banners", root);
            parts.lock = node("div", "lock", root);
            var top = node("div", "lock-top", parts.lock);
            parts.route = node("span", "route", top);
            parts.when = node("span", "when", top);
            parts.bossRow = node("div", "boss-row", parts.lock);
            parts.bossAvatar = node("span", "avatar", parts.bossRow);
            parts.bossName = node("span", "name", parts.bossRow);
            node("span", "enraged-badge", parts.bossRow, "ENRAGED");
            parts.bossBar = bar(parts.bossRow);
            parts.heroes = node("ul", "heroes", parts.lock);
            parts.potions = node("div", "potions", parts.lock);
            parts.event = node("p", "event", parts.lock);
            parts.note = node("p", "note", parts.lock);
            var notes = node("div", "phone-notes", root);
            parts.gone = node("p", "gone-note", notes);
            parts.waiting = node("p", "waiting-note", notes);
            parts.refused = node("p", "refused-note", notes);
            parts.meta = node("footer", "meta", root);
            return { descriptor: descriptor, parts: parts, last: null, gone: null, goneTargets: {}, refused: null, waiting: [],
                     received: 0, alerts: [], lastPush: null, hero: descriptor.hero };
          }

          /// A followers' card has no hero of its own: who it stands for, in which language, how many.
          function followersFigure(descriptor) {
            var language = (languageNames[descriptor.language] || descriptor.language) + " (" + descriptor.language + ")";
            var count = descriptor.followers || 0, followers = count + " follower" + (count === 1 ? "" : "s");
            if (descriptor.kind === "followerChannel") {
              var state = { wanted: " · the channel is not made yet (APNs failed, or the app has as many channels as it may): the server tries again",
                            creating: " · the channel is being made", deleted: " · the channel is deleted" }[descriptor.channelState] || "";
              return { avatar: "👥", name: "Followers · " + descriptor.language, lane: "👥 " + descriptor.language,
                       label: "The followers' view in " + language + ", one broadcast on their channel reaching every device listening: "
                         + followers + " chose it; APNs does not say how many devices a broadcast reached" + state };
            }
            return { avatar: "📱", name: "Followers on iOS 17 · " + descriptor.language, lane: "📱 " + descriptor.language,
                     label: "The followers' view in " + language + " on phones before iOS 18, a push to each one's own activity: "
                       + followers + " (one card for all: each gets the same pushes)" };
          }
          function isFollowers(card) { return card.descriptor.kind !== "member"; }

          /// What the phone shows now: nothing yet, the activity, the same gone out of
          /// date, ended (until its dismissal date) or removed; or no phone at all.
          function lookOf(card) {
            if (card.gone) return "gone";
            if (!card.last) return "waiting";
            var aps = card.last.aps, time = now();
            if (aps.event === "end") {
              return typeof aps["dismissal-date"] === "number" && time >= aps["dismissal-date"] ? "dismissed" : "ended";
            }
            return typeof aps["stale-date"] === "number" && time >= aps["stale-date"] ? "stale" : "live";
          }

          function render(card) {
            var parts = card.parts, descriptor = card.descriptor, language = descriptor.language || "en";
            var hero = isFollowers(card) ? followersFigure(descriptor) : figure(adventure.heroes, card.hero);
            parts.avatar.textContent = hero.avatar;
            parts.who.textContent = hero.name;
            parts.label.textContent = hero.label || "";
            parts.root.setAttribute("data-followers", descriptor.followers === undefined ? "" : String(descriptor.followers));
            parts.root.setAttribute("data-hero", card.hero || "");
            parts.root.setAttribute("data-language", descriptor.language || "");
            parts.lang.textContent = descriptor.language ? (languageNames[descriptor.language] || descriptor.language) + " · " + descriptor.language
                                                         : "language not reported";
            var look = lookOf(card);
            parts.root.setAttribute("data-look", look);
            parts.root.setAttribute("data-received", String(card.received));
            parts.root.setAttribute("data-waiting", String(card.waiting.length));
            parts.route.textContent = card.attributes ? card.attributes.routeName : adventure.route;

            var state = card.last ? card.last.aps["content-state"] : null;
            if (state) {
              var boss = figure(adventure.bosses, state.boss.id);
              parts.bossAvatar.textContent = boss.avatar;
              parts.bossName.textContent = boss.name;
              parts.bossRow.className = "boss-row" + (state.boss.isEnraged ? " enraged" : "");
              parts.bossRow.title = boss.name + ": " + percent(state.boss.healthLevel) + "%" + (state.boss.isEnraged ? ", enraged" : "");
              parts.bossBar.style.width = percent(state.boss.healthLevel) + "%";
              parts.heroes.textContent = "";
              state.heroes.forEach(function (status) {
                var member = figure(adventure.heroes, status.id);
                var item = node("li", "hero" + (status.id === card.hero ? " own" : "") + (status.isKnockedDown ? " down" : ""), parts.heroes);
                item.setAttribute("data-hero", status.id);
                item.title = member.name + ": " + percent(status.healthLevel) + "%" + (status.isKnockedDown ? ", knocked down" : "");
                node("span", "avatar", item, member.avatar);
                bar(item).style.width = percent(status.healthLevel) + "%";
              });
              parts.potions.textContent = "🧪 × " + state.potions;
              parts.event.textContent = state.latestEvent ? catalogText(language, state.latestEvent.key, state.latestEvent.args)
                                                          : state.eventDescription;
              parts.when.textContent = timeOfDay(card.last.aps.timestamp);
              parts.leading.textContent = hero.avatar;
              node("b", "", parts.leading, aps(card).event === "end" ? "🏁" : percent(state.currentHealthLevel) + "%");
              parts.trailing.textContent = boss.avatar;
              parts.trailing.className = "trailing" + (state.boss.isEnraged ? " enraged" : "");
              node("b", "", parts.trailing, percent(state.boss.healthLevel) + "%");
              var push = card.last.push;
              parts.lock.title = "priority " + push.priority + ": " + push.decision;
            } else {
              parts.event.textContent = descriptor.kind === "followerChannel" ? "No broadcast on this channel yet"
                                                                              : "No Live Activity on this phone yet";
              parts.leading.textContent = hero.avatar;
              parts.trailing.textContent = "";
            }

            var note = "";
            if (look === "stale") note = "Out of date since " + timeOfDay(card.last.aps["stale-date"]);
            if (look === "ended") {
              note = typeof aps(card)["dismissal-date"] === "number"
                ? "Ended · removed from the Lock Screen in " + countdown(aps(card)["dismissal-date"] - now())
                : "Ended";
            }
            if (look === "dismissed") note = "Ended · removed from the Lock Screen at " + timeOfDay(aps(card)["dismissal-date"]);
            parts.note.textContent = note;

            parts.gone.textContent = goneNote(card);
            parts.waiting.textContent = card.waiting.length === 0 ? "" : "⏳ " + card.waiting.length + " push"
              + (card.waiting.length === 1 ? "" : "es") + " pending, to be sent again: " + card.waiting.map(function (push) {
                return "tick " + push.tick + " (" + (push.outcome || "waiting") + ", " + push.attempts + " attempt" + (push.attempts === 1 ? "" : "s") + ")";
              }).join("; ");
            parts.refused.textContent = card.refused ? "⚠️ A push did not reach the phone: " + (card.refused.status || "no answer") + " "
              + (card.refused.reason || "") : "";

            if (card.lastPush) {
              var last = card.lastPush;
              parts.meta.textContent = "";
              node("span", "p" + last.priority, parts.meta, "priority " + last.priority);
              parts.meta.appendChild(document.createTextNode(" · tick " + (last.tick === null ? "–" : last.tick) + " · "
                + (last.status === null ? "no answer" : "APNs " + last.status + (last.reason ? " " + last.reason : "")) + " at "
                + timeOfDay(last.sentAt) + " · " + card.received + " push" + (card.received === 1 ? "" : "es") + " · token " + last.token
                + endpointNote(last.endpoint)));
              parts.meta.title = "priority " + last.priority + ": " + last.decision;
            } else {
              parts.meta.textContent = "No push yet";
            }
          }
          function aps(card) { return card.last ? card.last.aps : {}; }
          // What the simulator recorded (rangers demo); nothing against Apple's APNs.
          function endpointNote(endpoint) {
            if (!endpoint) return "";
            if (typeof endpoint.devicesReached !== "number") return " · the simulator holds no record of it";
            return " · the simulator accepted it (" + endpoint.devicesReached + " device" + (endpoint.devicesReached === 1 ? "" : "s") + ")";
          }

          function goneNote(card) {
            var answered = function (push) {
              return "APNs answered " + push.status + " " + (push.reason || "") + " at " + timeOfDay(push.sentAt);
            };
            if (card.descriptor.kind === "followerChannel") {
              return card.gone ? "📵 This channel is gone: " + answered(card.gone) + " for channel " + card.gone.token
                + "; no device listening on it hears more. The server makes a new one while the adventure runs, and a follower's app that asks again gets it" : "";
            }
            if (card.descriptor.kind === "tokenFollowers") {
              var gone = Object.keys(card.goneTargets).map(function (target) { return card.goneTargets[target]; });
              if (gone.length === 0) return "";
              var latest = gone[gone.length - 1];
              return "📵 " + gone.length + " of these phones " + (gone.length === 1 ? "is" : "are") + " gone (the latest: "
                + answered(latest) + " for token " + latest.token + "); nothing more reaches " + (gone.length === 1 ? "it" : "them");
            }
            return card.gone ? "📵 This phone is gone: " + answered(card.gone) + " for token " + card.gone.token + "; nothing more reaches it" : "";
          }

          /// What became of a push to the card's phone (or channel). A card for several
          /// phones is gone once every phone it stands for is.
          function settle(card, push) {
            if (push.answer === "delivered") {
              delete card.goneTargets[push.targetID];
            } else if (push.answer === "gone") {
              card.goneTargets[push.targetID] = push;
            }
            if (card.descriptor.kind !== "tokenFollowers") {
              card.gone = push.answer === "gone" ? push : push.answer === "delivered" ? null : card.gone;
            } else {
              var gone = Object.keys(card.goneTargets).length;
              card.gone = gone > 0 && gone >= (card.descriptor.followers || 0) ? push : null;
            }
          }

          function renderBanners(card) {
            var language = card.descriptor.language || "en";
            card.parts.banners.textContent = "";
            card.alerts.forEach(function (received, index) {
              var banner = node("div", "banner" + (index === 0 ? " latest" : ""), card.parts.banners);
              var title = received.alert.title;
              banner.setAttribute("data-key", title && typeof title === "object" ? title["loc-key"] : "");
              banner.setAttribute("data-tick", String(received.push.tick));
              banner.title = "priority " + received.push.priority + ": " + received.push.decision;
              node("div", "banner-app", banner, "Emoji Rangers · " + timeOfDay(received.push.sentAt));
              node("b", "banner-title", banner, alertText(title, language));
              node("p", "banner-body", banner, alertText(received.alert.body, language));
              node("span", "banner-sound", banner, "🔔 " + (received.alert.sound || "default sound"));
            });
          }
        """#
}
