/// The live page's style: phones as Lock Screen cards, the timeline beside them on
/// a wide screen and below them on a narrow one.
enum LivePageStyle {
    static let css = #"""
        * { box-sizing: border-box; }
        body { font: 14px/1.4 -apple-system, "Segoe UI", "Noto Sans", sans-serif; margin: 0; color: #1c1c1e; background: #f2f2f7; }
        main { padding: 12px; max-width: 1500px; margin: 0 auto; }
        .top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.4em 1em; }
        h1 { font-size: 1.2em; margin: 0; overflow-wrap: anywhere; }
        h2 { font-size: 1.05em; margin: 0 0 0.5em; }
        #connection { font-size: 0.85em; padding: 0.1em 0.6em; border-radius: 1em; background: #d1d1d6; }
        #connection[data-state="live"] { background: #34c759; color: #fff; }
        #connection[data-state="reconnecting"] { background: #ff9500; color: #fff; }
        #connection[data-state="expired"], #connection[data-state="refused"] { background: #ff3b30; color: #fff; }
        #summary { color: #636366; margin: 0.3em 0 0.8em; }
        .layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 16px; }
        @media (min-width: 980px) { .layout { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); } }
        #cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 14px; align-content: start; }
        #timeline { background: #fff; border-radius: 14px; padding: 12px; align-self: start; }
        #chart { width: 100%; height: auto; display: block; }
        #legend { font-size: 0.85em; }
        #legend span { display: inline-block; margin-right: 1em; }
        #legend i { display: inline-block; width: 1.6em; height: 0.3em; vertical-align: middle; margin-right: 0.3em; }
        #timeline-note { color: #8e8e93; font-size: 0.85em; }

        .phone { background: #fff; border-radius: 18px; padding: 10px; box-shadow: 0 1px 3px rgba(0,0,0,0.12); min-width: 0; }
        .phone-head { display: flex; align-items: center; gap: 0.5em; margin-bottom: 8px; }
        .phone-head .avatar { font-size: 1.6em; }
        .phone-head .who { font-weight: 600; flex: 1; min-width: 0; overflow-wrap: anywhere; }
        .phone-head .lang { font-size: 0.8em; color: #636366; background: #e5e5ea; border-radius: 0.8em; padding: 0.1em 0.6em; }
        .phone[data-kind="followerChannel"], .phone[data-kind="tokenFollowers"] { background: #f7f4ff; }
        .followers-label { font-size: 0.75em; color: #636366; margin: -4px 0 8px; }
        .followers-label:empty { display: none; }
        .island { display: flex; justify-content: space-between; align-items: center; background: #000; color: #fff;
                  border-radius: 999px; padding: 4px 14px; margin: 0 auto 8px; width: 62%; min-width: 170px; font-size: 0.85em; }
        .island b { font-weight: 600; margin-left: 0.25em; }
        .island .trailing.enraged b { color: #ff453a; }
        .banners { display: grid; gap: 6px; margin-bottom: 8px; }
        .banner { background: rgba(242,242,247,0.95); border: 1px solid #d1d1d6; border-radius: 14px; padding: 6px 10px; font-size: 0.9em; }
        .banner.latest { border-color: #0a84ff; box-shadow: 0 2px 8px rgba(10,132,255,0.25); }
        .banner:not(.latest) { opacity: 0.65; font-size: 0.8em; }
        .banner-app { font-size: 0.75em; color: #8e8e93; text-transform: uppercase; letter-spacing: 0.04em; }
        .banner-title { display: block; }
        .banner-body { margin: 0.1em 0; }
        .banner-sound { font-size: 0.8em; color: #636366; }
        .lock { background: linear-gradient(160deg, #1c1c1e, #3a3a3c); color: #fff; border-radius: 16px; padding: 10px 12px; position: relative; }
        .lock-top { display: flex; justify-content: space-between; font-size: 0.8em; color: #aeaeb2; gap: 0.5em; }
        .boss-row { display: flex; align-items: center; gap: 0.4em; margin: 6px 0; }
        .boss-row .avatar { font-size: 1.5em; }
        .boss-row .name { flex: 0 1 auto; min-width: 0; overflow-wrap: anywhere; }
        .enraged-badge { display: none; font-size: 0.7em; font-weight: 700; color: #fff; background: #ff3b30; border-radius: 0.6em; padding: 0 0.5em; }
        .boss-row.enraged .enraged-badge { display: inline-block; }
        .bar { flex: 1; height: 7px; background: rgba(255,255,255,0.2); border-radius: 4px; overflow: hidden; min-width: 40px; }
        .bar i { display: block; height: 100%; width: 0; background: #30d158; border-radius: 4px; transition: width 0.3s; }
        .boss-row .bar i { background: #ff9f0a; }
        .boss-row.enraged .bar i { background: #ff453a; }
        .heroes { list-style: none; display: flex; gap: 8px; padding: 0; margin: 4px 0; }
        .hero { flex: 1; display: flex; align-items: center; gap: 0.3em; min-width: 0; }
        .hero .avatar { font-size: 1.2em; }
        .hero.own .avatar { outline: 2px solid #0a84ff; border-radius: 50%; }
        .hero.down { opacity: 0.45; }
        .hero.down .avatar { filter: grayscale(1); }
        .potions { font-size: 0.85em; color: #d1d1d6; }
        .event { margin: 6px 0 0; font-size: 0.95em; min-height: 1.4em; overflow-wrap: anywhere; }
        .note { margin: 6px 0 0; font-size: 0.8em; color: #ffd60a; min-height: 0; }
        .note:empty { display: none; }
        .phone[data-look="waiting"] .lock { opacity: 0.5; }
        .phone[data-look="stale"] .lock { filter: saturate(0.3); }
        .phone[data-look="stale"] .lock::after { content: "Out of date"; position: absolute; bottom: 8px; right: 10px; font-size: 0.7em;
                                                 background: #ffd60a; color: #000; border-radius: 0.5em; padding: 0 0.5em; }
        .phone[data-look="ended"] .lock { background: linear-gradient(160deg, #2c2c2e, #48484a); }
        .phone[data-look="dismissed"] .lock { opacity: 0.3; }
        .phone[data-look="gone"] .lock { opacity: 0.25; filter: grayscale(1); }
        .phone-notes p { margin: 6px 0 0; font-size: 0.82em; }
        .phone-notes p:empty { display: none; }
        .gone-note { color: #ff3b30; }
        .waiting-note { color: #ff9500; }
        .refused-note { color: #ff3b30; }
        .meta { margin-top: 6px; font-size: 0.78em; color: #636366; overflow-wrap: anywhere; cursor: help; }
        .p10 { color: #c62828; } .p5 { color: #ef6c00; } .p1 { color: #757575; }
        #message { display: none; background: #ff3b30; color: #fff; padding: 0.6em 1em; border-radius: 10px; margin-bottom: 10px; }
        #message:not(:empty) { display: block; }
        #status { color: #c62828; white-space: pre-wrap; }
        """#
}
