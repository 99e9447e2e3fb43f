// /admin/demande/regles 'Règles des demandes' (ROLE_ADMIN): which entries raise which
// request and with what delay. A change applies to the entries saved after it; requests
// already raised keep their due date. One rule per trigger and value; a scheduled action that
// would lead back to its own trigger through the rules is not offered (the server refuses both).
import { useState } from 'react';
import { Button, Group, Modal, NumberInput, Select, Stack, Table, Text } from '@mantine/core';
import { QueryState } from '../../components/query-state';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { can } from '../../../shared/permissions';
import type { DemandeRule } from '../../../shared/schemas/requests';
import { RULE_DELAY_MAX, RULE_DELAY_MIN, ruleLoop } from '../../../shared/schemas/requests';
import { typeActionsQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { ConfirmFooter, ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { PageMessage } from '../../components/page-message';
import { CARDS_CLASS, WIDE_QUERY } from '../../components/card-table';
import { useMediaQuery } from '@mantine/hooks';
import { readFailure } from '../../lib/api';
import { refusalMessage } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { constantesQuery } from '../field-entry/public';
import { addRule, deleteRule, requestsKeys, rulesQuery, updateRule } from './requests.api';
import { PageTitle } from '../../components/page-title';

export function RulesPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'request.rules')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux administrateurs.</PageMessage>;
  return <RulesTable />;
}

type Editing = { rule: DemandeRule | null } | null;

