// handrail dashboard: reads the JSON endpoints, draws the page, polls for new events.
// Text from the records (an agent's message, a command) is only ever set as textContent:
// nothing read from the log becomes markup.
"use strict";

const POLL_MS = 1000;      // new events: a hook records one, the page shows it within a second
const PANELS_MS = 5000;    // gates, loops, envelopes, audit change at human speed

// `loaded` counts timeline loads: a poll started under other filters is dropped when it returns.
const state = { newest: null, oldest: null, filters: {}, noticesFrom: {}, loaded: 0, polling: false };
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function row(cells) {
  const tr = el("tr");
  for (const c of cells) {
    const td = el("td");
    if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined || c === "" ? "-" : String(c);
    tr.appendChild(td);
  }
  return tr;
}

function code(text) { return el("code", text); }

function when(iso) {
  if (!iso) return "-";
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString();
}

async function get(name, params) {
  const query = new URLSearchParams(params || {});
  const answer = await fetch(`/api/${name}?${query}`, { credentials: "same-origin", cache: "no-store" });
  const body = await answer.json();
  if (!answer.ok) throw new Error(body.error || `${name}: HTTP ${answer.status}`);
  return body;
}

// One list of notices (broken files, an unreadable audit report), kept per source.
function notices(source, lines) {
  state.noticesFrom[source] = lines || [];
  const all = Object.values(state.noticesFrom).flat();
  const box = $("notices");
  box.replaceChildren(...all.map((line) => el("span", line)));
  box.hidden = all.length === 0;
}

function live(text) { $("status").textContent = text; }

// ------------------------------------------------------------------ timeline

function filterParams() {
  const out = {};
  for (const [key, value] of Object.entries(state.filters)) if (value) out[key] = value;
  return out;
}

function eventRow(e) {
  const tr = row([when(e.created_at), e.event_type, e.agent, e.task, e.message]);
  tr.dataset.id = e.id;
  tr.dataset.type = e.event_type;
  if (e.event_type.startsWith("notify_block") || e.event_type.endsWith("_denied")) tr.className = "bad";
  return tr;
}

function showEmpty() {
  $("events-empty").hidden = $("events-body").children.length !== 0;
}

async function loadTimeline() {
  const load = ++state.loaded;
  const answer = await get("events", filterParams());
  if (load !== state.loaded) return;  // the filters changed meanwhile: a newer load draws
  notices("events", answer.errors);
  $("events-body").replaceChildren(...answer.events.map(eventRow));
  state.newest = answer.events.length ? answer.events[0].id : 0;
  state.oldest = answer.next_before;
  $("older").hidden = state.oldest === null;
  showEmpty();
}

async function loadOlder() {
  const answer = await get("events", { ...filterParams(), before: state.oldest });
  for (const e of answer.events) $("events-body").appendChild(eventRow(e));
  state.oldest = answer.next_before;
  $("older").hidden = state.oldest === null;
}

async function poll() {
  if (state.polling || state.newest === null) return;  // the first load draws first
  state.polling = true;
  const load = state.loaded;
  try {
    const answer = await get("events", { ...filterParams(), after: state.newest });
    if (load !== state.loaded) return;
    if (answer.more) {
      await loadTimeline();  // more arrived than a page holds: start from the newest again
    } else if (answer.events.length) {
      const body = $("events-body");
      for (const e of [...answer.events].reverse()) {
        const tr = eventRow(e);
        tr.classList.add("fresh");
        body.insertBefore(tr, body.firstChild);
      }
      state.newest = answer.events[0].id;
      showEmpty();
    }
    live(`live · ${new Date().toLocaleTimeString()}`);
  } catch (err) {
    live(`not updating: ${err.message}`);
  } finally {
    state.polling = false;
  }
}

function fill(select, values, label) {
  const keep = select.value;
  const fixed = [...select.options].filter((o) => o.value === "" || o.value.endsWith("*"));
  const options = values.map((v) => {
    const o = el("option", label ? label(v) : v);
    o.value = typeof v === "string" ? v : v.task;
    return o;
  });
  select.replaceChildren(...fixed, ...options);
  select.value = keep;
}

async function loadFacets() {
  const answer = await get("facets");
  $("project").textContent = answer.project;
  fill($("f-task"), answer.tasks, (t) => (t.phase ? `${t.task} (${t.phase})` : t.task));
  fill($("f-agent"), answer.agents);
  fill($("f-type"), answer.types);
  notices("facets", answer.errors);
}

// ------------------------------------------------------------------ panels

function waitingCard(title, lines) {
  const li = el("li");
  li.appendChild(el("strong", title));
  for (const line of lines) li.appendChild(line instanceof Node ? line : el("p", line));
  return li;
}

