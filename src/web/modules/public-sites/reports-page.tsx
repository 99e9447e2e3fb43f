// /admin/signalements: the 'Signalements' panel on its own, for the referents (who have no
// requests board) and for anyone following a link to it. Other roles are told it is not theirs
// instead of meeting a refusal of the API.
import { Stack, Text } from '@mantine/core';
import { can } from '../../../shared/permissions';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { useSessionStore } from '../../session/session-store';
import { ReportsPanel } from './reports-panel';

export function ReportsPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'signalement.handle')) {
    return <PageMessage title="Signalements">Cette page est réservée aux administrateurs et aux référents de site.</PageMessage>;
  }
  return (
    <Stack gap="md">
      <div>
        <PageTitle>Signalements</PageTitle>
        <Text c="dimmed" size="sm">
          Les problèmes signalés par les usagers depuis la page publique des sites.
        </Text>
      </div>
      <ReportsPanel />
    </Stack>
  );
}
