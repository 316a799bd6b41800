/// One small style sheet for every console page: narrow screens first (a game
/// master on a phone), wider tables where there is room.
enum ConsoleStyle {
    static let css = """
        :root { color-scheme: light dark; --accent: #2f6fd6; --bad: #c0392b; --muted: #6b7280; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", sans-serif; }
        header.top { padding: .6rem 1rem; border-bottom: 1px solid #8884; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
        .brand { margin: 0; font-weight: 600; flex: 1 1 100%; }
        nav { display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
        nav a { color: var(--accent); }
        nav a[aria-current=page] { font-weight: 700; text-decoration: none; }
        form.sign-out { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
        .session { color: var(--muted); font-size: .85rem; }
        main { padding: 1rem; max-width: 64rem; }
        h1 { font-size: 1.35rem; margin: .2rem 0 1rem; }
        label { display: block; font-weight: 600; margin: .8rem 0 .25rem; }
        input[type=password], input[type=text], input[type=search], input[type=number], select {
          font: inherit; padding: .5rem; width: 100%; max-width: 28rem; border: 1px solid #8888; border-radius: .35rem; }
        button { font: inherit; padding: .45rem .9rem; border-radius: .35rem; border: 1px solid var(--accent);
          background: var(--accent); color: white; cursor: pointer; }
        button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
        .error { color: var(--bad); font-weight: 600; }
        .note { color: var(--muted); }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #8883; vertical-align: top; }
        .table { overflow-x: auto; }
        .pager { margin-top: 1rem; }
        h2 { font-size: 1.1rem; margin: 1.4rem 0 .5rem; }
        .code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; overflow-wrap: anywhere; }
        form.search { margin-bottom: 1rem; }
        form.search button { margin-top: .5rem; }
        .running { color: #1e8e3e; font-weight: 600; }
        label.inline { display: inline; font-weight: 400; }
        .field-error { margin: .25rem 0 0; }
        button.danger { background: var(--bad); border-color: var(--bad); }
        """
}
