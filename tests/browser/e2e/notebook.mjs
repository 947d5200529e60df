/**
 * End-to-end driver of `%%prime` in a JupyterLab notebook: plays one scenario in headless Chromium against a
 * running `jupyter lab` (the notebook's kernel loads the magics; the scripted LLM server answers) and prints
 * one JSON report line, as `panel.mjs` does. It needs no panel: only Lab's own notebook.
 *
 *   node notebook.mjs --scenario prime-cell --url http://127.0.0.1:PORT/ --token T --shots DIR \
 *        --chromium /usr/bin/chromium --params '{"prompt": "...", "expect": "..."}'
 */
import { WAIT, play } from './lab.mjs';

/** A new notebook on a python3 kernel, its kernel ready, active and kept as `window.primeNotebook`. */
async function newNotebook(lab) {
  await lab.page.evaluate(async () => {
    const panel = await window.jupyterapp.commands.execute('notebook:create-new', { kernelName: 'python3' });
    await panel.context.ready;
    await panel.sessionContext.ready;
    window.primeNotebook = panel; // the cells read and run below are this notebook's, whatever else is open
    window.jupyterapp.shell.activateById(panel.id);
  });
  await lab.page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell', { timeout: WAIT });
}

/**
 * Put `source` into the active cell and start running it (a new cell below becomes active). Returns at
 * once: the command's own promise would resolve only when the cell finished running.
 */
async function runCell(lab, source) {
  await lab.page.evaluate(src => {
    const notebook = window.primeNotebook.content;
    notebook.activeCell.model.sharedModel.setSource(src);
    void window.jupyterapp.commands.execute('notebook:run-cell-and-insert-below');
  }, source);
}

/** What cell `index` of the current notebook shows: its outputs' text, mime types, execution count. */
function cellFacts(lab, index) {
  return lab.page.evaluate(i => {
    const cell = window.primeNotebook.content.widgets[i];
    const outputs = [...cell.node.querySelectorAll('.jp-OutputArea-output')];
    return {
      text: outputs.map(o => o.innerText).join('\n'),
      mimeTypes: outputs.map(o => o.dataset.mimeType ?? ''),
      executionCount: cell.model.executionCount ?? null
    };
  }, index);
}

/** Wait until cell `index` shows `text` in its outputs. */
async function waitForOutput(lab, index, text, timeout = WAIT) {
  await lab.page.waitForFunction(
    ([i, expected]) => {
      const cell = window.primeNotebook.content.widgets[i];
      return !!cell && [...cell.node.querySelectorAll('.jp-OutputArea-output')].some(o => o.innerText.includes(expected));
    },
    [index, text],
    { timeout }
  );
}

/** Wait until cell `index` finished running (it has an execution count). */
async function waitForExecuted(lab, index, timeout = WAIT) {
  await lab.page.waitForFunction(
    i => {
      const count = window.primeNotebook.content.widgets[i]?.model.executionCount;
      return count !== null && count !== undefined;
    },
    index,
    { timeout }
  );
}

/** The first cell whose source starts with `prefix`: its index, source and `prime` metadata. */
function insertedFacts(lab, prefix) {
  return lab.page.evaluate(p => {
    const cells = window.primeNotebook.content.widgets;
    const index = cells.findIndex(c => c.model.sharedModel.getSource().startsWith(p));
    const cell = index >= 0 ? cells[index] : null;
    return { index, source: cell?.model.sharedModel.getSource() ?? null, metadata: cell?.model.getMetadata('prime') ?? null };
  }, prefix);
}

/** How the magics start the source of a cell they insert. */
const PROVENANCE_LINE = '# prime:';

const scenarios = {
  /** `%load_ext prime_jupyter`, then a `%%prime` cell whose answer streams into the cell's output. */
  async 'prime-cell'(lab, { prompt, expect, partial }) {
    await lab.load({ reset: true });
    await newNotebook(lab);
    await runCell(lab, '%load_ext prime_jupyter');
    await waitForExecuted(lab, 0);
    const loaded = await cellFacts(lab, 0);
    await runCell(lab, `%%prime\n${prompt}`);
    await waitForOutput(lab, 1, partial);
    const samples = new Set();
    let streaming = true;
    const done = waitForOutput(lab, 1, expect).then(() => (streaming = false));
    let shot = null;
    while (streaming) {
      const { text } = await cellFacts(lab, 1);
      samples.add(text);
      if (shot === null && !text.includes(expect)) {
        shot = lab.shot('notebook-01-prime-streaming');
      }
      await lab.page.waitForTimeout(40);
    }
    await done;
    await shot;
    await waitForExecuted(lab, 1);
    await lab.shot('notebook-02-prime-answer');
    return { loaded, cell: await cellFacts(lab, 1), samples: [...samples] };
  },

  /** `%%prime --insert`: the answer's code lands in a new cell below, with provenance in its metadata. */
  async 'insert-cell'(lab, { prompt }) {
    await lab.load({ reset: true });
    await newNotebook(lab);
    await runCell(lab, '%load_ext prime_jupyter');
    await waitForExecuted(lab, 0);
    await runCell(lab, `%%prime --insert\n${prompt}`);
    await waitForExecuted(lab, 1);
    await lab.page.waitForFunction(
      prefix => {
        const cells = window.primeNotebook.content.widgets;
        return cells.find(c => c.model.sharedModel.getSource().startsWith(prefix))?.model.getMetadata('prime') !== undefined;
      },
      PROVENANCE_LINE,
      { timeout: WAIT }
    ).catch(() => null); // the report then says what the cell has
    const facts = await insertedFacts(lab, PROVENANCE_LINE);
    await lab.shot('notebook-03-insert');
    return facts;
  }
};

await play(scenarios);
