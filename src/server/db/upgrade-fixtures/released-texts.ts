// Migration texts as releases shipped them, before their SQL was reflowed. Databases installed
// from those releases ran these texts, never today's: src/server/db/upgrade.test.ts applies them
// and checks that such a database, once upgraded, equals a fresh install.
//
// Each old text is today's text with a few edits put back (`today` -> `then`); `sha256` is the
// hash of the released text, so a fixture that no longer reproduces it fails the test. The edits
// only move line breaks: outside a function body PostgreSQL does not keep them, inside one
// (023's intervention_stats_truncate) it does, until migration 028 replaces that function.

export interface ReleasedText {
  id: number;
  /** The releases (commits) that shipped this text. */
  releases: string;
  sha256: string;
  edits: { today: string; then: string }[];
}

export const RELEASED_TEXTS: ReleasedText[] = [
  {
    id: 2,
    releases: 'a528bee to c5887e0',
    sha256: '2c43a620d8f837528da1fce51b1bc48a7f726bc0d7157afa8847d03f459deec0',
    edits: [
      {
        today:
          '  (1, 1), (1, 3), (2, 1), (3, 1), (4, 1), (4, 2), (4, 3), (5, 1), (5, 2), (5, 3), (6, 1), (6, 3), (7, 2), (8, 2), (9, 1), (9, 2), (9, 3), (10, 3), (11, 3), (12, 2), (13, 1), (13, 2), (13, 3), (14, 1), (14, 2), (14, 3), (15, 1), (15, 3), (16, 1), (17, 3), (18, 1), (18, 2), (18, 3), (19, 3);',
        then:
          '  (1, 1), (1, 3), (2, 1), (3, 1), (4, 1), (4, 2), (4, 3), (5, 1), (5, 2), (5, 3),\n' +
          '  (6, 1), (6, 3), (7, 2), (8, 2), (9, 1), (9, 2), (9, 3), (10, 3), (11, 3), (12, 2),\n' +
          '  (13, 1), (13, 2), (13, 3), (14, 1), (14, 2), (14, 3), (15, 1), (15, 3), (16, 1),\n' +
          '  (17, 3), (18, 1), (18, 2), (18, 3), (19, 3);',
      },
    ],
  },
  {
    id: 8,
    releases: '98f3e66 to c5887e0',
    sha256: 'd81914ef6e0a83fcb5fd0c2b6ac080b595a8e304f600dfcd64c18b42d6c3bbb3',
    edits: [
      {
        today: '  REFERENCING OLD TABLE AS old_cells NEW TABLE AS new_cells FOR EACH STATEMENT',
        then: '  REFERENCING OLD TABLE AS old_cells NEW TABLE AS new_cells\n  FOR EACH STATEMENT',
      },
      {
        today: 'ON intervention\n  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT',
        then: 'ON intervention REFERENCING NEW TABLE AS new_rows\n  FOR EACH STATEMENT',
      },
      {
        today: 'ON intervention\n  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT',
        then: 'ON intervention REFERENCING OLD TABLE AS old_rows\n  FOR EACH STATEMENT',
      },
      {
        today: 'ON intervention\n  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT',
        then: 'ON intervention REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows\n  FOR EACH STATEMENT',
      },
    ],
  },
  {
    id: 23,
    releases: '81954df to 01b4e2d',
    sha256: 'f49bcd3446959488e5ced346944b4c616f529bfccb2dd8b52bc2252c2dc5a804',
    edits: [
      {
        today: 'intervention_stats_site_mois, intervention_stats_jour_reseau;\n  RETURN NULL;',
        then: 'intervention_stats_site_mois,\n    intervention_stats_jour_reseau;\n  RETURN NULL;',
      },
    ],
  },
];

/** The released text: today's with the edits put back; each edit must match exactly once. */
export function releasedText(today: string, fixture: ReleasedText): string {
  return fixture.edits.reduce((text, { today: now, then }) => {
    if (text.split(now).length !== 2) throw new Error(`migration ${fixture.id}: "${now}" is not in today's text exactly once`);
    return text.replace(now, () => then);
  }, today);
}
