/**
 * End-to-end driver of the notebook tools in a collaborative JupyterLab (jupyter-collaboration, the
 * `collab` extra): the user has a notebook open and types in it while the agent, driven by the test over
 * the chat API, inserts and runs a cell. Prints one JSON report line, as `panel.mjs` does.
 *
 *   node collab.mjs --scenario live --url http://127.0.0.1:PORT/ --token T --shots DIR \
 *        --chromium /usr/bin/chromium --params '{"path": "live.ipynb", ...}'
 */
import fs from 'node:fs';
import { WAIT, play } from './lab.mjs';

/** What the open notebook shows: each cell's source, outputs' text and prompt. */
function cellsShown(lab) {
  return lab.page.evaluate(() =>
    window.primeNotebook.content.widgets.map(cell => ({
      type: cell.model.type,
      source: cell.model.sharedModel.getSource(),
      outputs: [...cell.node.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText).join('\n'),
      prompt: cell.node.querySelector('.jp-InputPrompt')?.innerText ?? ''
    }))
  );
}

const scenarios = {
  /**
   * Open `path`, type `typed` at the end of cell `typeInto`, write `marker` (the test then runs the agent),
   * and wait, without reloading anything, until a cell with `source` shows `expect` in its outputs.
   */
  async live(lab, { path, typeInto, typed, marker, source, expect }) {
    await lab.load({ reset: true });
    const collaborative = await lab.page.evaluate(async p => {
      const panel = await window.jupyterapp.commands.execute('docmanager:open', { path: p });
      await panel.context.ready;
      await panel.sessionContext.ready;
      window.primeNotebook = panel;
      window.jupyterapp.shell.activateById(panel.id);
      return panel.context.model.collaborative;
    }, path);
    await lab.page.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell', { timeout: WAIT });
    await lab.page.evaluate(index => {
      window.primeNotebook.content.activeCellIndex = index;
    }, typeInto);
    await lab.command('notebook:enter-edit-mode');
    await lab.page.keyboard.press('Control+End');
    await lab.page.keyboard.type(typed);
    fs.writeFileSync(marker, 'typed');
    await lab.page.waitForFunction(
      ([src, text]) =>
        window.primeNotebook.content.widgets.some(
          cell =>
            cell.model.sharedModel.getSource() === src &&
            [...cell.node.querySelectorAll('.jp-OutputArea-output')].some(o => o.innerText.includes(text))
        ),
      [source, expect],
      { timeout: WAIT }
    );
    await lab.command('notebook:enter-command-mode');
    await lab.shot('collab-01-agent-cell-live');
    return { collaborative, cells: await cellsShown(lab) };
  }
};

await play(scenarios);
