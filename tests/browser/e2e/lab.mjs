/**
 * Page helpers of the panel's end-to-end driver (`panel.mjs`): open JupyterLab and the panel, send
 * messages, wait for runs, read the conversation back, take screenshots.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.resolve(here, '../../../labextension/package.json'));
/** playwright-core from labextension/node_modules (never a downloaded browser). */
export const { chromium } = require('playwright-core');

/** Chromium flags for a quiet, offline, sandbox-free headless run. */
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
];

export const PANEL = '.jp-PrimePanel';
export const PROMPT = '.jp-PrimeComposer-prompt';
export const WAIT = 45000;

export function options(argv) {
  const out = {};
  for (let i = 2; i < argv.length; i += 2) {
    out[argv[i].replace(/^--/, '')] = argv[i + 1];
  }
  out.params = JSON.parse(out.params ?? '{}');
  return out;
}

/** Helpers bound to one page. */
export class Lab {
  constructor(page, opts) {
    this.page = page;
    this.opts = opts;
  }

  async open() {
    await this.load();
    await this.openPanel();
  }

  /** JupyterLab itself, restored (or with `reset`, its workspace emptied), without opening the panel. */
  async load({ reset = false } = {}) {
    await this.page.goto(`${this.opts.url}lab?${reset ? 'reset&' : ''}token=${this.opts.token}`);
    await this.page.waitForSelector('#jupyterlab-splash', { state: 'detached', timeout: 60000 });
    await this.page.waitForFunction(() => window.jupyterapp?.shell);
    await this.page.evaluate(() => window.jupyterapp.restored);
  }

  async openPanel() {
    // Activating is idempotent, unlike clicking the sidebar tab (which closes an open panel).
    await this.page.waitForFunction(() => window.jupyterapp?.shell);
    await this.page.evaluate(async () => {
      await window.jupyterapp.restored;
      window.jupyterapp.shell.activateById('prime-jupyter-panel');
    });
    await this.page.waitForSelector(`${PANEL}:visible`);
    await this.widen();
  }

  /** Drag the sidebar's edge so the panel is wide enough for readable screenshots. */
  async widen(width = 560) {
    const handle = '#jp-main-split-panel > .lm-SplitPanel-handle';
    await this.page.waitForFunction(
      sel => [...document.querySelectorAll(sel)].some(h => h.getBoundingClientRect().height > 0),
      handle
    );
    const x = await this.page.evaluate(
      sel => [...document.querySelectorAll(sel)].find(h => h.getBoundingClientRect().height > 0).getBoundingClientRect().x,
      handle
    );
    if (x < width - 10) {
      await this.page.mouse.move(x, 400);
      await this.page.mouse.down();
      await this.page.mouse.move(width, 400, { steps: 4 });
      await this.page.mouse.up();
    }
  }

  /** Wait until the panel finished talking to the server (banner gone or showing a problem). */
  async ready() {
    await this.page.waitForFunction(
      sel => {
        const banner = document.querySelector(`${sel} .jp-PrimeBanner`);
        return banner && banner.dataset.state !== 'connecting';
      },
      PANEL
    );
  }

  async newSession() {
    const before = await this.sessionId();
    await this.page.click(`${PANEL} .jp-PrimePanel-new`);
    await this.page.waitForFunction(
      ([sel, old]) => {
        const id = document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId;
        return id && id !== old;
      },
      [PANEL, before ?? '']
    );
  }

  sessionId() {
    return this.page.evaluate(sel => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId ?? null, PANEL);
  }

  /**
   * Type `text` and press `key`, as a user would. One of Lab's own dialogs (its "Server Connection
   * Error" after a restart) can take the focus and the key: then close it and press again. The key
   * is handled when `press` returns, so the focus then tells who had it.
   */
  async send(text, key = 'Enter') {
    await this.page.fill(PROMPT, text);
    for (let attempt = 0; attempt < 5; attempt++) {
      const dialog = this.page.locator('.jp-Dialog');
      if (await dialog.count()) {
        await dialog.locator('.jp-Dialog-button').last().click();
        await this.page.waitForSelector('.jp-Dialog', { state: 'detached', timeout: WAIT });
      }
      await this.page.press(PROMPT, key);
      const took = await this.page.evaluate(
        sel => document.activeElement === document.querySelector(sel) && !document.querySelector('.jp-Dialog'),
        PROMPT
      );
      if (took || (await this.page.inputValue(PROMPT)) === '') {
        return; // the composer had the key (whatever the panel then did with the text)
      }
    }
    throw new Error(`the composer did not take ${JSON.stringify(text)}: ${await this.page.inputValue(PROMPT)}`);
  }

