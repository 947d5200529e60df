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

/** Save `cells` (`[{id, source}]`, code cells) as the notebook `path`, through Lab's contents service. */
async function saveNotebook(lab, path, cells) {
  await lab.page.evaluate(
    async ([p, list]) => {
      const content = {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
        cells: list.map(c => ({ cell_type: 'code', id: c.id, source: c.source, metadata: {}, outputs: [], execution_count: null }))
      };
      await window.jupyterapp.serviceManager.contents.save(p, { type: 'notebook', format: 'json', content });
    },
    [path, cells]
  );
}

/** Open the notebook `path` in Lab, its kernel ready, and keep it as `window.primeNotebook`. */
async function openNotebook(lab, path) {
  await lab.page.evaluate(async p => {
    const panel = await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await panel.context.ready;
    await panel.sessionContext.ready;
    window.primeNotebook = panel;
    window.jupyterapp.shell.activateById(panel.id);
  }, path);
  await lab.page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell', { timeout: WAIT });
}

/** Every cell of the open notebook: source and outputs' text. */
function notebookFacts(lab) {
  return lab.page.evaluate(() =>
    window.primeNotebook.content.widgets.map(cell => ({
      id: cell.model.id,
      source: cell.model.sharedModel.getSource(),
      text: [...cell.node.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText).join('\n')
    }))
  );
}

