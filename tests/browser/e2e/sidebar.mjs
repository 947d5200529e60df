/**
 * End-to-end driver of the panel at sidebar width (250 px): how answers render there (code, math and
 * dollars, plots) and whether the controls stay usable. Same command line and report as `panel.mjs`;
 * the pytest side is tests/browser/test_panel_sidebar_e2e.py, which queues the model's turns.
 */
import { PANEL, WAIT, play } from './lab.mjs';

const WIDTH = 250;

/** Drag the sidebar's edge until the panel is `width` px wide (Lab's sidebars stop at 250). */
async function narrow(lab, width = WIDTH) {
  const handle = '#jp-main-split-panel > .lm-SplitPanel-handle';
  for (let attempt = 0; attempt < 4; attempt++) {
    const [x, now] = await lab.page.evaluate(
      ([sel, panel]) => [
        [...document.querySelectorAll(sel)].find(h => h.getBoundingClientRect().height > 0).getBoundingClientRect().x,
        document.querySelector(panel).getBoundingClientRect().width
      ],
      [handle, PANEL]
    );
    if (Math.abs(now - width) <= 1) {
      return now;
    }
    await lab.page.mouse.move(x + 1, 400);
    await lab.page.mouse.down();
    await lab.page.mouse.move(x + 1 + width - now, 400, { steps: 4 });
    await lab.page.mouse.up();
  }
  return lab.page.evaluate(panel => document.querySelector(panel).getBoundingClientRect().width, PANEL);
}

/** Open the panel at sidebar width and wait for the handshake. */
async function openNarrow(lab) {
  await lab.open();
  await lab.ready();
  return narrow(lab);
}

/** The newest answer's node, as a locator. */
function lastAnswer(lab) {
  return lab.page.locator(`${PANEL} .jp-PrimeMessage[data-role="assistant"]`).last();
}

