/* IrisRAG: apply the remembered colour theme before the page is painted (loaded without defer).
 * "dark" or "light" from localStorage sets <html data-theme>; none: the system's prefers-color-scheme.
 * The toggle button is wired up by app.js. */
(function () {
  "use strict";
  try {
    var theme = window.localStorage.getItem("irisrag-theme");
    if (theme === "dark" || theme === "light") { document.documentElement.setAttribute("data-theme", theme); }
  } catch (ignored) { /* storage blocked: follow the system */ }
}());
