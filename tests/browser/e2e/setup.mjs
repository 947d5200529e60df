/**
 * End-to-end driver of the first start without a provider (issue 31 item 11): the banner offers the
 * provider form; a wrong key's Test shows the provider's error, the right one's its answer; Save makes
 * new sessions run on it, and the first prompt is answered. Same command line and report as
 * `panel.mjs`; the pytest side is tests/browser/test_panel_setup_e2e.py, which queues the turns.
 */
import { PANEL, WAIT, play } from './lab.mjs';

const FORM = `${PANEL} .jp-PrimeProviders`;
const RESULT = `${FORM} .jp-PrimeProviders-result`;

/** Wait until the form's result line settles (not "Testing…"/"Saving…") and return it. */
async function result(lab) {
  await lab.page.waitForFunction(sel => {
    const node = document.querySelector(sel);
    return node && (node.dataset.state === 'ok' || node.dataset.state === 'error');
  }, RESULT, { timeout: WAIT });
  return lab.page.evaluate(sel => {
    const node = document.querySelector(sel);
    return { state: node.dataset.state, text: node.textContent };
  }, RESULT);
}

const scenarios = {
  async setup(lab, { wrongKey, key, baseUrl, prompt, expect }) {
    await lab.open();
    await lab.ready();
    const banner = lab.page.locator(`${PANEL} .jp-PrimeBanner`);
    await banner.locator('.jp-PrimeBanner-setUp').waitFor({ timeout: WAIT });
    const bannerBefore = await banner.innerText();
    await lab.shot('60-setup-no-provider');
    await banner.locator('.jp-PrimeBanner-setUp').click();
    await lab.page.waitForSelector(`${FORM}:visible`);
    const kind = await lab.page.inputValue(`${FORM} .jp-PrimeProviders-kind`);
    await lab.page.fill(`${FORM} .jp-PrimeProviders-key`, wrongKey);
    await lab.page.fill(`${FORM} .jp-PrimeProviders-baseUrl`, baseUrl);
    await lab.page.click(`${FORM} .jp-PrimeProviders-test`);
    const refused = await result(lab);
    await lab.shot('61-setup-test-refused');
    await lab.page.fill(`${FORM} .jp-PrimeProviders-key`, key);
    await lab.page.click(`${FORM} .jp-PrimeProviders-test`);
    const tested = await result(lab);
    await lab.shot('62-setup-test-ok');
    await lab.page.click(`${FORM} .jp-PrimeProviders-save`);
    await lab.page.waitForFunction(sel => document.querySelector(sel)?.textContent.startsWith('Saved'), RESULT, { timeout: WAIT });
    const saved = await result(lab);
    await lab.page.waitForSelector(`${PANEL} .jp-PrimeBanner`, { state: 'hidden', timeout: WAIT });
    const keyField = await lab.page.inputValue(`${FORM} .jp-PrimeProviders-key`);
    const keyPlaceholder = await lab.page.getAttribute(`${FORM} .jp-PrimeProviders-key`, 'placeholder');
    await lab.shot('63-setup-saved');
    await lab.page.click(`${FORM} .jp-PrimeProviders-close`);
    await lab.newSession();
    await lab.send(prompt);
    await lab.waitForAnswer(expect);
    await lab.idle();
    await lab.shot('64-setup-first-answer');
    const html = await lab.page.content();
    return { bannerBefore, kind, refused, tested, saved, keyField, keyPlaceholder, answer: await lab.lastAnswer(), keyInPage: html.includes(key) };
  }
};

await play(scenarios);
