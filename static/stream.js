/* IrisRAG: stream an answer into the thread.
 *
 * A form with data-stream="URL" is posted with fetch() (the CSRF token in the form and the
 * X-CSRFToken header; the question stays out of URLs) and the text/event-stream reply is
 * read as it arrives:
 *   sources      HTML: a pending turn (question, empty answer, sources) -> appended to the target
 *   token        HTML: the answer so far, sanitised by the server       -> #answer-body
 *   done, error  HTML: the final turn -> replaces #turn-pending; "irisrag:answered" tells app.js
 * The Stop button (#ask-stop) aborts the request; the server then stops the model.
 * Without fetch streaming the form is left to htmx (hx-post) or the browser.
 * No inline code anywhere: the page runs under script-src 'self'.
 */
(function () {
  "use strict";
  if (window.irisragStream) { return; }
  window.irisragStream = true;

  var supported = Boolean(window.fetch && window.AbortController && window.TextDecoder &&
                          window.ReadableStream && window.FormData);
  var running = null;

  function processed(element) {
    if (window.htmx && element) { window.htmx.process(element); }
  }

  function append(target, html) {
    target.insertAdjacentHTML("beforeend", html);
    processed(target.lastElementChild);
    return target.lastElementChild;
  }

  function replaceTurn(target, html) {
    var pending = document.getElementById("turn-pending");
    if (pending && target.contains(pending)) { pending.remove(); }
    var turn = append(target, html);
    document.dispatchEvent(new CustomEvent("irisrag:answered", { detail: { turn: turn } }));
  }

  function show(id, visible) {
    var element = document.getElementById(id);
    if (element) { element.hidden = !visible; }
  }

  function parse(buffer, handle) {
    var blocks = buffer.split("\n\n");
    var rest = blocks.pop();
    blocks.forEach(function (block) {
      var name = "message";
      var data = [];
      block.split("\n").forEach(function (line) {
        if (!line || line.charAt(0) === ":") { return; }
        var colon = line.indexOf(":");
        var field = colon < 0 ? line : line.slice(0, colon);
        var value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.charAt(0) === " ") { value = value.slice(1); }
        if (field === "event") { name = value; } else if (field === "data") { data.push(value); }
      });
      if (data.length) { handle(name, data.join("\n")); }
    });
    return rest;
  }

  function handle(state, name, html) {
    if (name === "sources") {
      append(state.target, html).scrollIntoView({ block: "start", behavior: "smooth" });
    } else if (name === "token") {
      var body = document.getElementById("answer-body");
      if (body) { body.innerHTML = html; }
    } else if (name === "done" || name === "error") {
      state.finished = true;
      replaceTurn(state.target, html);
      busy(state, false);
    }
  }

  function endedEarly(state) {
    if (state.finished || running !== state) { return; }
    var card = document.getElementById("answer-result");
    if (!card) { return; }
    card.setAttribute("data-status", "incomplete");
    show("answer-writing", false);
    show(state.stopped ? "answer-stopped" : "answer-dropped", true);
  }

  function read(state, response) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    function pump() {
      return reader.read().then(function (step) {
        if (step.done) {
          endedEarly(state);
          return undefined;
        }
        buffer = parse(buffer + decoder.decode(step.value, { stream: true }), function (name, data) {
          handle(state, name, data);
        });
        return pump();
      });
    }
    return pump();
  }

  function busy(state, on) {
    var submit = state.form.querySelector("button[type=submit]");
    var spinner = document.getElementById("ask-spinner");
    if (submit) { submit.disabled = on; }
    if (spinner) { spinner.classList.toggle("htmx-request", on); }
    show("ask-stop", on);
    state.target.setAttribute("aria-busy", on ? "true" : "false");
  }

  function retire() {
    /* a turn that ended early stays in the thread; its ids go, so the next answer's are unique */
    var old = document.getElementById("turn-pending");
    if (!old) { return; }
    old.removeAttribute("id");
    Array.prototype.forEach.call(old.querySelectorAll("[id]"), function (element) { element.removeAttribute("id"); });
  }

  function start(form, target) {
    retire();
    var field = form.querySelector("input[name=csrf_token]");
    var state = { form: form, target: target, controller: new AbortController(), finished: false, stopped: false };
    running = state;
    busy(state, true);
    fetch(form.getAttribute("data-stream"), {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      cache: "no-store",
      signal: state.controller.signal,
      headers: { "Accept": "text/event-stream", "HX-Request": "true", "HX-Current-URL": window.location.href,
                 "X-CSRFToken": field ? field.value : "" }
    }).then(function (response) {
      var type = response.headers.get("Content-Type") || "";
      if (response.ok && type.indexOf("text/event-stream") === 0 && response.body) {
        return read(state, response);
      }
      var redirect = response.headers.get("HX-Redirect");
      if (redirect) {
        window.location.assign(redirect);
        return undefined;
      }
      return response.text().then(function (html) { append(target, "<li class=\"turn\">" + html + "</li>"); });
    }).catch(function () {
      endedEarly(state);
    }).then(function () {
      if (running === state) {
        running = null;
        busy(state, false);
      }
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!supported || !form.matches || !form.matches("form[data-stream]")) { return; }
    var target = document.querySelector(form.getAttribute("data-stream-target") || "#answer");
    if (!target) { return; }
    event.preventDefault();
    event.stopPropagation(); // capture phase: htmx's hx-post (the fallback) never sees this submit
    if (running) { running.stopped = true; running.controller.abort(); }
    start(form, target);
  }, true);

  document.addEventListener("click", function (event) {
    if (running && event.target.closest && event.target.closest("#ask-stop")) {
      running.stopped = true;
      running.controller.abort();
    }
  });
}());
