// The trackscan page: one ES module, no framework, no build step.
// Everything it shows comes from the public API (POST /api/v1/analyze/file
// or /analyze/url with details=true); it keeps the API key in localStorage.

const KEY_STORAGE = 'trackscan.apiKey';
const SVG = 'http://www.w3.org/2000/svg';

const $ = (selector) => document.querySelector(selector);
const state = (name) => {
  document.body.dataset.state = name;
};

// ---------------------------------------------------------------- the key

const keyInput = $('#api-key');
keyInput.value = localStorage.getItem(KEY_STORAGE) ?? '';
keyInput.addEventListener('input', () => {
  const key = keyInput.value.trim();
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
});
$('#forget-key').addEventListener('click', () => {
  localStorage.removeItem(KEY_STORAGE);
  keyInput.value = '';
  keyInput.focus();
});
$('#toggle-key').addEventListener('click', (event) => {
  const show = keyInput.type === 'password';
  keyInput.type = show ? 'text' : 'password';
  event.currentTarget.textContent = show ? 'Hide' : 'Show';
  event.currentTarget.setAttribute('aria-pressed', String(show));
});

// ---------------------------------------------------------------- errors in plain words

const PLAIN_WORDS = {
  missing_api_key: 'Enter your API key first.',
  invalid_api_key: 'This API key is not accepted: it is unknown or has been revoked. Check it for a typo, or make a new one with "trackscan keys create".',
  rate_limited: 'Too many requests with this key in this minute.',
  quota_exceeded: "This key's analyses for this month are used up.",
  unsupported_media_type: 'This file is not audio trackscan can read. It accepts MP3, M4A, WAV, FLAC, OGG (Vorbis, Opus), AAC, WebM and Opus.',
  undecodable_audio: 'The file looks like audio but cannot be decoded: it may be damaged, or hold no sound track.',
  payload_too_large: "The file is too big, or the audio too long, for this server's limits.",
  invalid_request: 'The request was not accepted.',
  url_not_allowed: 'This URL points at an address the server refuses to fetch (private, loopback or similar).',
  upstream_failed: 'The URL could not be fetched, or the page has no playable audio.',
  upstream_timeout: 'The URL did not answer in time.',
  overloaded: 'The server is busy with other analyses.',
  unavailable: 'The server is not ready (starting, stopping, or its store is unreachable).',
  internal_error: 'The server failed unexpectedly.',
};

function showError({ title, message, detail }) {
  state('error');
  $('#status').hidden = true;
  $('#error-title').textContent = title;
  $('#error-message').textContent = message;
  $('#error-detail').textContent = detail ?? '';
  $('#error').hidden = false;
}

function problemError(status, problem, retryAfter) {
  const code = problem?.code;
  let message = (code && PLAIN_WORDS[code]) || `The server answered ${status}.`;
  if (retryAfter && (status === 429 || status === 503)) {
    const seconds = Number(retryAfter);
    message += seconds > 3600 ? ` Try again in about ${Math.ceil(seconds / 86400)} day(s).` : ` Try again in ${seconds} s.`;
  }
  showError({
    title: `${status} ${problem?.title ?? 'Error'}`,
    message,
    detail: problem?.detail ? `Server: ${problem.detail}${code ? ` (code ${code})` : ''}` : '',
  });
}

// ---------------------------------------------------------------- progress

let ticker = null;
function progress(text, fraction) {
  $('#status').hidden = false;
  const bar = $('#progress');
  if (fraction === null) bar.removeAttribute('value');
  else bar.value = fraction;
  $('#status-text').textContent = text;
}

function analysing(label) {
  state('analysing');
  const started = performance.now();
  const tick = () => progress(`${label} ${((performance.now() - started) / 1000).toFixed(0)} s`, null);
  tick();
  clearInterval(ticker);
  ticker = setInterval(tick, 500);
}

function stopTicker() {
  clearInterval(ticker);
  ticker = null;
}

// ---------------------------------------------------------------- calling the API

