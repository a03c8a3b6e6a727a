/**
 * A real browser for end-to-end tests: Debian's Chromium (`/usr/bin/chromium`, or
 * `STAMP_CHROMIUM`) driven by `playwright-core`, never a downloaded browser; accessibility checks
 * with axe-core; screenshots where CI keeps them (`artifacts/screenshots/`, or
 * `STAMP_SCREENSHOT_DIR`).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';

/** The Chromium binary the tests drive. */
export const CHROMIUM = process.env.STAMP_CHROMIUM ?? '/usr/bin/chromium';

/** Folder of the screenshots (kept after the run, for people to look at). */
export const SCREENSHOT_DIR =
  process.env.STAMP_SCREENSHOT_DIR ?? join(process.cwd(), 'artifacts', 'screenshots');

/**
 * Why browser tests cannot run here (no Chromium at {@link CHROMIUM}), or undefined when they can.
 * Suites skip with this reason printed.
 */
export function browserUnavailable(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `no Chromium at ${CHROMIUM} (install Debian's chromium package, or set STAMP_CHROMIUM)`;
}

/** Starts headless Chromium with the flags a closed network needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      // Headless Chromium sometimes never finishes the navigation of a sandboxed frame's srcdoc
      // when it runs that frame in a process of its own: the document is there, unlaid out,
      // and the frame never reaches its load events. The previews are such frames.
      '--disable-features=IsolateSandboxedIframes',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** One axe-core finding of impact serious or critical. */
export interface AccessibilityViolation {
  id: string;
  impact: string;
  help: string;
  /** CSS selectors of the offending elements (the first five). */
  targets: string[];
}

/**
 * The serious and critical accessibility violations of the page as it is now (axe-core, WCAG 2.0,
 * 2.1 and 2.2 A and AA rules and best practices). Frames sandboxed without scripts (previews of
 * users' emails) are left out: axe-core cannot run in them (their timers never fire, so the
 * analysis would never end), and they hold the users' content, not the page's.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .exclude('iframe[sandbox]:not([sandbox~="allow-scripts"])')
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')),
    }));
}

/** Writes a full-page screenshot `<name>.png` to {@link SCREENSHOT_DIR}; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Scripts run in the page by {@link keyboardUnreachable} (plain JavaScript: this package is
 * compiled without the DOM's types).
 */
const KEYBOARD_SCRIPTS = {
  /** Marks each visible, enabled control with `data-kbd-control`; answers their number. */
  mark: `(() => {
    const selector = 'a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=tab], [role=radio], [role=checkbox], [role=switch], [role=menuitem], [contenteditable=true]';
    let index = 0;
    for (const element of document.querySelectorAll(selector)) {
      const style = getComputedStyle(element);
      const box = element.getBoundingClientRect();
      const disabled = element.matches(':disabled') || element.getAttribute('aria-disabled') === 'true' || element.closest('[inert]') !== null;
      const visible = box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
      if (visible && !disabled) element.dataset.kbdControl = String(index++);
    }
    document.activeElement?.blur?.();
    return index;
  })()`,
  /** The mark of the focused control, or null. */
  focused: `(() => {
    const active = document.activeElement;
    const control = active?.closest('[data-kbd-control]') ?? active?.querySelector('[data-kbd-control]');
    return control?.dataset.kbdControl ?? null;
  })()`,
  /** The controls not reached (given the reached marks), described; removes the marks. */
  missing: (reached: string[]): string => `((reached) => {
    const seen = new Set(reached);
    const groupOf = (element) => element.closest('[role=radiogroup], [role=tablist], [role=menu], [role=group]');
    const controls = [...document.querySelectorAll('[data-kbd-control]')];
    const reachedGroups = new Set(controls.filter((element) => seen.has(element.dataset.kbdControl)).map(groupOf).filter(Boolean));
    const missing = [];
    for (const element of controls) {
      const role = element.getAttribute('role');
      const grouped = ['radio', 'tab', 'menuitem'].includes(role ?? '') || element.type === 'radio';
      const group = groupOf(element);
      if (!seen.has(element.dataset.kbdControl) && !(grouped && group !== null && reachedGroups.has(group))) {
        const name = element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 40) ?? '';
        missing.push(element.tagName.toLowerCase() + (role === null ? '' : '[role=' + role + ']') + ' "' + name + '"');
      }
      delete element.dataset.kbdControl;
    }
    return missing;
  })(${JSON.stringify(reached)})`,
};

/**
 * The visible, enabled controls of the page that pressing Tab never reaches (at most 400 presses),
 * described by their tag, role and name; empty when every action is reachable by keyboard. A
 * group of radios, tabs or menu items counts as reached when one of its members is (arrow keys
 * move within such a group, WAI-ARIA Authoring Practices).
 */
export async function keyboardUnreachable(page: Page): Promise<string[]> {
  const total = await page.evaluate<number>(KEYBOARD_SCRIPTS.mark);
  const reached = new Set<string>();
  for (let press = 0; press < Math.min(400, total * 2 + 10); press++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate<string | null>(KEYBOARD_SCRIPTS.focused);
    if (id !== null) reached.add(id);
  }
  return page.evaluate<string[]>(KEYBOARD_SCRIPTS.missing([...reached]));
}
