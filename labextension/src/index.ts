/**
 * JupyterLab entry point of prime-jupyter: registers the "Prime" panel in
 * the left sidebar.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { LabIcon } from '@jupyterlab/ui-components';

import { PrimePanel } from './panel';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M12 2l2.9 6.9L22 10l-5.5 4.8L18.2 22 12 18.3 5.8 22l1.7-7.2L2 10l7.1-1.1z"/>' +
  '</svg>';

const primeIcon = new LabIcon({ name: 'prime-jupyter:prime', svgstr: ICON_SVG });

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'prime-jupyter:plugin',
  description: 'A Jupyter-native AI agent: the Prime sidebar panel.',
  autoStart: true,
  activate: (app: JupyterFrontEnd): void => {
    const panel = new PrimePanel();
    panel.title.icon = primeIcon;
    panel.title.caption = 'Prime';
    app.shell.add(panel, 'left', { rank: 900 });
    void panel.refresh();
  }
};

export default plugin;
