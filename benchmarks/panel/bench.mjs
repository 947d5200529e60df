/**
 * The panel's two browser figures, measured in headless Chromium against a running `jupyter lab`
 * (driven by benchmarks/bench_panel.py, which prepares the sessions and the scripted model):
 *
 * 1. render: click a 1,000-message session in the session list → its newest message is rendered
 *    (markdown settled, one more animation frame). Measured inside the page with performance.now().
 * 2. stream: send a prompt whose answer arrives as 20,000 deltas; the longest main-thread task
 *    (Chromium trace, `RunTask` on the renderer's main thread) from send until the run is over.
 *
 *   node bench.mjs --url URL --token T --chromium /usr/bin/chromium --big ID --small ID \
 *        --bigLast TEXT --streamEnd TEXT --renderRuns 5 --streamRuns 3
 *
 * With `--traces DIR` each stream run's Chromium trace is saved there (`stream-<i>.trace.json`, for
 * chrome://tracing or DevTools), and with `--cpuProfiles true` also a JS CPU profile (`.cpuprofile`).
 *
 * Prints one JSON line: {"render": [ms...], "fetch": [ms...], "stream": [{longestTaskMs, ...}...]}.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.resolve(here, '../../labextension/package.json'));
const { chromium } = require('playwright-core');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
];
const PANEL = '.jp-PrimePanel';

function options(argv) {
  const out = {};
  for (let i = 2; i < argv.length; i += 2) {
    out[argv[i].replace(/^--/, '')] = argv[i + 1];
  }
  return out;
}

async function openLab(page, opts) {
  await page.goto(`${opts.url}lab?token=${opts.token}`);
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached', timeout: 60000 });
  await page.waitForFunction(() => window.jupyterapp?.shell);
  await page.evaluate(async () => {
    await window.jupyterapp.restored;
    window.jupyterapp.shell.activateById('prime-jupyter-panel');
  });
  await page.waitForSelector(`${PANEL}:visible`);
  await page.waitForFunction(sel => document.querySelector(`${sel} .jp-PrimeBanner`)?.dataset.state === 'ok', PANEL);
}

/** Show the session list and wait for `sessionId` to be listed. */
async function listSessions(page, sessionId) {
  if (!(await page.locator(`${PANEL} .jp-PrimeSessions:visible`).count())) {
    await page.click(`${PANEL} .jp-PrimePanel-sessionsButton`);
  }
  await page.waitForSelector(`${PANEL} .jp-PrimeSessions-item[data-session-id="${sessionId}"]`);
}

/** Milliseconds from the click on a session to its newest message on screen, measured in the page. */
async function renderOnce(page, sessionId, lastText) {
  await listSessions(page, sessionId);
  return page.evaluate(
    ([sel, id, text]) =>
      new Promise(resolve => {
        const item = document.querySelector(`${sel} .jp-PrimeSessions-item[data-session-id="${id}"]`);
        performance.clearResourceTimings();
        const t0 = performance.now();
        item.click();
        const check = () => {
          const list = document.querySelector(`${sel} .jp-PrimeMessages`);
          const messages = list?.dataset.sessionId === id ? list.querySelectorAll('.jp-PrimeMessage') : [];
          const last = messages[messages.length - 1];
          if (last && last.textContent.includes(text)) {
            requestAnimationFrame(() => {
              const t1 = performance.now();
              const fetch = performance.getEntriesByType('resource').find(r => r.name.includes('chat/session?'));
              const whole = () => {
                const blocks = [...list.querySelectorAll('.jp-PrimePanel-markdownBlock')];
                if (blocks.every(b => b.childElementCount > 0)) {
                  const fetchMs = fetch ? fetch.responseEnd - fetch.startTime : null;
                  resolve({ ms: t1 - t0, windowMs: performance.now() - t0, fetchMs, shown: messages.length });
                } else {
                  requestAnimationFrame(whole);
                }
              };
              whole();
            });
          } else {
            requestAnimationFrame(check);
          }
        };
        check();
      }),
    [PANEL, sessionId, lastText]
  );
}

/** Longest `RunTask` on a renderer main thread in a Chromium trace (wall and CPU time), and how many took over 50 ms. */
function longestTask(trace) {
  const events = JSON.parse(trace.toString()).traceEvents;
  const main = new Set(
    events
      .filter(e => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map(e => `${e.pid}:${e.tid}`)
  );
  const tasks = events.filter(e => e.name === 'RunTask' && e.ph === 'X' && main.has(`${e.pid}:${e.tid}`));
  const durations = tasks.map(e => (e.dur ?? 0) / 1000);
  // The thread's own CPU time in a task: what the page asked of it, whatever else the machine ran.
  const cpu = tasks.map(e => (e.tdur ?? 0) / 1000);
  return {
    longestTaskMs: Math.max(0, ...durations),
    longestTaskCpuMs: Math.max(0, ...cpu),
    tasksOver50ms: durations.filter(d => d > 50).length,
    tasks: durations.length
  };
}

async function streamOnce(browser, page, endText, traceFile, profileFile) {
  await page.click(`${PANEL} .jp-PrimePanel-new`);
  await page.waitForFunction(sel => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId, PANEL);
  await page.fill('.jp-PrimeComposer-prompt', 'Write the long answer');
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  const cdp = profileFile ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
    await cdp.send('Profiler.start');
  }
  const t0 = Date.now();
  await page.press('.jp-PrimeComposer-prompt', 'Enter');
  await page.waitForSelector(`${PANEL}[data-running="true"]`, { timeout: 60000 });
  await page.waitForFunction(
    ([sel, text]) => {
      const answers = document.querySelectorAll(`${sel} .jp-PrimeMessage[data-role="assistant"]`);
      const last = answers[answers.length - 1];
      const rendered = [...(last?.querySelectorAll('.jp-PrimePanel-markdownBlock') ?? [])].every(b => b.childElementCount > 0);
      return document.querySelector(sel).dataset.running === 'false' && last?.textContent.includes(text) && rendered;
    },
    [PANEL, endText],
    { timeout: 180000, polling: 250 }
  );
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const wallMs = Date.now() - t0;
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    fs.writeFileSync(profileFile, JSON.stringify(profile));
    await cdp.detach();
  }
  const trace = await browser.stopTracing();
  if (traceFile) {
    fs.writeFileSync(traceFile, trace);
  }
  return { ...longestTask(trace), wallMs };
}

async function main() {
  const opts = options(process.argv);
  const browser = await chromium.launch({ executablePath: opts.chromium, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await openLab(page, opts);
    const render = [];
    for (let i = 0; i < Number(opts.renderRuns ?? 5); i++) {
      await renderOnce(page, opts.small, opts.smallLast);
      render.push(await renderOnce(page, opts.big, opts.bigLast));
    }
    await page.click(`${PANEL} .jp-PrimePanel-sessionsButton`);
    const stream = [];
    for (let i = 0; i < Number(opts.streamRuns ?? 3); i++) {
      const saved = name => (opts.traces ? path.join(opts.traces, `stream-${i}.${name}`) : null);
      const profile = opts.cpuProfiles === 'true' ? saved('cpuprofile') : null;
      stream.push(await streamOnce(browser, page, opts.streamEnd, saved('trace.json'), profile));
    }
    console.log(JSON.stringify({ ok: true, render, stream }));
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: String(error?.stack ?? error) }));
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

await main();
