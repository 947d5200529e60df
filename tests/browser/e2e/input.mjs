/**
 * End-to-end driver of what the panel does with what the user typed and picked (issue 17): a prompt
 * that cannot start a run, a steer taken back by Escape, the model picker and its default, a broken
 * `models.json`, and the actions on an answer's code blocks (copy, insert, run, apply a fix to the
 * failing cell). Same command line and report as `panel.mjs`; the pytest side is
 * tests/browser/test_panel_input_e2e.py.
 */
import fs from 'node:fs';

import { PANEL, PROMPT, WAIT, play } from './lab.mjs';

const MODEL = `${PANEL} .jp-PrimeComposer-model`;
const THINKING = `${PANEL} .jp-PrimeComposer-thinking`;
const FAILED = `${PANEL} .jp-PrimeMessage.jp-mod-failed`;

/** Wait for a rendezvous file the test writes (the pytest side restarts the server meanwhile). */
async function rendezvous(file) {
  while (!fs.existsSync(file)) {
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}

/** A prime route as the page's user, authenticated by the token. */
function api(lab, route) {
  return lab.page.evaluate(
    async ([url, token]) => (await fetch(url, { headers: { Authorization: `token ${token}` } })).json(),
    [`${lab.opts.url}prime/api/${route}`, lab.opts.token]
  );
}

function pickerFacts(lab) {
  return lab.page.locator(MODEL).evaluate(select => ({
    selected: select.selectedOptions[0]?.textContent ?? null,
    first: select.options[0]?.textContent ?? null,
    last: select.options[select.options.length - 1]?.textContent ?? null
  }));
}

/** The notebook in the main area: its cells' sources and the text of their outputs. */
function notebookCells(lab) {
  return lab.page.evaluate(() => {
    const panel = [...window.jupyterapp.shell.widgets('main')].find(w => w.content?.widgets && w.context?.path?.endsWith('.ipynb'));
    return panel.content.widgets.map(c => ({
      source: c.model.sharedModel.getSource(),
      output: c.node.querySelector('.jp-OutputArea')?.textContent?.trim() ?? ''
    }));
  });
}

const scenarios = {
  /** Item 1: the run cannot start; the prompt stays as a failed message, no session is left behind. */
  async unsent(lab, { prompt, shot, expect, way }) {
    await lab.open();
    await lab.ready();
    await lab.send(prompt);
    await lab.page.waitForSelector(FAILED, { timeout: WAIT });
    await lab.page.waitForFunction(sel => !document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId, PANEL);
    const notice = await lab.page.locator(`${PANEL} .jp-PrimeNotice.jp-mod-error .jp-PrimeNotice-text`).innerText();
    const failed = await lab.page.locator(FAILED).evaluate(node => ({
      text: node.querySelector('.jp-PrimeMessage-parts')?.textContent?.trim(),
      marker: node.querySelector('.jp-PrimeMessage-marker')?.textContent,
      buttons: [...node.querySelectorAll('.jp-PrimeMessage-actions button')].map(b => b.textContent)
    }));
    const composer = await lab.page.locator(PROMPT).inputValue();
    const sessions = (await api(lab, 'chat/sessions')).sessions;
    await lab.shot(shot);
    // The fix: pick a model that works, then Retry the kept message, or Edit it back into the prompt and send.
    await lab.page.selectOption(MODEL, 'scripted/m1');
    let edited = null;
    if (way === 'edit') {
      await lab.page.click(`${FAILED} .jp-PrimeMessage-edit`);
      await lab.page.waitForSelector(FAILED, { state: 'detached' });
      edited = await lab.page.locator(PROMPT).inputValue();
      await lab.page.press(PROMPT, 'Enter');
    } else {
      await lab.page.click(`${FAILED} .jp-PrimeMessage-retry`);
    }
    await lab.waitForAnswer(expect);
    await lab.idle();
    return { notice, failed, composer, sessions, edited, after: await lab.messages() };
  },

  /** Item 2: a steer typed while the answer streams, then Escape: the steer comes back, the answer says "Stopped". */
  async 'steer-escape'(lab, { prompt, steer }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswerLength(40);
    await lab.send(steer);
    await lab.page.waitForSelector(`${PANEL} .jp-PrimeQueue-item[data-kind="steer"]`);
    await lab.page.press(PROMPT, 'Escape');
    await lab.idle(20000);
    await lab.page.waitForFunction(([sel, text]) => document.querySelector(sel).value.includes(text), [PROMPT, steer]);
    const marker = await lab.page.locator(`${PANEL} .jp-PrimeMessage[data-role="assistant"] .jp-PrimeMessage-marker`).last().evaluate(n => (n.hidden ? null : n.textContent));
    await lab.shot('21-steer-back-after-escape');
    const session = await api(lab, `chat/session?sessionId=${await lab.sessionId()}`);
    return {
      composer: await lab.page.locator(PROMPT).inputValue(),
      marker,
      queued: [...(session.steering ?? []), ...(session.followUp ?? [])],
      users: (await lab.messages()).filter(m => m.role === 'user').map(m => m.text)
    };
  },

  /**
   * Item 3: a session made under the old default, then (the test restarts the server with a new
   * default) a new session: it uses the new default, named in the picker; a model typed in is used.
   */
  async model(lab, { first, second, typed, third, marker, back }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(first.prompt);
    await lab.waitForAnswer(first.expect);
    await lab.idle();
    const oldSession = await lab.sessionId();
    fs.writeFileSync(marker, 'ready');
    await rendezvous(back);
    await lab.load();
    await lab.openPanel();
    await lab.ready();
    await lab.page.waitForFunction(([sel, id]) => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId === id, [PANEL, oldSession]);
    const restored = await pickerFacts(lab);
    await lab.newSession();
    await lab.page.waitForFunction(sel => document.querySelector(sel).selectedOptions[0]?.textContent.startsWith('Default ('), MODEL);
    const fresh = await pickerFacts(lab);
    await lab.shot('22-model-default-named');
    await lab.send(second.prompt);
    await lab.waitForAnswer(second.expect);
    await lab.idle();
    // A model that is not in the list, typed in.
    await lab.page.selectOption(MODEL, { label: 'Other model…' });
    await lab.page.waitForSelector('.jp-Dialog input');
    await lab.page.fill('.jp-Dialog input', typed);
    await lab.shot('23-model-typed-in');
    await lab.page.click('.jp-Dialog .jp-mod-accept');
    await lab.page.waitForFunction(([sel, text]) => document.querySelector(sel).selectedOptions[0]?.textContent === text, [MODEL, typed]);
    await lab.send(third.prompt);
    await lab.waitForAnswer(third.expect);
    await lab.idle();
    const typedSession = await lab.sessionId();
    await lab.newSession();
    const afterPick = (await api(lab, `chat/session?sessionId=${await lab.sessionId()}`)).model;
    return { restored, fresh, oldSession, typedSession, afterPick, picked: await pickerFacts(lab) };
  },

  /**
   * Issue 31 item 3: on a reasoning model, the thinking picker names the level new sessions run at,
   * before a session exists, once one is made and after its first answer.
   */
  async thinking(lab, { prompt, expect, again }) {
    await lab.open();
    await lab.ready();
    const level = () => lab.page.locator(THINKING).evaluate(select => select.selectedOptions[0]?.textContent ?? null);
    await lab.page.waitForFunction(sel => document.querySelector(sel)?.options.length > 1, THINKING);
    const before = await level();
    await lab.newSession();
    const made = await level();
    await lab.shot('25-thinking-level-of-a-new-session');
    await lab.send(prompt);
    await lab.waitForAnswer(expect);
    await lab.idle();
    const session = await api(lab, `chat/session?sessionId=${await lab.sessionId()}`);
    const after = await level();
    // Another level on the server's default model: the session runs at it, the picker keeps showing it.
    await lab.page.selectOption(THINKING, { label: 'thinking: high' });
    const route = `chat/session?sessionId=${await lab.sessionId()}`;
    for (let tries = 0; (await api(lab, route)).thinkingLevel !== 'high'; tries++) {
      if (tries > 100) {
        throw new Error('the session did not switch to thinking: high');
      }
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    await lab.send(again.prompt);
    await lab.waitForAnswer(again.expect);
    await lab.idle();
    return { before, made, after, session: session.thinkingLevel, picked: await level() };
  },

  /**
   * Issue 31 item 7: a typed-in model the server refuses: the picker goes back to what runs, the notice
   * says why, and the next prompt and the next new session run on the model shown.
   */
  async 'refused-model'(lab, { first, typed, second, third }) {
    await lab.open();
    await lab.ready();
    await lab.send(first.prompt);
    await lab.waitForAnswer(first.expect);
    await lab.idle();
    await lab.page.selectOption(MODEL, { label: 'Other model…' });
    await lab.page.waitForSelector('.jp-Dialog input');
    await lab.page.fill('.jp-Dialog input', typed);
    await lab.page.click('.jp-Dialog .jp-mod-accept');
    const notice = `${PANEL} .jp-PrimeNotice.jp-mod-error .jp-PrimeNotice-text`;
    await lab.page.waitForSelector(notice, { timeout: WAIT });
    await lab.page.waitForFunction(sel => !document.querySelector('.jp-Dialog') && document.querySelector(sel), MODEL);
    const refused = { notice: await lab.page.locator(notice).innerText(), picker: await pickerFacts(lab) };
    await lab.shot('26-refused-model-picker-back');
    await lab.send(second.prompt);
    await lab.waitForAnswer(second.expect);
    await lab.idle();
    await lab.newSession();
    const fresh = await pickerFacts(lab);
    await lab.send(third.prompt);
    await lab.waitForAnswer(third.expect);
    await lab.idle();
    return { refused, fresh };
  },

  /** Item 4: a broken models.json: the banner carries the server's exact error and the file's path. */
  async 'broken-models'(lab) {
    await lab.open();
    await lab.ready();
    await lab.page.waitForFunction(sel => document.querySelector(`${sel} .jp-PrimeBanner`)?.dataset.level === 'error', PANEL);
    const banner = await lab.page.locator(`${PANEL} .jp-PrimeBanner-text`).innerText();
    const picker = await pickerFacts(lab);
    await lab.shot('24-broken-models-json');
    return { banner, picker };
  },

  /**
   * Item 7: an answer's code block is copied, inserted below the active cell and run; "Explain this
   * error" goes to the notebook's own session, and its fix replaces the failing cell after the diff.
   */
  async 'code-actions'(lab, { prompt, expect, code, failing, fixed, explained }) {
    await lab.open();
    await lab.ready();
    await lab.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: lab.opts.url });
    await lab.command('notebook:create-new', { kernelName: 'python3' });
    await lab.page.waitForFunction(() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel, undefined, { timeout: 60000 });
    await lab.page.evaluate(() => window.jupyterapp.shell.currentWidget.sessionContext.ready);
    await lab.openPanel();
    await lab.newSession();
    const chatSession = await lab.sessionId();
    await lab.send(prompt);
    await lab.waitForAnswer(expect);
    await lab.idle();
    const bar = `${PANEL} .jp-PrimeMessage[data-role="assistant"] .jp-PrimeCodeActions`;
    await lab.page.waitForSelector(bar);
    const buttons = await lab.page.locator(`${bar} button`).allInnerTexts();
    await lab.page.click(`${bar} .jp-PrimeCodeActions-copy`);
    await lab.page.waitForSelector(`${bar} .jp-PrimeCodeActions-copy[data-copied="true"]`);
    const copied = await lab.page.evaluate(() => navigator.clipboard.readText());
    await lab.page.click(`${bar} .jp-PrimeCodeActions-insert`);
    await lab.page.waitForFunction(n => [...window.jupyterapp.shell.widgets('main')].some(w => w.content?.widgets?.length === n), 2);
    const inserted = await notebookCells(lab);
    await lab.page.click(`${bar} .jp-PrimeCodeActions-run`);
    await lab.page.waitForFunction(() => {
      const nb = [...window.jupyterapp.shell.widgets('main')].find(w => w.content?.widgets);
      return nb?.content.widgets.length === 3 && nb.content.widgets[2].node.querySelector('.jp-OutputArea-output');
    }, undefined, { timeout: 60000 });
    const ran = await notebookCells(lab);
    await lab.shot('25-code-block-actions');
    // A failing cell, explained in the notebook's session; its fix applied after the diff.
    await lab.page.evaluate(async source => {
      const nb = window.jupyterapp.shell.currentWidget;
      nb.content.activeCell.model.sharedModel.setSource(source);
    }, failing);
    await lab.command('notebook:run-cell');
    await lab.page.waitForSelector('.jp-NotebookPanel .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]', { timeout: 60000 });
    await lab.command('prime:explain-error');
    await lab.waitForAnswer(explained);
    await lab.idle();
    const explainSession = await lab.sessionId();
    const apply = `${PANEL} .jp-PrimeMessage[data-role="assistant"] .jp-PrimeCodeActions-apply`;
    await lab.page.waitForSelector(apply);
    await lab.page.click(apply);
    await lab.page.waitForSelector('.jp-Dialog .jp-PrimeDiff');
    const diff = (await lab.page.locator('.jp-Dialog .jp-PrimeDiff span').allInnerTexts()).map(t => t.replace(/\n$/, ''));
    await lab.page.click('.jp-Dialog .jp-mod-reject');
    await lab.page.waitForSelector('.jp-Dialog', { state: 'detached' });
    const afterReject = (await notebookCells(lab))[2].source;
    await lab.page.click(apply);
    await lab.page.waitForSelector('.jp-Dialog .jp-PrimeDiff');
    await lab.shot('26-apply-fix-diff');
    await lab.page.click('.jp-Dialog .jp-mod-accept');
    await lab.page.waitForFunction(text => {
      const nb = [...window.jupyterapp.shell.widgets('main')].find(w => w.content?.widgets);
      return nb?.content.widgets.some(c => c.model.sharedModel.getSource() === text);
    }, fixed);
    const afterAccept = await notebookCells(lab);
    await lab.shot('27-apply-fix-accepted');
    // "Ask about this cell" goes to the same notebook session, even from another open session.
    await lab.page.evaluate(id => window.jupyterapp.commands.execute('prime:open-session', { sessionId: id }), chatSession);
    await lab.page.waitForFunction(([sel, id]) => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId === id, [PANEL, chatSession]);
    await lab.page.evaluate(() => {
      const nb = [...window.jupyterapp.shell.widgets('main')].find(w => w.content?.widgets);
      window.jupyterapp.shell.activateById(nb.id);
    });
    await lab.command('prime:ask-about-cell');
    await lab.page.waitForFunction(([sel, id]) => document.querySelector(`${sel} .jp-PrimeMessages`)?.dataset.sessionId === id, [PANEL, explainSession]);
    const sessions = (await api(lab, 'chat/sessions')).sessions.map(s => ({ id: s.sessionId, name: s.name ?? null }));
    return {
      buttons, copied, code, inserted, ran, diff, afterReject, afterAccept, chatSession, explainSession,
      askSession: await lab.sessionId(), askPrompt: await lab.page.locator(PROMPT).inputValue(), sessions
    };
  }
};

await play(scenarios);
