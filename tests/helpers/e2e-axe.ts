// Accessibility check of the screen on display (axe-core run in the page): the WCAG 2.x A and AA
// rules, with every serious or critical violation reported by rule, target and screen.
import axe from 'axe-core';
import { expect, type Page } from '@playwright/test';

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

type AxeWindow = { axe?: typeof axe };

/**
 * The serious and critical WCAG A/AA violations of what `page` shows now.
 *
 * axe-core runs in the page itself, loaded once per document: the journeys move between screens
 * through the router, in one document, and a check on a screen already loaded costs 0.4-0.7 s
 * where loading axe-core's 500 kB again before each check (as a Playwright wrapper does, three
 * times a check) made it 0.8-1.3 s. No screen of the application holds a frame: the main
 * document is all there is to check.
 *
 * Every rule of the tags runs; `resultTypes` only spares axe describing each element that passes
 * a rule (one example each instead of every one).
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (window as AxeWindow).axe?.run === 'function');
  if (!loaded) await page.evaluate(axe.source);
  return page.evaluate(async (tags) => {
    const results = await (window as AxeWindow).axe!.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ rule: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  }, TAGS);
}

/** Fails with the list of serious or critical violations of the screen, named by `screen`. */
export async function expectAccessible(page: Page, screen: string) {
  const findings = await axeFindings(page);
  expect(findings, `${screen}: ${JSON.stringify(findings, null, 2)}`).toEqual([]);
}