/** Facts about the controls that must stay readable and whole in a narrow panel. */
function controls(lab) {
  return lab.page.evaluate(sel => {
    const panel = document.querySelector(sel);
    const font = node => {
      const style = getComputedStyle(node);
      return `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    };
    const canvas = document.createElement('canvas').getContext('2d');
    const picker = node => {
      canvas.font = font(node);
      const text = node.selectedOptions[0]?.textContent ?? '';
      // Room for the text: the box minus its padding and the drop-down arrow (about 20 px).
      return { text, textWidth: canvas.measureText(text).width, room: node.clientWidth - 20 };
    };
    const prompt = panel.querySelector('.jp-PrimeComposer-prompt');
    const icons = [...panel.querySelectorAll('.jp-PrimePanel-header .jp-PrimePanel-buttonIcon svg')].map(svg => {
      const box = svg.getBoundingClientRect();
      return [Math.round(box.width), Math.round(box.height), svg.closest('button').title];
    });
    return {
      panelWidth: panel.getBoundingClientRect().width,
      model: picker(panel.querySelector('.jp-PrimeComposer-model')),
      thinking: picker(panel.querySelector('.jp-PrimeComposer-thinking')),
      prompt: {
        empty: prompt.value === '',
        overflowY: getComputedStyle(prompt).overflowY,
        scrollHeight: prompt.scrollHeight,
        clientHeight: prompt.clientHeight
      },
      icons
    };
  }, PANEL);
}

const scenarios = {
  /** Dollars in prose and tables stay text; `$…$`, `$$…$$`, `\(…\)` and `\[…\]` become math. */
  async math(lab, { prompt, expect, formulas }) {
    await openNarrow(lab);
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswer(expect, WAIT);
    await lab.idle();
    await lab.shot('30-sidebar-math');
    const answer = lastAnswer(lab);
    await lab.page.waitForFunction(
      ([sel, n]) => {
        const answers = document.querySelectorAll(`${sel} .jp-PrimeMessage[data-role="assistant"]`);
        return answers[answers.length - 1].querySelectorAll('mjx-container').length >= n;
      },
      [PANEL, formulas],
      { timeout: WAIT }
    );
    await lab.shot('30-sidebar-math');
    return answer.evaluate(node => ({
      cells: [...node.querySelectorAll('td')].map(td => td.textContent.trim()),
      mathInTable: node.querySelectorAll('table mjx-container').length,
      tables: node.querySelectorAll('table').length,
      prose: [...node.querySelectorAll('p')].map(p => p.textContent.trim()),
      inline: node.querySelectorAll('mjx-container:not([display="true"])').length,
      display: node.querySelectorAll('mjx-container[display="true"]').length,
      italicDollars: node.querySelectorAll('em').length
    }));
  },

  /**
   * At 250 px: code scrolls sideways, a plot keeps most of the width and opens enlarged (Escape
   * closes it), the pickers show their whole text, the empty prompt has no scrollbar, the header
   * icons share one size, and an error keeps its buttons whole.
   */
  async sidebar(lab, { prompt, expect, failing, refused }) {
    const width = await openNarrow(lab);
    await lab.newSession();
    await lab.shot('31-sidebar-empty');
    const before = await controls(lab);

    await lab.send(prompt);
    await lab.waitForAnswer(expect, WAIT);
    await lab.idle();
    const plot = lab.page.locator(`${PANEL} .jp-PrimeIPython-outputs img`).first();
    await plot.waitFor({ timeout: WAIT });
    await lab.page.waitForFunction(sel => document.querySelector(sel)?.complete, `${PANEL} .jp-PrimeIPython-outputs img`);
    const code = await lastAnswer(lab).locator('pre').first().evaluate(pre => {
      const style = getComputedStyle(pre);
      const lineHeight = parseFloat(getComputedStyle(pre.querySelector('code') ?? pre).lineHeight);
      const lines = pre.textContent.replace(/\n$/, '').split('\n').length;
      return {
        whiteSpace: style.whiteSpace,
        overflowX: style.overflowX,
        scrollWidth: pre.scrollWidth,
        clientWidth: pre.clientWidth,
        lines,
        renderedLines: Math.round((pre.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / lineHeight)
      };
    });
    await lastAnswer(lab).locator('pre').first().evaluate(pre => pre.scrollBy({ left: 120 }));
    await lab.shot('32-sidebar-code-and-plot');
    const image = await plot.evaluate(img => ({ width: img.getBoundingClientRect().width, natural: img.naturalWidth }));

    await plot.click();
    const box = lab.page.locator('dialog.jp-PrimeLightbox[open] img');
    await box.waitFor({ timeout: WAIT });
    await lab.page.waitForFunction(() => document.querySelector('dialog.jp-PrimeLightbox img')?.complete);
    const enlarged = await box.evaluate(img => img.getBoundingClientRect().width);
    await lab.shot('33-sidebar-plot-enlarged');
    await lab.page.keyboard.press('Escape');
    await lab.page.waitForSelector('dialog.jp-PrimeLightbox', { state: 'detached', timeout: WAIT });
    const runningAfterEscape = await lab.page.evaluate(sel => document.querySelector(sel).dataset.running, PANEL);

    // An error (the provider failed) with its Retry: in the answer, or as a notice when the run
    // failed before the request was answered...
    await lab.send(failing);
    await lab.page
      .waitForSelector(`${PANEL} .jp-PrimeError .jp-PrimePanel-button, ${PANEL} .jp-PrimeNotice .jp-PrimePanel-button`, { timeout: WAIT })
      .catch(async error => {
        await lab.shot('34-sidebar-no-error-shown');
        throw error;
      });
    await lab.idle();
    // ...and a message the server refuses (its session is gone): it stays, marked not sent, with Retry
    // and Edit on it, and the banner says why, with its close button.
    const sessionId = await lab.sessionId();
    await lab.page.evaluate(async id => {
      const panel = [...window.jupyterapp.shell.widgets('left')].find(w => w.id === 'prime-jupyter-panel');
      await panel.controller.client.remove(id);
    }, sessionId);
    await lab.send(refused);
    await lab.page.waitForSelector(`${PANEL} .jp-PrimeNotice.jp-mod-error .jp-PrimePanel-button`, { timeout: WAIT });
    await lab.page.waitForSelector(`${PANEL} .jp-PrimeMessage.jp-mod-failed .jp-PrimeMessage-retry`, { timeout: WAIT });
    await lab.shot('34-sidebar-errors');
    const errors = await lab.page.evaluate(sel => {
      const panel = document.querySelector(sel).getBoundingClientRect();
      const kind = node =>
        node.classList.contains('jp-PrimeNotice') ? 'notice' : node.classList.contains('jp-PrimeError') ? 'error' : 'failed';
      const nodes = `${sel} .jp-PrimeNotice, ${sel} .jp-PrimeError, ${sel} .jp-PrimeMessage.jp-mod-failed .jp-PrimeMessage-actions`;
      return [...document.querySelectorAll(nodes)].map(node => {
        const outer = node.getBoundingClientRect();
        return {
          kind: kind(node),
          inPanel: outer.left >= panel.left - 0.5 && outer.right <= panel.right + 0.5,
          buttons: [...node.querySelectorAll(':scope > .jp-PrimePanel-button')].map(b => {
            const r = b.getBoundingClientRect();
            return {
              label: b.textContent,
              whole: b.scrollWidth <= b.clientWidth && r.left >= outer.left - 0.5 && r.right <= outer.right + 0.5 && r.right <= panel.right + 0.5,
              oneLine: r.height < 2 * parseFloat(getComputedStyle(b).fontSize) + 12
            };
          })
        };
      });
    }, PANEL);
    return { width, before, after: await controls(lab), code, image, enlarged, runningAfterEscape, errors };
  }
};

await play(scenarios);