  /** Wait until no run goes on (after one started). */
  async idle(timeout = WAIT) {
    await this.page.waitForSelector(`${PANEL}[data-running="false"]`, { timeout });
  }

  async running(timeout = WAIT) {
    await this.page.waitForSelector(`${PANEL}[data-running="true"]`, { timeout });
  }

  /** The text of every message, in order: [{role, text}]. */
  messages() {
    return this.page.evaluate(
      sel =>
        [...document.querySelectorAll(`${sel} .jp-PrimeMessage`)].map(m => ({
          role: m.dataset.role,
          id: m.dataset.messageId,
          text: [...m.querySelectorAll('.jp-PrimeMessage-parts > .jp-PrimePanel-markdown .jp-PrimePanel-markdownBlock')]
            .map(n => n.textContent.trim())
            .join('\n')
        })),
      PANEL
    );
  }

  async lastAnswer() {
    const messages = await this.messages();
    const answers = messages.filter(m => m.role === 'assistant');
    return answers.length ? answers[answers.length - 1].text : '';
  }

  async waitForAnswer(text, timeout = WAIT) {
    await this.page.waitForFunction(
      ([sel, expected]) =>
        [...document.querySelectorAll(`${sel} .jp-PrimeMessage[data-role="assistant"]`)].some(m =>
          m.textContent.includes(expected)
        ),
      [PANEL, text],
      { timeout }
    );
  }

  /** Wait until the newest answer's text is longer than `n` characters. */
  async waitForAnswerLength(n, timeout = WAIT) {
    await this.page.waitForFunction(
      ([sel, min]) => {
        const answers = document.querySelectorAll(`${sel} .jp-PrimeMessage[data-role="assistant"] .jp-PrimeMessage-parts`);
        return answers.length > 0 && answers[answers.length - 1].textContent.trim().length > min;
      },
      [PANEL, n],
      { timeout }
    );
  }

  async shot(name) {
    await this.page.waitForTimeout(300);
    await this.page.screenshot({ path: path.join(this.opts.shots, `${name}.png`) });
  }

  /** Run a JupyterLab command (the app is exposed by `--LabApp.expose_app_in_browser`). */
  command(id, args = {}) {
    return this.page.evaluate(([cid, cargs]) => window.jupyterapp.commands.execute(cid, cargs), [id, args]);
  }
}

/** Play the scenario the command line names, in a fresh page, and print its one-line JSON report. */
export async function play(scenarios) {
  const opts = options(process.argv);
  const scenario = scenarios[opts.scenario];
  if (!scenario) {
    throw new Error(`unknown scenario ${opts.scenario}; known: ${Object.keys(scenarios).join(', ')}`);
  }
  const browser = await chromium.launch({ executablePath: opts.chromium, args: FLAGS });
  const consoleErrors = [];
  let pageOf = null;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('console', m => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', e => consoleErrors.push(`pageerror: ${e.message}`));
    pageOf = page;
    const facts = await scenario(new Lab(page, opts), opts.params);
    console.log(JSON.stringify({ ok: true, scenario: opts.scenario, console: consoleErrors, ...facts }));
  } catch (error) {
    const panel = await pageOf?.evaluate(sel => document.querySelector(sel)?.innerText ?? null, PANEL).catch(() => null);
    await pageOf?.screenshot({ path: path.join(opts.shots, `failed-${opts.scenario}.png`) }).catch(() => {});
    console.log(JSON.stringify({ ok: false, scenario: opts.scenario, error: String(error?.stack ?? error), console: consoleErrors, panel }));
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}
