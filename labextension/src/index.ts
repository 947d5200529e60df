/**
 * JupyterLab entry point of prime-jupyter: the "Prime" panel in the left sidebar (and, on demand, in
 * the main area), its command-palette commands, and the notebook cell actions.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, InputDialog, Notification } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { LabIcon } from '@jupyterlab/ui-components';

import { PrimeClient } from './client';
import { ChatController } from './controller';
import { JupyterActions } from './notebook';
import { openNotebookSession } from './notebooksessions';
import { InsertProvenance } from './provenance';
import { PrimePanel } from './panel';
import { diffRendererFactory } from './widgets/diff';
import { fence } from './widgets/dom';
import { HeldTypesetter } from './widgets/markdown';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M12 2l2.9 6.9L22 10l-5.5 4.8L18.2 22 12 18.3 5.8 22l1.7-7.2L2 10l7.1-1.1z"/>' +
  '</svg>';

export const primeIcon = new LabIcon({ name: 'prime-jupyter:prime', svgstr: ICON_SVG });

/** The sidebar panel's widget id (`li[data-id=...]` in the sidebar tab bar). */
export const PANEL_ID = 'prime-jupyter-panel';
const WELCOMED_KEY = 'prime:panel-shown-once';

export namespace CommandIDs {
  export const newSession = 'prime:new-session';
  export const openSession = 'prime:open-session';
  export const abort = 'prime:abort';
  export const focusPrompt = 'prime:focus-prompt';
  export const openInMain = 'prime:open-in-main-area';
  export const openConsole = 'prime:open-kernel-console';
  export const askCell = 'prime:ask-about-cell';
  export const explainError = 'prime:explain-error';
  export const exportNotebook = 'prime:export-notebook';
}

