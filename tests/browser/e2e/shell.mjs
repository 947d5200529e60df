/**
 * End-to-end driver of the panel watching the user's shell commands (`!cmd` run from a terminal attached
 * to the same session): the card shows the output while the command runs, then how it ended; its Stop
 * button cancels a running one. Same command line and report as `panel.mjs`; the pytest side is
 * tests/browser/test_panel_shell_e2e.py, which runs the commands and meets this driver at files.
 */
import fs from 'node:fs';

import { PANEL, WAIT, play } from './lab.mjs';

const CARD = `${PANEL} .jp-PrimeShell`;

async function until(file) {
  while (!fs.existsSync(file)) {
    await new Promise(resolve => setTimeout(resolve, 100)); // polling the rendezvous file
  }
}

/** The card of command `id` (else the newest): its state, output and status line. */
function card(lab, id = null) {
  const node = id ? lab.page.locator(`${CARD}[data-execution-id="${id}"]`) : lab.page.locator(CARD).last();
  return node.evaluate(node => ({
    id: node.dataset.executionId,
    state: node.dataset.state,
    command: node.querySelector('.jp-PrimeShell-command')?.textContent ?? null,
    output: node.querySelector('.jp-PrimeShell-output')?.textContent ?? null,
    status: node.querySelector('.jp-PrimeShell-status')?.textContent ?? null,
    private: node.querySelector('.jp-PrimeShell-private') !== null
  }));
}

async function waitForCard(lab, state, text, id = null) {
  await lab.page.waitForFunction(
    ([sel, wanted, expected]) => {
      const node = [...document.querySelectorAll(sel)].pop();
      return node?.dataset.state === wanted && (node.querySelector('.jp-PrimeShell-output')?.textContent ?? '').includes(expected);
    },
    [id ? `${CARD}[data-execution-id="${id}"]` : CARD, state, text],
    { timeout: WAIT }
  );
}

const scenarios = {
  async shell(lab, { prompt, expect, marker, seen, stopping }) {
    await lab.open();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswer(expect);
    await lab.idle();
    fs.writeFileSync(marker, await lab.sessionId());
    await waitForCard(lab, 'running', 'first-line');
    const running = await card(lab);
    await lab.shot('40-shell-running');
    fs.writeFileSync(seen, 'seen');
    await waitForCard(lab, 'done', 'second-line', running.id);
    const done = await card(lab, running.id);
    await lab.shot('41-shell-done');
    await until(stopping);
    await waitForCard(lab, 'running', 'waiting');
    await lab.page.locator(`${CARD} .jp-PrimeShell-stop`).last().click();
    await lab.page.waitForSelector(`${CARD}[data-state="failed"]`, { timeout: WAIT });
    const stopped = await card(lab);
    await lab.shot('42-shell-stopped');
    return { running, done, stopped, cards: await lab.page.locator(CARD).count() };
  }
};

await play(scenarios);
