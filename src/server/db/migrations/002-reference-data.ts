// Reference rows whose ids are part of the API contract. Statuses, cell types, actions, user
// types and roles are those of src/shared/domain.ts (where the code reads them) as they were
// when this migration was released; a later change of reference data is a new migration.

export const up = `
INSERT INTO type_user (id, libelle) VALUES (1, 'Particulier'), (2, 'Organisme'), (3, 'Prestataire');

INSERT INTO role (id, code, libelle) VALUES
  (1, 'ROLE_ADMIN', 'ROLE_ADMIN'),
  (2, 'ROLE_ADMIN_SITE', 'ROLE_ADMIN_SITE'),
  (3, 'ROLE_ADMIN_USER', 'ROLE_ADMIN_USER'),
  (4, 'ROLE_ADMIN_ROLE', 'ROLE_ADMIN_ROLE'),
  (5, 'ROLE_ADMIN_COMPOSTEUR', 'ROLE_ADMIN_COMPOSTEUR'),
  (6, 'ROLE_ADMIN_UPDATE', 'ROLE_ADMIN_UPDATE'),
  (7, 'ROLE_ADMIN_DELETE', 'ROLE_ADMIN_DELETE'),
  (8, 'ROLE_USER', 'ROLE_USER'),
  (9, 'ROLE_PRESTATAIRE', 'ROLE_PRESTATAIRE');

INSERT INTO type_bac (id, libelle) VALUES (1, 'Apport'), (2, 'Broyat'), (3, 'Maturation');

INSERT INTO statut (id, libelle) VALUES
  (1, 'Actif'), (2, 'Demande'), (3, 'En attente'), (4, 'Programmée'), (5, 'Réalisée'), (6, 'Annulée');

INSERT INTO type_action (id, libelle, valeur, value_kind, stats_series) VALUES
  (1, 'Retournement', false, 'none', 'retournement'),
  (2, 'Brassage', false, 'none', NULL),
  (3, 'Transfert', true, 'transfer', 'transfert'),
  (4, 'Vider la cellule', true, 'litres', 'viderBac'),
  (5, 'Nettoyage du site', false, 'none', NULL),
  (6, 'Température', true, 'temperature', 'temperature'),
  (7, 'Niveau de broyat', true, 'constant', NULL),
  (8, 'État du broyat', true, 'constant', NULL),
  (9, 'État du composteur', true, 'constant', NULL),
  (10, 'Prélèvement', true, 'litres', NULL),
  (11, 'Distribution de compost', true, 'litres', 'distribution'),
  (12, 'Apport de broyat', true, 'litres', 'apportBroyat'),
  (13, 'Autre intervention', false, 'none', NULL),
  (14, 'Réparation effectuée', true, 'text', 'reparation'),
  (15, 'Arrosage', true, 'litres', 'arrosage'),
  (16, 'Niveau d''apport', true, 'constant', NULL),
  (17, 'Tamisage', true, 'litres', 'tamisage'),
  (18, 'Réparation à effectuer', true, 'text', NULL),
  (19, 'Niveau de matière', true, 'constant', NULL);

INSERT INTO type_action_type_bac (type_action_id, type_bac_id) VALUES
  (1, 1), (1, 3), (2, 1), (3, 1), (4, 1), (4, 2), (4, 3), (5, 1), (5, 2), (5, 3), (6, 1), (6, 3), (7, 2), (8, 2), (9, 1), (9, 2), (9, 3), (10, 3), (11, 3), (12, 2), (13, 1), (13, 2), (13, 3), (14, 1), (14, 2), (14, 3), (15, 1), (15, 3), (16, 1), (17, 3), (18, 1), (18, 2), (18, 3), (19, 3);

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
