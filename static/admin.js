/* IrisRAG admin console: the documents tab's drop zone and row selection.
 *
 * Drop zone: files dropped on #upload-drop become the file input's files (the input stays
 * the way without JavaScript); the count is shown. A dropped folder (where the browser hands
 * out file-system entries) adds every file inside it, subfolders too; the server then answers
 * each file on its own (queued, or refused with the reason). The chosen files are listed, each
 * with a bar: while the form uploads, the bytes sent so far fill the bars in the order the
 * files go out (one multipart body, so each file's share follows from the sizes before it). Selection: #pick-all ticks every row of
 * the page; a row swapped in by the progress poll keeps its tick.
 * No inline code anywhere: the page runs under script-src 'self'. Events are delegated to
 * the document, since htmx swaps the tab in and out.
 */
(function () {
  "use strict";
  if (window.irisragAdmin) { return; }

  /* --- folders: file-system entries to files -------------------------------------------- */

  function readAll(reader, found) {  /* readEntries answers in batches until an empty one */
    return new Promise(function (resolve, reject) {
      reader.readEntries(function (batch) {
        if (!batch.length) { resolve(found); return; }
        readAll(reader, found.concat(Array.prototype.slice.call(batch))).then(resolve, reject);
      }, reject);
    });
  }

  function collect(entries) {
    return Promise.all(Array.prototype.map.call(entries, function (entry) {
      if (entry.isFile) { return new Promise(function (resolve, reject) { entry.file(function (f) { resolve([f]); }, reject); }); }
      if (entry.isDirectory) { return readAll(entry.createReader(), []).then(collect); }
      return [];
    })).then(function (lists) { return [].concat.apply([], lists); });
  }

  function entriesOf(transfer) {
    var items = transfer.items ? Array.prototype.slice.call(transfer.items) : [];
    var entries = items.map(function (item) { return item.webkitGetAsEntry ? item.webkitGetAsEntry() : null; });
    return entries.some(function (e) { return e && e.isDirectory; }) ? entries.filter(Boolean) : null;
  }

  window.irisragAdmin = { collect: collect };

  function zoneOf(event) {
    return event.target && event.target.closest ? event.target.closest("#upload-drop") : null;
  }

  function showCount(zone, count) {
    var out = zone.querySelector(".drop-count");
    if (!out) { return; }
    out.textContent = count === 1 ? out.dataset.one : (count ? out.dataset.many.replace("{n}", count) : "");
    listFiles(zone);
  }

  var LIST_MAX = 200;  /* more files: the count alone */

  function listFiles(zone) {
    var list = zone.querySelector(".drop-files");
    var input = zone.querySelector("input[type=file]");
    if (!list || !input) { return; }
    list.textContent = "";
    if (input.files.length > LIST_MAX) { return; }
    Array.prototype.forEach.call(input.files, function (file) {
      var item = document.createElement("li");
      var bar = document.createElement("progress");
      bar.max = Math.max(file.size, 1);
      bar.value = 0;
      bar.setAttribute("aria-label", file.name);
      item.appendChild(document.createTextNode(file.name + " "));
      item.appendChild(bar);
      list.appendChild(item);
    });
  }

  function onProgress(event) {  /* htmx:xhr:progress of the upload form: fill the bars in order */
    var form = event.target;
    if (!form || form.id !== "upload-form" || !event.detail || !event.detail.total) { return; }
    var bars = form.querySelectorAll(".drop-files progress");
    var sizes = Array.prototype.map.call(bars, function (bar) { return bar.max; });
    var whole = sizes.reduce(function (a, b) { return a + b; }, 0);
    var sent = event.detail.loaded / event.detail.total * whole;  /* the body's headers count as file bytes */
    Array.prototype.forEach.call(bars, function (bar, i) {
      bar.value = Math.max(0, Math.min(sizes[i], sent));
      sent -= sizes[i];
    });
  }

  function onDrag(event) {
    var zone = zoneOf(event);
    if (!zone) { return; }
    event.preventDefault();
    zone.classList.toggle("over", event.type === "dragover" || event.type === "dragenter");
  }

  function useFiles(zone, files) {
    var input = zone.querySelector("input[type=file]");
    var transfer = new DataTransfer();
    files.forEach(function (file) { transfer.items.add(file); });
    input.files = transfer.files;
    showCount(zone, input.files.length);
  }

  function onDrop(event) {
    var zone = zoneOf(event);
    if (!zone || !event.dataTransfer || !event.dataTransfer.files.length) { return; }
    event.preventDefault();
    zone.classList.remove("over");
    var folders = entriesOf(event.dataTransfer);  /* read now: the entries are gone after the event */
    if (folders) {
      collect(folders).then(function (files) { useFiles(zone, files); });
      return;
    }
    var input = zone.querySelector("input[type=file]");
    input.files = event.dataTransfer.files;
    showCount(zone, input.files.length);
  }

  function onChange(event) {
    var target = event.target;
    if (target.id === "upload-files") { showCount(zoneOf(event), target.files.length); }
    if (target.id === "pick-all") {
      document.querySelectorAll("#document-rows input[name=ids]").forEach(function (box) {
        box.checked = target.checked;
      });
    }
  }

  function prepare() {
    document.querySelectorAll("#upload-drop .drop-hint, #pick-all").forEach(function (el) { el.hidden = false; });
  }

  function keepTick(event) {
    var old = event.detail && event.detail.target;
    var box = old && old.querySelector && old.querySelector("input[name=ids]");
    if (!box || !box.checked || !event.detail.fragment) { return; }
    var fresh = event.detail.fragment.querySelector ? event.detail.fragment.querySelector("input[name=ids]") : null;
    if (fresh) { fresh.checked = true; }
  }

  ["dragenter", "dragover", "dragleave"].forEach(function (type) { document.addEventListener(type, onDrag); });
  document.addEventListener("drop", onDrop);
  document.addEventListener("change", onChange);
  document.addEventListener("htmx:xhr:progress", onProgress);
  document.addEventListener("htmx:afterSettle", prepare);
  document.addEventListener("htmx:oobBeforeSwap", keepTick);
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", prepare); } else { prepare(); }
}());
