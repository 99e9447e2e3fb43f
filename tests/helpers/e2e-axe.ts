// Accessibility check of the screen on display (axe-core through Playwright): the WCAG 2.x A and
// AA rules, with every serious or critical violation reported by rule, target and screen.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * The serious and critical WCAG A/AA violations of what `page` shows now.
 *
 * Legacy mode runs axe in the page itself. The default mode gathers each frame's results in a
 * blank page it opens for the purpose, which doubled the time of every check (1.2 s against
 * 0.6 s a screen) and tested nothing more here: no screen of the application holds a frame
 * from another origin, the one kind legacy mode leaves out.
 *
 * Every rule still runs; `resultTypes` only spares axe describing each element that passes a
 * rule (one example each instead of every one), which is what the page sent back before.
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .options({ resultTypes: ['violations'] })
    .setLegacyMode(true)
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}

/** Fails with the list of serious or critical violations of the screen, named by `screen`. */
export async function expectAccessible(page: Page, screen: string) {
  const findings = await axeFindings(page);
  expect(findings, `${screen}: ${JSON.stringify(findings, null, 2)}`).toEqual([]);
}
