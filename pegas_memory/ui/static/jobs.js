// Live progress of the overview's jobs: polls /jobs.json (same origin, the session cookie goes
// with it) and updates the rows. Words from the server are set as text, never as markup.
// Written for pegas-memory; no library, nothing fetched from elsewhere.
"use strict";
(function () {
  const table = document.getElementById("job-table");
  const none = document.getElementById("no-jobs");
  const cancelTemplate = document.getElementById("job-cancel");
  if (!table) return;
  const body = table.tBodies[0];
  const ACTIVE_MS = 1000, IDLE_MS = 5000;

  function cell(row, cls) { return row.querySelector("." + cls); }

  function newRow(job) {
    const row = document.createElement("tr");
    row.dataset.job = String(job.id);
    const cols = [String(job.id), job.kind, "", "", (job.created_at || "").replace("T", " ").slice(0, 19), ""];
    cols.forEach(function (text, i) {
      const td = document.createElement("td");
      td.textContent = text;
      row.appendChild(td);
    });
    row.cells[2].className = "job-state";
    const progress = document.createElement("progress");
    progress.className = "job-progress";
    const count = document.createElement("span");
    count.className = "job-count";
    const message = document.createElement("span");
    message.className = "job-message";
    row.cells[3].append(progress, " ", count, " ", message);
    if (cancelTemplate) {
      const form = cancelTemplate.content.firstElementChild.cloneNode(true);
      form.action = "/job/" + job.id + "/cancel";
      form.querySelector("button").textContent = "Cancel job " + job.id;
      row.cells[5].appendChild(form);
    }
    body.appendChild(row);
    return row;
  }

  function show(job) {
    const row = body.querySelector('tr[data-job="' + job.id + '"]') || newRow(job);
    let state = job.state;
    if (job.cancel_requested && !job.finished) state += " (cancelling)";
    if (job.error && job.state === "failed") state += ": " + job.error;
    cell(row, "job-state").textContent = state;
    const progress = cell(row, "job-progress");
    if (job.total) { progress.max = job.total; progress.value = job.done; }
    else if (job.finished) { progress.max = 1; progress.value = 1; }
    else { progress.removeAttribute("value"); }
    cell(row, "job-count").textContent = job.total ? job.done + " / " + job.total : String(job.done);
    cell(row, "job-message").textContent = job.message || "";
    if (job.link && !row.querySelector("a.job-link")) {
      const link = document.createElement("a");
      link.className = "job-link";
      link.href = job.link;  // a local path the server built from ids
      link.textContent = "open the document";
      cell(row, "job-message").after(" ", link);
    }
    row.classList.toggle("finished", job.finished);
    if (job.finished) {
      const form = row.querySelector("form.job-cancel");
      if (form) form.remove();
    }
  }

  function poll() {
    const ids = Array.from(body.rows).filter(function (r) { return !r.classList.contains("finished"); })
      .map(function (r) { return "id=" + encodeURIComponent(r.dataset.job); });
    fetch("/jobs.json" + (ids.length ? "?" + ids.join("&") : ""), { cache: "no-store" })
      .then(function (answer) { return answer.ok ? answer.json() : { jobs: [] }; })
      .then(function (data) {
        data.jobs.forEach(show);
        const any = body.rows.length > 0;
        table.hidden = !any;
        if (none) none.hidden = any;
        const active = data.jobs.some(function (j) { return !j.finished; });
        setTimeout(poll, active ? ACTIVE_MS : IDLE_MS);
      })
      .catch(function () { setTimeout(poll, IDLE_MS); });
  }
  setTimeout(poll, ACTIVE_MS);
})();
