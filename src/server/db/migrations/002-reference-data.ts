// Reference rows whose ids are part of the API contract. Statuses, cell types, actions, user
// types and roles come from src/shared/domain.ts, where the code reads them too.
import { ACTIONS, ROLES, STATUTS, TYPE_BACS, TYPE_USERS } from '../../../shared/domain.js';

const text = (value: string) => `'${value.replaceAll("'", "''")}'`;
const idLibelle = (rows: readonly { id: number; libelle: string }[]) => rows.map((r) => `(${r.id}, ${text(r.libelle)})`).join(', ');

export const up = `
INSERT INTO type_user (id, libelle) VALUES ${idLibelle(TYPE_USERS)};

INSERT INTO role (id, code, libelle) VALUES
${ROLES.map((code, i) => `  (${i + 1}, ${text(code)}, ${text(code)})`).join(',\n')};

INSERT INTO type_bac (id, libelle) VALUES ${idLibelle(TYPE_BACS)};

INSERT INTO statut (id, libelle) VALUES
  ${idLibelle(STATUTS)};

INSERT INTO type_action (id, libelle, valeur, value_kind, stats_series) VALUES
${ACTIONS.map((a) => `  (${a.id}, ${text(a.libelle)}, ${a.valueKind !== 'none'}, ${text(a.valueKind)}, ${a.statsSeries === null ? 'NULL' : text(a.statsSeries)})`).join(',\n')};

INSERT INTO type_action_type_bac (type_action_id, type_bac_id) VALUES
  ${ACTIONS.flatMap((a) => a.typeBacs.map((t) => `(${a.id}, ${t})`)).join(', ')};

INSERT INTO type_action_constante (id_constante, constante, id_action) VALUES
  (1, 'Vide', 7), (1, 'Vide', 16), (1, 'Vide', 19),
  (2, '1/4', 7), (2, '1/4', 16), (2, '1/4', 19),
  (3, '1/2', 7), (3, '1/2', 16), (3, '1/2', 19),
  (4, '3/4', 7), (4, '3/4', 16), (4, '3/4', 19),
  (5, 'Plein', 7), (5, 'Plein', 16), (5, 'Plein', 19),
  (6, 'Sec', 8), (7, 'Correct', 8), (8, 'Humide', 8), (9, 'Moisi', 8),
  (10, 'Bon état', 9), (11, 'Usé', 9), (12, 'Endommagé', 9);

INSERT INTO demande_rule (type_action_declenchante_id, id_constante, type_action_programmee_id, delai_jours) VALUES
  (18, NULL, 14, 14),
  (9, 12, 14, 14),
  (16, 4, 3, 7),
  (16, 5, 3, 7),
  (7, 1, 12, 7),
  (7, 2, 12, 7),
  (19, 5, 17, 30);

INSERT INTO type_site (libelle, code) VALUES
  ('Pied d''immeuble', 'PIM'), ('Quartier', 'QUA'), ('Établissement scolaire', 'SCO'), ('Jardin partagé', 'JAR');

INSERT INTO type_composteur (volume, precisions) VALUES
  (400, 'Bac bois 400 L'), (600, 'Bac bois 600 L'), (800, 'Bac bois 800 L'), (1000, 'Bac bois 1000 L');
`;