function activate(
  app: JupyterFrontEnd,
  rendermime: IRenderMimeRegistry,
  palette: ICommandPalette | null,
  restorer: ILayoutRestorer | null,
  labShell: ILabShell | null
): void {
  const typesetter = new HeldTypesetter(rendermime.latexTypesetter);
  const registry = rendermime.clone({ latexTypesetter: typesetter });
  registry.addFactory(diffRendererFactory);
  const client = new PrimeClient();
  const actions = new JupyterActions(app);
  const provenance = new InsertProvenance();
  provenance.watch(labShell?.currentWidget);
  labShell?.currentChanged.connect((_, change) => {
    actions.noticeCurrent(change.newValue);
    provenance.watch(change.newValue);
  });
  let mainCount = 0;

  const makePanel = (persist: boolean, openInMainArea?: () => void): PrimePanel => {
    const controller = new ChatController(client, { persist });
    const panel = new PrimePanel({ controller, rendermime: registry, actions, openInMainArea });
    panel.title.icon = primeIcon;
    panel.title.caption = 'Prime: chat with the agent';
    panel.disposed.connect(() => controller.dispose());
    return panel;
  };

  const openInMain = (): void => {
    const panel = makePanel(false);
    panel.id = `prime-jupyter-main-${++mainCount}`;
    panel.title.label = 'Prime';
    panel.title.closable = true;
    app.shell.add(panel, 'main');
    app.shell.activateById(panel.id);
    void panel.controller.start(sidebar.controller.state.sessionId ?? undefined);
  };

  const sidebar = makePanel(true, openInMain);
  sidebar.id = PANEL_ID;
  app.shell.add(sidebar, 'left', { rank: 900 });
  void app.restored.then(() => {
    // The first time JupyterLab starts with the extension, show the panel instead of the file browser.
    if (!window.localStorage.getItem(WELCOMED_KEY)) {
      window.localStorage.setItem(WELCOMED_KEY, '1');
      app.shell.activateById(PANEL_ID);
    }
    window.requestIdleCallback(() => void typesetter.warmUp());
  });
  restorer?.add(sidebar, PANEL_ID);
  void sidebar.controller.start();

  /** The panel the user is looking at: a focused main-area copy, else the sidebar. */
  const active = (): PrimePanel => {
    const current = app.shell.currentWidget;
    return current instanceof PrimePanel ? current : sidebar;
  };
  const reveal = (panel: PrimePanel): void => {
    app.shell.activateById(panel.id);
    panel.composer.focus();
  };

  const { commands } = app;
  commands.addCommand(CommandIDs.newSession, {
    label: 'Prime: New Session',
    execute: async () => {
      const panel = active();
      reveal(panel);
      await panel.controller.newSession();
    }
  });
  commands.addCommand(CommandIDs.openSession, {
    label: 'Prime: Open Session…',
    execute: async args => {
      const panel = active();
      let sessionId = typeof args.sessionId === 'string' ? args.sessionId : null;
      if (!sessionId) {
        await panel.controller.refreshSessions();
        const sessions = panel.controller.sessions;
        const result = await InputDialog.getItem({ title: 'Open a Prime session', items: sessions.map(s => s.title) });
        sessionId = sessions.find(s => s.title === result.value)?.sessionId ?? null;
        if (!result.button.accept || !sessionId) {
          return;
        }
      }
      reveal(panel);
      await panel.controller.openSession(sessionId);
    }
  });
  commands.addCommand(CommandIDs.abort, {
    label: 'Prime: Stop the Run',
    isEnabled: () => active().controller.running,
    execute: () => active().controller.abort()
  });
  commands.addCommand(CommandIDs.focusPrompt, {
    label: 'Prime: Focus the Prompt',
    execute: () => reveal(active())
  });
  commands.addCommand(CommandIDs.openInMain, {
    label: 'Prime: Open in the Main Area',
    execute: openInMain
  });
  commands.addCommand(CommandIDs.openConsole, {
    label: "Prime: Open the Agent's Kernel in a Console",
    isEnabled: () => active().controller.kernelId() !== null,
    execute: async () => {
      const kernelId = active().controller.kernelId();
      if (kernelId) {
        await actions.openKernelConsole(kernelId);
      }
    }
  });
  commands.addCommand(CommandIDs.exportNotebook, {
    label: 'Prime: Export the Session as a Notebook',
    isEnabled: () => active().controller.state.sessionId !== null,
    execute: async () => {
      try {
        const path = await active().controller.exportNotebook();
        if (path && !(await actions.openFile(path))) {
          Notification.info(`Prime exported the session to ${path}`);
        }
      } catch (error: unknown) {
        Notification.error(error instanceof Error ? error.message : String(error));
      }
    }
  });
  commands.addCommand(CommandIDs.askCell, {
    label: 'Ask Prime About This Cell',
    icon: primeIcon,
    isEnabled: () => actions.activeCell() !== null,
    execute: async () => {
      const cell = actions.activeCell();
      if (!cell) {
        return;
      }
      const language = cell.cellType === 'code' ? 'python' : 'markdown';
      reveal(sidebar);
      await inNotebookSession(cell.path);
      sidebar.composer.setText(`About this cell of \`${cell.path}\`:\n\n${fence(cell.source, language)}\n\n`);
    }
  });
  commands.addCommand(CommandIDs.explainError, {
    label: 'Explain This Error with Prime',
    icon: primeIcon,
    isVisible: () => (actions.activeCell()?.errors.length ?? 0) > 0,
    execute: async () => {
      const cell = actions.activeCell();
      if (!cell || cell.errors.length === 0) {
        return;
      }
      reveal(sidebar);
      const message =
        `Explain this error from a cell of \`${cell.path}\`, and how to fix it.\n\n` +
        `${fence(cell.source, 'python')}\n\n${fence(cell.errors.join('\n\n'))}`;
      if (await inNotebookSession(cell.path)) {
        sidebar.controller.fixes.note(sidebar.controller.state.sessionId ?? '', message.trim(), cell);
        await sidebar.controller.send(message);
      }
    }
  });

  /** Show the notebook's own session in the sidebar (made on first use); false, saying why, when it cannot. */
  async function inNotebookSession(path: string): Promise<boolean> {
    try {
      await openNotebookSession(sidebar.controller, path);
      return true;
    } catch (error: unknown) {
      Notification.error(`Prime cannot open the session of ${path}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  for (const command of Object.values(CommandIDs)) {
    palette?.addItem({ command, category: 'Prime' });
  }
  app.contextMenu.addItem({ command: CommandIDs.askCell, selector: '.jp-Notebook .jp-Cell', rank: 20 });
  app.contextMenu.addItem({ command: CommandIDs.explainError, selector: '.jp-Notebook .jp-CodeCell', rank: 21 });
  commands.addKeyBinding({ command: CommandIDs.abort, keys: ['Escape'], selector: '.jp-PrimePanel' });
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'prime-jupyter:plugin',
  description: 'A Jupyter-native AI agent: the Prime chat panel.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [ICommandPalette, ILayoutRestorer, ILabShell],
  activate
};

export default plugin;
