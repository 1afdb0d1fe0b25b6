/* IrisRAG: the small behaviours of the app (no inline code anywhere: script-src 'self').
 *   composer   Enter sends, Shift+Enter adds a line; focus on load and after each answer; a counter
 *              near the 4,000-character limit; the typed question kept in sessionStorage until it
 *              was answered, so a login after an expired session puts it back.
 *   thread     after the first answer the composer continues that conversation (its URL pushed);
 *              the sidebar list reloads ("conversations-changed").
 *   copy       a button copies an answer's text.
 *   drawer     on a phone the Conversations link opens the sidebar as a drawer; the open
 *              thread stays marked in the reloaded list.
 *   theme      the dark-mode toggle, remembered in localStorage (applied early by theme.js); its
 *              label names the mode shown now.
 *   passage    the document viewer opens at the cited passage (scrolled to and focused).
 *   tables     admin tables get each cell's column name (data-label) and the class "stacked": on a
 *              phone (app.css) each row is a block of labelled lines instead of a sideways scroll.
 */
(function () {
  "use strict";
  var DRAFT = "irisrag-draft";
  var COUNT_FROM = 3500;

  function storage(kind) {
    try { return window[kind]; } catch (ignored) { return null; }
  }

  /* --- composer ------------------------------------------------------------------ */

  function box() { return document.getElementById("question"); }

  function saveDraft(text) {
    var store = storage("sessionStorage");
    if (!store) { return; }
    if (text) {
      store.setItem(DRAFT, JSON.stringify({ path: window.location.pathname, text: text }));
    } else {
      store.removeItem(DRAFT);
    }
  }

  function restoreDraft(field) {
    var store = storage("sessionStorage");
    var saved = null;
    try { saved = JSON.parse(store ? store.getItem(DRAFT) || "null" : "null"); } catch (ignored) { saved = null; }
    if (saved && saved.text && !field.value && saved.path === window.location.pathname) {
      field.value = saved.text;
    }
  }

  function updateCount(field) {
    var counter = document.getElementById("question-count");
    if (!counter) { return; }
    var n = field.value.length;
    counter.hidden = n < COUNT_FROM;
    counter.textContent = (counter.getAttribute("data-template") || "{n}").replace("{n}", String(n));
    counter.classList.toggle("over", n >= 4000);
  }

  function focusBox() {
    var field = box();
    if (!field) { return; }
    field.focus({ preventScroll: true });
    field.setSelectionRange(field.value.length, field.value.length);
  }

  function adopt(turn) {
    var form = document.getElementById("composer");
    if (!form || !turn || !turn.getAttribute("data-ask")) { return; }
    if (form.getAttribute("data-stream") !== turn.getAttribute("data-stream")) {
      form.setAttribute("action", turn.getAttribute("data-ask"));
      form.setAttribute("hx-post", turn.getAttribute("data-ask"));
      form.setAttribute("data-stream", turn.getAttribute("data-stream"));
      if (window.htmx) { window.htmx.process(form); }
    }
    var options = form.querySelector("details.options");
    if (options) { options.open = false; }
    var label = form.querySelector("label[data-follow-up]");
    if (label) { label.textContent = label.getAttribute("data-follow-up"); }
    var url = turn.getAttribute("data-conversation");
    if (url && window.location.pathname !== url) {
      window.history.replaceState({ htmx: true }, document.title, window.location.href);
      window.history.pushState({ htmx: true }, document.title, url);
    }
  }

  function answered(turn) {
    var field = box();
    if (turn && turn.id !== "turn-unsaved") {
      adopt(turn);
      if (field) { field.value = ""; updateCount(field); }
      saveDraft("");
      document.body.dispatchEvent(new CustomEvent("conversations-changed"));
    }
    revealCopy(document);
    focusBox();
  }

  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (field.id !== "question" || event.key !== "Enter" || event.shiftKey || event.isComposing) { return; }
    event.preventDefault();
    if (field.form && field.form.requestSubmit) { field.form.requestSubmit(); }
  });

  document.addEventListener("input", function (event) {
    if (event.target.id !== "question") { return; }
    updateCount(event.target);
    saveDraft(event.target.value);
  });

  /* stream.js dispatches irisrag:answered with the final turn; htmx swaps the turn in itself */
  document.addEventListener("irisrag:answered", function (event) { answered(event.detail && event.detail.turn); });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "turns") {
      var turns = event.target.querySelectorAll("li.turn");
      answered(turns.length ? turns[turns.length - 1] : null);
    }
  });

  /* --- copy ------------------------------------------------------------------------ */

  function revealCopy(root) {
    Array.prototype.forEach.call(root.querySelectorAll("button.copy-answer"), function (button) {
      button.hidden = false;
    });
  }

  function copied(button) {
    var label = button.textContent;
    button.textContent = button.getAttribute("data-copied") || label;
    window.setTimeout(function () { button.textContent = label; }, 1500);
  }

  function copy(button) {
    var source = document.querySelector(button.getAttribute("data-copy"));
    if (!source) { return; }
    var text = source.innerText;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(button); });
      return;
    }
    var range = document.createRange();  /* plain http: select the text and copy the selection */
    range.selectNodeContents(source);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    if (document.execCommand("copy")) { copied(button); }
    selection.removeAllRanges();
  }

  /* --- drawer and theme ------------------------------------------------------------- */

  function isPhone() { return window.matchMedia("(max-width: 52rem)").matches; }

  function toggleDrawer(link) {
    var sidebar = document.getElementById("sidebar");
    var open = !sidebar.classList.contains("open");
    sidebar.classList.toggle("open", open);
    link.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) { var search = document.getElementById("conversation-search"); if (search) { search.focus(); } }
  }

  function currentTheme() {
    var set = document.documentElement.getAttribute("data-theme");
    if (set) { return set; }
    return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function showTheme(button) {
    var label = button.getAttribute(currentTheme() === "dark" ? "data-on" : "data-off");
    if (label) { button.textContent = label; }
  }

  function toggleTheme(button) {
    var next = currentTheme() === "dark" ? "light" : "dark";
    document.documentElement.setAttribute("data-theme", next);
    var store = storage("localStorage");
    if (store) { store.setItem("irisrag-theme", next); }
    showTheme(button);
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : null;
    if (!target) { return; }
    var button = target.closest("button.copy-answer");
    if (button) { copy(button); return; }
    var theme = target.closest("#theme-toggle");
    if (theme) { toggleTheme(theme); return; }
    var link = document.getElementById("sidebar-toggle");
    var sidebar = document.getElementById("sidebar");
    if (!link || !sidebar) { return; }
    if (target.closest("#sidebar-toggle") && isPhone()) {
      event.preventDefault();
      toggleDrawer(link);
    } else if (sidebar.classList.contains("open") && (target.closest(".close-drawer") || !sidebar.contains(target))) {
      toggleDrawer(link);  /* the Close button, or a tap beside the drawer */
    }
  });

  document.addEventListener("keydown", function (event) {
    var sidebar = document.getElementById("sidebar");
    var link = document.getElementById("sidebar-toggle");
    if (event.key === "Escape" && sidebar && link && sidebar.classList.contains("open")) {
      toggleDrawer(link);
      link.focus();
    }
  });

  // The reloaded sidebar list does not know which thread is open: mark it from the address.
  function markCurrent() {
    var links = document.querySelectorAll("#conversation-list a[href]");
    for (var i = 0; i < links.length; i += 1) {
      if (links[i].pathname === window.location.pathname) {
        links[i].setAttribute("aria-current", "page");
      } else {
        links[i].removeAttribute("aria-current");
      }
    }
  }

  document.addEventListener("htmx:afterSettle", markCurrent);  // at most 50 links: cheap after any swap

  /* --- cited passage ----------------------------------------------------------------- */

  function showCited() {
    var cited = document.querySelector("#viewer .cited");
    if (!cited || (window.location.hash && window.location.hash !== "#" + cited.id)) { return; }
    cited.scrollIntoView({ block: "center" });
    cited.focus({ preventScroll: true });
  }

  /* --- admin tables on a phone ----------------------------------------------------------- */

  function headerNames(table) {
    var names = [];
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    for (var i = 0; i < heads.length; i += 1) {
      for (var span = 0; span < (heads[i].colSpan || 1); span += 1) { names.push(heads[i].textContent.trim()); }
    }
    return names;
  }

  function labelTables(root) {
    var tables = (root.querySelectorAll ? root : document).querySelectorAll("#console table:not(.stacked)");
    Array.prototype.forEach.call(tables, function (table) {
      var names = headerNames(table);
      if (!names.length) { return; }
      Array.prototype.forEach.call(table.tBodies, function (body) {
        Array.prototype.forEach.call(body.rows, function (row) {
          var column = 0;
          Array.prototype.forEach.call(row.cells, function (cell) {
            if (cell.colSpan === 1 && names[column] && !cell.hasAttribute("data-label")) {
              cell.setAttribute("data-label", names[column]);
            }
            column += cell.colSpan || 1;
          });
        });
      });
      table.classList.add("stacked");
    });
  }

  document.addEventListener("htmx:afterSettle", function () { labelTables(document); });

  function start() {
    showCited();
    labelTables(document);
    var theme = document.getElementById("theme-toggle");
    if (theme) {
      theme.hidden = false;
      showTheme(theme);
      var system = window.matchMedia("(prefers-color-scheme: dark)");
      if (system.addEventListener) { system.addEventListener("change", function () { showTheme(theme); }); }
    }
    revealCopy(document);
    var field = box();
    if (field) {
      restoreDraft(field);
      updateCount(field);
      focusBox();
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
