/**
 * End-to-end driver of the Prime panel: plays one scenario in headless Chromium against a running
 * `jupyter lab` (token auth, the real server extension, the scripted LLM server behind it) and prints
 * one JSON report line: `{"ok": true, ...facts}` or `{"ok": false, "error": ...}`.
 *
 *   node panel.mjs --scenario stream --url http://127.0.0.1:PORT/ --token T --shots DIR \
 *        --chromium /usr/bin/chromium --params '{"expect": "..."}'
 *
 * The LLM turns a scenario needs are queued by the pytest test that runs it
 * (tests/browser/test_panel_e2e.py); this file only drives the page and reports what it saw.
 * playwright-core comes from labextension/node_modules; the browser is Debian's Chromium.
 */
import { PANEL, PROMPT, WAIT, play } from './lab.mjs';

/** Samples the newest answer's length while it streams, until `done()` resolves. */
async function sampleLengths(lab, until) {
  const lengths = new Set();
  let finished = false;
  const stop = until.then(() => (finished = true));
  while (!finished) {
    lengths.add((await lab.lastAnswer()).length);
    await lab.page.waitForTimeout(40);
  }
  await stop;
  return lengths;
}

const scenarios = {
  /** The panel opens in the sidebar and the handshake succeeds. */
  async open(lab) {
    await lab.open();
    await lab.ready();
    await lab.shot('01-panel');
    const banner = await lab.page.locator(`${PANEL} .jp-PrimeBanner`).evaluate(n => (n.hidden ? null : n.innerText));
    const models = await lab.page.locator(`${PANEL} .jp-PrimeComposer-model option:not([disabled])`).allInnerTexts();
    return { banner, models };
  },

  /** The panel opens in the main area too, as a second, independent view. */
  async main(lab) {
    await lab.open();
    await lab.ready();
    await lab.command('prime:open-in-main-area');
    await lab.page.waitForSelector('#jp-main-dock-panel .jp-PrimePanel');
    await lab.shot('11-main-area');
    return { panels: await lab.page.locator('.jp-PrimePanel').count() };
  },

  /** A prompt's answer appears while it streams, then whole. */
  async stream(lab, { prompt, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.running();
    const midway = lab.waitForAnswer(expect.slice(0, 40)).then(() => lab.shot('02-streaming'));
    const lengths = await sampleLengths(lab, lab.waitForAnswer(expect).then(() => lab.idle()));
    await midway;
    await lab.shot('03-answer');
    const footer = await lab.page.locator(`${PANEL} .jp-PrimeFooter-usage`).innerText();
    return { answer: await lab.lastAnswer(), lengths: [...lengths].sort((a, b) => a - b), messages: await lab.messages(), footer };
  },

  /** An IPython card: highlighted code, an image output and an HTML table, like a notebook cell. */
  async ipython(lab, { prompt, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    const card = `${PANEL} .jp-PrimeTool[data-tool-type="tool-IPython"]`;
    await lab.page.waitForSelector(`${card}[data-state="output-available"]`, { timeout: 90000 });
    await lab.waitForAnswer(expect);
    await lab.idle();
    const facts = await lab.page.locator(card).evaluate(node => ({
      label: node.querySelector('.jp-PrimeTool-label')?.textContent,
      highlighted: node.querySelectorAll('.jp-PrimeIPython pre span, .jp-PrimeIPython code span').length,
      images: [...node.querySelectorAll('.jp-PrimeIPython-outputs img')].map(i => i.naturalWidth),
      tableCells: [...node.querySelectorAll('.jp-PrimeIPython-outputs table td')].map(td => td.textContent),
      stream: [...node.querySelectorAll('.jp-PrimeIPython-outputs .jp-RenderedText pre')].map(p => p.textContent).join('\n'),
      insertButton: !!node.querySelector('.jp-PrimeTool-insert')
    }));
    await lab.page.locator(card).scrollIntoViewIfNeeded();
    await lab.shot('04-ipython');
    return facts;
  },

  /**
   * Jupyter-native actions on an IPython card: open the agent's kernel in a console (no new kernel),
   * insert its code into a notebook; then "Explain this error" from a failing notebook cell.
   */
  async jupyter(lab, { prompt, expect, explained }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    const card = `${PANEL} .jp-PrimeTool[data-tool-type="tool-IPython"]`;
    await lab.page.waitForSelector(`${card}[data-state="output-available"]`, { timeout: 90000 });
    await lab.waitForAnswer(expect);
    await lab.idle();
    const kernels = () =>
      lab.page.evaluate(async () => (await window.jupyterapp.serviceManager.kernels.refreshRunning(), [...window.jupyterapp.serviceManager.kernels.running()].map(k => k.id)));
    const before = await kernels();
    await lab.page.click(`${card} .jp-PrimeTool-console`);
    await lab.page.waitForSelector('.jp-ConsolePanel');
    await lab.page.waitForFunction(() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.id);
    const consoleKernel = await lab.page.evaluate(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id);
    const after = await kernels();
    await lab.shot('12-kernel-console');
    await lab.page.click(`${card} .jp-PrimeTool-insert`);
    await lab.page.waitForSelector('.jp-NotebookPanel');
    await lab.page.waitForFunction(() => window.jupyterapp.shell.currentWidget?.content?.activeCell?.model.sharedModel.getSource().startsWith('import struct'));
    await lab.page.evaluate(async () => {
      const panel = window.jupyterapp.shell.currentWidget;
      await panel.sessionContext.ready;
      panel.content.activeCell.model.sharedModel.setSource('1 / 0');
    });
    await lab.command('notebook:run-cell');
    await lab.page.waitForSelector('.jp-NotebookPanel .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]', { timeout: 60000 });
    await lab.page.evaluate(() => window.jupyterapp.shell.activateById(window.jupyterapp.shell.currentWidget.id));
    await lab.command('prime:explain-error');
    await lab.waitForAnswer(explained);
    await lab.idle();
    await lab.shot('13-explain-error');
    const messages = await lab.messages();
    await lab.command('prime:ask-about-cell');
    const prompt2 = await lab.page.locator(PROMPT).inputValue();
    return { before, after, consoleKernel, asked: messages.filter(m => m.role === 'user').map(m => m.text), prompt: prompt2 };
  },

  /** A question asked by the ask tool is answered in its card, with the time left shown. */
  async question(lab, { prompt, choice, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    const question = `${PANEL} .jp-PrimeTool .jp-PrimeQuestion`;
    await lab.page.waitForSelector(question, { timeout: WAIT });
    await lab.page.waitForTimeout(1100);
    const time = await lab.page.locator(`${question} .jp-PrimeQuestion-time`).innerText();
    const title = await lab.page.locator(`${question} .jp-PrimeQuestion-title`).innerText();
    await lab.shot('05-question');
    await lab.page.click(`${question} .jp-PrimeQuestion-options button:has-text("${choice}")`);
    await lab.waitForAnswer(expect);
    await lab.idle();
    const left = await lab.page.locator(question).count();
    return { time, title, questionsLeft: left, answer: await lab.lastAnswer() };
  },

  /** Escape stops a long run; the partial answer stays, the panel is idle again. */
  async abort(lab, { prompt, fullLength }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswerLength(80);
    await lab.page.press(PROMPT, 'Escape');
    await lab.idle(20000);
    const stoppedAt = (await lab.lastAnswer()).length;
    await lab.page.waitForTimeout(1500);
    const later = (await lab.lastAnswer()).length;
    await lab.shot('06-aborted');
    return { stoppedAt, later, fullLength };
  },

  /** Reloading the page in the middle of a run: the run continues, nothing missing or doubled. */
  async reload(lab, { prompt, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    const sessionId = await lab.sessionId();
    await lab.send(prompt);
    await lab.waitForAnswer(expect.slice(0, 30));
    const beforeReload = (await lab.lastAnswer()).length;
    await lab.page.reload();
    await lab.page.waitForSelector('#jupyterlab-splash', { state: 'detached', timeout: 60000 });
    await lab.openPanel();
    await lab.page.waitForFunction(
      ([sel, id]) => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId === id,
      [PANEL, sessionId]
    );
    const afterReload = (await lab.lastAnswer()).length;
    await lab.waitForAnswer(expect, 60000);
    await lab.idle();
    await lab.page.waitForTimeout(500);
    await lab.shot('07-after-reload');
    const cursor = await lab.page.evaluate(id => window.sessionStorage.getItem(`prime:sse:last-event-id:${id}`), sessionId);
    return { beforeReload, afterReload, messages: await lab.messages(), cursor: Number(cursor), sessionId };
  },

  /** While a run goes on, Enter steers it and Alt+Enter queues a follow-up; the queue shows both. */
  async queue(lab, { prompt, steer, followUp, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswerLength(20);
    await lab.send(steer);
    await lab.send(followUp, 'Alt+Enter');
    const queued = `${PANEL} .jp-PrimeQueue-item`;
    await lab.page.waitForFunction(sel => document.querySelectorAll(sel).length === 2, queued);
    const items = await lab.page.locator(queued).evaluateAll(nodes => nodes.map(n => [n.dataset.kind, n.querySelector('.jp-PrimeQueue-text').textContent]));
    await lab.shot('15-queue');
    for (const text of expect) {
      await lab.waitForAnswer(text, 60000);
    }
    await lab.idle();
    return { items, messages: await lab.messages() };
  },

  /** Two sessions; the session list switches between them. */
  async switch(lab, { first, second }) {
    await lab.open();
    await lab.ready();
    const ids = [];
    for (const { prompt, expect } of [first, second]) {
      await lab.newSession();
      ids.push(await lab.sessionId());
      await lab.send(prompt);
      await lab.waitForAnswer(expect);
      await lab.idle();
    }
    await lab.page.click(`${PANEL} .jp-PrimePanel-sessionsButton`);
    const item = `${PANEL} .jp-PrimeSessions-item[data-session-id="${ids[0]}"]`;
    await lab.page.waitForSelector(`${PANEL} .jp-PrimeSessions[aria-busy="false"]`);
    await lab.page.waitForSelector(item);
    const listed = await lab.page.locator(`${PANEL} .jp-PrimeSessions-item`).evaluateAll(items =>
      items.map(i => ({ id: i.dataset.sessionId, status: i.dataset.status, title: i.querySelector('.jp-PrimeSessions-name')?.textContent }))
    );
    await lab.shot('08-sessions');
    await lab.page.click(item);
    await lab.page.waitForFunction(
      ([sel, id]) => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId === id,
      [PANEL, ids[0]]
    );
    await lab.waitForAnswer(first.expect);
    const shown = await lab.messages();
    // Rename it, fork it (a copy opens), then delete the copy: all from the list.
    const list = `${PANEL} .jp-PrimeSessions`;
    await lab.page.click(`${PANEL} .jp-PrimePanel-sessionsButton`);
    await lab.page.hover(item);
    await lab.page.click(`${item} button[title="Rename"]`);
    await lab.page.fill('.jp-Dialog input', 'Apples, renamed');
    await lab.page.click('.jp-Dialog .jp-mod-accept');
    await lab.page.waitForFunction(sel => document.querySelector(sel)?.textContent === 'Apples, renamed', `${item} .jp-PrimeSessions-name`);
    await lab.page.hover(item);
    await lab.page.click(`${item} button[title^="Fork"]`);
    await lab.page.waitForFunction(
      ([sel, id]) => { const now = document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId; return now && now !== id; },
      [PANEL, ids[0]]
    );
    const forkId = await lab.sessionId();
    await lab.waitForAnswer(first.expect);
    const forked = await lab.messages();
    await lab.page.click(`${PANEL} .jp-PrimePanel-sessionsButton`);
    const forkItem = `${list} .jp-PrimeSessions-item[data-session-id="${forkId}"]`;
    await lab.page.waitForSelector(forkItem);
    await lab.page.hover(forkItem);
    await lab.page.click(`${forkItem} button[title="Delete"]`);
    await lab.page.click('.jp-Dialog .jp-mod-accept');
    await lab.page.waitForSelector(forkItem, { state: 'detached' });
    const left = await lab.page.locator(`${list} .jp-PrimeSessions-item`).evaluateAll(items => items.map(i => i.dataset.sessionId));
    return { ids, listed, shown, forkId, forked, left };
  },

  /** Rewind on a user message: Lab's dialog, the agent's notebook change undone, the report as a notification,
   * the conversation back to before the message and its text back in the composer. */
  async rewind(lab, { prompt, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswer(expect);
    await lab.idle();
    const user = `${PANEL} .jp-PrimeMessage[data-role="user"]`;
    await lab.page.hover(user);
    await lab.page.click(`${user} .jp-PrimeMessage-rewind`);
    await lab.page.waitForSelector('.jp-Dialog');
    await lab.shot('22-rewind-dialog');
    await lab.page.click('.jp-Dialog .jp-mod-accept');
    const toast = '.Toastify__toast';
    await lab.page.waitForFunction(sel => [...document.querySelectorAll(sel)].some(t => t.textContent.includes('Rewound')), toast);
    await lab.page.waitForFunction(sel => document.querySelectorAll(`${sel} .jp-PrimeMessage`).length === 0, PANEL);
    await lab.page.waitForFunction(([sel, text]) => document.querySelector(sel)?.value === text, [PROMPT, prompt]);
    await lab.shot('23-rewound');
    const notified = await lab.page.locator(toast).evaluateAll(nodes => nodes.map(n => n.textContent));
    return { notified, composer: await lab.page.inputValue(PROMPT), messages: await lab.messages() };
  },

  /** The `/` menu: the commands a prompt can name, filtered as typed; Tab takes one, Enter sends it. */
  async commands(lab, { typed, argument, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.page.type(PROMPT, typed);
    const item = `${PANEL} .jp-PrimeCommands-item`;
    await lab.page.waitForSelector(item);
    const listed = await lab.page.locator(item).evaluateAll(nodes => nodes.map(n => n.dataset.name));
    await lab.shot('24-command-menu');
    await lab.page.press(PROMPT, 'ArrowDown');
    await lab.page.press(PROMPT, 'Tab');
    const picked = await lab.page.inputValue(PROMPT);
    await lab.page.type(PROMPT, argument);
    await lab.page.press(PROMPT, 'Enter');
    await lab.waitForAnswer(expect);
    await lab.idle();
    return { listed, picked, messages: await lab.messages() };
  },

  /** The dark theme: the panel takes Lab's dark colours. */
  async dark(lab, { prompt, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.page.waitForSelector(`${PANEL} .jp-PrimeTool[data-state="output-available"]`, { timeout: 90000 });
    await lab.waitForAnswer(expect);
    await lab.idle();
    await lab.command('apputils:change-theme', { theme: 'JupyterLab Dark' });
    await lab.page.waitForFunction(() => document.body.dataset.jpThemeLight === 'false');
    await lab.page.waitForTimeout(800);
    await lab.shot('09-dark');
    const colours = await lab.page.evaluate(sel => {
      const panel = document.querySelector(sel);
      const answer = panel.querySelector('.jp-PrimeMessage[data-role="assistant"] .jp-RenderedMarkdown');
      return { background: getComputedStyle(panel).backgroundColor, text: getComputedStyle(answer).color };
    }, PANEL);
    await lab.command('apputils:change-theme', { theme: 'JupyterLab Light' });
    await lab.page.waitForFunction(() => document.body.dataset.jpThemeLight === 'true');
    return colours;
  },

  /**
   * The server restarts while the panel is open: the live stream reconnects (the dot goes amber, then
   * green) and the next prompt is answered. The test restarts the server when `marker` appears and
   * writes `back` once the new server answers: the prompt waits for that and for the stream to be live
   * again, conditions both, never a clock.
   */
  async restart(lab, { first, second, marker, back }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(first.prompt);
    await lab.waitForAnswer(first.expect);
    await lab.idle();
    const status = () => lab.page.locator(`${PANEL} .jp-PrimePanel-connection`).getAttribute('data-status');
    const fs = await import('node:fs');
    fs.writeFileSync(marker, 'ready');
    await lab.page.waitForFunction(sel => document.querySelector(`${sel} .jp-PrimePanel-connection`).dataset.status !== 'live', PANEL, { timeout: 60000 });
    const during = await status();
    while (!fs.existsSync(back)) {
      await new Promise(resolve => setTimeout(resolve, 100)); // polling the rendezvous file
    }
    await lab.page.waitForFunction(sel => document.querySelector(`${sel} .jp-PrimePanel-connection`).dataset.status === 'live', PANEL, { timeout: 90000 });
    await lab.send(second.prompt);
    await lab.waitForAnswer(second.expect);
    await lab.idle();
    await lab.shot('14-after-restart');
    return { during, messages: await lab.messages() };
  },

  /** "Export the Session as a Notebook": the session is written as an .ipynb and opens in Lab. */
  async 'export-notebook'(lab, { prompt, expect }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswer(expect);
    await lab.idle();
    await lab.command('prime:export-notebook');
    await lab.page.waitForFunction(
      () => {
        const widget = window.jupyterapp.shell.currentWidget;
        return /prime-[^/]*\.ipynb$/.test(widget?.context?.path ?? '') && (widget.content.model?.cells.length ?? 0) >= 2;
      },
      undefined,
      { timeout: WAIT }
    );
    const facts = await lab.page.evaluate(() => {
      const widget = window.jupyterapp.shell.currentWidget;
      const cells = [...widget.content.widgets].map(c => ({
        type: c.model.type,
        source: c.model.sharedModel.getSource(),
        prime: c.model.getMetadata('prime') ?? null
      }));
      return { path: widget.context.path, sessionId: null, cells };
    });
    facts.sessionId = await lab.sessionId();
    await lab.shot('15-export-notebook');
    return facts;
  },

  /** A server without the extension: `info` answers 404 and the panel says what is wrong. */
  async missing(lab) {
    await lab.open();
    await lab.ready();
    const banner = await lab.page.locator(`${PANEL} .jp-PrimeBanner-text`).innerText();
    await lab.shot('10-not-installed');
    return { banner };
  }
};

await play(scenarios);
