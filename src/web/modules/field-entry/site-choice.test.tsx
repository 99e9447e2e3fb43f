import { describe, expect, it } from 'vitest';
import { groupSitesByVille } from './site-choice-page';

describe("the 'Choix du site' list", () => {
  it('names two sites sharing their first 60 characters apart, code first and nothing cut', () => {
    const prefix = 'Jardin partagé de la résidence des Capucins, entrée principa';
    expect(prefix).toHaveLength(60);
    const site = { adresse: `${prefix}le`, numero: null, ville: 'Brest', cp: '29200' };
    const [group] = groupSitesByVille([
      { ...site, id: 2, code: 'QUA002', nom: `${prefix}le sud` },
      { ...site, id: 1, code: 'QUA001', nom: `${prefix}le nord` },
    ]);
    // Mantine's options wrap (overflow-wrap: break-word): the whole label shows, its code first.
    expect(group.items).toEqual([
      { value: '1', label: `QUA001 - ${prefix}le (${prefix}le nord)` },
      { value: '2', label: `QUA002 - ${prefix}le (${prefix}le sud)` },
    ]);
  });
});
