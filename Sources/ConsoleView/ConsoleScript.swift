/// The one script the console runs: a running adventure's page follows the live
/// page's stream (Server-Sent Events, `data-follow` on `main`) and, at each tick
/// the stream announces, fetches itself again and shows the new figures in
/// place. Without scripts the page loads itself again every few seconds instead
/// (its `noscript` refresh). Allowed by its hash in the pages' policy.
enum ConsoleScript {
    static let source = """
        (function () {
          var main = document.getElementById("main");
          var url = main && main.getAttribute("data-follow");
          if (!url || !window.EventSource || !window.fetch) return;
          var source = new EventSource(url);
          var busy = false, again = false;
          function show() {
            if (busy) { again = true; return; }
            busy = true;
            fetch(location.href, { credentials: "same-origin", cache: "no-store" })
              .then(function (answer) { return answer.ok ? answer.text() : null; })
              .then(function (html) {
                if (!html) return;
                var next = new DOMParser().parseFromString(html, "text/html").getElementById("main");
                if (!next) return;
                main.innerHTML = next.innerHTML;
                if (!next.getAttribute("data-follow")) source.close();
              })
              .catch(function () {})
              .then(function () { busy = false; if (again) { again = false; show(); } });
          }
          source.addEventListener("ticks", show);
          source.addEventListener("expired", function () { source.close(); show(); });
        })();
        """
}