function send(path, body, contentType, label) {
  const key = keyInput.value.trim();
  $('#error').hidden = true;
  // An earlier result must not pass for the answer to this request.
  $('#result').hidden = true;
  if (!key) {
    showError({ title: 'No API key', message: PLAIN_WORDS.missing_api_key });
    return;
  }
  const xhr = new XMLHttpRequest();
  xhr.open('POST', path);
  xhr.setRequestHeader('X-API-Key', key);
  if (contentType) xhr.setRequestHeader('Content-Type', contentType);
  xhr.responseType = 'text';
  if (body instanceof FormData) {
    state('uploading');
    progress('Uploading 0%', 0);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) progress(`Uploading ${Math.round((100 * event.loaded) / event.total)}%`, event.loaded / event.total);
    });
    xhr.upload.addEventListener('load', () => analysing('Uploaded; analysing…'));
  } else {
    analysing('Fetching and analysing…');
  }
  xhr.addEventListener('load', () => {
    stopTicker();
    const type = xhr.getResponseHeader('Content-Type') ?? '';
    let parsed = null;
    try {
      parsed = JSON.parse(xhr.responseText);
    } catch {
      parsed = null;
    }
    if (xhr.status === 200 && parsed && type.startsWith('application/json')) {
      $('#status').hidden = true;
      render(parsed, label);
      return;
    }
    problemError(xhr.status, type.startsWith('application/problem+json') ? parsed : null, xhr.getResponseHeader('Retry-After'));
  });
  xhr.addEventListener('error', () => {
    stopTicker();
    showError({ title: 'No answer', message: 'The server could not be reached. Is it still running?' });
  });
  xhr.send(body);
}

/** A shell word in single quotes. */
const quote = (word) => `'${String(word).replaceAll("'", "'\\''")}'`;

/** The request as a curl command (the key left as a variable: it is never written out). */
let curl = '';

function analyzeFile(file) {
  if (!file) return;
  curl = `curl -H "X-API-Key: $TRACKSCAN_KEY" -F details=true -F file=@${quote(file.name)} ${location.origin}/api/v1/analyze/file`;
  const form = new FormData();
  // The switches come before the file part: the server starts analysing as the file arrives.
  form.append('details', 'true');
  form.append('file', file, file.name);
  send('/api/v1/analyze/file', form, null, file.name);
}

$('#file').addEventListener('change', (event) => {
  analyzeFile(event.target.files?.[0]);
  event.target.value = '';
});

const drop = $('#drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  analyzeFile(event.dataTransfer?.files?.[0]);
});
drop.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    $('#file').click();
  }
});

$('#url-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const url = $('#url').value.trim();
  if (!url) return;
  const body = JSON.stringify({ url, details: true });
  curl = `curl -H "X-API-Key: $TRACKSCAN_KEY" -H 'Content-Type: application/json' -d ${quote(body)} ${location.origin}/api/v1/analyze/url`;
  send('/api/v1/analyze/url', body, 'application/json', url);
});

// ---------------------------------------------------------------- the result

const NO_ANSWER = 'no answer';

/** Numbers are shown as the API gave them; null is "no answer". */
function text(value, { signed = false } = {}) {
  if (value === null || value === undefined) return NO_ANSWER;
  if (typeof value === 'number' && signed && value > 0) return `+${value}`;
  return String(value);
}

function setField(name, value, options) {
  for (const el of document.querySelectorAll(`[data-field="${name}"]`)) {
    el.textContent = text(value, options);
    el.classList.toggle('none', value === null || value === undefined);
    // A unit next to "no answer" would read as a value.
    el.closest('.q')?.classList.toggle('null', value === null || value === undefined);
  }
}

function setConfidence(name, value) {
  const el = document.querySelector(`[data-conf="${name}"]`);
  el.replaceChildren();
  const label = document.createElement('span');
  label.className = 'conf-label';
  label.textContent = 'confidence';
  const track = document.createElement('span');
  track.className = 'bar';
  const fill = document.createElement('span');
  fill.className = 'fill';
  track.append(fill);
  const number = document.createElement('span');
  number.className = 'conf-value';
  number.dataset.field = name;
  if (value === null || value === undefined) {
    number.textContent = NO_ANSWER;
    el.classList.add('none');
  } else {
    number.textContent = String(value);
    fill.style.width = `${Math.max(0, Math.min(1, value)) * 100}%`;
    el.classList.remove('none');
  }
  el.append(label, track, number);
}