function RulesTable() {
  const rules = useQuery(rulesQuery());
  const [editing, setEditing] = useState<Editing>(null);
  const [removing, setRemoving] = useState<DemandeRule | null>(null);
  const wide = useMediaQuery(WIDE_QUERY, undefined, { getInitialValueInEffect: false }) ?? true;
  return (
    <Stack maw={1000} mx="auto" gap="md">
      <Group justify="space-between" wrap="wrap">
        <PageTitle size="h2">Règles des demandes</PageTitle>
        <Button onClick={() => setEditing({ rule: null })}>Ajouter une règle</Button>
      </Group>
      <Text size="sm" c="dimmed">
        Une saisie qui correspond à une règle crée une demande d’intervention sur la même cellule, avec l’échéance date de la saisie + délai. Les changements
        s’appliquent aux saisies enregistrées ensuite ; les demandes déjà créées ne changent pas.
      </Text>
      <QueryState queries={[rules]} />
      {rules.data && (
        // On a phone the rules show as cards (components/card-table.ts), their buttons first.
        <Table.ScrollContainer minWidth={wide ? 640 : 0} className={wide ? undefined : CARDS_CLASS}>
          <Table striped withTableBorder aria-label="Règles des demandes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Action déclenchante</Table.Th>
                <Table.Th>Valeur</Table.Th>
                <Table.Th>Action à programmer</Table.Th>
                <Table.Th>Délai (jours)</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rules.data.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={5}>Aucune règle</Table.Td>
                </Table.Tr>
              )}
              {rules.data.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td data-label="Action déclenchante">{r.actionDeclenchante}</Table.Td>
                  <Table.Td data-label="Valeur">{r.constante ?? 'Toujours'}</Table.Td>
                  <Table.Td data-label="Action à programmer">{r.actionProgrammee}</Table.Td>
                  <Table.Td data-label="Délai (jours)">{r.delaiJours}</Table.Td>
                  <Table.Td data-actions="">
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="light" onClick={() => setEditing({ rule: r })} aria-label={`Modifier la règle ${r.actionDeclenchante} ${r.constante ?? ''}`.trim()}>
                        Modifier
                      </Button>
                      <Button size="xs" variant="light" color="red" onClick={() => setRemoving(r)} aria-label={`Supprimer la règle ${r.actionDeclenchante} ${r.constante ?? ''}`.trim()}>
                        Supprimer
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {editing && <RuleDialog rule={editing.rule} rules={rules.data ?? []} onClose={() => setEditing(null)} />}
      {removing && <RemoveDialog rule={removing} onClose={() => setRemoving(null)} />}
    </Stack>
  );
}

type RuleErrors = Partial<Record<'actionDeclenchante' | 'constante' | 'actionProgrammee' | 'delaiJours', string>>;

function RuleDialog({ rule, rules, onClose }: { rule: DemandeRule | null; rules: DemandeRule[]; onClose: () => void }) {
  const queryClient = useQueryClient();
  const typeActions = useQuery(typeActionsQuery());
  const constantes = useQuery(constantesQuery());
  const [trigger, setTrigger] = useState<string | null>(rule ? String(rule.idActionDeclenchante) : null);
  const [constante, setConstante] = useState<string | null>(rule?.idConstante ? String(rule.idConstante) : null);
  const [programmee, setProgrammee] = useState<string | null>(rule ? String(rule.idActionProgrammee) : null);
  const [delai, setDelai] = useState<number | string>(rule?.delaiJours ?? 7);
  const [errors, setErrors] = useState<RuleErrors>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const actions = typeActions.data ?? [];
  const triggerAction = actions.find((a) => String(a.id) === trigger);
  const constanteOptions = (constantes.data ?? []).filter((c) => String(c.idAction) === trigger).map((c) => ({ value: String(c.idConstante), label: c.constante }));
  // The scheduled action must be possible on a cell type the trigger can be recorded on, and
  // must not lead back to the trigger through the rules (requests calling each other forever).
  const programmeeOptions = actions.map((a) => {
    const loops = triggerAction !== undefined && ruleLoop(rules, { actionDeclenchante: triggerAction.id, actionProgrammee: a.id }, rule?.id ?? null) !== null;
    return {
      value: String(a.id),
      label: loops ? `${a.libelle} (boucle)` : a.libelle,
      disabled: triggerAction ? loops || !a.typeBac.some((t) => triggerAction.typeBac.includes(t)) : false,
    };
  });

  const save = async () => {
    const found: RuleErrors = {};
    if (!trigger) found.actionDeclenchante = "L'action déclenchante est obligatoire";
    if (!programmee) found.actionProgrammee = "L'action à programmer est obligatoire";
    const n = typeof delai === 'number' ? delai : NaN;
    if (!Number.isInteger(n) || n < RULE_DELAY_MIN || n > RULE_DELAY_MAX) found.delaiJours = `Le délai doit être un nombre entier de jours entre ${RULE_DELAY_MIN} et ${RULE_DELAY_MAX}`;
    setErrors(found);
    if (Object.keys(found).length > 0) return setBanner('Veuillez renseigner les champs obligatoires');
    setSaving(true);
    setBanner(null);
    const input = { actionDeclenchante: Number(trigger), constante: constante ? Number(constante) : null, actionProgrammee: Number(programmee), delaiJours: n };
    try {
      const res = rule ? await updateRule(rule.id, input) : await addRule(input);
      notifySuccess(res.message);
      await queryClient.invalidateQueries({ queryKey: requestsKeys.rules });
      onClose();
    } catch (e) {
      const failure = await readFailure(e);
      const fields: RuleErrors = {};
      for (const err of failure.errors) if (err.key in { actionDeclenchante: 1, constante: 1, actionProgrammee: 1, delaiJours: 1 }) fields[err.key as keyof RuleErrors] ??= err.error;
      setErrors(fields);
      setBanner(refusalMessage(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={rule ? 'Modifier la règle' : 'Ajouter une règle'} centered>
      <Stack gap="sm">
        <ErrorBanner message={banner} />
        <Select
          label="Action déclenchante"
          withAsterisk
          searchable
          data={actions.map((a) => ({ value: String(a.id), label: a.libelle }))}
          value={trigger}
          onChange={(v) => {
            setTrigger(v);
            setConstante(null);
          }}
          error={errors.actionDeclenchante}
        />
        <Select
          label="Valeur qui déclenche"
          placeholder="Toujours"
          clearable
          disabled={constanteOptions.length === 0}
          data={constanteOptions}
          value={constante}
          onChange={setConstante}
          error={errors.constante}
        />
        <Select label="Action à programmer" withAsterisk searchable data={programmeeOptions} value={programmee} onChange={setProgrammee} error={errors.actionProgrammee} />
        <NumberInput label="Délai (jours)" withAsterisk min={RULE_DELAY_MIN} max={RULE_DELAY_MAX} allowDecimal={false} value={delai} onChange={setDelai} error={errors.delaiJours} />
        <FormDialogFooter saving={saving} onCancel={onClose} onSave={() => void save()} />
      </Stack>
    </Modal>
  );
}

function RemoveDialog({ rule, onClose }: { rule: DemandeRule; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setSaving(true);
    try {
      const res = await deleteRule(rule.id);
      notifySuccess(res.message);
      await queryClient.invalidateQueries({ queryKey: requestsKeys.rules });
      onClose();
    } catch (e) {
      const failure = await readFailure(e);
      setError(refusalMessage(failure));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title="Supprimer cette règle ?" centered>
      <Stack gap="md">
        <ErrorBanner message={error} />
        <Text size="sm">
          {rule.actionDeclenchante}
          {rule.constante ? ` (${rule.constante})` : ''} → {rule.actionProgrammee}, {rule.delaiJours} jours. Les demandes déjà créées ne sont pas supprimées.
        </Text>
        <ConfirmFooter saving={saving} onNo={onClose} onYes={() => void confirm()} />
      </Stack>
    </Modal>
  );
}
