/**
 * An image of the conversation (a plot, an image part, a picture in an answer) enlarged in a modal
 * dialog over the page: a sidebar shows plots at its own width, which is little. A click on the image,
 * the backdrop or the close button, or Escape, closes it.
 */
import { button, h } from './dom';

/** Open `image` enlarged; resolves once the dialog is closed. */
export function openLightbox(image: HTMLImageElement): Promise<void> {
  const dialog = h('dialog', 'jp-PrimeLightbox');
  dialog.setAttribute('aria-label', image.alt || 'Image');
  const big = h('img', 'jp-PrimeLightbox-image');
  big.src = image.currentSrc || image.src;
  big.alt = image.alt;
  const head = h('div', 'jp-PrimeLightbox-head');
  head.appendChild(button({ label: '×', title: 'Close (Escape)', className: 'jp-PrimeLightbox-close', onClick: () => dialog.close() }));
  dialog.append(head, big);
  // JupyterLab handles keys on the document (in the capture phase): Escape is caught before it.
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      dialog.close();
    }
  };
  window.addEventListener('keydown', onKey, true);
  dialog.addEventListener('click', event => {
    if (event.target === dialog || event.target === big) {
      dialog.close();
    }
  });
  document.body.appendChild(dialog);
  dialog.showModal();
  return new Promise(resolve => {
    dialog.addEventListener('close', () => {
      window.removeEventListener('keydown', onKey, true);
      dialog.remove();
      resolve();
    });
  });
}

/** Whether a click on `target` should enlarge it: an image that is not a link's. */
export function enlargeable(target: EventTarget | null): target is HTMLImageElement {
  return target instanceof HTMLImageElement && target.closest('a') === null;
}
