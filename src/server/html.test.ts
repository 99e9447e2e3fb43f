import { describe, expect, it } from 'vitest';
import { escapeHtml } from './html.js';

describe('escapeHtml', () => {
  it('turns the characters that open a tag or end an attribute into entities, and only those', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jérôme</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jérôme&lt;/a&gt;');
    expect(escapeHtml('Compost – 12,5 °C')).toBe('Compost – 12,5 °C');
  });
});