const scenarios = {
  /**
   * The agent inserts a cell into the notebook the user has open and runs it: the open notebook shows the
   * new cell and its output, and the card's Open link makes that cell the active one.
   */
  async 'agent-edits-open-notebook'(lab, { path, cells, prompt, expectSource, expectOutput }) {
    await lab.load({ reset: true });
    await saveNotebook(lab, path, cells);
    await openNotebook(lab, path);
    await lab.openPanel();
    await lab.ready();
    await lab.newSession();
    await lab.send(prompt);
    await lab.idle();
    await lab.page.waitForFunction(
      ([src, out]) =>
        window.primeNotebook.content.widgets.some(
          c =>
            c.model.sharedModel.getSource() === src &&
            [...c.node.querySelectorAll('.jp-OutputArea-output')].some(o => o.innerText.includes(out))
        ),
      [expectSource, expectOutput],
      { timeout: WAIT }
    );
    await lab.shot('notebook-04-agent-edit');
    const facts = await notebookFacts(lab);
    const inserted = facts.findIndex(c => c.source === expectSource);
    await lab.page.evaluate(() => {
      window.primeNotebook.content.activeCellIndex = 0;
    });
    await lab.page.click('.jp-PrimeNotebookChange-open');
    await lab.page.waitForFunction(i => window.primeNotebook.content.activeCellIndex === i, inserted, { timeout: WAIT });
    const cards = await lab.page.evaluate(() =>
      [...document.querySelectorAll('.jp-PrimeNotebookChange-head')].map(n => n.textContent)
    );
    return { facts, inserted, active: await lab.page.evaluate(() => window.primeNotebook.content.activeCellIndex), cards };
  },

  /**
   * The agent's edit is under review in the open notebook: Undo puts a replaced cell back, Keep keeps an
   * inserted one; a second edit's Undo is refused for a cell the user typed in since.
   */
  async 'review-keep-undo'(lab, { path, cells, first, second, typed }) {
    const bars = () => lab.page.evaluate(() => window.primeNotebook.content.widgets.map(c => !!c.node.querySelector(':scope > .jp-PrimeReview-bar')));
    const sources = () => lab.page.evaluate(() => window.primeNotebook.content.widgets.map(c => c.model.sharedModel.getSource()));
    const cellAt = async source => (await sources()).indexOf(source);
    const click = async (index, which) => {
      await lab.page.evaluate(([i, cls]) => window.primeNotebook.content.widgets[i].node.querySelector(`:scope > .jp-PrimeReview-bar .${cls}`).click(), [index, which]);
    };
    await lab.load({ reset: true });
    await saveNotebook(lab, path, cells);
    await openNotebook(lab, path);
    await lab.openPanel();
    await lab.ready();
    await lab.newSession();
    await lab.send(first.prompt);
    await lab.idle();
    await lab.page.waitForFunction(n => window.primeNotebook.content.widgets.filter(c => c.node.querySelector(':scope > .jp-PrimeReview-bar')).length === n, 2, { timeout: WAIT });
    await lab.shot('notebook-06-review');
    const marked = { sources: await sources(), bars: await bars() };
    await click(await cellAt(first.replaced), 'jp-PrimeReview-undo');
    await lab.page.waitForFunction(src => window.primeNotebook.content.widgets.some(c => c.model.sharedModel.getSource() === src), first.original, { timeout: WAIT });
    await click(await cellAt(first.inserted), 'jp-PrimeReview-keep');
    await lab.page.waitForFunction(() => !window.primeNotebook.content.widgets.some(c => c.node.querySelector(':scope > .jp-PrimeReview-bar')), null, { timeout: WAIT });
    await lab.page.waitForFunction(() => !window.primeNotebook.context.model.dirty, null, { timeout: 5000 }).catch(() => null);
    const dialog = await lab.page.evaluate(() => document.querySelector('.jp-Dialog')?.textContent ?? null);
    const reviewed = { sources: await sources(), bars: await bars(), dirty: await lab.page.evaluate(() => window.primeNotebook.context.model.dirty), dialog };
    await lab.send(second.prompt);
    await lab.idle();
    await lab.page.waitForFunction(src => window.primeNotebook.content.widgets.some(c => c.model.sharedModel.getSource() === src), second.replaced, { timeout: WAIT });
    const index = await cellAt(second.replaced);
    await lab.page.evaluate(([i, text]) => window.primeNotebook.content.widgets[i].model.sharedModel.setSource(text), [index, typed]);
    await click(index, 'jp-PrimeReview-undo');
    await lab.page.waitForSelector('.jp-PrimeReview-refused', { timeout: WAIT });
    await lab.shot('notebook-07-undo-refused');
    const bar = await lab.page.evaluate(i => window.primeNotebook.content.widgets[i].node.querySelector(':scope > .jp-PrimeReview-bar')?.textContent ?? null, index);
    return { marked, reviewed, refused: { sources: await sources(), bar } };
  },

  /** "Ask Prime about this cell" on a cell that made `df`: the agent's code runs where `df` exists. */
  async 'ask-about-df'(lab, { path, setup, prompt }) {
    await lab.load({ reset: true });
    await saveNotebook(lab, path, [{ id: 'setup', source: setup }]);
    await openNotebook(lab, path);
    await lab.page.evaluate(() => {
      window.primeNotebook.content.activeCellIndex = 0;
      void window.jupyterapp.commands.execute('notebook:run-cell');
    });
    await waitForExecuted(lab, 0);
    await lab.page.evaluate(() => {
      window.primeNotebook.content.activeCellIndex = 0;
    });
    await lab.command('prime:ask-about-cell');
    await lab.page.waitForSelector(`.jp-PrimePanel:visible`);
    await lab.page.waitForFunction(sel => (document.querySelector(sel)?.value ?? '').includes('About this cell'), '.jp-PrimeComposer-prompt', { timeout: WAIT });
    await lab.send(prompt);
    await lab.idle();
    await lab.shot('notebook-05-ask-about-df');
    const tool = await lab.page.evaluate(() =>
      [...document.querySelectorAll('.jp-PrimeTool')].map(n => n.textContent).join('\n')
    );
    await lab.page.waitForFunction(sel => document.querySelector(sel)?.textContent.includes('Kernel: created'), '.jp-PrimePanel', { timeout: WAIT });
    await lab.shot('notebook-05-ask-about-df');
    const panel = await lab.page.evaluate(() => document.querySelector('.jp-PrimePanel').textContent);
    return { tool, panel };
  },

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