async function loadPanels() {
  const [gates, loops, envelopes, audit] = await Promise.all(
    ["gates", "loops", "envelopes", "audit"].map((name) => get(name)));
  const waiting = [];

  $("gates-body").replaceChildren(...gates.gates.map((g) => {
    const how = el("div");
    if (g.approve) { how.appendChild(code(g.approve)); how.appendChild(code(g.reject)); }
    const tr = row([g.task, g.theme, el("span", g.status, `pill ${g.status}`),
      g.by ? `${g.by} at ${when(g.at)}` : "-", g.approve ? how : (g.note || g.reason || "")]);
    return tr;
  }));
  notices("gates", gates.errors);

  $("loops-body").replaceChildren(...loops.loops.map((l) => {
    const runtime = l.runtime_ceiling_seconds ? `${l.runtime_seconds}s of ${l.runtime_ceiling_seconds}s` : `${l.runtime_seconds}s`;
    return row([l.task, l.state ? `${l.state}${l.reason ? ` (${l.reason})` : ""}` : "never run",
      el("span", l.circuit, `pill ${l.circuit}`), `${l.attempt} of ${l.max_steps ?? "unlimited"}`,
      `${l.tokens} of ${l.token_ceiling ?? "unlimited"}`, runtime, l.next]);
  }));
  for (const l of loops.loops) {
    if (l.circuit === "open" || l.state === "paused") {
      waiting.push(waitingCard(`loop ${l.task}: ${l.circuit === "open" ? "circuit open" : `paused (${l.reason})`}`,
        [el("p", l.next)]));
    }
  }
  notices("loops", loops.errors);

  $("envelopes-body").replaceChildren(...envelopes.envelopes.map((e) => {
    const age = e.daysSinceUpdate === null ? "?" : `${e.daysSinceUpdate}d`;
    const states = Object.entries(e.states).map(([k, v]) => `${k}=${v}`).join(", ");
    const tr = row([e.agent, e.owner, when(e.updated), e.stale ? el("span", `${age} stale`, "pill stale") : age, states]);
    return tr;
  }));
  for (const e of envelopes.envelopes) {
    if (e.stale) waiting.push(waitingCard(`envelope ${e.agent}: stale`, [code(`handrail autonomy get ${e.agent}`)]));
  }
  notices("envelopes", envelopes.errors);

  for (const g of gates.gates) {
    if (g.approve && loops.loops.some((l) => l.task === g.task && l.pending_gates.some((p) => p.theme === g.theme))) {
      waiting.unshift(waitingCard(`gate ${g.theme} of ${g.task}: a loop waits`, [code(g.approve), code(g.reject)]));
    }
  }
  $("waiting-list").replaceChildren(...(waiting.length ? waiting : [el("li", "nothing waits for you", "dim")]));

  showAudit(audit);
}

function showAudit(audit) {
  notices("audit", audit.errors);
  const report = audit.report;
  $("audit-table").hidden = !report;
  if (!report) {
    $("audit-summary").textContent = audit.present ? "the audit report cannot be shown (see above)" :
      "no audit report yet: handrail audit writes one";
    return;
  }
  const sessions = report.sessions;
  const findings = sessions.reduce((n, s) => n + (s.findings || []).length, 0);
  // An agent can run the audit too, on the sessions it names: the page says whose report it is.
  const by = report.ran_by === undefined ? "who ran it is not recorded" :
    report.ran_by === "human" ? "run by a human" : `run by the agent ${report.ran_by}`;
  $("audit-summary").textContent = `${report.result}: ${findings} finding(s) in ${sessions.length} session(s)` +
    (report.since ? ` since ${when(report.since)}` : "") + `; ${by}`;
  const rows = [];
  for (const s of sessions) {
    for (const f of s.findings || []) {
      rows.push(row([s.harness, s.session, when(f.time), el("span", f.verdict, `pill ${f.verdict}`),
        f.command || (f.paths || []).join(" "), f.why]));
    }
  }
  $("audit-body").replaceChildren(...rows);
}

// ------------------------------------------------------------------ start

async function refreshPanels() {
  try { await loadPanels(); } catch (err) { live(`not updating: ${err.message}`); }
}

function start() {
  $("filters").addEventListener("change", (ev) => {
    state.filters[ev.target.name] = ev.target.value;
    loadTimeline().catch((err) => live(`not updating: ${err.message}`));
  });
  $("filters").addEventListener("submit", (ev) => ev.preventDefault());
  $("older").addEventListener("click", () => loadOlder().catch((err) => live(err.message)));
  Promise.all([loadFacets(), loadTimeline(), loadPanels()])
    .then(() => live("live"))
    .catch((err) => live(`not updating: ${err.message}`));
  setInterval(poll, POLL_MS);
  setInterval(refreshPanels, PANELS_MS);
  setInterval(() => loadFacets().catch(() => {}), PANELS_MS);
}

document.addEventListener("DOMContentLoaded", start);
