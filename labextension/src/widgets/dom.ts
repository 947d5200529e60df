/** Tiny DOM helpers shared by the widgets (no framework: the panel renders plain DOM and Lumino widgets). */
import { LabIcon } from '@jupyterlab/ui-components';

/** An element with a class and, optionally, its text. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export interface IButtonOptions {
  readonly label?: string;
  readonly title: string;
  readonly icon?: LabIcon;
  readonly className?: string;
  readonly onClick: (event: MouseEvent) => void;
}

/** A Lab-styled button: an icon, a label, or both; `title` doubles as the accessible name. */
export function button(options: IButtonOptions): HTMLButtonElement {
  const node = h('button', `jp-PrimePanel-button jp-Button jp-mod-minimal ${options.className ?? ''}`.trim());
  node.type = 'button';
  node.title = options.title;
  node.setAttribute('aria-label', options.title);
  if (options.icon) {
    options.icon.element({ container: node.appendChild(h('span', 'jp-PrimePanel-buttonIcon')), tag: 'span' });
  }
  if (options.label) {
    node.appendChild(h('span', 'jp-PrimePanel-buttonLabel', options.label));
  }
  node.addEventListener('click', event => {
    event.stopPropagation();
    options.onClick(event);
  });
  return node;
}

/** A markdown code fence around `code`, longer than any backtick run inside it. */
export function fence(code: string, language = ''): string {
  const longest = Math.max(2, ...Array.from(code.matchAll(/`+/g), m => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${code}\n${ticks}`;
}

/** The language of a file for highlighting, from its extension. */
export function languageOf(path: string): string {
  const ext = path.split('.').pop()?.toLowerCase() ?? '';
  const known: Readonly<Record<string, string>> = {
    py: 'python', ipynb: 'json', js: 'javascript', ts: 'typescript', tsx: 'typescript', json: 'json',
    md: 'markdown', sh: 'bash', bash: 'bash', yml: 'yaml', yaml: 'yaml', toml: 'toml', css: 'css',
    html: 'html', sql: 'sql', r: 'r', c: 'c', h: 'c', cpp: 'cpp', rs: 'rust', go: 'go', java: 'java'
  };
  return known[ext] ?? '';
}
