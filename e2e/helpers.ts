import { expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

/** WCAG 2.2 AA checks with axe (perf-reliability.md §6); returns the violations for a readable failure. */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  const r = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const summary = r.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
  );
  expect(summary).toEqual([]);
}

/** Waits for the page's body id (spec §2: every page sets PRE0000x). */
export async function expectBodyId(page: Page, id: string): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.body.id)).toBe(id);
}