function svgEl(name, attributes = {}, content) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, String(v));
  if (content !== undefined) el.textContent = content;
  return el;
}

/** A tick step giving about 8 labels over `span`. */
function niceStep(span) {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
  return steps.find((s) => span / s <= 10) ?? 1200;
}

function timeAxis(svg, duration, x, top, bottom) {
  const step = niceStep(duration);
  for (let t = 0; t <= duration + 1e-9; t += step) {
    svg.append(svgEl('line', { x1: x(t), x2: x(t), y1: top, y2: bottom, class: 'grid' }));
    const last = t + step > duration + 1e-9 && t / duration > 0.95;
    svg.append(svgEl('text', { x: x(t) + (last ? -2 : 2), y: bottom + 14, class: 'axis', 'text-anchor': last ? 'end' : 'start' }, `${t}s`));
  }
}

/**
 * The short-term loudness values as polylines (a gap wherever a value is
 * null). Value i is the loudness of the 3 s window ending at i + 1 seconds.
 */
function curveSegments(curve, x, y) {
  const segments = [];
  let points = [];
  curve.forEach((v, i) => {
    if (v === null) {
      if (points.length) segments.push(points);
      points = [];
    } else points.push(`${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (points.length) segments.push(points);
  return segments;
}

function drawBeats(analysis) {
  const svg = $('#beats-plot');
  svg.replaceChildren();
  const d = analysis.details;
  const W = 900, H = 160, L = 10, R = 890, T = 8, B = 136;
  const curve = d.loudness_curve ?? [];
  const duration = Math.max(d.duration_s, curve.length, 1e-3);
  const x = (t) => L + ((R - L) * t) / duration;
  timeAxis(svg, duration, x, T, B);
  const values = curve.filter((v) => v !== null);
  if (values.length) {
    const lo = Math.min(...values) - 3, hi = Math.max(...values) + 1;
    const y = (v) => B - ((B - T) * (v - lo)) / Math.max(hi - lo, 1e-6);
    for (const points of curveSegments(curve, x, y)) svg.append(svgEl('polyline', { points: points.join(' '), class: 'backdrop' }));
  }
  for (const beat of d.beats) svg.append(svgEl('line', { x1: x(beat), x2: x(beat), y1: T, y2: B, class: 'beat' }));
  if (!d.beats.length) svg.append(svgEl('text', { x: W / 2, y: H / 2, class: 'empty', 'text-anchor': 'middle' }, 'no beats found'));
  $('#beats-summary').textContent = `${d.beats.length} beats in ${d.duration_s} s.`;
}

function drawLoudness(analysis) {
  const svg = $('#loudness-plot');
  svg.replaceChildren();
  const d = analysis.details;
  const L = 46, R = 890, T = 10, B = 232;
  const curve = d.loudness_curve ?? [];
  const values = curve.filter((v) => v !== null);
  const integrated = analysis.loudness_detail.integrated_lufs;
  const marks = [-14, -23, ...(integrated === null ? [] : [integrated])];
  const lo = Math.floor((Math.min(...values, ...marks) - 3) / 6) * 6;
  const hi = Math.min(0, Math.ceil((Math.max(...values, ...marks) + 2) / 6) * 6);
  const duration = Math.max(d.duration_s, curve.length, 1e-3);
  const x = (t) => L + ((R - L) * t) / duration;
  const y = (v) => B - ((B - T) * (v - lo)) / Math.max(hi - lo, 1e-6);
  timeAxis(svg, duration, x, T, B);
  for (let v = lo; v <= hi; v += 6) {
    svg.append(svgEl('line', { x1: L, x2: R, y1: y(v), y2: y(v), class: 'grid' }));
    svg.append(svgEl('text', { x: L - 4, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, String(v)));
  }
  const mark = (value, cls, label, left = false) => {
    svg.append(svgEl('line', { x1: L, x2: R, y1: y(value), y2: y(value), class: cls }));
    svg.append(svgEl('text', { x: left ? L + 4 : R - 4, y: y(value) - 4, class: `label ${cls}`, 'text-anchor': left ? 'start' : 'end' }, label));
  };
  mark(-14, 'target target-14', '−14 LUFS streaming');
  mark(-23, 'target target-23', '−23 LUFS EBU R128');
  if (integrated !== null) mark(integrated, 'integrated', `integrated ${integrated} LUFS`, true);
  for (const points of curveSegments(curve, x, y)) svg.append(svgEl('polyline', { points: points.join(' '), class: 'curve' }));
  if (!values.length) svg.append(svgEl('text', { x: 450, y: 120, class: 'empty', 'text-anchor': 'middle' }, 'no loudness values (silence or under 3 s)'));
}

function fillCandidates(selector, rows, label) {
  const body = $(`${selector} tbody`);
  body.replaceChildren();
  if (!rows.length) {
    const tr = document.createElement('tr');
    const td = document.createElement('td');
    td.colSpan = 3;
    td.className = 'none';
    td.textContent = NO_ANSWER;
    tr.append(td);
    body.append(tr);
    return;
  }
  const best = Math.max(...rows.map((r) => r.score), 1e-9);
  for (const row of rows) {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    name.className = 'candidate';
    name.textContent = String(label(row));
    const score = document.createElement('td');
    score.className = 'score';
    score.textContent = String(row.score);
    const barCell = document.createElement('td');
    const bar = document.createElement('span');
    bar.className = 'bar';
    const fill = document.createElement('span');
    fill.className = 'fill';
    fill.style.width = `${Math.max(0, row.score / best) * 100}%`;
    bar.append(fill);
    barCell.append(bar);
    tr.append(name, score, barCell);
    body.append(tr);
  }
}

function facts(analysis) {
  const d = analysis.details;
  const list = $('#file-facts');
  list.replaceChildren();
  const rows = [
    ['duration', `${d.duration_s} s`],
    ['format', d.codec ? `${d.format} (${d.codec})` : d.format],
    ['sample rate', `${d.sample_rate} Hz`],
    ['channels', d.channels],
    ['analysis time', `${analysis.analysis_time} s${analysis.cached ? ' (from the cache)' : ''}`],
    ['analyzer', analysis.analyzer_version],
    ...(d.warnings ?? []).map((w) => ['warning', w]),
  ];
  for (const [term, value] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = String(value);
    list.append(dt, dd);
  }
}

/** What the page draws when an answer has no details (it always asks for them, so only an odd server sends none). */
const NO_DETAILS = {
  duration_s: 0, sample_rate: null, channels: null, codec: null, format: null, beats: [], tempo_candidates: [], key_candidates: [],
  key_camelot: null, key_open_key: null, tuning_cents: null, loudness_curve: [], warnings: ['the answer has no details'],
};

function render(answer, label) {
  // Drawn from a view with the placeholder details; the JSON shown is the answer itself.
  const analysis = { ...answer, details: answer.details ?? NO_DETAILS };
  const d = analysis.details;
  const ld = analysis.loudness_detail;
  $('#source-name').textContent = label;
  setField('bpm', analysis.bpm);
  setConfidence('bpm_confidence', analysis.bpm_confidence);
  setField('key', analysis.key);
  setField('key_camelot', d.key_camelot);
  setField('key_open_key', d.key_open_key);
  setConfidence('key_confidence', analysis.key_confidence);
  setField('hz', analysis.hz);
  setField('tuning_cents', d.tuning_cents, { signed: true });
  setConfidence('hz_confidence', analysis.hz_confidence);
  setField('lufs', analysis.lufs);
  setField('loudness_range', ld.loudness_range);
  setField('true_peak_dbtp', ld.true_peak_dbtp);
  setField('sample_peak_dbfs', ld.sample_peak_dbfs);
  drawBeats(analysis);
  drawLoudness(analysis);
  fillCandidates('#tempo-candidates', d.tempo_candidates, (r) => r.bpm);
  fillCandidates('#key-candidates', d.key_candidates, (r) => r.key);
  facts(analysis);
  $('#curl').textContent = curl;
  $('#raw').textContent = JSON.stringify(answer, null, 2);
  $('#result').hidden = false;
  state('done');
}
